import { hasBrand } from './brand.js';
import { encodeMessage, encodeRequestWithMeta } from './codec.js';
import { Deadlines } from './deadlines.js';
import { RpcError } from './errors.js';
import { IdMap } from './id-map.js';
import type { JsonRpcParams, JsonRpcResponse } from './types.js';

const TIMEOUT_BRAND = Symbol.for('mcpkit.RequestTimeoutError');
const CLOSED_BRAND = Symbol.for('mcpkit.ConnectionClosedError');

/** The peer did not answer within the request's deadline. Recognise it with `RequestTimeoutError.is`. */
export class RequestTimeoutError extends Error {
  /** Marks a RequestTimeoutError from any copy of this package. */
  readonly [TIMEOUT_BRAND] = true;

  /** Whether `value` is a RequestTimeoutError, from this copy of the package or another. */
  static is(value: unknown): value is RequestTimeoutError {
    return hasBrand(value, TIMEOUT_BRAND);
  }

  constructor(
    /** The method of the request that timed out. */
    readonly method: string,
    /** The deadline it had, in ms. */
    readonly timeoutMs: number,
  ) {
    super(`request '${method}' timed out after ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** The connection closed before the peer answered. Recognise it with `ConnectionClosedError.is`. */
export class ConnectionClosedError extends Error {
  /** Marks a ConnectionClosedError from any copy of this package. */
  readonly [CLOSED_BRAND] = true;

  /** Whether `value` is a ConnectionClosedError, from this copy of the package or another. */
  static is(value: unknown): value is ConnectionClosedError {
    return hasBrand(value, CLOSED_BRAND);
  }

  constructor(message = 'connection closed') {
    super(message);
    this.name = 'ConnectionClosedError';
  }
}

/** Per-request options of {@link JsonRpcClient.request} and `JsonRpcConnection.request`. */
export interface RequestOptions {
  /** Overrides the client's default deadline; 0 waits forever. */
  timeoutMs?: number;
  /** Abort the request: it rejects with the signal's reason, and the client forgets it. */
  signal?: AbortSignal;
  /**
   * Abort the request as `signal` does when this source says so: anything with an `onCancel`,
   * such as the `McpContext` of the call a handler forwards — cheaper than a signal, which costs
   * the source an AbortController and this request two listener calls.
   */
  cancelledBy?: CancelSource;
  /** Send this request's frame here instead of the client's default path (an SSE stream). */
  via?: (frame: string) => void;
  /**
   * The request's `params._meta` as JSON text, written into the frame as it is: an envelope
   * that is the same for every request of a connection (MCP 2026-07-28's reserved keys) is
   * encoded once, not with each request. The params must then be an object without `_meta`.
   */
  metaJson?: string;
}

/** Something that tells its listeners once when it is cancelled (see `RequestOptions.cancelledBy`). */
export interface CancelSource {
  /**
   * Call `listener` once with the reason on cancellation; at once if already cancelled. May
   * return a disposer that forgets the listener: a request calls it when it ends, so a source
   * that outlives many requests (an app-wide shutdown token) does not keep a listener for each.
   * The disposer must not throw, and is called at most once. Anything else returned is ignored
   * (`unknown`: a source written before disposers, `onCancel(l): void`, still type-checks).
   */
  onCancel(listener: (reason: unknown) => void): unknown;
}

/** How a {@link JsonRpcClient} sends, and when it gives up. */
export interface ClientOptions {
  /** Writes one serialized frame to the peer. May throw if the transport is closed. */
  send: (frame: string) => void;
  /** Default deadline per request in ms. Default 60 000; 0 disables. */
  timeoutMs?: number;
  /**
   * Called when a request is given up (timeout or abort) so a protocol on top can tell the peer,
   * e.g. MCP's `notifications/cancelled`.
   */
  onAbandon?: (id: number, method: string, reason: 'timeout' | 'abort') => void;
}

const MAX_TIMER_MS = 2_147_483_647;

interface Pending {
  id: number;
  method: string;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Forgets this request's listener at its `cancelledBy` source (see CancelSource.onCancel). */
  dispose: (() => void) | undefined;
}

/**
 * The calling side of JSON-RPC: numbers requests, correlates responses by id, enforces deadlines.
 * Feed it every response that arrives with `handleResponse`.
 */
export class JsonRpcClient {
  readonly #send: (frame: string) => void;
  readonly #timeoutMs: number;
  readonly #onAbandon: ClientOptions['onAbandon'];
  // Not a Map: ids come and go once per request; our own ids, counting up (see IdMap).
  readonly #pending = new IdMap<Pending>();
  readonly #deadlines = new Deadlines(
    (id) => {
      const pending = this.#pending.get(id);
      if (pending) {
        this.#abandon(id, 'timeout', new RequestTimeoutError(pending.method, pending.timeoutMs));
      }
    },
    (id) => this.#pending.has(id),
    () => this.#pending.size,
  );
  #nextId = 1;
  #closed: Error | undefined;

  constructor(options: ClientOptions) {
    this.#send = options.send;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#onAbandon = options.onAbandon;
  }

  /** Requests sent and not yet answered. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Send a request and wait for its answer: the result, or a rejection with the peer's
   * {@link RpcError}, a {@link RequestTimeoutError}, the signal's reason or a
   * {@link ConnectionClosedError}.
   */
  request<R = unknown>(
    method: string,
    params?: JsonRpcParams,
    options: RequestOptions = {},
  ): Promise<R> {
    if (this.#closed) return Promise.reject(this.#closed);
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    let frame: string;
    try {
      frame =
        options.metaJson !== undefined
          ? encodeRequestWithMeta(id, method, params, options.metaJson)
          : encodeMessage(
              params === undefined
                ? { jsonrpc: '2.0', id, method }
                : { jsonrpc: '2.0', id, method, params },
            );
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<R>((resolve, reject) => {
      const pending: Pending = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timeoutMs: options.timeoutMs ?? this.#timeoutMs,
        signal,
        onAbort: undefined,
        dispose: undefined,
      };
      const timeoutMs = pending.timeoutMs;
      // Node turns delays above 2^31-1 ms into 1 ms; longer (or infinite) deadlines mean none.
      // One shared timer per timeout value, not one per request (see Deadlines).
      if (timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS) this.#deadlines.add(id, timeoutMs);
      if (signal) {
        pending.onAbort = () => this.#abandon(id, 'abort', signal.reason);
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.#pending.set(id, pending);
      try {
        (options.via ?? this.#send)(frame);
      } catch (err) {
        this.#finish(id);
        reject(err);
        return;
      }
      // After the send: a source cancelled already tells at once, and the peer is then told the
      // request it just got is abandoned. A late call (the request settled) finds nothing pending.
      const source = options.cancelledBy;
      if (source === undefined) return;
      const dispose = source.onCancel((reason) => this.#abandon(id, 'abort', reason));
      if (typeof dispose !== 'function') return;
      const forget = dispose as () => void;
      // Ended already (told at once, or answered while the frame was sent): nothing will call it.
      if (this.#pending.get(id) === pending) pending.dispose = forget;
      else release(forget);
    });
  }

  /** Send a notification: no id, no answer. */
  notify(method: string, params?: JsonRpcParams): void {
    if (this.#closed) throw this.#closed;
    this.#send(
      encodeMessage(
        params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      ),
    );
  }

  /** Settle the request a response answers. Returns false for an id this client is not waiting on. */
  handleResponse(response: JsonRpcResponse): boolean {
    if (typeof response.id !== 'number') return false;
    const pending = this.#finish(response.id);
    if (!pending) return false;
    if ('error' in response) pending.reject(RpcError.fromObject(response.error));
    else pending.resolve(response.result);
    return true;
  }

  /**
   * Fail one pending request with an error that did not come as a JSON-RPC answer (the transport
   * lost it). Returns false for an id this client is not waiting on.
   */
  fail(id: number, error: Error): boolean {
    const pending = this.#finish(id);
    if (!pending) return false;
    pending.reject(error);
    return true;
  }

  /** Reject every pending request and refuse new ones. */
  close(reason: Error = new ConnectionClosedError()): void {
    if (this.#closed) return;
    this.#closed = reason;
    this.#deadlines.clear();
    for (const { id } of this.#pending.values()) this.#finish(id)?.reject(reason);
  }

  #abandon(id: number, why: 'timeout' | 'abort', reason: unknown): void {
    const pending = this.#finish(id);
    if (!pending) return;
    pending.reject(reason);
    this.#onAbandon?.(id, pending.method, why);
  }

  #finish(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    // Nothing left to wait for: no timer may keep the process alive on our account.
    if (this.#pending.size === 0) this.#deadlines.idle();
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    if (pending.dispose !== undefined) release(pending.dispose);
    return pending;
  }
}

/** Call a cancel source's disposer; one that throws may not keep a request from settling. */
function release(dispose: () => void): void {
  try {
    dispose();
  } catch {
    // The source broke its contract (see CancelSource.onCancel); the request settles regardless.
  }
}
