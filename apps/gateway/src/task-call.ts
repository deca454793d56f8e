/**
 * A gateway call of a client that declared the tasks extension (`io.modelcontextprotocol/tasks`):
 * an ordinary 2026-07-28 call — whose backend asks are input rounds of the client's request (the
 * bridge's park) — until it becomes a task: when the backend answers with a task of its own, or
 * when it has run `afterMs` (a slow call of any backend, either era). From then on the backend
 * call goes on underneath the gateway's task: its asks wait for `tasks/update`, its cancellation
 * is `tasks/cancel`'s.
 */
import type { McpContext } from '@mcpkit/protocol';
import { clientSink, type InputSink, type Park } from './bridge.js';

export class TaskCall {
  readonly #park: Park;
  readonly #abort = new AbortController();
  readonly #afterMs: number;
  #ctx: McpContext;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #escalation: Promise<void> | undefined;

  constructor(park: Park, ctx: McpContext, afterMs: number) {
    this.#park = park;
    this.#afterMs = afterMs;
    this.#ctx = ctx;
    // Given up while parked (the client never came back, the bridge's TTL): the backend call stops.
    park.onCancel((reason) => this.#abort.abort(reason));
    this.attach(ctx);
  }

  /** Aborted when the call is given up: its request's or its task's cancellation, a refused task. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The client request the call answers now (its latest input round's, or its task's). */
  get ctx(): McpContext {
    return this.#ctx;
  }

  /** A client request of the call: the first, or the retry of an input round. */
  attach(ctx: McpContext): void {
    this.#ctx = ctx;
    if (this.#escalation) return;
    clearTimeout(this.#timer);
    ctx.onCancel((reason) => this.#abort.abort(reason));
    this.#timer = setTimeout(() => void this.escalate(), this.#afterMs);
  }

  /** Make the call a task (once): the client's current request is answered with it. */
  escalate(): Promise<void> {
    if (!this.#escalation) {
      clearTimeout(this.#timer);
      const ctx = this.#ctx;
      this.#escalation = ctx.runAsTask().then(
        (task) => {
          if (task) ctx.onCancel((reason) => this.#abort.abort(reason));
        },
        // Refused (the caller's task limit): the client has the error; nobody waits any more.
        (err: unknown) => this.#abort.abort(err),
      );
    }
    return this.#escalation;
  }

  /** Where the backend's asks go: input rounds until the call is a task, then the task. */
  readonly sink: InputSink = {
    ask: (method, params) =>
      this.#escalation ? clientSink(this.#ctx).ask(method, params) : this.#park.ask(method, params),
  };

  /** The backend call ended. */
  done(): void {
    clearTimeout(this.#timer);
  }
}
