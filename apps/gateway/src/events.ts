/**
 * The gateway's telemetry event log. `record()` sits on the hot path of every forwarded tool call:
 * it validates the event, fills in `timestamp`, `trace_id` and `instance`, and appends a row to an
 * in-memory queue — no I/O, no promise. Every `flushIntervalMs` (100 ms by default, or at once for
 * a burst of 2 000) the queue goes to the sink as one batch; the SQLite sink writes it from a
 * worker thread (sqlite-worker.ts), so neither the insert nor a WAL checkpoint stalls the event
 * loop. `query()`, `count()` and `prune()` hand the queue over first, and the sink answers in
 * order: readers in this process always see their own writes; another process sharing the file
 * sees an event within `flushIntervalMs` plus one batch write.
 *
 * Under overload — the sink is more than OVERLOAD_ROWS behind (a slow or locked disk) — the log
 * degrades instead of growing or slowing calls: successful calls are aggregated per (type,
 * source, backend, tool) into one event per flush (`data.aggregated` calls, mean and max
 * duration), failures and lifecycle events are still kept one by one, and what cannot be kept is
 * dropped oldest first. Both are counted in `stats()` (shown by `gateway_status`).
 *
 * The same aggregation bounds the write rate: beyond `detailPerSecond` successful tool calls
 * (`gateway.tool_call` events) in one second of the log's clock (1 000 by default), that
 * second's further successes are aggregated — and counted in `stats().aggregated` too. Every
 * stored row costs the writer thread ~8 µs of CPU (the row and six indexes): at 17 000 calls/s
 * that was a quarter of the gateway's CPU, taken from the calls on a small machine. Failures,
 * and every call below the rate, stay one event each.
 *
 * Durability is that of telemetry, deliberately: a crash of the process (or SIGKILL) loses the
 * events still queued — those of the last ≤ `flushIntervalMs`; a normal `process.exit()` writes
 * every open log synchronously (bounded wait for the worker).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  DAY_MS,
  DEFAULT_QUERY_LIMIT,
  EVENT_STATUSES,
  type EventLogOptions,
  type EventQuery,
  EventQueryError,
  type GatewayEvent,
  MAX_QUERY_LIMIT,
  parseSince,
  type RecordedEvent,
} from './event-types.js';
import type { PostgresSink } from './events/postgres-sink.js';
import { describePostgresUrl, isPostgresTarget } from './events/postgres-url.js';
import type { EventFilter, EventRow, EventSink } from './events/sink.js';
import { SqliteSink } from './events/sqlite-sink.js';
import { nextTraceId } from './trace-id.js';

export * from './event-types.js';
export { defaultEventLogPath } from './events/path.js';
export type { EventFilter, EventRow, EventSink } from './events/sink.js';

/**
 * A burst that fills the queue this far (20 000 events/s with the default interval) goes to the
 * sink at once: it bounds the size of one message to the worker and of one transaction.
 */
const FLUSH_AT_QUEUED = 2_000;
/** Successful tool calls a second recorded one by one before the rest are aggregated. */
const DEFAULT_DETAIL_PER_SECOND = 1_000;
/** The event of a forwarded tool call (gateway.ts): the only one `detailPerSecond` limits. */
const TOOL_CALL = 'gateway.tool_call';
/** Rows handed to the sink and not yet stored beyond which the log aggregates (see header). */
const OVERLOAD_ROWS = 20_000;
/** While the sink keeps failing or lags, keep at most this many events, newest. */
const MAX_RETAINED = 100_000;
/** How soon a failed batch is retried. */
const RETRY_MS = 1000;
/** How long a normal exit waits for the worker to store the last events. */
const EXIT_WAIT_MS = 2000;

/**
 * An id for this gateway process, on every event it records: `host:pid:random` — readable, and
 * unique even when a pid is reused after a restart.
 */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

// Write every open log on a normal exit (process.exit(), end of the event loop): the sink stores
// the last events synchronously, bounded. One listener for all logs.
const openLogs = new Set<EventLog>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const log of openLogs) {
      try {
        log.closeSync();
      } catch {
        // exiting anyway: nothing left to tell
      }
    }
  });
}

