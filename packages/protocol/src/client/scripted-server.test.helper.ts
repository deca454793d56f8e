/**
 * A hand-driven node:http server for the client transport's tests: every answer is written by the
 * test, every request recorded. Shared by the client's test files; its name keeps it out of the
 * test run (`*.test.ts`) and out of the published package (`*.test.*`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One request the scripted server received. */
export interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: { id?: number; method?: string; params?: Record<string, unknown> } | undefined;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** How the scripted server answers one request. */
export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

const servers: Server[] = [];

/** Stop every scripted server now (a test about an unreachable server); also after each test. */
export async function stopScripted(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
afterEach(stopScripted);

/** A server on 127.0.0.1 whose answers are scripted per test; stopped after each test. */
export async function script(handle: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      const entry: Seen = {
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
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A minimal 2026-07-28 `server/discover` result: modern, with tools, nothing cached. */
export const DISCOVERED = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
};
