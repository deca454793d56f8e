import type { JsonRpcId } from './types.js';

const key = (id: JsonRpcId | undefined): string =>
  typeof id === 'string' ? `s${id}` : `n${String(id)}`;

/**
 * Abort controllers of the calls in flight, by request id, so a peer can cancel one (MCP's
 * `notifications/cancelled`). A controller is made only when a handler asks for its signal.
 */
export class CancellationRegistry {
  // Both made on first use: a stateless HTTP request gets a registry of its own, and most never
  // hold a signal or hear a cancellation.
  #controllers: Map<string, AbortController> | undefined;
  /**
   * Cancellations of calls whose handler never asked for its signal: remembered so the call's
   * result can be withheld. Bounded; an entry is dropped when a call with that id settles or
   * starts again.
   */
  #orphans: Set<string> | undefined;

  /** The signal for a call; notifications get one too but cannot be cancelled by id. */
  signalFor(id: JsonRpcId | undefined): AbortSignal {
    const controller = new AbortController();
    if (id !== undefined) {
      this.#controllers ??= new Map();
      this.#controllers.set(key(id), controller);
    }
    return controller.signal;
  }

  /** The call with this id has answered: forget its controller. */
  settled(id: JsonRpcId | undefined): void {
    if (this.#controllers !== undefined && this.#controllers.size > 0)
      this.#controllers.delete(key(id));
    if (this.#orphans !== undefined && this.#orphans.size > 0) this.#orphans.delete(key(id));
  }

  /** A call with this id starts: an old cancellation of the same id no longer applies. */
  started(id: JsonRpcId | undefined): void {
    if (this.#orphans !== undefined && this.#orphans.size > 0) this.#orphans.delete(key(id));
  }

  /** Whether the call was cancelled though its handler never looked at its signal. */
  cancelledWithoutSignal(id: JsonRpcId | undefined): boolean {
    return this.#orphans !== undefined && this.#orphans.size > 0 && this.#orphans.has(key(id));
  }

  /**
   * Cancel the call with this id: abort its signal with `reason`. Returns false when no handler
   * holds a signal for it (the cancellation is then remembered; see `cancelledWithoutSignal`).
   */
  cancel(id: JsonRpcId, reason?: unknown): boolean {
    const k = key(id);
    const controller = this.#controllers?.get(k);
    if (!controller) {
      this.#orphans ??= new Set();
      if (this.#orphans.size < 1024) this.#orphans.add(k);
      return false;
    }
    this.#controllers?.delete(k);
    controller.abort(reason);
    return true;
  }

  /** Calls whose handler holds a signal that can still be aborted. */
  get active(): number {
    return this.#controllers?.size ?? 0;
  }

  /** Abort every call; `reason` is only built when there is a call to abort. */
  abortAll(reason?: () => unknown): void {
    const controllers = this.#controllers;
    if (controllers !== undefined && controllers.size > 0) {
      const why = reason?.();
      for (const controller of controllers.values()) controller.abort(why);
      controllers.clear();
    }
    this.#orphans?.clear();
  }
}
