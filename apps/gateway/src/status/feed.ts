import type { EventQuery, GatewayEvent, RecordedEvent } from '../events.js';

/** What the status page needs of the event log: the latest events, and the new ones as they come. */
export interface EventFeed {
  /** Newest first, filtered as `get_events` filters (throws EventQueryError for a bad filter). */
  query(q: EventQuery): GatewayEvent[] | Promise<GatewayEvent[]>;
  /** Call `listener` with every event recorded from now on; returns the function that stops. */
  subscribe(listener: (event: GatewayEvent) => void): () => void;
}

/** The event log's side the feed uses: `subscribe` where the log has it. */
interface Log {
  query(q: EventQuery): GatewayEvent[] | Promise<GatewayEvent[]>;
  record(event: RecordedEvent): GatewayEvent;
  subscribe?: (listener: (event: GatewayEvent) => void) => () => void;
}

const tapped = new WeakMap<object, Set<(event: GatewayEvent) => void>>();

/**
 * The feed of an event log: its own `subscribe` when it has one; else `record` is wrapped once
 * per log (a log without `subscribe` tells nobody of its events) and each listener is called
 * after the event is queued. A listener that throws is dropped from this event, not from the
 * log: recording never fails because a page is watching.
 */
export function eventFeed(log: Log): EventFeed {
  const query = (q: EventQuery) => log.query(q);
  if (typeof log.subscribe === 'function') {
    const subscribe = log.subscribe.bind(log);
    return { query, subscribe: (listener) => subscribe(safe(listener)) };
  }
  let listeners = tapped.get(log);
  if (!listeners) {
    const set = new Set<(event: GatewayEvent) => void>();
    listeners = set;
    tapped.set(log, set);
    const record = log.record.bind(log);
    log.record = (event) => {
      const recorded = record(event);
      for (const listener of set) listener(recorded);
      return recorded;
    };
  }
  const set = listeners;
  return {
    query,
    subscribe: (listener) => {
      const wrapped = safe(listener);
      set.add(wrapped);
      return () => {
        set.delete(wrapped);
      };
    },
  };
}

function safe(listener: (event: GatewayEvent) => void): (event: GatewayEvent) => void {
  return (event) => {
    try {
      listener(event);
    } catch {
      // A watcher's trouble is its own (a closed stream): the event is recorded regardless.
    }
  };
}
