import type { JsonRpcId } from './types.js';

const key = (id: JsonRpcId | undefined): string =>
  typeof id === 'string' ? `s${id}` : `n${String(id)}`;

/**
 * Abort controllers of the calls in flight, by request id, so a peer can cancel one (MCP's
 * `notifications/cancelled`). A controller is made only when a handler asks for its signal.
 */
export class CancellationRegistry {
  readonly #controllers = new Map<string, AbortController>();

  /** The signal for a call; notifications get one too but cannot be cancelled by id. */
  signalFor(id: JsonRpcId | undefined): AbortSignal {
    const controller = new AbortController();
    if (id !== undefined) this.#controllers.set(key(id), controller);
    return controller.signal;
  }

  settled(id: JsonRpcId | undefined): void {
    if (this.#controllers.size > 0) this.#controllers.delete(key(id));
  }

  cancel(id: JsonRpcId, reason?: unknown): boolean {
    const controller = this.#controllers.get(key(id));
    if (!controller) return false;
    this.#controllers.delete(key(id));
    controller.abort(reason);
    return true;
  }

  abortAll(reason?: unknown): void {
    for (const controller of this.#controllers.values()) controller.abort(reason);
    this.#controllers.clear();
  }
}
