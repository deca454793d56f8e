import type { IncomingMessage } from 'node:http';

/**
 * Who an HTTP caller without credentials is, as far as per-caller limits tell callers apart:
 * its remote address and the client program's name (`clientInfo.name`, at most 64 characters).
 * Every local client shares 127.0.0.1, so by address alone one program would take every
 * program's share. The name is the client's own word: it separates honest programs, not a
 * hostile one, which only auth can.
 */
export function anonymousCaller(req: IncomingMessage, clientName: string): string {
  return `address:${req.socket.remoteAddress ?? ''} client:${clientName.slice(0, 64)}`;
}

/** The `name` of a `clientInfo` object (an initialize's, a modern envelope's); '' without one. */
export function clientNameOf(info: unknown): string {
  const name = (info as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : '';
}
