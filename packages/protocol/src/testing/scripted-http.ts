/**
 * A hand-driven node:http server for tests of a Streamable HTTP client: every answer is written by
 * the test, every request recorded — how a client's handling of a server's odd, late or wrong
 * answers is tested without a server that would have to be made to misbehave. A test file stops
 * them after each test: `afterEach(stopScriptedHttp)`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the scripted server received. */
export interface ScriptedRequest {
  /** The HTTP method. */
  method: string;
  /** Its headers, as Node parsed them (lower-case names). */
  headers: IncomingMessage['headers'];
  /** The JSON body, parsed; undefined when there was none. */
  body: { id?: number; method?: string; params?: Record<string, unknown> } | undefined;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** How the scripted server answers one request. */
export type ScriptedHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  seen: ScriptedRequest,
) => void;

const servers: Server[] = [];

/** Stop every scripted server now (a test about an unreachable server); also after each test. */
export async function stopScriptedHttp(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A server on 127.0.0.1 whose answers are scripted per test; stopped after each test. */
export async function scriptHttp(
  handle: ScriptedHandler,
): Promise<{ url: string; seen: ScriptedRequest[] }> {
  const seen: ScriptedRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      const entry: ScriptedRequest = {
        method: req.method ?? '',
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
        at: Date.now(),
      };
      seen.push(entry);
      handle(req, res, entry);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

/** Answer with a JSON body. */
export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A minimal 2026-07-28 `server/discover` result: modern, with tools, nothing cached. */
export const MINIMAL_DISCOVER_RESULT = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
};

/**
 * Counts, per AbortSignal, the abort listeners added minus those removed while it runs (by
 * wrapping EventTarget's methods) — what shows a listener left behind on a long-lived signal.
 * `most(except)`: the largest count on any signal but those in `except`; `stop()` unwraps.
 */
export function watchAbortListeners(): {
  most: (except?: ReadonlySet<AbortSignal>) => number;
  stop: () => void;
} {
  const net = new Map<AbortSignal, number>();
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  const count = (target: EventTarget, type: string, by: number) => {
    if (type === 'abort' && target instanceof AbortSignal) {
      net.set(target, (net.get(target) ?? 0) + by);
    }
  };
  proto.addEventListener = function (this: EventTarget, type, ...rest) {
    count(this, type, 1);
    return add.call(this, type, ...rest);
  };
  proto.removeEventListener = function (this: EventTarget, type, ...rest) {
    count(this, type, -1);
    return remove.call(this, type, ...rest);
  };
  return {
    most: (except = new Set()) =>
      Math.max(0, ...[...net].filter(([s]) => !except.has(s)).map(([, n]) => n)),
    stop: () => {
      proto.addEventListener = add;
      proto.removeEventListener = remove;
    },
  };
}
