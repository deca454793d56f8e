/**
 * `subscriptions/listen` (MCP 2026-07-28, `basic/patterns/subscriptions`): a long-lived request
 * whose stream carries the change notifications a modern client asked for — what the 2025 era
 * did with `resources/subscribe` and the HTTP GET stream. The request stays open until the client
 * cancels it (`notifications/cancelled` on stdio, closing the stream on HTTP), the connection
 * ends, or the server closes it gracefully (a result, `closeAll`).
 */
import { z } from 'zod';
import { NO_REPLY } from '../jsonrpc/dispatcher.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { method, type RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcId } from '../jsonrpc/types.js';
import { type McpCallExtra, McpContext } from './context.js';
import { META } from './era.js';
import type { ServerInternals } from './internals.js';
import { CANCELLATION, type McpSession } from './session.js';

/** What a client may ask to hear about (the spec's notification filter). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const Filter = z.object({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string().min(1)).max(1000).optional(),
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
  /** The request's scope: who subscribed, for `resourceUpdated` audiences. */
  readonly session: McpSession;
  readonly ctx: McpContext;
  /** Ends the request gracefully with a result (server shutdown). */
  readonly close: () => void;
  /** Ends the request without a response (the connection went). */
  readonly drop: () => void;
  /** The cancellations of the connection it came on: identifies that connection. */
  readonly connection: object;
}

/** Every open `subscriptions/listen` of one server, and the fan-out of its changes. */
export class SubscriptionHub {
  readonly #listeners = new Set<Listener>();
  readonly #max: number;

  constructor(max = 1024) {
    this.#max = max;
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

  /** The `subscriptions/listen` method, for the modern era's dispatcher. */
  method(server: ServerInternals) {
    return method(
      'subscriptions/listen',
      ListenParams,
      async (params, ctx: RequestContext<McpCallExtra>) => {
        const id = ctx.id as JsonRpcId;
        if (this.#listeners.size >= this.#max) {
          throw new RpcError(ErrorCode.InternalError, 'Subscription limit reached', {
            limit: this.#max,
          });
        }
        const mcp = new McpContext(ctx, params._meta as Record<string, unknown> | undefined);
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
          try {
            await server.onSubscribe?.(uri, mcp);
            uris.add(uri);
          } catch (err) {
            server.logger?.debug({ err, uri }, 'subscription to a resource refused');
          }
        }
        if (asked.resourceSubscriptions) honoured.resourceSubscriptions = [...uris];
        ctx.extra.session.subscriber = ctx.extra.auth;
        return new Promise((resolve) => {
          const listener: Listener = {
            id,
            filter: honoured,
            uris,
            session: ctx.extra.session,
            ctx: mcp,
            close: () => {
              this.#listeners.delete(listener);
              resolve({ _meta: { [META.subscriptionId]: id } });
            },
            drop: () => {
              this.#listeners.delete(listener);
              resolve(NO_REPLY);
            },
            connection: ctx.extra.session[CANCELLATION],
          };
          // The acknowledgment first, then whatever changes (spec: nothing before it).
          send(listener, 'notifications/subscriptions/acknowledged', { notifications: honoured });
          this.#listeners.add(listener);
          // Cancelled by the client or gone with the connection: no response (MCP cancellation).
          if (ctx.signal.aborted) listener.drop();
          else ctx.signal.addEventListener('abort', listener.drop, { once: true });
        });
      },
    );
  }
}

function send(listener: Listener, name: string, params: Record<string, unknown>): void {
  listener.ctx.notify(name, { ...params, _meta: { [META.subscriptionId]: listener.id } });
}
