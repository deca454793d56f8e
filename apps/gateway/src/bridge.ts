import { randomBytes } from 'node:crypto';
import {
  type CancelSource,
  ErrorCode,
  InputRequiredError,
  type JsonRpcParams,
  type McpContext,
  McpErrorCode,
  type McpRequestOptions,
  RpcError,
} from '@mcpkit/protocol';
import { ownResult } from './proxies.js';
import type { CallTarget } from './vault/personal.js';

/*
 * Input across the gateway, between the MCP eras. A backend that needs the user or the model
 * mid-call asks in its era's way — a 2025 backend sends `elicitation/create` or
 * `sampling/createMessage` to the gateway, a 2026-07-28 backend answers `input_required` — and
 * the client is asked in *its* era's way: a 2025 client gets a real request, a 2026-07-28 client
 * an `input_required` answer it retries with `inputResponses` (spec `basic/patterns/mrtr`).
 *
 * For a modern client the backend call is not replayed on each retry: it waits, parked under an
 * id that travels in the keys of the gateway's `inputRequests` — the gateway's signed
 * `requestState` carries the answers, so a retry can only resume the caller's own parked call.
 */

/** Where a backend's ask for input goes: the client whose call it is. */
export interface InputSink {
  ask(method: string, params: Record<string, unknown>): Promise<unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Backends are not given the clients' roots (see README): an empty list, not an error. */
const NO_ROOTS = { roots: [] };

/** Rounds of input one forwarded call may ask before the gateway gives up on it (as McpClient). */
const MAX_ROUNDS = 10;

/** A 2025 client's call: each ask is a real request to that client. */
export function clientSink(ctx: McpContext): InputSink {
  return {
    ask: (method, params) => {
      if (method === 'sampling/createMessage') return ctx.sample(params);
      if (method === 'elicitation/create') return ctx.elicit(params);
      return Promise.resolve(NO_ROOTS);
    },
  };
}

/**
 * Forward a request to a backend (its shared link, or a person's own) and answer every `input_required` round of a modern backend
 * through `sink` (a 2025 backend's asks reach the sink as requests, see Gateway).
 */
export async function callThrough<R>(
  backend: CallTarget,
  method: string,
  params: JsonRpcParams,
  sink: InputSink,
  cancel: Pick<McpRequestOptions, 'signal' | 'cancelledBy' | 'task'>,
): Promise<R> {
  const signal = cancel.signal;
  let attempt: Promise<R> = backend.call<R>(method, params, cancel);
  // Heard from `cancelledBy` once an input round begins — not before: most calls have none, and
  // a listener per forwarded call is what `cancelledBy` spares the hot path.
  let cancelled: { reason: unknown } | undefined;
  let forget: (() => void) | undefined;
  const stopIfCancelled = (): void => {
    signal?.throwIfAborted();
    if (cancelled) throw cancelled.reason;
  };
  try {
    for (let round = 0; ; round++) {
      try {
        return ownResult(await attempt);
      } catch (err) {
        if (!InputRequiredError.is(err) || round >= MAX_ROUNDS) throw err;
        if (round === 0 && cancel.cancelledBy) {
          const off = cancel.cancelledBy.onCancel((reason) => {
            cancelled ??= { reason };
          });
          if (typeof off === 'function') forget = off as () => void;
        }
        // Given up before this round: the client is not asked for a call nobody waits on.
        stopIfCancelled();
        const requests = isObject(err.result.inputRequests) ? err.result.inputRequests : {};
        const answers = await Promise.all(
          Object.entries(requests).map(async ([key, request]) => {
            const ask = isObject(request) ? request : {};
            const params = isObject(ask.params) ? ask.params : {};
            return [key, await sink.ask(String(ask.method), params)] as const;
          }),
        );
        // Cancelled while the client was asked: no retry goes to the backend, which would be sent
        // it only to be told at once (through the same source) to drop it.
        stopIfCancelled();
        attempt = err.retry<R>(Object.fromEntries(answers));
      }
    }
  } finally {
    forget?.();
  }
}

export interface OpenAsk {
  method: string;
  params: Record<string, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Sent to the client in an `input_required` answer. */
  sent: boolean;
}

/** An ask's key: the instance that holds the call, the call, the ask. */
const KEY = /^gateway\.input\.([0-9a-f]+)\.(\d+)\.\d+$/;

/**
 * A modern client's call in flight through the gateway: the backend call is cancelled through it
 * (`cancelledBy`: it outlives the client request it started with), and its asks wait here for
 * the client's retry.
 */
export class Park implements InputSink, CancelSource {
  readonly id: number;
  /** Whose call it is (the caller's subject): its parked calls count against its share. */
  readonly owner: string;
  /** The instance holding the call (see InputBridge.instance), in its asks' keys. */
  readonly #instance: string;
  /** Why the call was given up, once it was. */
  #cancelled: { reason: unknown } | undefined;
  #onCancel: ((reason: unknown) => void)[] = [];
  readonly #asks = new Map<string, OpenAsk>();
  #seq = 0;
  #outcome: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  #wake: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;

