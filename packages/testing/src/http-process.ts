import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  McpClient,
  type McpClientOptions,
  type ProcessExit,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { killGroup } from './processes.js';
import { type ProcessOptions, start, stop, until } from './spawn.js';

/** How {@link spawnHttpServer} starts a server and finds where it listens. */
export interface HttpProcessOptions extends ProcessOptions {
  /** How long the server may take to log its URL. Default 20 000 ms. */
  timeoutMs?: number;
  /**
   * Finds the server's origin in what it wrote to stderr so far: a RegExp whose group 1 is the
   * URL, or a function returning it (undefined: not yet). Default: the `"url":"http://…"` field
   * of the "serving MCP over HTTP" log line every mcpkit app writes.
   */
  urlFrom?: RegExp | ((stderr: string) => string | undefined);
}

/** An HTTP server in a child process, listening, as {@link spawnHttpServer} started it. */
export interface HttpProcess {
  /** The child process (its stdio are pipes; stdout is drained). */
  readonly child: ChildProcessWithoutNullStreams;
  /** Its process id. */
  readonly pid: number;
  /** What the server logged, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited and its output is read. */
  readonly exited: Promise<ProcessExit>;
  /**
   * An initialized McpClient over Streamable HTTP to `url` + `path` (default `/mcp`); `stop()`
   * closes it first.
   */
  connect(
    options?: McpClientOptions & Pick<StreamableHttpClientOptions, 'headers'> & { path?: string },
  ): Promise<McpClient>;
  /** Close its clients, then SIGTERM, SIGKILL after `graceMs` (default 5 000); the exit. */
  stop(graceMs?: number): Promise<ProcessExit>;
  /** Send a signal now (default SIGKILL) — to the whole group when started `detached`. */
  kill(signal?: NodeJS.Signals): void;
}

const URL_FIELD = /"url":"(https?:\/\/[^"/]+)/;

/**
 * Start a server that listens on HTTP (`… --transport http --port 0`) and resolve once it has
 * logged where: the URL, the process, a factory of Streamable HTTP clients, and a `stop()`.
 * Rejects — and kills it — when it exits first or says nothing within `timeoutMs`, with its
 * stderr in the message.
 *
 * @example
 * ```ts
 * const app = await spawnHttpServer(process.execPath, [CLI, '--transport', 'http', '--port', '0']);
 * const { body } = await postJson(`${app.url}/`, { jsonrpc: '2.0', id: 1, method: 'ping' });
 * const client = await app.connect({ headers: { Authorization: `Bearer ${key}` } });
 * await app.stop();
 * ```
 */
export async function spawnHttpServer(
  command: string,
  args: readonly string[],
  options: HttpProcessOptions = {},
): Promise<HttpProcess> {
  const { timeoutMs = 20_000, urlFrom = URL_FIELD, ...processOptions } = options;
  const find =
    typeof urlFrom === 'function' ? urlFrom : (stderr: string) => urlFrom.exec(stderr)?.[1];
  const started = start(command, args, processOptions);
  const { child } = started;
  const detached = processOptions.detached ?? false;
  // Nobody reads stdout: keep it flowing so the server never blocks on a full pipe.
  child.stdout.resume();
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (detached) killGroup(child.pid, signal);
    else child.kill(signal);
  };
  let url: string;
  try {
    url = await until(
      started,
      'URL logged',
      () => {
        const found = find(started.stderr());
        if (found) return found;
        const exit = started.exit;
        if (exit) throw new Error(`exited before listening (${JSON.stringify(exit)})`);
        return undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    kill();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`${command} ${args.join(' ')}: ${reason}\n--- stderr ---\n${started.stderr()}`);
  }
  const clients = new Set<McpClient>();
  return {
    child,
    pid: child.pid as number,
    url,
    stderr: started.stderr,
    exited: started.exited,
    async connect({ path = '/mcp', headers, ...clientOptions } = {}) {
      const transport = new StreamableHttpClientTransport({
        url: `${url}${path}`,
        ...(headers ? { headers } : {}),
      });
      const client = await McpClient.connect(transport, clientOptions);
      clients.add(client);
      return client;
    },
    async stop(graceMs = 5_000) {
      // A client of a server that is gone already gives up at once (its DELETE fails).
      await Promise.all([...clients].map((client) => client.close().catch(() => undefined)));
      clients.clear();
      return stop(started, 'SIGTERM', graceMs, detached);
    },
    kill,
  };
}
