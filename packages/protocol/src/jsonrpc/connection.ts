import { CancellationRegistry } from './cancellation.js';
import { ConnectionClosedError, JsonRpcClient, type RequestOptions } from './client.js';
import { decodeFrame, encodeResponse, errorResponse } from './codec.js';
import { Dispatcher, type DispatchInputs, type EngineLogger } from './dispatcher.js';
import { ErrorCode } from './errors.js';
import { isPromiseLike } from './method.js';
import { keepResultText, RESULT_TEXT_MIN } from './result-text.js';
import type { FrameSink, FrameTransport } from './transport.js';
import type { JsonRpcId, JsonRpcParams } from './types.js';

/** What a {@link JsonRpcConnection} runs over and serves. */
export interface JsonRpcConnectionOptions<E> {
  /** The channel to the peer. */
  transport: FrameTransport;
  /**
   * Methods this side serves (a Dispatcher, or anything that answers decoded frames like one).
   * Without one, every incoming request is answered -32601.
   */
  dispatcher?: Pick<Dispatcher<E>, 'handleDecoded'>;
  /** Attached to every call's context (`ctx.extra`). */
  extra?: E;
  /** Default deadline for requests this side sends. Default 60 000 ms. */
  requestTimeoutMs?: number;
  /** After the peer closes, how long in-flight calls may still finish. Default 10 000 ms. */
  drainTimeoutMs?: number;
  /** Where the engine logs handler crashes and dropped frames. Default: nowhere. */
  logger?: EngineLogger;
  /** Where the signals of incoming calls live; share one to cancel calls from elsewhere. */
  cancellation?: CancellationRegistry;
  /**
   * What the peer sent that is not JSON-RPC. Given this, such frames are reported here and not
   * answered — for the client side of a connection to a process whose stdout may carry noise
   * (a backend printing a banner), where an error reply would only be more noise.
   */
  onInvalidFrame?: (text: string, reason: 'invalid' | 'too_large' | 'not_utf8') => void;
  /**
   * Told as soon as the connection starts ending (the peer closed, or `close()`), before in-flight
   * calls drain: calls that only end when the peer goes (a subscription) are ended here.
   */
  onEnd?: () => void;
  /** Told when an outgoing request is given up (timeout or abort). */
  onAbandon?: (id: number, method: string, reason: 'timeout' | 'abort') => void;
  /**
   * Keep the JSON text of each large result the peer answers with, so that a server relaying the
   * result object unchanged writes the peer's own bytes instead of serializing it again (a
   * gateway; see result-text.ts). Whoever sets this must not change such result objects.
   * Default false.
   */
  keepResultText?: boolean;
}

/**
 * One JSON-RPC peer over one transport: it answers the peer's requests through a dispatcher and
 * sends its own requests through a client, on the same channel (as MCP needs in both directions).
 */
export class JsonRpcConnection<E = unknown> {
  readonly #transport: FrameTransport;
  readonly #dispatcher: Pick<Dispatcher<E>, 'handleDecoded'>;
  readonly #client: JsonRpcClient;
  readonly #logger: EngineLogger | undefined;
  readonly #drainTimeoutMs: number;
  readonly #dispatchOptions: DispatchInputs<E>;
  readonly #cancellation: CancellationRegistry;
  readonly #onInvalidFrame: JsonRpcConnectionOptions<E>['onInvalidFrame'];
  readonly #onEndHook: JsonRpcConnectionOptions<E>['onEnd'];
  readonly #keepResultText: boolean;
  #inflight = 0;
  #ended = false;
  #started = false;
  #idle: (() => void) | undefined;
  /** Resolves once the connection has closed and every in-flight call has finished. */
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;

