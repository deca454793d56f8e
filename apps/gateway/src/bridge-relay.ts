import type { StateStore } from '@mcpkit/fleet';
import {
  type EngineLogger,
  ErrorCode,
  type McpContext,
  McpErrorCode,
  RpcError,
} from '@mcpkit/protocol';
import {
  type InputBridge,
  noLongerWaiting,
  type Park,
  putAsks,
  type RemotePark,
  type Step,
} from './bridge.js';

/*
 * A fleet's modern retries, routed to the instance that holds their call. A 2026-07-28 client's
 * call whose backend asks for input waits, parked, on the instance whose backend link runs it
 * (bridge.ts); behind a round-robin balancer its retry lands elsewhere (N−1 times in N). That
 * instance asks the holder over the fleet's pub/sub — "here are the client's answers: what
 * next?" — and answers the client with what the holder says: the result, or the next asks, put
 * to the client under the holder's keys so the next retry finds the holder again, wherever it
 * lands. The client's requestState is checked where the retry lands (a key the fleet shares).
 */

/** A message between instances, on the receiver's channel. */
type Message =
  | {
      t: 'resume';
      corr: number;
      from: string;
      id: number;
      responses: Record<string, unknown>;
      errors: Record<string, unknown>;
    }
  | { t: 'settle'; id: number; responses: Record<string, unknown>; errors: Record<string, unknown> }
  | { t: 'cancel'; id: number; reason: string }
  | { t: 'ack'; corr: number }
  | { t: 'reply'; corr: number; step: WireStep };

/** A Step as it travels: values and errors as JSON. */
type WireStep =
  | { kind: 'done'; value: unknown }
  | { kind: 'failed'; error: { code: number; message: string; data?: unknown } }
  | { kind: 'asks'; asks: [key: string, method: string, params: Record<string, unknown>][] };

/** A retry waiting for the holder's step. */
interface Waiter {
  resolve(step: WireStep): void;
  fail(error: unknown): void;
  /** The holder heard it: wait for its step now, as long as the backend may take. */
  acked(): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A timer that does not keep the process alive. */
function unrefTimer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return timer;
}

/** How long the holder has to say it heard a retry: beyond it, it is gone (killed, restarted). */
const ACK_MS = 10_000;
const CHANNEL = 'mcpkit:gateway:bridge:';

/** The fleet side of an InputBridge: asks the holders of calls, and answers as a holder. */
export class BridgeRelay {
  readonly #bridge: InputBridge;
  readonly #store: StateStore;
  readonly #logger: EngineLogger | undefined;
  readonly #waiters = new Map<number, Waiter>();
  /** Calls this instance holds whose step another instance waits for, by call id. */
  readonly #serving = new Map<number, Park>();
  #corr = 0;
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(bridge: InputBridge, store: StateStore, logger?: EngineLogger) {
    this.#bridge = bridge;
    this.#store = store;
    this.#logger = logger;
  }

