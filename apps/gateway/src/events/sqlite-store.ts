/**
 * The SQLite side of the event log: schema, batch insert, pruning and query execution on one
 * better-sqlite3 connection. Everything here is synchronous — it runs in the event-log worker
 * (see sqlite-worker.ts), never on the gateway's event loop, except for the check at open.
 *
 * Timestamps are stored as integer epoch milliseconds (indexable, compact) and returned as ISO
 * 8601 UTC strings; `data` is JSON text. WAL with `synchronous=NORMAL`: the durability of
 * telemetry (an OS crash may roll back the last commits; nothing is ever corrupted). The file may
 * be shared by several gateway processes: WAL allows concurrent readers and serialises writers.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { GatewayEvent } from '../event-types.js';
import { type EventFilter, type EventRow, type StoredRow, toEvent } from './sink.js';

/** How long a write waits for another process's lock before the batch is retried later. */
export const BUSY_TIMEOUT_MS = 250;
/** Prune (by age and by count) after this many inserts, besides once at open. */
const PRUNE_EVERY_INSERTS = 10_000;

const SCHEMA_VERSION = 2;
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
    data        TEXT,
    instance    TEXT
  );
  CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
  CREATE INDEX IF NOT EXISTS events_trace_ts ON events (trace_id, ts);
  CREATE INDEX IF NOT EXISTS events_type_ts ON events (event_type, ts);
  CREATE INDEX IF NOT EXISTS events_status_ts ON events (status, ts);
  CREATE INDEX IF NOT EXISTS events_type_status_ts ON events (event_type, status, ts);
  CREATE INDEX IF NOT EXISTS events_instance_ts ON events (instance, ts);
`;

/** Schema version 1 (before instance ids): the same table without the `instance` column. */
const MIGRATE_FROM_1 = 'ALTER TABLE events ADD COLUMN instance TEXT';

/**
 * Opens (creating it, its parent directories, the table and the indexes if need be) the database
 * at `path`, a file path or ':memory:', with the log's pragmas, migrating an older schema. Throws
 * with the reason for a path it cannot use.
 */
export function openDatabase(path: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
    // WAL + synchronous=NORMAL: commits don't fsync (checkpoints do). See the header comment.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Another gateway sharing the file may hold the write lock for a moment; the worker waits (it
    // blocks no event loop but its own), and a batch that still finds it locked is retried later.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // 16 MiB of page cache (default 2 MiB): the trace_id index takes random inserts, and at a
    // million events it is ~50 MB; this halves the cost of a large batch.
    db.pragma('cache_size = -16384');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `its schema version ${version} is newer than this gateway's (${SCHEMA_VERSION})`,
      );
    }
    const hasTable = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'")
      .get();
    if (hasTable && version < 2) db.exec(MIGRATE_FROM_1);
    db.exec(SCHEMA);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db?.close();
    throw err;
  }
}

/** The event log's table on one connection: what the worker runs for each message. */
export class SqliteEventStore {
  readonly #db: Database.Database;
  readonly #retentionMs: number;
  readonly #maxEvents: number;
  readonly #insertMany: (rows: readonly EventRow[]) => void;
  readonly #statements = new Map<string, Database.Statement>();
  #insertsSincePrune = 0;

  constructor(db: Database.Database, retentionMs: number, maxEvents: number) {
    this.#db = db;
    this.#retentionMs = retentionMs;
    this.#maxEvents = maxEvents;
    const insert = db.prepare(
      `INSERT INTO events (ts, trace_id, event_type, status, source, backend, tool, duration_ms, data, instance)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertMany = db.transaction((rows: readonly EventRow[]) => {
      for (const row of rows) insert.run(row);
    });
  }

  /** Writes `rows` in one transaction (all or none), pruning every ~10 000 inserts. */
  insert(rows: readonly EventRow[], now: number): void {
    this.#insertMany(rows);
    this.#insertsSincePrune += rows.length;
    if (this.#insertsSincePrune >= PRUNE_EVERY_INSERTS) {
      try {
        this.prune(now);
      } catch {
        // The events are written; pruning is tried again after the next batch.
      }
    }
  }

  /**
   * Deletes the events older than the retention and then, oldest first, those beyond the maximum
   * count; returns how many.
   */
  prune(now: number): number {
    let removed = 0;
    if (Number.isFinite(this.#retentionMs)) {
      removed += this.#statement('DELETE FROM events WHERE ts < ?').run(
        now - this.#retentionMs,
      ).changes;
    }
    // count(*) walks a whole index; max(id) - min(id) + 1 (ids only grow) bounds it in two seeks.
    const bound = this.#statement(
      'SELECT coalesce((SELECT max(id) FROM events) - (SELECT min(id) FROM events) + 1, 0) AS n',
    ).get() as { n: number };
    const excess = bound.n > this.#maxEvents ? this.count() - this.#maxEvents : 0;
    if (excess > 0) {
      removed += this.#statement(
        'DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY ts, id LIMIT ?)',
      ).run(excess).changes;
    }
    this.#insertsSincePrune = 0;
    return removed;
  }

  /** Newest first (ties: the later recorded first). */
  query(filter: EventFilter): GatewayEvent[] {
    const { sql, params } = compile(filter);
    return (this.#statement(sql).all(...params) as StoredRow[]).map(toEvent);
  }

  /**
   * SQLite's plan for `query(filter)`, one line per step (e.g. "SEARCH events USING INDEX
   * events_type_ts (event_type=? AND ts>?)"): for tests and for diagnosing a slow get_events.
   */
  explain(filter: EventFilter): string[] {
    const { sql, params } = compile(filter);
    const plan = this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {
      detail: string;
    }[];
    return plan.map((step) => step.detail);
  }

  count(): number {
    return (this.#statement('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  }

  close(): void {
    this.#db.close();
  }

  #statement(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }
}

const FILTERS = ['trace_id', 'event_type', 'status', 'instance'] as const;

/** One statement text per combination of filters (prepared once, reused). */
function compile(filter: EventFilter): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  for (const key of FILTERS) {
    const value = filter[key];
    if (value === undefined) continue;
    where.push(`${key} = ?`);
    params.push(value);
  }
  if (filter.sinceMs !== undefined) {
    where.push('ts >= ?');
    params.push(filter.sinceMs);
  }
  params.push(filter.limit);
  const sql = `SELECT ts, trace_id, event_type, status, source, backend, tool, duration_ms, data, instance
      FROM events INDEXED BY ${indexFor(filter)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ts DESC, id DESC LIMIT ?`;
  return { sql, params };
}

/**
 * The index that serves `filter`, chosen here rather than left to the planner's guess between
 * indexes that look equally good without statistics (INDEXED BY also turns a schema drift into an
 * error instead of a silent table scan). A trace is a handful of rows, so its index wins whenever
 * trace_id is given; an instance's events come next. Every index ends in (ts, rowid): equality
 * filter, `since` range and the newest-first order come from one backwards scan that the LIMIT
 * stops early.
 */
function indexFor(filter: EventFilter): string {
  if (filter.trace_id !== undefined) return 'events_trace_ts';
  if (filter.event_type !== undefined) {
    return filter.status !== undefined ? 'events_type_status_ts' : 'events_type_ts';
  }
  if (filter.status !== undefined) return 'events_status_ts';
  return filter.instance !== undefined ? 'events_instance_ts' : 'events_ts';
}
