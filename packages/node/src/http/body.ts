import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * Read a request body up to `limit` bytes, then call `done` once: with the bytes, or with an
 * error (BodyTooLargeError — early on a larger Content-Length —, or the stream's). A callback
 * rather than a promise: the request is answered from the stream's own 'end' event, without a
 * turn of the microtask queue (the HTTP hot path).
 */
export function readBodyThen(
  req: IncomingMessage,
  limit: number,
  done: (err: Error | undefined, bytes?: Buffer) => void,
): void {
  // Converted only when it has as many digits as the limit: a shorter one cannot exceed it, and
  // a string-to-number conversion per request is not free.
  const length = req.headers['content-length'];
  if (length !== undefined && length.length >= String(limit).length) {
    const declared = Number(length);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      done(new BodyTooLargeError(limit));
      return;
    }
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (err: Error | undefined, bytes?: Buffer) => {
    if (finished) return;
    finished = true;
    done(err, bytes);
  };
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.removeAllListeners('data');
      req.resume();
      finish(new BodyTooLargeError(limit));
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () =>
    finish(undefined, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)),
  );
  req.on('error', finish);
}

/** Read a request body up to `limit` bytes; rejects early on a larger Content-Length. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    readBodyThen(req, limit, (err, bytes) => (err ? reject(err) : resolve(bytes as Buffer)));
  });
}

/** True when a Content-Type header names JSON (`application/json`, `…+json`). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  // What nearly every client sends, without splitting and lower-casing a copy.
  if (header === 'application/json') return true;
  const type = header.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
