import {
  decodeFrame,
  encodeBatch,
  encodeResponse,
  errorResponse,
  type Frame,
  type Incoming,
} from './codec.js';
import { ErrorCode, RpcError, toErrorObject } from './errors.js';
import {
  isPromiseLike,
  type MaybePromise,
  type MethodDefinition,
  type RequestContext,
} from './method.js';
import type { JsonRpcId, JsonRpcParams, JsonRpcResponse } from './types.js';

/** The subset of a pino logger the engine writes to. */
export interface EngineLogger {
  /** A handler crashed, a reply could not be sent. */
  error(obj: object, msg?: string): void;
  /** Something the peer did wrong that the engine answered or dropped. */
  warn(obj: object, msg?: string): void;
  /** Routine details: dropped responses, ignored noise. */
  debug(obj: object, msg?: string): void;
}

/** How a {@link Dispatcher} answers. */
export interface DispatcherOptions {
  /** Largest batch accepted; a larger one is answered with a single -32600. Default 1000. */
  maxBatchSize?: number;
  /** Where handler crashes are logged (they are answered -32603 without details). */
  logger?: EngineLogger;
  /**
   * Notifications for methods nobody registered: given this, they are handed over instead of
   * dropped (an MCP client surfaces every notification a server sends as an event).
   */
  onUnknownNotification?: (method: string, params: JsonRpcParams | undefined) => void;
}

/**
 * Told of every request a {@link Dispatcher} answers (not notifications): what metrics and
 * tracing hang on. `begin` returns a token that `run` and `end` get back. An observer must not
 * throw; one that does is logged and the call goes on.
 */
export interface DispatchObserver<E> {
  /** A request arrives; `known` says whether a method of that name is registered. */
  begin(method: string, known: boolean, params: JsonRpcParams | undefined, extra: E): unknown;
  /** Runs the handler (e.g. inside a tracing context); called only when present. */
  run?<T>(token: unknown, fn: () => T): T;
  /** The request's answer (undefined when none is sent: `NO_REPLY`). */
  end(token: unknown, response: JsonRpcResponse | undefined): void;
}

/** Per-call inputs a transport supplies. */
export interface DispatchInputs<E> {
  /** Handed to every handler as `ctx.extra` (the caller's identity, session …). */
  extra: E;
  /** Abort signal for a request; connections that support cancellation pass their own. */
  signalFor?: (id: JsonRpcId | undefined, method: string) => AbortSignal;
  /**
   * Called when a request finishes, so a connection can drop its cancellation state. Returning
   * true withholds the request's response, its handler's result or error alike: the peer
   * cancelled it and must get none (MCP; see `CancellationRegistry.settled`).
   */
  settled?: (id: JsonRpcId | undefined) => unknown;
  /**
   * Told when a request's handler is about to run (after its method was found): from then until
   * `settled` it is in flight, and can be cancelled (see `CancellationRegistry.started`).
   */
  started?: (id: JsonRpcId) => void;
  /** Responses to requests this side sent (two-way connections). Dropped when absent. */
  onResponse?: (response: JsonRpcResponse) => void;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Return this from a handler to send no response at all — for a request the peer has cancelled
 * (MCP: "the receiver SHOULD NOT send a response for the cancelled request").
 */
export const NO_REPLY: unique symbol = Symbol.for('mcpkit.noReply');

/**
 * A registry of JSON-RPC methods and the rules for answering them. It knows nothing of
 * transports: give it a frame of text (or a decoded message) and it gives back the reply.
 * Synchronous handlers are answered synchronously, so a pipelined stream of cheap calls does not
 * pay for a promise per call.
 */
export class Dispatcher<E = unknown> {
  readonly #methods = new Map<string, MethodDefinition<E>>();
  readonly #maxBatchSize: number;
  readonly #logger: EngineLogger | undefined;
  readonly #onUnknownNotification: DispatcherOptions['onUnknownNotification'];
  #observer: DispatchObserver<E> | undefined;

  constructor(options: DispatcherOptions = {}) {
    this.#maxBatchSize = options.maxBatchSize ?? 1000;
    this.#logger = options.logger;
    this.#onUnknownNotification = options.onUnknownNotification;
  }

