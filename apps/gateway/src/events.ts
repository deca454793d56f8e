/**
 * The gateway's persistent telemetry event log: one SQLite table, written in batches.
 *
 * `record()` sits on the hot path of every forwarded tool call, so it only validates the event,
 * fills in `timestamp` / `trace_id` and appends a ready-to-bind row to an in-memory buffer. A timer
 * (unref'd, so it never keeps the process alive) flushes the buffer every `flushIntervalMs` in ONE
 * transaction through one prepared statement. `query()`, `count()`, `prune()` and `close()` flush
 * first, so readers in this process always see their own writes.
 *
 * Durability is that of telemetry, deliberately: WAL with `synchronous=NORMAL`, plus the buffer.
 * A crash of the process (or SIGKILL) loses the events still buffered — those of the last
 * ≤ `flushIntervalMs`, 100 ms by default; an OS crash or power loss may also roll back the last
 * transactions committed to the WAL (NORMAL does not fsync each commit). Neither corrupts the
 * database. A normal `process.exit()` flushes every open log.
 *
 * Timestamps are stored as integer epoch milliseconds (indexable, compact) and returned as ISO 8601
 * UTC strings with milliseconds; `data` is stored as JSON text. The file may be shared by several
 * gateway processes (WAL allows concurrent readers and serialises the writers).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import Database from 'better-sqlite3';
import {
  DAY_MS,
  DEFAULT_QUERY_LIMIT,
  EVENT_STATUSES,
  type EventLogOptions,
  type EventQuery,
  EventQueryError,
  type EventStatus,
  type GatewayEvent,
  MAX_QUERY_LIMIT,
  parseSince,
  type RecordedEvent,
} from './event-types.js';

export * from './event-types.js';

/** Prune (by age and by count) after this many inserts, besides once at open. */
const PRUNE_EVERY_INSERTS = 10_000;
/**
 * A burst that fills the buffer this far (20 000 events/s with the default interval) is written
 * at once, from record(): it bounds memory and the event-loop stall of one batch (measured ~80 ms
 * into a million-event file; a 100 ms timer batch of 100 events takes ~2 ms).
 */
const FLUSH_AT_BUFFERED = 2_000;
/** While writes keep failing (disk full, locked), keep at most this many events, newest. */
const MAX_RETAINED = 100_000;
/** How long a write waits for another process's lock, and how soon a failed batch is retried. */
const BUSY_TIMEOUT_MS = 250;
const RETRY_MS = 1000;

const SCHEMA_VERSION = 1;
// `id` (the rowid) is insertion order: the deterministic tie-break between equal timestamps. Every
// index implicitly ends in the rowid, so `ORDER BY ts DESC, id DESC` is read straight off each of
// them, backwards, and a LIMIT stops the scan early — no sort step, whichever filter is used.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY,
    ts          INTEGER NOT NULL,
    trace_id    TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    status      TEXT NOT NULL,
    source      TEXT NOT NULL,
    backend     TEXT,
    tool        TEXT,
    duration_ms REAL,
    data        TEXT
  );
  CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
  CREATE INDEX IF NOT EXISTS events_trace_ts ON events (trace_id, ts);
  CREATE INDEX IF NOT EXISTS events_type_ts ON events (event_type, ts);
  CREATE INDEX IF NOT EXISTS events_status_ts ON events (status, ts);
  CREATE INDEX IF NOT EXISTS events_type_status_ts ON events (event_type, status, ts);
