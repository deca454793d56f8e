import type { EventQuery, GatewayEvent } from '../events.js';

/** What the status page needs of the event log: the latest events, and the new ones as they come. */
export interface EventFeed {
  /** Newest first, filtered as `get_events` filters (rejects with EventQueryError for a bad filter). */
  query(q: EventQuery): GatewayEvent[] | Promise<GatewayEvent[]>;
  /** Call `listener` with every event recorded from now on; returns the function that stops. */
  subscribe(listener: (event: GatewayEvent) => void): () => void;
}

/**
 * The feed of an event log (`EventLog.query` and `EventLog.subscribe`). A listener that throws
 * is cut off from that event only: recording never fails because a page is watching.
 */
export function eventFeed(log: EventFeed): EventFeed {
  return {
    query: (q) => log.query(q),
    subscribe: (listener) =>
      log.subscribe((event) => {
        try {
          listener(event);
        } catch {
          // A watcher's trouble is its own (a closed stream): the event is recorded regardless.
        }
      }),
  };
}
