/**
 * `subscriptions/listen` (MCP 2026-07-28, `basic/patterns/subscriptions`): a long-lived request
 * whose stream carries the change notifications a modern client asked for — what the 2025 era
 * did with `resources/subscribe` and the HTTP GET stream. The request stays open until the client
 * cancels it (`notifications/cancelled` on stdio, closing the stream on HTTP), the connection
 * ends, or the server closes it gracefully (a result, `closeAll`).
 */
import { z } from 'zod';
import { encodeMessage } from '../jsonrpc/codec.js';
import { NO_REPLY } from '../jsonrpc/dispatcher.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { method, type RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcId } from '../jsonrpc/types.js';
import { type McpCallExtra, McpContext } from './context.js';
import { META } from './era.js';
import { tasksRequired } from './handlers/tasks.js';
import type { ServerInternals } from './internals.js';
import { CANCELLATION, type McpSession } from './session.js';
import type { TaskRunner } from './tasks/runner.js';
import type { TaskRecord } from './tasks/store.js';
import { TASKS_EXTENSION } from './tasks/wire.js';

/** What a client may ask to hear about (the spec's notification filter). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose every change the client wants as `notifications/tasks` (tasks extension). */
  taskIds?: string[];
}

/** How many resources one listen may name. */
export const MAX_LISTEN_URIS = 256;
/** How long one of them may be (a common URL limit). */
export const MAX_LISTEN_URI_LENGTH = 2048;
/**
 * How large a listen's params may be, as JSON. A listen is held for as long as the client
 * wants; what it holds must not grow with what it sends (a few hundred large listens would
 * otherwise take gigabytes).
 */
export const MAX_LISTEN_BYTES = 64 * 1024;

const Filter = z.object({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z
    .array(z.string().min(1).max(MAX_LISTEN_URI_LENGTH))
    .max(MAX_LISTEN_URIS)
    .optional(),
  taskIds: z.array(z.string().min(1).max(256)).max(MAX_LISTEN_URIS).optional(),
});
// `notifications` is required (schema 2026-07-28 `SubscriptionsListenRequestParams`): a listen that asks
// for nothing is a mistake the client hears of, not a stream that never carries anything.
const ListenParams = z.looseObject({ notifications: Filter });

type ListKind = 'tools' | 'resources' | 'prompts';
const FILTER_KEY: Record<
  ListKind,
  'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged'
> = { tools: 'toolsListChanged', resources: 'resourcesListChanged', prompts: 'promptsListChanged' };

interface Listener {
  readonly id: JsonRpcId;
  readonly filter: ListenFilter;
  readonly uris: ReadonlySet<string>;
  /** The tasks it hears of (its caller's own). */
  readonly taskIds: ReadonlySet<string>;
  /** The caller, as a task's owner is recorded (McpContext.caller). */
  readonly caller: string;
  /** The request's scope: who subscribed, for `resourceUpdated` audiences. */
  readonly session: McpSession;
  readonly ctx: McpContext;
  /** Ends the request gracefully with a result (server shutdown). */
  readonly close: () => void;
  /** Ends the request without a response (the connection went). */
  readonly drop: () => void;
  /** The cancellations of the connection it came on: identifies that connection. */
  readonly connection: object;
  /** Whose share it counts against: the caller's subject; without auth, the transport's caller or the connection. */
  readonly owner: unknown;
}

/** Limits of {@link SubscriptionHub}. */
export interface SubscriptionLimits {
  /** Open listens in all. Default 1024. */
  max?: number;
  /**
   * Open listens of one caller (its token's subject; without auth, as the transport tells
   * callers apart — HTTP: address and client name — or its connection). Default 64:
   * one caller cannot take every slot and leave the others none.
   */
  maxPerCaller?: number;
}

/** Every open `subscriptions/listen` of one server, and the fan-out of its changes. */
export class SubscriptionHub {
  readonly #listeners = new Set<Listener>();
  /** Open listens per owner (only owners with some). */
  readonly #perOwner = new Map<unknown, number>();
  readonly #max: number;
  readonly #maxPerCaller: number;

  constructor(limits: SubscriptionLimits = {}) {
    this.#max = limits.max ?? 1024;
    this.#maxPerCaller = limits.maxPerCaller ?? 64;
  }

  /** Open subscriptions. */
  get size(): number {
    return this.#listeners.size;
  }

  /** `notifications/<kind>/list_changed` to every subscription that asked for it. */
  listChanged(kind: ListKind): void {
    const key = FILTER_KEY[kind];
    for (const listener of this.#listeners) {
      if (listener.filter[key]) send(listener, `notifications/${kind}/list_changed`, {});
    }
  }

  /** `notifications/resources/updated` to the subscriptions of `uri` that `audience` accepts. */
  resourceUpdated(uri: string, audience?: (session: McpSession) => boolean): number {
    let told = 0;
    for (const listener of this.#listeners) {
      if (listener.uris.has(uri) && (!audience || audience(listener.session))) {
        send(listener, 'notifications/resources/updated', { uri });
        told++;
      }
    }
    return told;
  }