`;

type Row = [
  ts: number,
  trace_id: string,
  event_type: string,
  status: EventStatus,
  source: string,
  backend: string | null,
  tool: string | null,
  duration_ms: number | null,
  data: string | null,
];

interface DbRow {
  ts: number;
  trace_id: string;
  event_type: string;
  status: EventStatus;
  source: string;
  backend: string | null;
  tool: string | null;
  duration_ms: number | null;
  data: string | null;
}

/** `${XDG_STATE_HOME ?? ~/.local/state}/mcpkit/gateway-events.db` */
export function defaultEventLogPath(): string {
  const xdg = process.env.XDG_STATE_HOME;
  // The XDG spec: a relative (or empty) XDG_STATE_HOME is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(base, 'mcpkit', 'gateway-events.db');
}

// Flush every open log on a normal exit (process.exit(), end of the event loop): better-sqlite3
// is synchronous, so an 'exit' listener can still write. One listener for all logs.
const openLogs = new Set<EventLog>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const log of openLogs) {
      try {
        log.close();
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

/**
 * The gateway's telemetry: events in SQLite (WAL), recorded on the hot path into a buffer and
 * written in batches, pruned by age and count, queried by `get_events`. Open with
 * {@link EventLog.open}.
 */
export class EventLog {
  /** The SQLite file (or `:memory:`). */
  readonly path: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly maxEvents: number;
  private readonly flushIntervalMs: number;
  private readonly insertMany: (rows: Row[]) => void;
  private readonly queries = new Map<string, Database.Statement>();
  private buffer: Row[] = [];
  private timer: NodeJS.Timeout | undefined;
  private insertsSincePrune = 0;
  private failing = false;
  private dropped = 0;
  private closed = false;

  private constructor(path: string, db: Database.Database, options: Required<EventLogOptions>) {
    this.path = path;
    this.db = db;
    this.now = options.now;
    this.retentionMs = options.retentionDays * DAY_MS;
    this.maxEvents = options.maxEvents;
    this.flushIntervalMs = options.flushIntervalMs;
    const insert = db.prepare(
      `INSERT INTO events (ts, trace_id, event_type, status, source, backend, tool, duration_ms, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertMany = db.transaction((rows: Row[]) => {
      for (const row of rows) insert.run(row);
    });
  }

  /**
   * Opens (creating it, its parent directories, the table and the indexes if need be) the log at
   * `path`, a file path or ':memory:', and prunes it. Any problem with the path — a directory that
   * cannot be created or written, a file that is not a database — throws here, with the path in
   * the message, rather than later from a background flush.
   */
  static open(path: string, options: EventLogOptions = {}): EventLog {
    if (typeof path !== 'string' || path === '') {
      throw new TypeError('EventLog.open needs a file path or ":memory:"');
    }
    const resolved: Required<EventLogOptions> = {
      retentionDays: checkOption('retentionDays', options.retentionDays ?? 30, 0, false),
      maxEvents: checkOption('maxEvents', options.maxEvents ?? 1_000_000, 1, true),
      flushIntervalMs: checkOption('flushIntervalMs', options.flushIntervalMs ?? 100, 0, false),
      now: options.now ?? Date.now,
    };
    let db: Database.Database | undefined;
    let log: EventLog;
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      db = new Database(path);
      // WAL + synchronous=NORMAL: commits don't fsync (checkpoints do). See the header comment.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // Another gateway sharing the file may hold the write lock for a moment. Waiting blocks
      // the event loop, so not for long: a batch that still finds it locked is retried later.
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // 16 MiB of page cache (default 2 MiB): the trace_id index takes random inserts, and at a
      // million events it is ~50 MB; this halves the cost of a large batch.
      db.pragma('cache_size = -16384');
      // wal_autocheckpoint stays at SQLite's 1000 pages: the WAL stays ≤ ~4 MB, and the flush that
      // crosses it checkpoints (with fsync) inline, ~30-50 ms into a million-event file. Larger
      // values give rarer but longer stalls.
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new Error(
          `its schema version ${version} is newer than this gateway's (${SCHEMA_VERSION})`,
        );
      }
      db.exec(SCHEMA);
      if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
      log = new EventLog(path, db, resolved);
      log.pruneNow();
    } catch (err) {
      db?.close();
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot open the event log at ${path}: ${reason}`, { cause: err });
    }
    openLogs.add(log);
    installExitHook();
    return log;
  }

  /**
   * Returns the complete event at once (`timestamp` now and a v4 UUID `trace_id` unless given);
   * it is written with the next batch. Cheap: no I/O. Throws TypeError only for a malformed event
   * (a programming error), never for a storage problem. After close() events are dropped.
   */
  record(event: RecordedEvent): GatewayEvent {
    const status = event.status;
    if (status !== 'success' && status !== 'failure' && status !== 'pending') {
      throw new TypeError(
        `event status must be success, failure or pending, got ${JSON.stringify(status)}`,
      );
    }
    let ts: number;
    let timestamp: string;
    if (event.timestamp === undefined) {
      ts = this.now();
      timestamp = new Date(ts).toISOString();
    } else {
      ts = Date.parse(event.timestamp);
      if (Number.isNaN(ts)) {
        throw new TypeError(
          `event timestamp must be an ISO 8601 date, got ${JSON.stringify(event.timestamp)}`,
        );
      }
      timestamp = new Date(ts).toISOString();
    }
    const trace_id =
      event.trace_id === undefined ? randomUUID() : requiredString('trace_id', event.trace_id);
    const event_type = requiredString('event_type', event.event_type);
    const source = requiredString('source', event.source);
    const backend = nullableString('backend', event.backend);
    const tool = nullableString('tool', event.tool);
    const d = event.duration_ms;
    const duration_ms = typeof d === 'number' && Number.isFinite(d) ? d : null;
    const data = event.data ?? null;
    if (!this.closed) {
      this.buffer.push([
        ts,
        trace_id,
        event_type,
        status,
        source,
        backend,
        tool,
        duration_ms,
        serializeData(data),
      ]);
      // While writes fail, a retry is already scheduled: don't stall every call on the lock.
      if (this.buffer.length >= FLUSH_AT_BUFFERED && !this.failing) this.flushQuietly();
      else if (this.timer === undefined) this.schedule(this.flushIntervalMs);
    }
    return { timestamp, trace_id, event_type, status, source, backend, tool, duration_ms, data };
  }

  /**
   * Newest first (ties: the later recorded first), after writing what is buffered. If that write
   * fails (another process holds the lock), the events already stored are still returned.
   */
  query(q: EventQuery = {}): GatewayEvent[] {
    const { sql, params } = this.compile(q);
    this.assertOpen();
    this.flushQuietly();
    return (this.statement(sql).all(...params) as DbRow[]).map(toEvent);
  }

  /**
   * SQLite's plan for `query(q)`, one line per step (e.g. "SEARCH events USING INDEX
   * events_type_ts (event_type=? AND ts>?)"): for tests and for diagnosing a slow get_events.
   */
  explain(q: EventQuery = {}): string[] {
    const { sql, params } = this.compile(q);
    this.assertOpen();
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {
      detail: string;
    }[];
    return plan.map((step) => step.detail);
  }

  /** Events stored, after writing what is buffered (as query() does). */
  count(): number {
    this.assertOpen();
    this.flushQuietly();
    return this.countStored();
  }

  /**
   * Writes the buffered events now, in one transaction. Throws if the database refuses them; they
   * stay buffered and are retried.
   */
  flush(): void {
    this.assertOpen();
    try {
      this.write();
    } catch (err) {
      this.failing = true;
      this.schedule(RETRY_MS);
      throw err;
    }
  }

  /**
   * Deletes the events older than `retentionDays` and then, oldest first, those beyond
   * `maxEvents`; returns how many. Runs at open and every ~10 000 inserts on its own.
   */
  prune(): number {
    this.flush();
    return this.pruneNow();
  }

  /**
   * Writes what is buffered, stops the timer, closes the database. Idempotent. A shutdown is not
   * held up by a failing write: the events it could not write are reported as a warning.
   */
  close(): void {
    if (this.closed) return;
    try {
      this.write();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      process.emitWarning(
        `event log ${this.path}: ${this.buffer.length} events lost at close: ${reason}`,
        { code: 'MCPKIT_EVENT_LOG' },
      );
    } finally {
      this.closed = true;
      openLogs.delete(this);
      this.clearTimer();
      this.buffer = [];
      this.db.close();
    }
  }

  private write(): void {
    this.clearTimer();
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.insertMany(rows); // rolled back as a whole on failure
    } catch (err) {
      // Keep the events for the next attempt, newest first if there are too many.
      this.buffer = rows.concat(this.buffer);
      const excess = this.buffer.length - MAX_RETAINED;
      if (excess > 0) {
        this.buffer.splice(0, excess);
        this.dropped += excess;
      }
      throw err;
    }
    if (this.failing) {
      this.failing = false;
      if (this.dropped > 0) {
        process.emitWarning(
          `event log ${this.path}: writing again; ${this.dropped} events were dropped`,
          {
            code: 'MCPKIT_EVENT_LOG',
          },
        );
        this.dropped = 0;
      }
    }
    this.insertsSincePrune += rows.length;
    if (this.insertsSincePrune >= PRUNE_EVERY_INSERTS) {
      try {
        this.pruneNow();
      } catch {
        // The events are written; pruning is tried again after the next batch.
      }
    }
  }

  /**
   * The flush of the timer, record(), query() and count(): a storage problem is reported once per
   * streak of failures, as a process warning, never thrown; the batch is retried in RETRY_MS.
   */
  private flushQuietly(): void {
    try {
      this.write();
    } catch (err) {
      if (!this.failing) {
        this.failing = true;
        const reason = err instanceof Error ? err.message : String(err);
        process.emitWarning(`event log ${this.path}: cannot write events, will retry: ${reason}`, {
          code: 'MCPKIT_EVENT_LOG',
        });
      }
      this.schedule(RETRY_MS);
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushQuietly();
    }, delayMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pruneNow(): number {
    let removed = 0;
    if (Number.isFinite(this.retentionMs)) {
      removed += this.statement('DELETE FROM events WHERE ts < ?').run(
        this.now() - this.retentionMs,
      ).changes;
    }
    // count(*) walks a whole index; max(id) - min(id) + 1 (ids only grow) bounds it in two seeks.
    const bound = this.statement(
      'SELECT coalesce((SELECT max(id) FROM events) - (SELECT min(id) FROM events) + 1, 0) AS n',
    ).get() as { n: number };
    const excess = bound.n > this.maxEvents ? this.countStored() - this.maxEvents : 0;
    if (excess > 0) {
      removed += this.statement(
        'DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY ts, id LIMIT ?)',
      ).run(excess).changes;
    }
    this.insertsSincePrune = 0;
    return removed;
  }

  private countStored(): number {
    return (this.statement('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  }

  private statement(sql: string): Database.Statement {
    let stmt = this.queries.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    return stmt;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`the event log ${this.path} is closed`);
  }

  /** Validates `q` and builds its SQL; one statement text per combination of filters. */
  private compile(q: EventQuery): { sql: string; params: (string | number)[] } {
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
    for (const key of ['trace_id', 'event_type'] as const) {
      if (q[key] !== undefined && typeof q[key] !== 'string') {
        throw new EventQueryError(`${key} must be a string, got ${JSON.stringify(q[key])}`);
      }
    }
    const where: string[] = [];
    const params: (string | number)[] = [];
    for (const key of ['trace_id', 'event_type', 'status'] as const) {
      const value = q[key];
      if (value === undefined) continue;
      where.push(`${key} = ?`);
      params.push(value);
    }
    if (q.since !== undefined) {
      where.push('ts >= ?');
      params.push(parseSince(q.since, this.now()));
    }
    params.push(limit);
    const sql = `SELECT ts, trace_id, event_type, status, source, backend, tool, duration_ms, data
      FROM events INDEXED BY ${indexFor(q)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ts DESC, id DESC LIMIT ?`;
    return { sql, params };
  }
}

/**
 * The index that serves `q`, chosen here rather than left to the planner's guess between
 * indexes that look equally good without statistics (INDEXED BY also turns a schema drift into an
 * error instead of a silent table scan). A trace is a handful of rows, so its index wins whenever
 * trace_id is given. Every index ends in (ts, rowid): equality filter, `since` range and the
 * newest-first order come from one backwards scan that the LIMIT stops early.
 */
function indexFor(q: EventQuery): string {
  if (q.trace_id !== undefined) return 'events_trace_ts';
  if (q.event_type !== undefined) {
    return q.status !== undefined ? 'events_type_status_ts' : 'events_type_ts';
  }
  return q.status !== undefined ? 'events_status_ts' : 'events_ts';
}

function toEvent(row: DbRow): GatewayEvent {
  return {
    timestamp: new Date(row.ts).toISOString(),
    trace_id: row.trace_id,
    event_type: row.event_type,
    status: row.status,
    source: row.source,
    backend: row.backend,
    tool: row.tool,
    duration_ms: row.duration_ms,
    data: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
  };
}
