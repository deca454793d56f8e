import type { EventStatus, GatewayEvent } from '../event-types.js';

/**
 * One event ready to store, in column order: what the hot path builds (no object per event, no
 * I/O) and what crosses to the sink in batches.
 */
export type EventRow = [
  ts: number,
  trace_id: string,
  event_type: string,
  status: EventStatus,
  source: string,
  backend: string | null,
  tool: string | null,
  duration_ms: number | null,
  data: string | null,
  instance: string | null,
];

/** A validated `get_events` query: every filter given must match; newest first, `limit` rows. */
export interface EventFilter {
  trace_id?: string;
  event_type?: string;
  status?: EventStatus;
  instance?: string;
  /** epoch ms, inclusive */
  sinceMs?: number;
  limit: number;
}

/**
 * Where an {@link EventLog} stores events. The log keeps the hot path (a row appended to an
 * in-memory queue) and hands the sink batches; a sink must not block the event loop for longer
 * than a message post — the SQLite sink runs its database in a worker thread, a network sink
 * (PostgreSQL) is asynchronous by nature. Calls are made in order and a sink answers them in
 * order, so a query made after an append sees that append's events.
 */
export interface EventSink {
  /** Where the events go, for messages: a file path, or a URL without credentials. */
  readonly location: string;
  /** Store a batch (all or none). Rejects when it could not; the log keeps the rows and retries. */
  append(rows: EventRow[], now: number): Promise<void>;
  query(filter: EventFilter): Promise<GatewayEvent[]>;
  /** The query plan of `query(filter)`, one line per step, where the store can tell. */
  explain(filter: EventFilter): Promise<string[]>;
  count(): Promise<number>;
  /** Delete what the retention and the maximum count no longer keep; resolves with how many. */
  prune(now: number): Promise<number>;
  /** Store `rows` and release everything; later calls reject. */
  close(rows: EventRow[], now: number): Promise<void>;
  /**
   * The last chance at process exit, when no promise will settle again: store `rows` and release
   * everything before returning, within `timeoutMs`. Returns false when it could not.
   */
  closeSync(rows: EventRow[], now: number, timeoutMs: number): boolean;
}

/**
 * A stored event as a store's query returns it, by column name; `ts` is epoch ms (PostgreSQL's
 * driver returns a `bigint` column as a string).
 */
export interface StoredRow {
  ts: number | string;
  trace_id: string;
  event_type: string;
  status: EventStatus;
  source: string;
  backend: string | null;
  tool: string | null;
  duration_ms: number | null;
  data: string | null;
  instance: string | null;
}

/** A stored row as `get_events` returns it: ISO timestamp, `data` parsed. */
export function toEvent(row: StoredRow): GatewayEvent {
  return {
    timestamp: new Date(Number(row.ts)).toISOString(),
    trace_id: row.trace_id,
    event_type: row.event_type,
    status: row.status,
    source: row.source,
    backend: row.backend,
    tool: row.tool,
    duration_ms: row.duration_ms,
    data: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
    instance: row.instance,
  };
}
