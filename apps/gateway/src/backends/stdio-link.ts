import { spawn } from 'node:child_process';
import {
  JsonRpcConnection as Connection,
  createServer,
  type JsonRpcConnection,
  method,
  StdioTransport,
} from '@mcpkit/protocol';
import type { StdioBackendConfig } from '../config.js';
import type { BackendLink, LinkEvents, LinkExit } from './link.js';

const FORWARDED = [
  'notifications/message',
  'notifications/progress',
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
  'notifications/cancelled',
];

/** Grace periods when stopping: EOF on stdin, then SIGTERM to the group, then SIGKILL. */
const EOF_GRACE_MS = 1500;
const TERM_GRACE_MS = 1500;

/**
 * A backend as a child process speaking MCP on stdio. The child leads its own process group,
 * so stopping it kills whatever it started too; it is always reaped.
 */
export function startStdioLink(config: StdioBackendConfig, events: LinkEvents): BackendLink {
  const child = spawn(config.command, config.args, {
    cwd: config.cwd,
    env: { ...process.env, ...config.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let resolveExit!: (exit: LinkExit) => void;
  const exited = new Promise<LinkExit>((resolve) => {
    resolveExit = resolve;
  });
  let gone = false;
  const finish = (exit: LinkExit) => {
    if (gone) return;
    gone = true;
    resolveExit(exit);
  };
  // Without an 'error' listener a failed spawn (ENOENT) would crash the gateway.
  child.once('error', (err) => finish({ code: null, signal: null, error: err.message }));
  child.once('exit', (code, signal) => finish({ code, signal }));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => events.stderr(chunk));
  child.stdin.on('error', () => {});

  const dispatcher = createServer(
    // Requests a backend may send the gateway: answered here, not forwarded (see README).
    method('ping', () => ({})),
    method('roots/list', () => ({ roots: [] })),
    // Asked of the client on whose behalf the backend is working (see Gateway).
    ...['sampling/createMessage', 'elicitation/create'].map((name) =>
      method(name, (params) => events.request(name, params as Record<string, unknown> | undefined)),
    ),
    ...FORWARDED.map((name) =>
      method(name, (params) => {
        events.notification(name, params as Record<string, unknown> | undefined);
      }),
    ),
  );
  const connection: JsonRpcConnection = new Connection({
    transport: new StdioTransport({
      input: child.stdout,
      output: child.stdin,
      endOutputOnClose: true,
    }),
    dispatcher,
    requestTimeoutMs: 0,
    onInvalidFrame: (text) => events.noise(text),
    onAbandon: (id, _method, reason) => {
      try {
        connection.notify('notifications/cancelled', {
          requestId: id,
          reason: `gateway ${reason}`,
        });
      } catch {
        // connection already closed
      }
    },
  }).start();
  // A connection that ends (stdout closed) means the backend is gone even if it lingers.
  void connection.closed.then(() => {
    if (!gone) killGroup(child.pid, 'SIGTERM');
  });

  const killGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  };

  const waitExit = (ms: number) =>
    Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);

  return {
    pid: child.pid,
    exited,
    request: (name, params, options) => connection.request(name, params, options),
    notify: (name, params) => connection.notify(name, params),
    async close() {
      if (!gone) {
        void connection.close();
        if (!(await waitExit(EOF_GRACE_MS))) {
          killGroup(child.pid, 'SIGTERM');
          if (!(await waitExit(TERM_GRACE_MS))) {
            killGroup(child.pid, 'SIGKILL');
            await exited;
          }
        }
      }
      // The group may hold grandchildren that outlived their parent.
      killGroup(child.pid, 'SIGKILL');
    },
  };
}