  constructor(id: number, owner = '', instance = '0') {
    this.id = id;
    this.owner = owner;
    this.#instance = instance;
  }

  ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    // Given up already: `fail` has run, and nothing would ever answer this ask.
    if (this.#cancelled) return Promise.reject(this.#cancelled.reason);
    if (method === 'roots/list') return Promise.resolve(NO_ROOTS);
    const key = `gateway.input.${this.#instance}.${this.id}.${++this.#seq}`;
    return new Promise((resolve, reject) => {
      this.#asks.set(key, { method, params, resolve, reject, sent: false });
      this.#wake?.();
    });
  }

  /** The backend call ended: its result or error is the answer of the client's current round. */
  settle(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
    this.#outcome = outcome;
    this.#wake?.();
  }

  /** Asks the client has not been sent yet. */
  unsent(): [string, OpenAsk][] {
    return [...this.#asks].filter(([, ask]) => !ask.sent);
  }

  /** Give the backend the client's answers to the asks it was sent. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    for (const [key, ask] of this.#asks) {
      if (ask.sent && Object.hasOwn(responses, key)) {
        this.#asks.delete(key);
        ask.resolve(responses[key]);
      }
    }
  }

  /** Give the backend the errors of asks the client could not be put (another instance tried). */
  refuse(errors: Readonly<Record<string, unknown>>): void {
    for (const [key, ask] of this.#asks) {
      if (ask.sent && Object.hasOwn(errors, key)) {
        this.#asks.delete(key);
        ask.reject(errors[key]);
      }
    }
  }

  /** Fail every open ask (the call is given up). */
  fail(error: unknown): void {
    for (const ask of this.#asks.values()) ask.reject(error);
    this.#asks.clear();
  }

  /** Resolves when the call has ended, asks something new, or `wake()` is called. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#outcome || this.unsent().length > 0) return resolve();
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** End a `next()` wait early (the client's request was cancelled). */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Tell `listener` when the call is given up (the backend call's `cancelledBy`); the returned
   * disposer forgets it (each backend request of the call's rounds listens, and ends first).
   */
  onCancel(listener: (reason: unknown) => void): (() => void) | undefined {
    if (this.#cancelled) {
      listener(this.#cancelled.reason);
      return undefined;
    }
    this.#onCancel.push(listener);
    return () => {
      const at = this.#onCancel.indexOf(listener);
      if (at >= 0) this.#onCancel.splice(at, 1);
    };
  }

  /** Listeners waiting to hear that the call is given up (see `onCancel`). */
  get listening(): number {
    return this.#onCancel.length;
  }

  /** Give the call up: its open asks fail and the backend call is cancelled. */
  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = { reason };
    this.fail(reason);
    for (const listener of this.#onCancel.splice(0)) listener(reason);
  }

  get outcome() {
    return this.#outcome;
  }

  /** Why the call was given up, once it was (see `cancel`). */
  get cancelled(): { reason: unknown } | undefined {
    return this.#cancelled;
  }
}

/** What a parked call does next: it ended, or it asks the client these (already marked sent). */
export type Step =
  | { kind: 'ended'; outcome: { ok: true; value: unknown } | { ok: false; error: unknown } }
  | { kind: 'asks'; asks: [key: string, ask: OpenAsk][] };

/** A retry of a call parked on another instance of the fleet (see BridgeRelay). */
export interface RemotePark {
  /** The instance that holds the call. */
  readonly instance: string;
  readonly id: number;
  /** The answers the retry carries for that call's asks. */
  readonly responses: Record<string, unknown>;
}

/**
 * The parked calls of modern clients: each waits at most `ttlMs` for its retry, at most
 * `maxParkedPerCaller` of one caller and `maxParked` in all at once; then it is cancelled (the
 * backend gets `notifications/cancelled`). The share per caller keeps one caller from taking
 * every slot for the TTL and leaving the others none.
 *
 * A call is held by the instance whose backend link runs it; in a fleet its retry may land on
 * another instance, which hands it to the holder (`resume` says where, BridgeRelay carries it).
 */
export class InputBridge {
  /** This instance, in the keys of its calls' asks: random, so two instances never share one. */
  readonly instance = randomBytes(4).toString('hex');
  readonly ttlMs: number;
  readonly #parks = new Map<number, Park>();
  /** Parked calls per owner (only owners with some). */
  readonly #perOwner = new Map<string, number>();
  readonly #maxParked: number;
  readonly #maxPerCaller: number;
  #ids = 0;

  constructor(options: { ttlMs: number; maxParked: number; maxParkedPerCaller?: number }) {
    this.ttlMs = options.ttlMs;
    this.#maxParked = options.maxParked;
    this.#maxPerCaller = options.maxParkedPerCaller ?? options.maxParked;
  }

  /** Calls waiting for a client's retry now. */
  get parked(): number {
    return this.#parks.size;
  }

  /** A new call of a modern client, `owner`'s (McpContext.caller: its subject, else who the transport says). */
  open(owner = ''): Park {
    return new Park(++this.#ids, owner, this.instance);
  }

  /**
   * The parked call a modern retry resumes (found by the keys of the answers its verified
   * `requestState` and `inputResponses` carry), given the answers; undefined on a first round;
   * where it is when another instance holds it. Throws -32602 when it is no longer waiting.
   */
  resume(ctx: McpContext): Park | RemotePark | undefined {
    const responses = ctx.inputResponses;
    let instance: string | undefined;
    let id: number | undefined;
    for (const key of Object.keys(responses)) {
      const match = KEY.exec(key);
      if (match) {
        instance = match[1];
        id = Number(match[2]);
      }
    }
    if (id === undefined || instance === undefined) return undefined;
    if (instance !== this.instance) return { instance, id, responses: { ...responses } };
    return this.take(id, responses);
  }

  /** Resume parked call `id` with the client's answers (and errors); -32602 when it is gone. */
  take(
    id: number,
    responses: Readonly<Record<string, unknown>>,
    errors: Readonly<Record<string, unknown>> = {},
  ): Park {
    const park = this.#parks.get(id);
    if (!park) throw noLongerWaiting();
    this.#unpark(park);
    clearTimeout(park.timer);
    park.answer(responses);
    park.refuse(errors);
    return park;
  }

  /** Hand answers (and errors) to parked call `id` and leave it parked; false when it is gone. */
  settleAsks(
    id: number,
    responses: Readonly<Record<string, unknown>>,
    errors: Readonly<Record<string, unknown>>,
  ): boolean {
    const park = this.#parks.get(id);
    if (!park) return false;
    park.answer(responses);
    park.refuse(errors);
    return true;
  }

  /** Give parked call `id` up (its client went away on another instance). */
  cancel(id: number, reason: unknown): void {
    const park = this.#parks.get(id);
    if (!park) return;
    this.#unpark(park);
    clearTimeout(park.timer);
    park.cancel(reason);
  }

  /**
   * Wait for the call's next step in this round: its result (or error), or asks to put to the
   * client — then the call is parked and this round answers `input_required`.
   */
  async round(park: Park, ctx: McpContext): Promise<unknown> {
    // The client's request of this round: its cancellation gives the whole call up. Heard
    // through a listener, which the request's end forgets (no AbortController per call).
    let live = true;
    const forget = ctx.onCancel((reason) => {
      if (!live) return;
      park.cancel(reason);
      park.wake();
    });
    try {
      for (;;) {
        const step = await this.step(park);
        if (step.kind === 'ended') {
          if (step.outcome.ok) return step.outcome.value;
          throw step.outcome.error;
        }
        if (await this.#ask(step.asks, ctx)) {
          // The client's request was cancelled while its asks were put: there is no retry to
          // wait for, and a parked call would only hold its slot until the TTL.
          const given = park.cancelled;
          if (given) throw given.reason;
          this.park(park);
          // Any error will do: the open asks make this round's answer `input_required`.
          throw new RpcError(McpErrorCode.ServerError, 'input required');
        }
      }
    } finally {
      live = false;
      // This round's request may outlive the round (its answer is still being written).
      if (typeof forget === 'function') forget();
    }
  }

  /**
   * The call's next step: it ended, or it asks something new (those asks are marked sent). An
   * ask beyond the bridge's limits fails at once (the backend hears why) and the wait goes on.
   * Throws why the call was given up, once it was.
   */
  async step(park: Park): Promise<Step> {
    for (;;) {
      await park.next();
      const given = park.cancelled;
      if (given) throw given.reason;
      const outcome = park.outcome;
      if (outcome) return { kind: 'ended', outcome };
      if (this.#parks.size >= this.#maxParked) {
        park.fail(
          new RpcError(
            McpErrorCode.ServerError,
            `Too many calls are waiting for input through the gateway (bridge.max_parked ${this.#maxParked})`,
          ),
        );
        continue;
      }
      if ((this.#perOwner.get(park.owner) ?? 0) >= this.#maxPerCaller) {
        park.fail(
          new RpcError(
            McpErrorCode.ServerError,
            `Too many of your calls are waiting for input through the gateway (bridge.max_parked_per_caller ${this.#maxPerCaller}): answer or cancel one first`,
          ),
        );
        continue;
      }
      const asks = park.unsent();
      for (const [, ask] of asks) ask.sent = true;
      return { kind: 'asks', asks };
    }
  }

  /** Put the asks to the client; false when none is left open (each answered or failed). */
  async #ask(asks: [string, OpenAsk][], ctx: McpContext): Promise<boolean> {
    const put = await putAsks(asks, ctx);
    for (const [key, ask] of asks) {
      // Answered already (a key this request carries): handed on at once. Refused (a
      // capability the client lacks): the backend hears why.
      if (Object.hasOwn(put.responses, key)) ask.resolve(put.responses[key]);
      else if (Object.hasOwn(put.errors, key)) ask.reject(put.errors[key]);
    }
    return put.pending;
  }

  /** Park the call until its retry comes, at most the TTL. */
  park(park: Park): void {
    this.#parks.set(park.id, park);
    this.#perOwner.set(park.owner, (this.#perOwner.get(park.owner) ?? 0) + 1);
    park.timer = setTimeout(() => {
      this.#unpark(park);
      park.cancel(new RpcError(McpErrorCode.ServerError, `No retry within ${this.ttlMs} ms`));
    }, this.ttlMs);
    park.timer.unref();
  }

  #unpark(park: Park): void {
    if (!this.#parks.delete(park.id)) return;
    const left = (this.#perOwner.get(park.owner) ?? 1) - 1;
    if (left > 0) this.#perOwner.set(park.owner, left);
    else this.#perOwner.delete(park.owner);
  }
}

/** What putting asks to a client came to: each answered at once, refused, or left open. */
export interface PutAsks {
  /** By key: answers the request carried already. */
  responses: Record<string, unknown>;
  /** By key: asks the client cannot answer (a capability it lacks). */
  errors: Record<string, RpcError>;
  /** Some ask is left for the client's retry (this round answers `input_required`). */
  pending: boolean;
}

/**
 * Put a call's asks to the client of `ctx` — the asks of a call this instance holds, or of one
 * another instance holds (BridgeRelay): one way to ask, whoever parked the call.
 */
export async function putAsks(
  asks: readonly (readonly [key: string, ask: Pick<OpenAsk, 'method' | 'params'>])[],
  ctx: McpContext,
): Promise<PutAsks> {
  const put: PutAsks = { responses: {}, errors: {}, pending: false };
  await Promise.all(
    asks.map(async ([key, { method, params }]) => {
      const asked =
        method === 'sampling/createMessage'
          ? ctx.sample(params, { key })
          : ctx.elicit(params, { key });
      try {
        put.responses[key] = await asked;
      } catch (err) {
        if (RpcError.is(err)) put.errors[key] = err;
        else put.pending = true;
      }
    }),
  );
  return put;
}

/** -32602: the retry names a call that ended, expired, or whose instance is gone. */
export function noLongerWaiting(): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    'Invalid params: the call this input was for is no longer waiting (it ended or expired)',
    { bridge: 'expired' },
  );
}