  /** Hear this instance's channel; resolves once subscribed. */
  async start(): Promise<void> {
    this.#unsubscribe = await this.#store.subscribe(CHANNEL + this.#bridge.instance, (text) =>
      this.#receive(text),
    );
  }

  /** Stop hearing; retries waiting on other instances fail. */
  async close(): Promise<void> {
    for (const waiter of [...this.#waiters.values()]) {
      waiter.fail(new RpcError(McpErrorCode.ServerError, 'The gateway is shutting down'));
    }
    await this.#unsubscribe?.();
  }

  /**
   * One round of a call another instance holds, for the client of `ctx`: the holder gets the
   * answers; the call's result (or error) is the answer, or its next asks are put to the client
   * (an `input_required` answer whose keys name the holder). `waitMs` bounds the wait for the
   * holder's step (the backend's own deadline and then some).
   */
  async round(remote: RemotePark, ctx: McpContext, waitMs: number): Promise<unknown> {
    const forget = ctx.onCancel((reason) => {
      this.#send(remote.instance, {
        t: 'cancel',
        id: remote.id,
        reason: reason instanceof Error ? reason.message : String(reason),
      }).catch(() => undefined); // logged by #send; the holder's TTL ends the call then
    });
    try {
      let responses = remote.responses;
      let errors: Record<string, unknown> = {};
      for (;;) {
        const step = await this.#ask(remote, responses, errors, waitMs);
        if (step.kind === 'done') return step.value;
        if (step.kind === 'failed') {
          throw new RpcError(step.error.code, step.error.message, step.error.data);
        }
        const put = await putAsks(
          step.asks.map(([key, method, params]) => [key, { method, params }] as const),
          ctx,
        );
        responses = put.responses;
        errors = Object.fromEntries(
          Object.entries(put.errors).map(([key, err]) => [key, wireError(err)]),
        );
        if (!put.pending) continue;
        // What was answered or refused at once goes to the holder now; the rest is the client's
        // to answer in its retry.
        if (Object.keys(responses).length + Object.keys(errors).length > 0) {
          await this.#send(remote.instance, { t: 'settle', id: remote.id, responses, errors });
        }
        throw new RpcError(McpErrorCode.ServerError, 'input required');
      }
    } finally {
      if (typeof forget === 'function') forget();
    }
  }

  #ask(
    remote: RemotePark,
    responses: Record<string, unknown>,
    errors: Record<string, unknown>,
    waitMs: number,
  ): Promise<WireStep> {
    const corr = ++this.#corr;
    return new Promise<WireStep>((resolve, reject) => {
      const end = () => {
        clearTimeout(waiter.timer);
        this.#waiters.delete(corr);
      };
      const waiter: Waiter = {
        resolve: (step) => {
          end();
          resolve(step);
        },
        fail: (error) => {
          end();
          reject(error);
        },
        acked: () => {
          clearTimeout(waiter.timer);
          waiter.timer = unrefTimer(
            () =>
              waiter.fail(
                new RpcError(
                  McpErrorCode.ServerError,
                  `The gateway instance holding this call did not answer within ${waitMs} ms`,
                ),
              ),
            waitMs,
          );
        },
        // Not heard at all: the holder is gone (killed, restarted), and its call with it.
        timer: unrefTimer(() => waiter.fail(noLongerWaiting()), ACK_MS),
      };
      this.#waiters.set(corr, waiter);
      this.#send(remote.instance, {
        t: 'resume',
        corr,
        from: this.#bridge.instance,
        id: remote.id,
        responses,
        errors,
      }).catch(waiter.fail);
    });
  }

  #receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    switch (message.t) {
      case 'resume':
        // Its failures are logged by #send; nothing may reach the process as unhandled.
        this.#serve(message).catch(() => undefined);
        return;
      case 'settle':
        this.#bridge.settleAsks(message.id, message.responses ?? {}, errors(message.errors));
        return;
      case 'cancel': {
        const reason = new RpcError(McpErrorCode.ServerError, `Cancelled: ${message.reason}`);
        // Parked, or running a step for the instance whose client went away.
        const serving = this.#serving.get(message.id);
        if (serving) {
          serving.cancel(reason);
          serving.wake();
        } else {
          this.#bridge.cancel(message.id, reason);
        }
        return;
      }
      case 'ack':
        this.#waiters.get(message.corr)?.acked();
        return;
      case 'reply':
        this.#waiters.get(message.corr)?.resolve(message.step);
        return;
    }
  }

  /** As the holder: resume the call with the answers another instance got, tell it what next. */
  async #serve(message: Extract<Message, { t: 'resume' }>): Promise<void> {
    const reply = (step: WireStep) =>
      this.#send(message.from, { t: 'reply', corr: message.corr, step });
    let park: Park;
    try {
      park = this.#bridge.take(message.id, message.responses ?? {}, errors(message.errors));
    } catch (err) {
      await reply({ kind: 'failed', error: wireError(err) });
      return;
    }
    await this.#send(message.from, { t: 'ack', corr: message.corr });
    let step: Step;
    this.#serving.set(park.id, park);
    try {
      step = await this.#bridge.step(park);
    } catch (err) {
      await reply({ kind: 'failed', error: wireError(err) });
      return;
    } finally {
      this.#serving.delete(park.id);
    }
    if (step.kind === 'ended') {
      const { outcome } = step;
      await reply(
        outcome.ok
          ? { kind: 'done', value: outcome.value }
          : { kind: 'failed', error: wireError(outcome.error) },
      );
      return;
    }
    this.#bridge.park(park);
    await reply({
      kind: 'asks',
      asks: step.asks.map(([key, ask]) => [key, ask.method, ask.params]),
    });
  }

  async #send(instance: string, message: Message): Promise<void> {
    try {
      await this.#store.publish(CHANNEL + instance, JSON.stringify(message));
    } catch (err) {
      this.#logger?.warn({ err, instance }, 'bridge: message to another instance not sent');
      throw new RpcError(
        McpErrorCode.ServerError,
        'The fleet cannot reach the gateway instance holding this call now; retry',
      );
    }
  }
}

/** An error as it travels between instances: a JSON-RPC error object. */
function wireError(err: unknown): { code: number; message: string; data?: unknown } {
  if (RpcError.is(err)) {
    return {
      code: err.code,
      message: err.message,
      ...(err.data === undefined ? {} : { data: err.data }),
    };
  }
  return {
    code: ErrorCode.InternalError,
    message: err instanceof Error ? err.message : String(err),
  };
}

/** The errors of asks, as RpcErrors again (what the backend hears). */
function errors(wire: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, e] of Object.entries(wire ?? {})) {
    const error = e as { code?: unknown; message?: unknown; data?: unknown };
    out[key] = new RpcError(
      typeof error.code === 'number' ? error.code : ErrorCode.InternalError,
      typeof error.message === 'string' ? error.message : 'Input refused',
      error.data,
    );
  }
  return out;
}