  /** Add methods (made with `method`). Throws for a name already registered. */
  register(...definitions: MethodDefinition<E>[]): this {
    for (const def of definitions) {
      if (this.#methods.has(def.name))
        throw new Error(`method '${def.name}' is already registered`);
      this.#methods.set(def.name, def);
    }
    return this;
  }

  /**
   * Watch every request from now on (one observer; undefined removes it). Without one the hot
   * path pays a single property read.
   */
  observe(observer: DispatchObserver<E> | undefined): void {
    this.#observer = observer;
  }

  /** Remove a method; false when there was none by that name. */
  unregister(name: string): boolean {
    return this.#methods.delete(name);
  }

  /** Whether a method of that name is registered. */
  has(name: string): boolean {
    return this.#methods.has(name);
  }

  /** The registered method names, in registration order. */
  get methodNames(): string[] {
    return [...this.#methods.keys()];
  }

  /**
   * Handle one frame of text. Resolves to the serialized reply, or undefined when JSON-RPC
   * says nothing is to be sent (notifications, responses, all-notification batches).
   */
  handleFrame(text: string, options: DispatchInputs<E>): MaybePromise<string | undefined> {
    return this.handleDecoded(decodeFrame(text), options);
  }

  /** Like handleFrame, for a frame the transport already decoded (to look inside first). */
  handleDecoded(frame: Frame, options: DispatchInputs<E>): MaybePromise<string | undefined> {
    switch (frame.kind) {
      case 'empty':
        return undefined;
      case 'invalid':
        return encodeResponse(frame.reply);
      case 'single': {
        const reply = this.dispatch(frame.message, options);
        return isPromiseLike(reply) ? reply.then(encodeOptional) : encodeOptional(reply);
      }
      case 'batch': {
        if (frame.messages.length > this.#maxBatchSize) {
          return encodeResponse(
            errorResponse(null, {
              code: ErrorCode.InvalidRequest,
              message: 'Invalid Request',
              data: { detail: `a batch may hold at most ${this.#maxBatchSize} messages` },
            }),
          );
        }
        // Every element starts before any is awaited: the calls of a batch run concurrently.
        const replies = frame.messages.map((m) => this.dispatch(m, options));
        return replies.some(isPromiseLike)
          ? Promise.all(replies).then(encodeReplies)
          : encodeReplies(replies as (JsonRpcResponse | undefined)[]);
      }
    }
  }

  /** Dispatch one classified message. */
  dispatch(
    message: Incoming,
    options: DispatchInputs<E>,
  ): MaybePromise<JsonRpcResponse | undefined> {
    switch (message.kind) {
      case 'invalid':
        return message.reply;
      case 'response':
        options.onResponse?.(message.response);
        return undefined;
      case 'notification': {
        const outcome = this.#invoke(undefined, message.method, message.params, options);
        return isPromiseLike(outcome) ? outcome.then(() => undefined) : undefined;
      }
      case 'request':
        return this.#invoke(message.id, message.method, message.params, options);
    }
  }

  #invoke(
    id: JsonRpcId | undefined,
    methodName: string,
    params: Parameters<MethodDefinition['parseParams']>[0],
    options: DispatchInputs<E>,
  ): MaybePromise<JsonRpcResponse | undefined> {
    const observer = this.#observer;
    if (observer === undefined || id === undefined)
      return this.#call(id, methodName, params, options);
    return this.#observed(observer, id, methodName, params, options);
  }

  #observed(
    observer: DispatchObserver<E>,
    id: JsonRpcId,
    methodName: string,
    params: Parameters<MethodDefinition['parseParams']>[0],
    options: DispatchInputs<E>,
  ): MaybePromise<JsonRpcResponse | undefined> {
    let token: unknown;
    try {
      token = observer.begin(methodName, this.#methods.has(methodName), params, options.extra);
    } catch (err) {
      this.#logger?.error({ err, method: methodName }, 'observer failed');
      return this.#call(id, methodName, params, options);
    }
    const end = (response: JsonRpcResponse | undefined) => {
      try {
        observer.end(token, response);
      } catch (err) {
        this.#logger?.error({ err, method: methodName }, 'observer failed');
      }
      return response;
    };
    const reply = observer.run
      ? observer.run(token, () => this.#call(id, methodName, params, options))
      : this.#call(id, methodName, params, options);
    if (!isPromiseLike(reply)) return end(reply);
    return Promise.resolve(reply).then(end, (err: unknown) => {
      end(undefined);
      throw err;
    });
  }

  #call(
    id: JsonRpcId | undefined,
    methodName: string,
    params: Parameters<MethodDefinition['parseParams']>[0],
    options: DispatchInputs<E>,
  ): MaybePromise<JsonRpcResponse | undefined> {
    const def = this.#methods.get(methodName);
    if (def === undefined) {
      if (id === undefined) {
        if (this.#onUnknownNotification) this.#onUnknownNotification(methodName, params);
        else
          this.#logger?.debug({ method: methodName }, 'notification for an unknown method ignored');
        return undefined;
      }
      return errorResponse(id, {
        code: ErrorCode.MethodNotFound,
        message: 'Method not found',
        data: { method: methodName },
      });
    }
    if (id !== undefined && options.started !== undefined) options.started(id);
    const ctx = new CallContext(id, methodName, options.extra, options.signalFor);
    let outcome: unknown;
    try {
      const parsed = def.parseParams(params);
      outcome = isPromiseLike(parsed)
        ? Promise.resolve(parsed).then((p) => def.handler(p, ctx))
        : def.handler(parsed, ctx);
    } catch (err) {
      return this.#settle(id, methodName, options, undefined, err, true);
    }
    if (isPromiseLike(outcome)) {
      return Promise.resolve(outcome).then(
        (result) => this.#settle(id, methodName, options, result, undefined, false),
        (err: unknown) => this.#settle(id, methodName, options, undefined, err, true),
      );
    }
    return this.#settle(id, methodName, options, outcome, undefined, false);
  }

  #settle(
    id: JsonRpcId | undefined,
    methodName: string,
    options: DispatchInputs<E>,
    result: unknown,
    err: unknown,
    failed: boolean,
  ): JsonRpcResponse | undefined {
    // MCP `basic/utilities/cancellation`: "Receivers of a cancellation notification SHOULD NOT
    // send a response for the cancelled request" — nor an error, which is what most handlers
    // end with once cancelled (a gateway's backend call is abandoned under it).
    const withheld = options.settled !== undefined && options.settled(id) === true;
    if (failed) {
      if (!RpcError.is(err)) {
        // A handler that fails once its call was cancelled is doing what it was asked to.
        if (withheld) this.#logger?.debug({ err, method: methodName }, 'cancelled handler failed');
        else this.#logger?.error({ err, method: methodName }, 'handler failed');
      }
      // Notifications never get a reply, not even an error (JSON-RPC 2.0 §4.1).
      return id === undefined || withheld ? undefined : errorResponse(id, toErrorObject(err));
    }
    if (id === undefined || withheld || result === NO_REPLY) return undefined;
    // A handler that returns nothing still answers: `result` is required, and undefined would
    // vanish from the JSON.
    return { jsonrpc: '2.0', id, result: result === undefined ? null : result };
  }
}

/**
 * A call's context. A class with a prototype getter rather than an object literal with an own
 * getter: V8 keeps instances of one shape fast, and most handlers never read their signal, so the
 * AbortController is made only on first read.
 */
class CallContext<E> implements RequestContext<E> {
  #signal: AbortSignal | undefined;
  constructor(
    readonly id: JsonRpcId | undefined,
    readonly method: string,
    readonly extra: E,
    readonly signalFor: ((id: JsonRpcId | undefined, method: string) => AbortSignal) | undefined,
  ) {}

  get aborted(): boolean {
    return this.#signal?.aborted ?? false;
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      this.#signal = this.signalFor ? this.signalFor(this.id, this.method) : NEVER_ABORTED;
    }
    return this.#signal;
  }
}

function encodeOptional(reply: JsonRpcResponse | undefined): string | undefined {
  return reply === undefined ? undefined : encodeResponse(reply);
}

function encodeReplies(replies: readonly (JsonRpcResponse | undefined)[]): string | undefined {
  const present = replies.filter((r): r is JsonRpcResponse => r !== undefined);
  // A batch of notifications (and responses) is answered with nothing at all (§6).
  return present.length === 0 ? undefined : encodeBatch(present);
}