  /**
   * `notifications/tasks` — the task as `tasks/get` tells it — to the subscriptions of its owner
   * that asked for it (tasks extension). `detailed` is what `tasks/get` would answer now.
   */
  taskChanged(
    task: TaskRecord,
    detailed: () => Promise<Record<string, unknown> | undefined>,
  ): void {
    const listeners = [...this.#listeners].filter(
      (l) => l.taskIds.has(task.taskId) && l.caller === task.owner,
    );
    if (listeners.length === 0) return;
    detailed().then(
      (params) => {
        if (!params) return;
        for (const listener of listeners) {
          if (this.#listeners.has(listener)) send(listener, 'notifications/tasks', params);
        }
      },
      // The store could not say: this change goes untold; polling still tells it.
      () => undefined,
    );
  }

  /** The connection identified by `connection` is ending: its subscriptions end with it. */
  endConnection(connection: object): void {
    for (const listener of [...this.#listeners]) {
      if (listener.connection === connection) listener.drop();
    }
  }

  /** End every subscription gracefully: each listen request is answered with its result. */
  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.close();
  }

  /**
   * The `subscriptions/listen` method, for the modern era's dispatcher. `tasks`: the server's
   * tasks, once it serves them (a listen may then name tasks to hear of).
   */
  method(server: ServerInternals, tasks: () => TaskRunner | undefined = () => undefined) {
    return method(
      'subscriptions/listen',
      ListenParams,
      async (params, ctx: RequestContext<McpCallExtra>) => {
        const id = ctx.id as JsonRpcId;
        // Measured on what was parsed: the listen's own size, whatever the transport.
        // encodeMessage: a progress token beyond 2^53 is a bigint, which JSON.stringify refuses.
        const bytes = encodeMessage(params).length;
        if (bytes > MAX_LISTEN_BYTES) {
          throw new RpcError(ErrorCode.InvalidParams, 'Listen request too large', {
            bytes,
            limit: MAX_LISTEN_BYTES,
          });
        }
        if (this.#listeners.size >= this.#max) {
          throw new RpcError(ErrorCode.InternalError, 'Subscription limit reached', {
            limit: this.#max,
            scope: 'server',
          });
        }
        // Without auth: as the transport tells callers apart (HTTP: address and client name —
        // each modern HTTP request is a connection of its own), else the connection.
        const mcp = new McpContext(ctx, params._meta as Record<string, unknown> | undefined);
        const owner: unknown = mcp.caller || ctx.extra.session[CANCELLATION];
        if ((this.#perOwner.get(owner) ?? 0) >= this.#maxPerCaller) {
          throw new RpcError(ErrorCode.InternalError, 'Subscription limit reached', {
            limit: this.#maxPerCaller,
            scope: 'caller',
          });
        }
        const asked = params.notifications;
        // What this server honours: every list it has, and the URIs the app lets the caller
        // watch (a refused URI is left out of the acknowledgment, not an error for the rest).
        const honoured: ListenFilter = {};
        for (const key of [
          'toolsListChanged',
          'promptsListChanged',
          'resourcesListChanged',
        ] as const) {
          if (asked[key]) honoured[key] = true;
        }
        const uris = new Set<string>();
        for (const uri of asked.resourceSubscriptions ?? []) {
          // One the caller may not read is not watched for it either.
          if (!server.resourceAllowed(uri, ctx.extra)) continue;
          try {
            await server.onSubscribe?.(uri, mcp);
            uris.add(uri);
          } catch (err) {
            server.logger?.debug({ err, uri }, 'subscription to a resource refused');
          }
        }
        if (asked.resourceSubscriptions) honoured.resourceSubscriptions = [...uris];
        // Tasks: the caller's own that exist (the others are left out of the acknowledgment, as
        // if they never were); asking without the extension is -32021 (tasks extension).
        const taskIds = new Set<string>();
        if (asked.taskIds) {
          const runner = tasks();
          if (!runner || !mcp.declaresExtension(TASKS_EXTENSION)) throw tasksRequired();
          for (const id of asked.taskIds) {
            const task = await runner.store.get(id, mcp.caller).catch(() => undefined);
            if (task) taskIds.add(id);
          }
          honoured.taskIds = [...taskIds];
        }
        ctx.extra.session.subscriber = ctx.extra.auth;
        return new Promise((resolve) => {
          const listener: Listener = {
            id,
            filter: honoured,
            uris,
            taskIds,
            caller: mcp.caller,
            session: ctx.extra.session,
            ctx: mcp,
            close: () => {
              if (this.#remove(listener)) resolve({ _meta: { [META.subscriptionId]: id } });
            },
            drop: () => {
              if (this.#remove(listener)) resolve(NO_REPLY);
            },
            connection: ctx.extra.session[CANCELLATION],
            owner,
          };
          // The acknowledgment first, then whatever changes (spec: nothing before it).
          send(listener, 'notifications/subscriptions/acknowledged', { notifications: honoured });
          this.#listeners.add(listener);
          this.#perOwner.set(owner, (this.#perOwner.get(owner) ?? 0) + 1);
          // Cancelled by the client or gone with the connection: no response (MCP cancellation).
          if (ctx.signal.aborted) listener.drop();
          else ctx.signal.addEventListener('abort', listener.drop, { once: true });
        });
      },
    );
  }

  /** Forget `listener` and free its owner's slot; false when it was gone already. */
  #remove(listener: Listener): boolean {
    if (!this.#listeners.delete(listener)) return false;
    const left = (this.#perOwner.get(listener.owner) ?? 1) - 1;
    if (left > 0) this.#perOwner.set(listener.owner, left);
    else this.#perOwner.delete(listener.owner);
    return true;
  }
}

function send(listener: Listener, name: string, params: Record<string, unknown>): void {
  listener.ctx.notify(name, { ...params, _meta: { [META.subscriptionId]: listener.id } });
}
