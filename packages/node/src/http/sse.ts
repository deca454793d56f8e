import type { ServerResponse } from 'node:http';
import { encodeMessage, type JsonRpcParams } from '@mcpkit/protocol';

/**
 * A JSON-RPC notification as one SSE event's data: what every stream the server keeps sends. A
 * progress token beyond 2^53 (a bigint, see the codec) is written digit for digit.
 */
export const notificationFrame = (method: string, params?: JsonRpcParams): string =>
  encodeMessage(
    params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
  );

/**
 * Bytes a stream may have queued, unsent, before it takes another message: a client that stops
 * reading its GET stream or its `subscriptions/listen` would otherwise have every notification
 * kept for it in memory (200 such clients took a server from 74 MB to 1.4 GB). One larger
 * message still goes out whole (a big result is checked against what was queued before it).
 */
export const MAX_QUEUED_BYTES = 256 * 1024;

/**
 * A Server-Sent Events stream of JSON-RPC messages. Headers go out on the first event, so a
 * handler that never sends one can still answer with plain JSON.
 */
export class SseStream {
  readonly #res: ServerResponse;
  readonly #headers: Record<string, string>;
  #open = false;
  #closed = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(res: ServerResponse, headers: Record<string, string> = {}, keepAliveMs = 0) {
    this.#res = res;
    this.#headers = headers;
    res.once('close', () => this.#markClosed());
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), keepAliveMs);
      this.#keepAlive.unref();
    }
  }

  get started(): boolean {
    return this.#open;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Send the headers now (a GET stream opens before it has anything to say). */
  start(): void {
    if (this.#open || this.#closed) return;
    this.#open = true;
    this.#res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      ...this.#headers,
    });
    this.#res.flushHeaders();
  }

  /** Send one JSON-RPC message as a `message` event. Returns false once the stream is gone. */
  send(json: string, id?: string): boolean {
    this.start();
    return this.#write(
      id === undefined
        ? `event: message\ndata: ${json}\n\n`
        : `id: ${id}\nevent: message\ndata: ${json}\n\n`,
    );
  }

  /**
   * The priming event of a resumable stream: an id and empty data, so a client that loses the
   * connection knows where to resume, and how long to wait before it does.
   */
  prime(id: string, retryMs: number): void {
    this.start();
    this.#write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  end(): void {
    if (this.#closed) return;
    this.#markClosed();
    this.#res.end();
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    if (this.#res.writableLength > MAX_QUEUED_BYTES) {
      // Too far behind: ended (the client reconnects, and re-reads what it watches), not fed.
      this.#markClosed();
      this.#res.destroy();
      return false;
    }
    this.#res.write(text);
    return true;
  }

  #markClosed(): void {
    this.#closed = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
  }
}
