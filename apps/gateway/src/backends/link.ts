import { withTraceContext } from '@mcpkit/observability';
import {
  type ClientTransport,
  type InitializeResult,
  McpClient,
  type OAuthClient,
  StdioClientTransport,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { isStdio, type RunnableBackendConfig } from '../config.js';
import type { Prestarted } from '../prestart.js';
import { VERSION } from '../version.js';
import { stdioSpec } from './spawn.js';

export { backendEnv } from './spawn.js';

export interface LinkExit {
  code: number | null;
  signal: string | null;
  error?: string;
}

/** A live connection to one started backend, stdio or HTTP, through an McpClient. */
export interface BackendLink {
  readonly client: McpClient;
  readonly pid: number | undefined;
  /** Resolves once, when the backend is gone (exit, crash, closed connection, lost session). */
  readonly exited: Promise<LinkExit>;
  /** Stop the backend and reap it; resolves when it is gone. */
  close(): Promise<void>;
}

export interface LinkEvents {
  notification(method: string, params: Record<string, unknown> | undefined): void;
  /** A request the backend sends the gateway (sampling, elicitation): resolves to its result. */
  request(method: string, params: Record<string, unknown> | undefined): Promise<unknown>;
  /** A line on stdout that is not JSON-RPC (a banner, a stray print). */
  noise(text: string): void;
  stderr(text: string): void;
}

/** The notifications a backend may send that the gateway acts on or routes to a client. */
const FORWARDED = new Set([
  'notifications/message',
  'notifications/progress',
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
  'notifications/cancelled',
]);

/**
 * Open a link to a backend: its transport (a child process in its own process group, or
 * Streamable HTTP) under an McpClient that routes what the backend sends back to `events`.
 * `connect` starts the transport and runs initialize; until then nothing happens.
 */
export function openLink(
  config: RunnableBackendConfig,
  events: LinkEvents,
  early?: Prestarted,
  /** An HTTP backend's sign-in: a person's OAuth grant at its authorization server. */
  oauth?: OAuthClient,
): { link: BackendLink; connect: (timeoutMs: number) => Promise<InitializeResult> } {
  const client = new McpClient({
    clientInfo: { name: 'mcpkit-gateway', version: VERSION },
    protocol: config.protocol,
    // With tracing on, a backend continues the trace of the call it serves (`_meta.traceparent`).
    propagate: withTraceContext,
    // A modern backend's list changes come through a subscriptions/listen the client keeps open,
    // as a 2025 session sends them unasked: the gateway refreshes its registry on either.
    listChanged: true,
    // A modern backend that needs input answers `input_required`: the gateway asks the client
    // whose call it is (see bridge.ts), never a guess by the backend's in-flight calls.
    inputRequired: 'manual',
    // Per-call deadlines come from the backend's timeoutMs (see Backend#call).
    timeoutMs: 0,
    // What the gateway can do for a backend: sampling and elicitation are asked of the client
    // whose call is in flight (see Gateway#onBackendRequest).
    capabilities: { sampling: {}, elicitation: {} },
    handlers: {
      sampling: (params) => events.request('sampling/createMessage', params) as never,
      elicitation: (params) => events.request('elicitation/create', params) as never,
      // Backends are not given the clients' roots (see README): an empty list, not an error.
      roots: () => [],
    },
    onInvalidFrame: (text) => events.noise(text),
    // A backend's result goes to the client as the backend wrote it, not serialized again (the
    // gateway never changes a result in place: ownResult copies when it must change one).
    relayResults: true,
  });
  client.on('*', (method, params) => {
    if (FORWARDED.has(method)) events.notification(method, params);
  });
  let resolveExit!: (exit: LinkExit) => void;
  const exited = new Promise<LinkExit>((resolve) => {
    resolveExit = resolve;
  });
  let closing = false;
  let transport: ClientTransport;
  let pid: () => number | undefined = () => undefined;
  if (early) {
    // Spawned before the gateway loaded (prestart.ts), from this very config.
    transport = early.adopt((chunk) => events.stderr(chunk));
    void early.process.exited.then((exit) => resolveExit(exit));
    pid = () => early.process.pid;
  } else if (isStdio(config)) {
    const stdio = new StdioClientTransport({
      ...stdioSpec(config),
      onStderr: (chunk) => events.stderr(chunk),
    });
    void stdio.exited.then((exit) => resolveExit(exit));
    transport = stdio;
    pid = () => stdio.pid;
  } else {
    transport = new StreamableHttpClientTransport({
      url: config.url,
      headers: config.headers,
      ...(oauth ? { oauth } : {}),
    });
  }
  const link: BackendLink = {
    client,
    get pid() {
      return pid();
    },
    exited,
    close: async () => {
      closing = true;
      await client.close();
      await transport.close();
      resolveExit({ code: 0, signal: null });
    },
  };
  const connect = (timeoutMs: number) => {
    const init = client.connect(transport, { timeoutMs });
    // An HTTP backend has no process: it is gone when its connection ends (a lost session, a
    // failed initialize) — cleanly only when the gateway closed it. A child's exit says more.
    void client.closed.then(() => {
      if (!closing && !isStdio(config)) {
        resolveExit({ code: null, signal: null, error: 'connection to the backend was lost' });
      }
    });
    return init;
  };
  return { link, connect };
}

/** Keeps the last `max` lines of a backend's stderr. */
export class RingBuffer {
  readonly #lines: string[] = [];
  #partial = '';
  constructor(readonly max = 200) {}

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // A single runaway line is cut, not kept whole.
    if (this.#partial.length > 8192) this.#partial = this.#partial.slice(-8192);
    for (const line of parts) {
      this.#lines.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
      if (this.#lines.length > this.max) this.#lines.shift();
    }
  }

  tail(n = 20): string[] {
    const lines = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return lines.slice(-n);
  }
}