  constructor(options: JsonRpcConnectionOptions<E>) {
    this.#transport = options.transport;
    this.#dispatcher = options.dispatcher ?? new Dispatcher<E>();
    this.#logger = options.logger;
    this.#drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
    this.#client = new JsonRpcClient({
      send: (frame) => this.#send(frame),
      ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
      ...(options.onAbandon ? { onAbandon: options.onAbandon } : {}),
    });
    this.#onInvalidFrame = options.onInvalidFrame;
    this.#onEndHook = options.onEnd;
    this.#keepResultText = options.keepResultText ?? false;
    const cancellation = options.cancellation ?? new CancellationRegistry();
    this.#cancellation = cancellation;
    this.#dispatchOptions = {
      extra: options.extra as E,
      signalFor: (id) => cancellation.signalFor(id),
      settled: (id) => cancellation.settled(id),
      started: (id) => cancellation.started(id),
      onResponse: (response) => {
        if (!this.#client.handleResponse(response)) {
          this.#logger?.debug({ id: response.id }, 'response for no pending request dropped');
        }
      },
    };
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /** Start the transport and serve the peer. Called once; returns the connection. */
  start(): this {
    if (this.#started) throw new Error('connection already started');
    this.#started = true;
    const sink: FrameSink = {
      frame: (text) => this.#onFrame(text),
      rejected: (reason, bytes) => this.#onRejected(reason, bytes),
      end: (error) => void this.#onEnd(error),
    };
    this.#transport.start(sink);
    return this;
  }

  /**
   * Send a request to the peer and wait for its answer (see {@link JsonRpcClient.request}).
   *
   * @example
   * ```ts
   * const conn = new JsonRpcConnection({ transport }).start();
   * const difference = await conn.request('subtract', [42, 23], { timeoutMs: 5000 });
   * ```
   */
  request<R = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<R> {
    return this.#client.request<R>(method, params, options);
  }

  /** Send a notification to the peer: no id, no answer. */
  notify(method: string, params?: JsonRpcParams): void {
    this.#client.notify(method, params);
  }

  /** Abort the handler of an incoming request (e.g. on MCP `notifications/cancelled`). */
  cancel(id: JsonRpcId, reason?: unknown): boolean {
    return this.#cancellation.cancel(id, reason);
  }

  /** Calls from the peer this side is still serving. */
  get inflight(): number {
    return this.#inflight;
  }

  /** Fail a request this side sent, for a reason outside JSON-RPC (the transport lost it). */
  failRequest(id: JsonRpcId, error: Error): boolean {
    return typeof id === 'number' && this.#client.fail(id, error);
  }

  /** Requests this side sent that are not answered yet. */
  get pendingCount(): number {
    return this.#client.pendingCount;
  }

  /** Close from this side: stop reading, let in-flight calls finish, flush, release. */
  close(): Promise<void> {
    void this.#onEnd();
    return this.closed;
  }

  #send(frame: string): void {
    if (this.#ended && this.#inflight === 0) throw new ConnectionClosedError();
    this.#transport.send(frame);
  }

  #onFrame(text: string): void {
    let reply: ReturnType<Dispatcher<E>['handleFrame']>;
    try {
      const frame = decodeFrame(text);
      if (
        this.#onInvalidFrame &&
        (frame.kind === 'invalid' || (frame.kind === 'single' && frame.message.kind === 'invalid'))
      ) {
        this.#onInvalidFrame(text, 'invalid');
        return;
      }
      if (
        this.#keepResultText &&
        text.length >= RESULT_TEXT_MIN &&
        frame.kind === 'single' &&
        frame.message.kind === 'response'
      ) {
        const result = (frame.message.response as { result?: unknown }).result;
        if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
          keepResultText(text, result);
        }
      }
      reply = this.#dispatcher.handleDecoded(frame, this.#dispatchOptions);
    } catch (err) {
      // The dispatcher catches handler errors itself; reaching here is a bug, not a reason to die.
      this.#logger?.error({ err }, 'dispatch failed');
      this.#answer(
        encodeResponse(
          errorResponse(null, { code: ErrorCode.InternalError, message: 'Internal error' }),
        ),
      );
      return;
    }
    if (reply === undefined) return;
    if (!isPromiseLike(reply)) {
      this.#answer(reply);
      return;
    }
    this.#inflight++;
    reply.then(
      (text) => {
        if (text !== undefined) this.#answer(text);
        this.#done();
      },
      (err: unknown) => {
        this.#logger?.error({ err }, 'dispatch failed');
        this.#done();
      },
    );
  }

  /**
   * Send an answer to the peer. A transport that refuses it is not a reason to throw: from a
   * reader's callback that would be an uncaught exception, from a call that settled late an
   * unhandled rejection — and nobody is left to read the answer of a peer that went away.
   */
  #answer(text: string): void {
    try {
      this.#transport.send(text);
    } catch (err) {
      if (this.#ended) this.#logger?.debug({ err }, 'answer dropped: the connection has ended');
      else this.#logger?.warn({ err }, 'answer dropped: the transport refused it');
    }
  }

  #done(): void {
    this.#inflight--;
    if (this.#inflight === 0 && this.#idle) this.#idle();
  }

  #rejected = 0;

  #onRejected(reason: 'too_large' | 'not_utf8', bytes: number): void {
    // A peer can send bad frames in a loop: the first ten are logged, then every thousandth.
    const count = ++this.#rejected;
    if (count <= 10 || count % 1000 === 0) {
      this.#logger?.warn({ reason, bytes, count }, 'frame rejected');
    }
    if (this.#onInvalidFrame) {
      this.#onInvalidFrame(`(${bytes} bytes)`, reason);
      return;
    }
    const error =
      reason === 'too_large'
        ? {
            code: ErrorCode.InvalidRequest,
            message: 'Invalid Request',
            data: { detail: `frame of ${bytes} bytes exceeds the limit`, bytes },
          }
        : {
            code: ErrorCode.ParseError,
            message: 'Parse error',
            data: { detail: 'frame is not valid UTF-8' },
          };
    this.#answer(encodeResponse(errorResponse(null, error)));
  }

  async #onEnd(error?: Error): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#onEndHook?.();
    } catch (err) {
      this.#logger?.error({ err }, 'onEnd hook failed');
    }
    if (error) this.#logger?.debug({ err: error }, 'transport ended with an error');
    this.#client.close(
      new ConnectionClosedError(error ? `connection closed: ${error.message}` : undefined),
    );
    if (this.#inflight > 0) {
      const idle = new Promise<void>((resolve) => {
        this.#idle = resolve;
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#drainTimeoutMs);
      });
      await Promise.race([idle, deadline]);
      clearTimeout(timer);
      if (this.#inflight > 0) {
        this.#logger?.warn({ inflight: this.#inflight }, 'closing with calls still running');
        this.#cancellation.abortAll(() => new ConnectionClosedError());
      }
    }
    await this.#transport.close();
    this.#resolveClosed();
  }
}
