import { ChurnMap } from './churn-map.js';
import { IdMap } from './id-map.js';
import type { JsonRpcId } from './types.js';

/**
 * A call's key: the id itself when it is a non-negative safe integer (what nearly every client
 * sends, counting up), else a string that tells a string id from a number (`"5"` is not `5`).
 */
type Key = number | string;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const key = (id: JsonRpcId | undefined): Key =>
  typeof id === 'number' && id >= 0 && Number.isSafeInteger(id)
    ? id
    : typeof id === 'bigint' && id >= 0n && id <= MAX_SAFE
      ? Number(id)
      : typeof id === 'string'
        ? `s${id}`
        : `n${String(id)}`;

/**
 * The calls' entries by key: integer keys in an IdMap (a lookup is an array access), the others
 * in a ChurnMap, each made on first use (a stateless HTTP request's registry holds one call).
 * A key comes and goes per call, which neither makes garbage of (see both).
 */
class Calls<V> {
  #ints: IdMap<V> | undefined;
  #others: ChurnMap<V> | undefined;

  get size(): number {
    return (this.#ints?.size ?? 0) + (this.#others?.size ?? 0);
  }

  get(k: Key): V | undefined {
    return typeof k === 'number' ? this.#ints?.get(k) : this.#others?.get(k);
  }

  has(k: Key): boolean {
    return (typeof k === 'number' ? this.#ints?.has(k) : this.#others?.has(k)) === true;
  }

  set(k: Key, value: V): void {
    if (typeof k === 'number') {
      this.#ints ??= new IdMap();
      this.#ints.set(k, value);
    } else {
      this.#others ??= new ChurnMap();
      this.#others.set(k, value);
    }
  }

  delete(k: Key): boolean {
    return (typeof k === 'number' ? this.#ints?.delete(k) : this.#others?.delete(k)) === true;
  }

  keys(): Key[] {
    return [...(this.#ints?.keys() ?? []), ...(this.#others?.keys() ?? [])];
  }

  entries(): [Key, V][] {
    return [...(this.#ints?.entries() ?? []), ...(this.#others?.entries() ?? [])];
  }

  clear(): void {
    this.#ints?.clear();
    this.#others?.clear();
  }
}

/** Told once when a call is cancelled, with the reason (see {@link CancellationRegistry.onCancel}). */
export type CancelListener = (reason: unknown) => void;

/** The reason a cancellation without one carries: what `AbortController.abort()` gives. */
const abortReason = (reason: unknown): unknown =>
  reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;

/** How a {@link CancellationRegistry} treats the calls it cancels. */
export interface CancellationOptions {
  /**
   * A call cancelled while in flight gets no response at all, whatever its handler ends with — a
   * result or an error: `settled` tells the dispatcher so. MCP `basic/utilities/cancellation`:
   * "Receivers of a cancellation notification SHOULD NOT send a response for the cancelled
   * request" (an MCP session's registry withholds). Default false: a plain JSON-RPC peer still
   * answers a cancelled call, as LSP's `$/cancelRequest` wants (an error, -32800).
   */
  withholdReplies?: boolean;
}

/** Cancellations a registry remembers at most (see `#cancelled`). */
const MAX_CANCELLED = 1024;

/**
 * Abort controllers of the calls in flight, by request id, so a peer can cancel one (MCP's
 * `notifications/cancelled`). A controller is made only when a handler asks for its signal; a
 * handler that only needs to hear of a cancellation registers a listener instead, which costs a
 * map entry where a controller costs an EventTarget and its listeners (a gateway forwarding
 * every call spent ~6 % of its time on them).
 */
export class CancellationRegistry {
  readonly #withhold: boolean;
  // All made on first use: a stateless HTTP request gets a registry of its own, and most never
  // hold a signal or hear a cancellation. Not Maps: a key comes and goes per call (see Calls).
  #controllers: Calls<AbortController> | undefined;
  #listeners: Calls<CancelListener | CancelListener[]> | undefined;
  /**
   * Calls cancelled while in flight, with the reason given: remembered so the call's result can
   * be withheld, and a signal or listener asked for late is told at once. An entry is dropped
   * when its call settles (a cancellation of a call not in flight is not recorded at all).
   * Bounded against calls that never settle: when full, the oldest goes (a Map iterates in
   * insertion order).
   */
  #cancelled: Map<Key, unknown> | undefined;
  /**
   * The calls in flight (between `started` and `settled`): a cancellation of any other id — a
   * request already answered, or one never sent — is ignored, as MCP allows ("the request is
   * unknown or already completed"); remembered, it would withhold the answer of a later request
   * that happened to take the id.
   */
  #inflight: Calls<true> | undefined;

  constructor(options: CancellationOptions = {}) {
    this.#withhold = options.withholdReplies === true;
  }

  /**
   * The signal for a call; notifications get one too but cannot be cancelled by id. A call
   * cancelled before its handler asked (it listened with `onCancel`, or had not looked yet)
   * gets a signal aborted already, with the cancellation's reason.
   */
  signalFor(id: JsonRpcId | undefined): AbortSignal {
    const controller = new AbortController();
    if (id !== undefined) {
      const k = key(id);
      const cancelled = this.#cancelled;
      if (cancelled !== undefined && cancelled.size > 0 && cancelled.has(k)) {
        controller.abort(cancelled.get(k));
        return controller.signal;
      }
      this.#controllers ??= new Calls();
      this.#controllers.set(k, controller);
    }
    return controller.signal;
  }

  /**
   * Call `listener` once if the call with this id is cancelled while in flight — at once when it
   * already was. Forgotten when the call settles, or earlier by calling the returned disposer
   * (a request forwarded under this call that ends first: the call may outlive many of them).
   * Returns nothing when there is nothing to forget (told at once, or a notification: no id, it
   * cannot be cancelled). The listener must not throw (one that does is ignored).
   */
  onCancel(id: JsonRpcId | undefined, listener: CancelListener): (() => void) | undefined {
    if (id === undefined) return undefined;
    const k = key(id);
    const cancelled = this.#cancelled;
    if (cancelled?.has(k)) {
      // With the reason the call was cancelled for, and as safely as `cancel` tells a listener.
      tellOne(listener, abortReason(cancelled.get(k)));
      return undefined;
    }
    this.#listeners ??= new Calls();
    const present = this.#listeners.get(k);
    if (present === undefined) this.#listeners.set(k, listener);
    else if (typeof present === 'function') this.#listeners.set(k, [present, listener]);
    else present.push(listener);
    return () => this.#forget(k, listener);
  }

  /**
   * Drop one listener of a call. Found by identity, so a disposer called late — the call settled,
   * and a new call took the id — cannot take the new call's listener (unless given the very same
   * function, which then is told once anyway).
   */
  #forget(k: Key, listener: CancelListener): void {
    const listeners = this.#listeners;
    const present = listeners?.get(k);
    if (present === undefined) return;
    if (present === listener) {
      listeners?.delete(k);
      return;
    }
    if (typeof present === 'function') return;
    const at = present.indexOf(listener);
    if (at < 0) return;
    present.splice(at, 1);
    if (present.length === 0) listeners?.delete(k);
  }

  /**
   * The call with this id has ended: forget its controller, listeners and cancellation. Returns
   * true when its response is to be withheld — it was cancelled while in flight and this
   * registry withholds replies ({@link CancellationOptions.withholdReplies}).
   */
  settled(id: JsonRpcId | undefined): boolean {
    if (id === undefined) return false;
    const k = key(id);
    if (this.#inflight !== undefined && this.#inflight.size > 0) this.#inflight.delete(k);
    if (this.#controllers !== undefined && this.#controllers.size > 0) this.#controllers.delete(k);
    if (this.#listeners !== undefined && this.#listeners.size > 0) this.#listeners.delete(k);
    if (this.#cancelled === undefined || this.#cancelled.size === 0) return false;
    return this.#cancelled.delete(k) && this.#withhold;
  }

  /**
   * A call with this id starts (the dispatcher tells, before its handler runs): it can be
   * cancelled from now until it settles, and an old cancellation of the id no longer applies.
   */
  started(id: JsonRpcId | undefined): void {
    if (id === undefined) return;
    const k = key(id);
    this.#inflight ??= new Calls();
    this.#inflight.set(k, true);
    if (this.#cancelled !== undefined && this.#cancelled.size > 0) this.#cancelled.delete(k);
  }

  /**
   * Whether the call was cancelled while in flight, its handler holding a signal or not (the
   * name is older than listeners: a handler that reads its signal sees `aborted` as well).
   */
  cancelledWithoutSignal(id: JsonRpcId | undefined): boolean {
    return (
      this.#cancelled !== undefined && this.#cancelled.size > 0 && this.#cancelled.has(key(id))
    );
  }

  /**
   * Cancel the call with this id: abort its signal and tell its listeners, with `reason`.
   * Returns false when no handler holds a signal or a listener for it. Either way the
   * cancellation is remembered until the call settles (see `cancelledWithoutSignal`).
   */
  cancel(id: JsonRpcId, reason?: unknown): boolean {
    const k = key(id);
    const controller = this.#controllers?.get(k);
    const listeners = this.#listeners?.get(k);
    // Not a call in flight: nothing to cancel, nothing to remember.
    if (controller === undefined && listeners === undefined && !this.#inflight?.has(k)) {
      return false;
    }
    this.#remember(k, reason);
    if (controller) {
      this.#controllers?.delete(k);
      controller.abort(reason);
    }
    if (listeners) {
      this.#listeners?.delete(k);
      tell(listeners, abortReason(reason));
    }
    return controller !== undefined || listeners !== undefined;
  }

  /**
   * Calls whose handler holds a signal or a listener that can still be told; a call holding both
   * counts once. Not on any hot path (a gauge, tests): it walks the smaller of the two maps.
   */
  get active(): number {
    const controllers = this.#controllers;
    const listeners = this.#listeners;
    if (controllers === undefined || listeners === undefined) {
      return (controllers?.size ?? 0) + (listeners?.size ?? 0);
    }
    let both = 0;
    if (controllers.size <= listeners.size) {
      for (const k of controllers.keys()) if (listeners.has(k)) both++;
    } else {
      for (const k of listeners.keys()) if (controllers.has(k)) both++;
    }
    return controllers.size + listeners.size - both;
  }

  /**
   * Abort every call; `reason` is only built when there is a call to abort. Each is remembered
   * as cancelled, as `cancel` does: its result is withheld.
   */
  abortAll(reason?: () => unknown): void {
    const controllers = this.#controllers;
    const listeners = this.#listeners;
    const any = (controllers?.size ?? 0) + (listeners?.size ?? 0) > 0;
    const why = any ? reason?.() : undefined;
    // Cancellations of calls no longer running are of no use from here on.
    this.#cancelled?.clear();
    if (controllers !== undefined && controllers.size > 0) {
      const all = controllers.entries();
      controllers.clear();
      for (const [k] of all) this.#remember(k, why);
      for (const [, controller] of all) controller.abort(why);
    }
    if (listeners !== undefined && listeners.size > 0) {
      const all = listeners.entries();
      listeners.clear();
      for (const [k] of all) this.#remember(k, why);
      for (const [, l] of all) tell(l, abortReason(why));
    }
  }

  /** Remember a cancellation; when MAX_CANCELLED are remembered, the oldest is forgotten. */
  #remember(k: Key, reason: unknown): void {
    this.#cancelled ??= new Map();
    const cancelled = this.#cancelled;
    // Cancelled again: the first reason stays, the one its handler heard.
    if (cancelled.has(k)) return;
    if (cancelled.size >= MAX_CANCELLED) {
      const oldest = cancelled.keys().next();
      if (oldest.done !== true) cancelled.delete(oldest.value);
    }
    cancelled.set(k, reason);
  }
}

/** Call each listener; one that throws does not keep the others from hearing. */
function tell(listeners: CancelListener | CancelListener[], reason: unknown): void {
  if (typeof listeners === 'function') {
    tellOne(listeners, reason);
    return;
  }
  for (const l of listeners) tellOne(l, reason);
}

function tellOne(listener: CancelListener, reason: unknown): void {
  try {
    listener(reason);
  } catch {
    // A listener must not throw (see onCancel); one that does may not crash the process — the
    // canceller is a peer's notification — nor keep the other listeners from hearing.
  }
}
