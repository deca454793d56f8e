import type { EngineLogger, McpServer, McpSession } from '@mcpkit/protocol';
import type { StateStore } from './store.js';

/**
 * Whose subscriptions a change concerns: every key must equal the subscriber's `auth.data` value
 * (e.g. `{ userId: 'u1' }`). A plain object, not a function: it travels between instances.
 */
export type SubscriberMatch = Readonly<Record<string, string | number | boolean>>;

/** Resource changes told to the subscribers of every instance (see {@link shareNotifications}). */
export interface FleetNotifier {
  /**
   * `notifications/resources/updated` for `uri` to its subscribers on every instance (2025
   * sessions with a GET stream and 2026-07-28 `subscriptions/listen`), only those `match`
   * accepts. Resolves once the change is published (or, without a store, delivered).
   */
  resourceUpdated(uri: string, match?: SubscriberMatch): Promise<void>;
  /** Stop hearing the other instances' changes. */
  close(): Promise<void>;
}

interface Change {
  uri: string;
  match?: SubscriberMatch;
}

const accepts = (match: SubscriberMatch | undefined) =>
  match === undefined
    ? undefined
    : (session: McpSession) => {
        const data = session.subscriber?.data;
        if (!data) return false;
        return Object.entries(match).every(([key, value]) => data[key] === value);
      };

/**
 * Resource changes that reach the subscribers of every instance of a fleet, through the state
 * store's pub/sub (Redis): a change made through instance A is heard by a client subscribed on
 * instance C. Every instance, the one that made the change too, delivers what it hears to its own
 * subscribers — so nobody is told twice. Without `state` (one process), changes are delivered at
 * once, in process. When the store cannot publish, the change still reaches this instance's
 * subscribers and a warning is logged.
 *
 * @example
 * ```ts
 * const notifier = await shareNotifications(server, state);
 * await notifier.resourceUpdated('app://projects', { userId: user.id });
 * ```
 */
export async function shareNotifications(
  server: McpServer,
  state: StateStore | undefined,
  options: { channel?: string; logger?: EngineLogger } = {},
): Promise<FleetNotifier> {
  const deliver = (change: Change) => {
    server.resourceUpdated(change.uri, accepts(change.match));
  };
  if (!state) {
    return {
      resourceUpdated: async (uri, match) => deliver(match ? { uri, match } : { uri }),
      close: async () => {},
    };
  }
  const channel = options.channel ?? 'resource-updates';
  const logger = options.logger ?? server.logger;
  const off = await state.subscribe(channel, (message) => {
    let change: Change;
    try {
      change = JSON.parse(message) as Change;
    } catch {
      logger?.warn({ message: message.slice(0, 200) }, 'unreadable resource change dropped');
      return;
    }
    if (typeof change?.uri !== 'string') return;
    deliver(change);
  });
  return {
    resourceUpdated: async (uri, match) => {
      const change: Change = match ? { uri, match } : { uri };
      try {
        await state.publish(channel, JSON.stringify(change));
      } catch (err) {
        logger?.warn({ err, uri }, 'resource change not shared with the fleet: told here only');
        deliver(change);
      }
    },
    close: () => off(),
  };
}