function checkOption(name: string, value: number, min: number, integer: boolean): number {
  if (
    typeof value !== 'number' ||
    Number.isNaN(value) ||
    value < min ||
    (integer && !Number.isInteger(value))
  ) {
    throw new RangeError(
      `EventLog option ${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${String(value)}`,
    );
  }
  return value;
}

function nullableString(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new TypeError(`event ${name} must be a string or null`);
  return value;
}

function requiredString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`event ${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function serializeData(data: Record<string, unknown> | null | undefined): string | null {
  if (data === undefined || data === null) return null;
  try {
    return JSON.stringify(data) ?? null;
  } catch (err) {
    // A circular structure or a BigInt must not break the tool call that is being recorded.
    return JSON.stringify({ unserializable: err instanceof Error ? err.message : String(err) });
  }
}

/** Validates a `get_events` query into the sink's filter; EventQueryError for a bad one. */
function toFilter(q: EventQuery, now: number): EventFilter {
  const limit = q.limit ?? DEFAULT_QUERY_LIMIT;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > MAX_QUERY_LIMIT
  ) {
    throw new EventQueryError(
      `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}, got ${JSON.stringify(q.limit)}`,
    );
  }
  if (q.status !== undefined && !EVENT_STATUSES.includes(q.status)) {
    throw new EventQueryError(
      `status must be one of ${EVENT_STATUSES.join(', ')}, got ${JSON.stringify(q.status)}`,
    );
  }
  const filter: EventFilter = { limit };
  for (const key of ['trace_id', 'event_type', 'instance'] as const) {
    const value = q[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw new EventQueryError(`${key} must be a string, got ${JSON.stringify(value)}`);
    }
    filter[key] = value;
  }
  if (q.status !== undefined) filter.status = q.status;
  if (q.since !== undefined) filter.sinceMs = parseSince(q.since, now);
  return filter;
}

/** How the log is keeping up, for `gateway_status` and metrics. */
export interface EventLogStats {
  /** events recorded since open (an aggregated call counts once per call) */
  recorded: number;
  /** rows the sink has stored */
  written: number;
  /** rows queued or handed to the sink and not yet stored */
  pending: number;
  /** ms since the oldest of those was recorded; 0 when none */
  lag_ms: number;
  /**
   * successful calls folded into aggregate events: tool calls beyond `detailPerSecond` in their
   * second, and any success while the sink lagged
   */
  aggregated: number;
  /** events dropped, oldest first, while the sink failed or lagged */
  dropped: number;
  /** whether the last write failed (it is retried) */
  failing: boolean;
}

/** Rows handed to the sink in one append: how many, and when the first was recorded. */
interface Batch {
  rows: number;
  since: number;
}

/** A successful call folded into its aggregate while the sink lags. */
interface Aggregate {
  row: EventRow;
  count: number;
  totalMs: number;
  maxMs: number;
  firstTs: number;
}

/** The event a row stores, as record() returns it (`data` as given, not serialized). */
function recordedEvent(row: EventRow, data: GatewayEvent['data']): GatewayEvent {
  return {
    timestamp: new Date(row[0]).toISOString(),
    trace_id: row[1],
    event_type: row[2],
    status: row[3],
    source: row[4],
    backend: row[5],
    tool: row[6],
    duration_ms: row[7],
    data,
    instance: row[9],
  };
}

/**
 * The gateway's telemetry: events recorded on the hot path into a queue and stored in batches by
 * a sink (SQLite in a worker thread by default), pruned by age and count, queried by `get_events`.
 * Open with {@link EventLog.open}, or over another sink with {@link EventLog.over}.
 */
export class EventLog {
  /** Where the events go (a file path, ':memory:', or the sink's location). */
  readonly path: string;
  /** The id on every event this log records, unless the event names its own. */
  readonly instance: string;
  readonly #sink: EventSink;
  readonly #now: () => number;
  readonly #flushIntervalMs: number;
  readonly #detailPerSecond: number;
  /** The second (epoch ms / 1000, by this log's clock) whose tool calls `#detailed` counts. */
  #second = Number.NaN;
  /** Successful tool calls of `#second` recorded one by one. */
  #detailed = 0;
  #queue: EventRow[] = [];
  /** Batches handed to the sink, oldest first: size and first timestamp (for the lag). */
  readonly #inflight: Batch[] = [];
  #inflightRows = 0;
  /** The latest batch handed to the sink, until it settles. */
  #last: Promise<void> | undefined;
  #aggregates = new Map<string, Aggregate>();
  readonly #listeners = new Set<(event: GatewayEvent) => void>();
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #closed = false;
  #recorded = 0;
  #written = 0;
  #aggregated = 0;
  #dropped = 0;
  #droppedSinceWarning = 0;

  /**
   * Opens (creating it, its parent directories, the table and the indexes if need be) the SQLite
   * log at `path`, a file path or ':memory:', and prunes it. Any problem with the path — a
   * directory that cannot be created or written, a file that is not an event log — throws here,
   * with the path in the message, rather than later from a background write.
   */
  static open(path: string, options: EventLogOptions = {}): EventLog {
    if (typeof path !== 'string' || path === '') {
      throw new TypeError('EventLog.open needs a file path or ":memory:"');
    }
    const retentionDays = checkOption('retentionDays', options.retentionDays ?? 30, 0, false);
    const maxEvents = checkOption('maxEvents', options.maxEvents ?? 1_000_000, 1, true);
    let sink: SqliteSink;
    try {
      sink = SqliteSink.open(
        path,
        retentionDays * DAY_MS,
        maxEvents,
        options.startAfter ? { startAfter: options.startAfter } : {},
      );
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot open the event log at ${path}: ${reason}`, { cause: err });
    }
    return EventLog.over(sink, options);
  }

  /**
   * The log at `target`: a `postgres://…` URL (a table shared by a fleet of gateways, see
   * postgres-sink.ts; `schema` picks its schema) or a SQLite file path / ':memory:' (as
   * {@link EventLog.open}). Rejects with the target (without a password) and the reason when it
   * cannot be used.
   */
  static async connect(
    target: string,
    options: EventLogOptions & { schema?: string } = {},
  ): Promise<EventLog> {
    if (!isPostgresTarget(target)) return EventLog.open(target, options);
    const retentionDays = checkOption('retentionDays', options.retentionDays ?? 30, 0, false);
    const maxEvents = checkOption('maxEvents', options.maxEvents ?? 1_000_000, 1, true);
    let sink: PostgresSink;
    try {
      // Loaded for a PostgreSQL target only: `pg` is ~50 ms of a gateway's start otherwise.
      const { PostgresSink } = await import('./events/postgres-sink.js');
      sink = await PostgresSink.connect(target, {
        retentionMs: retentionDays * DAY_MS,
        maxEvents,
        ...(options.schema ? { schema: options.schema } : {}),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot open the event log at ${describePostgresUrl(target)}: ${reason}`, {
        cause: err,
      });
    }
    return EventLog.over(sink, options);
  }

  /** A log over any {@link EventSink} (the SQLite one is {@link EventLog.open}'s). Prunes it. */
  static over(sink: EventSink, options: EventLogOptions = {}): EventLog {
    const log = new EventLog(sink, {
      flushIntervalMs: checkOption('flushIntervalMs', options.flushIntervalMs ?? 100, 0, false),
      detailPerSecond: checkOption(
        'detailPerSecond',
        options.detailPerSecond ?? DEFAULT_DETAIL_PER_SECOND,
        0,
        false,
      ),
      now: options.now ?? Date.now,
      instance: options.instance ?? newInstanceId(),
    });
    log.#sink.prune(log.#now()).catch((err: unknown) => log.#warnFailure(err));
    openLogs.add(log);
    installExitHook();
    return log;
  }

  private constructor(
    sink: EventSink,
    options: {
      flushIntervalMs: number;
      detailPerSecond: number;
      now: () => number;
      instance: string;
    },
  ) {
    this.path = sink.location;
    this.#sink = sink;
    this.#now = options.now;
    this.#flushIntervalMs = options.flushIntervalMs;
    this.#detailPerSecond = options.detailPerSecond;
    this.instance = options.instance;
  }

  /**
   * Returns the complete event at once (`timestamp` now, a fresh `trace_id` and this log's
   * `instance` unless given); it is stored with the next batch. Cheap: no I/O. Throws TypeError
   * only for a malformed event (a programming error), never for a storage problem. After close()
   * events are dropped.
   */
  record(event: RecordedEvent): GatewayEvent {
    return this.#record(event, true) as GatewayEvent;
  }

  /**
   * record() for a caller that does not need the event back (the gateway's per-call record):
   * the event object and its ISO timestamp are made only when a watcher wants them.
   */
  note(event: RecordedEvent): void {
    this.#record(event, false);
  }

  #record(event: RecordedEvent, wanted: boolean): GatewayEvent | undefined {
    const status = event.status;
    if (status !== 'success' && status !== 'failure' && status !== 'pending') {
      throw new TypeError(
        `event status must be success, failure or pending, got ${JSON.stringify(status)}`,
      );
    }
    let ts: number;
    if (event.timestamp === undefined) {
      ts = this.#now();
    } else {
      ts = Date.parse(event.timestamp);
      if (Number.isNaN(ts)) {
        throw new TypeError(
          `event timestamp must be an ISO 8601 date, got ${JSON.stringify(event.timestamp)}`,
        );
      }
    }
    // A fresh trace id only for a row stored on its own or handed out: a call folded into an
    // aggregate would have it thrown away (the aggregate's row gets its own).
    const given =
      event.trace_id === undefined ? undefined : requiredString('trace_id', event.trace_id);
    const event_type = requiredString('event_type', event.event_type);
    const source = requiredString('source', event.source);
    const backend = nullableString('backend', event.backend);
    const tool = nullableString('tool', event.tool);
    const instance =
      event.instance === undefined ? this.instance : nullableString('instance', event.instance);
    const d = event.duration_ms;
    const duration_ms = typeof d === 'number' && Number.isFinite(d) ? d : null;
    const data = event.data ?? null;
    const row: EventRow = [
      ts,
      given ?? '',
      event_type,
      status,
      source,
      backend,
      tool,
      duration_ms,
      null,
      instance,
    ];
    if (this.#closed) {
      if (!wanted) return undefined;
      if (given === undefined) row[1] = nextTraceId();
      return recordedEvent(row, data);
    }
    this.#recorded++;
    if (data !== null) row[8] = serializeData(data);
    if (
      status === 'success' &&
      data === null &&
      (this.#inflightRows >= OVERLOAD_ROWS ||
        // The rate is the log's, in its own seconds: a caller's `timestamp` (a replayed or
        // back-dated event) neither starts a new second nor counts in another.
        (event_type === TOOL_CALL &&
          this.#beyondDetail(event.timestamp === undefined ? ts : this.#now())))
    ) {
      this.#aggregate(row);
    } else {
      // Stored on its own: its details are worth their serialization now.
      if (given === undefined) row[1] = nextTraceId();
      if (event.detail && data === null) row[8] = serializeData(event.detail);
      this.#queue.push(row);
      if (this.#queue.length + this.#inflightRows > MAX_RETAINED) this.#drop(1);
      if (this.#queue.length >= FLUSH_AT_QUEUED && !this.#failing) this.#shipQuietly();
      else this.#schedule(this.#flushIntervalMs);
    }
    const handedOut = wanted || this.#listeners.size > 0;
    if (handedOut && row[1] === '') row[1] = nextTraceId();
    const recorded = handedOut ? recordedEvent(row, data ?? event.detail ?? null) : undefined;
    if (recorded && this.#listeners.size > 0) {
      for (const listener of this.#listeners) {
        try {
          listener(recorded);
        } catch {
          // A watcher's bug must not fail the call being recorded.
        }
      }
    }
    return recorded;
  }

  /**
   * Calls `listener` with every event recorded from now on, synchronously from record() (keep it
   * cheap: a status page queues it). Returns the function that stops it.
   */
  subscribe(listener: (event: GatewayEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Newest first (ties: the later recorded first), including every event recorded before the
   * call. A bad filter rejects with EventQueryError. If storing the queued events fails (another
   * process holds the lock), the events already stored are still returned.
   */
  async query(q: EventQuery = {}): Promise<GatewayEvent[]> {
    const filter = toFilter(q, this.#now());
    this.#assertOpen();
    this.#shipQuietly();
    return this.#sink.query(filter);
  }

  /**
   * The store's plan for `query(q)`, one line per step (e.g. "SEARCH events USING INDEX
   * events_type_ts (event_type=? AND ts>?)"): for tests and for diagnosing a slow get_events.
   */
  async explain(q: EventQuery = {}): Promise<string[]> {
    const filter = toFilter(q, this.#now());
    this.#assertOpen();
    return this.#sink.explain(filter);
  }

  /** Events stored, including every one recorded before the call (as query() does). */
  async count(): Promise<number> {
    this.#assertOpen();
    this.#shipQuietly();
    return this.#sink.count();
  }

  /**
   * Stores the queued events now. Rejects if the store refuses them; they stay queued and are
   * retried.
   */
  async flush(): Promise<void> {
    this.#assertOpen();
    await this.#ship();
  }

  /**
   * Deletes the events older than `retentionDays` and then, oldest first, those beyond
   * `maxEvents`; resolves with how many. Runs at open and every ~10 000 inserts on its own.
   */
  async prune(): Promise<number> {
    await this.flush();
    return this.#sink.prune(this.#now());
  }

  /** How the log is keeping up (see {@link EventLogStats}). */
  stats(): EventLogStats {
    const oldest = this.#inflight[0]?.since ?? this.#queue[0]?.[0];
    return {
      recorded: this.#recorded,
      written: this.#written,
      pending: this.#queue.length + this.#inflightRows + this.#aggregates.size,
      lag_ms: oldest === undefined ? 0 : Math.max(0, this.#now() - oldest),
      aggregated: this.#aggregated,
      dropped: this.#dropped,
      failing: this.#failing,
    };
  }

  /**
   * Stores what is queued, stops the timer, releases the store. Idempotent. A shutdown is not held
   * up by a failing write: the events it could not store are reported as a warning.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    const rows = this.#takeAll();
    try {
      await this.#sink.close(rows, this.#now());
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      process.emitWarning(
        `event log ${this.path}: ${rows.length} events lost at close: ${reason}`,
        {
          code: 'MCPKIT_EVENT_LOG',
        },
      );
    }
  }

  /** close() for a process that is exiting: stores what is queued before it returns (bounded). */
  closeSync(): void {
    if (this.#closed) return;
    const rows = this.#takeAll();
    if (!this.#sink.closeSync(rows, this.#now(), EXIT_WAIT_MS) && rows.length > 0) {
      process.emitWarning(`event log ${this.path}: ${rows.length} events lost at exit`, {
        code: 'MCPKIT_EVENT_LOG',
      });
    }
  }

  #takeAll(): EventRow[] {
    this.#closed = true;
    openLogs.delete(this);
    this.#clearTimer();
    const rows = this.#queue.concat(this.#drainAggregates());
    this.#queue = [];
    return rows;
  }

  /**
   * Hands the queue (and the aggregates) to the sink as one batch. Resolves when everything handed
   * over so far is stored: with nothing queued, when the last batch in flight is (the sink answers
   * in order), so flush() never returns before an earlier timer's batch.
   */
  #ship(): Promise<void> {
    this.#clearTimer();
    const rows =
      this.#aggregates.size > 0 ? this.#queue.concat(this.#drainAggregates()) : this.#queue;
    if (rows.length === 0) return this.#last ?? Promise.resolve();
    this.#queue = [];
    const batch: Batch = { rows: rows.length, since: rows[0]?.[0] ?? this.#now() };
    this.#inflight.push(batch);
    this.#inflightRows += batch.rows;
    const stored = this.#sink.append(rows, this.#now()).then(
      () => {
        this.#settled(batch, stored);
        this.#written += rows.length;
        if (this.#failing) this.#recovered();
      },
      (err: unknown) => {
        this.#settled(batch, stored);
        if (this.#closed) return;
        // Keep the events for the next attempt, newest first if there are too many.
        this.#queue = rows.concat(this.#queue);
        const excess = this.#queue.length + this.#inflightRows - MAX_RETAINED;
        if (excess > 0) this.#drop(excess);
        this.#warnFailure(err);
        this.#schedule(RETRY_MS);
        throw err;
      },
    );
    this.#last = stored;
    return stored;
  }

  #settled(batch: Batch, stored: Promise<void>): void {
    if (this.#last === stored) this.#last = undefined;
    // The sink answers in order, so this is the oldest; indexOf keeps it right regardless.
    const at = this.#inflight.indexOf(batch);
    if (at >= 0) this.#inflight.splice(at, 1);
    this.#inflightRows -= batch.rows;
  }

  /**
   * The flush of the timer, record(), query() and count(): a storage problem is warned about
   * once per streak of failures and retried, never thrown.
   */
  #shipQuietly(): void {
    this.#ship().catch(() => {});
  }

  /** Whether a successful tool call recorded at `now` is beyond its second's `detailPerSecond`. */
  #beyondDetail(now: number): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#detailed = 0;
    }
    if (this.#detailed >= this.#detailPerSecond) return true;
    this.#detailed++;
    return false;
  }

  /**
   * A successful call folded rather than stored (the sink lags, or its second is beyond
   * `detailPerSecond`): one more in its (type, source, backend, tool) bucket.
   */
  #aggregate(row: EventRow): void {
    const key = `${row[2]}\u0000${row[4]}\u0000${row[5] ?? ''}\u0000${row[6] ?? ''}`;
    const ms = row[7] ?? 0;
    const bucket = this.#aggregates.get(key);
    this.#aggregated++;
    if (bucket) {
      bucket.count++;
      bucket.totalMs += ms;
      if (ms > bucket.maxMs) bucket.maxMs = ms;
    } else {
      this.#aggregates.set(key, { row, count: 1, totalMs: ms, maxMs: ms, firstTs: row[0] });
    }
    this.#schedule(this.#flushIntervalMs);
  }

  /** The aggregates as rows: one event per bucket, `data.aggregated` calls, mean duration. */
  #drainAggregates(): EventRow[] {
    if (this.#aggregates.size === 0) return [];
    const rows: EventRow[] = [];
    for (const a of this.#aggregates.values()) {
      const [, , type, status, source, backend, tool, , , instance] = a.row;
      const mean = Math.round((a.totalMs / a.count) * 100) / 100;
      const data = {
        aggregated: a.count,
        max_duration_ms: a.maxMs,
        first: new Date(a.firstTs).toISOString(),
      };
      rows.push([
        this.#now(),
        nextTraceId(),
        type,
        status,
        source,
        backend,
        tool,
        mean,
        JSON.stringify(data),
        instance,
      ]);
    }
    this.#aggregates = new Map();
    return rows;
  }

  /** Drops the `n` oldest queued events (memory stays bounded whatever the sink does). */
  #drop(n: number): void {
    const removed = Math.min(n, this.#queue.length);
    this.#queue.splice(0, removed);
    this.#dropped += removed;
    this.#droppedSinceWarning += removed;
  }

  #warnFailure(err: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    const reason = err instanceof Error ? err.message : String(err);
    process.emitWarning(`event log ${this.path}: cannot write events, will retry: ${reason}`, {
      code: 'MCPKIT_EVENT_LOG',
    });
  }

  #recovered(): void {
    this.#failing = false;
    if (this.#droppedSinceWarning === 0) return;
    process.emitWarning(
      `event log ${this.path}: writing again; ${this.#droppedSinceWarning} events were dropped`,
      { code: 'MCPKIT_EVENT_LOG' },
    );
    this.#droppedSinceWarning = 0;
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#shipQuietly();
    }, delayMs);
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`the event log ${this.path} is closed`);
  }
}
