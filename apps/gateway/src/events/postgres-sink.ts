/**
 * The event log in PostgreSQL, for a fleet: every gateway instance appends to one table and
 * `get_events` on any of them sees all instances' events (each row names its `instance`). The
 * same columns, filters and order as the SQLite sink; timestamps are epoch ms (`bigint`), `data`
 * is JSON text. Asynchronous by nature, so it needs no worker: a batch is one multi-row INSERT.
 */
import pg from 'pg';
import type { GatewayEvent } from '../event-types.js';
import { lockedTransaction } from '../postgres-lock.js';
import { describePostgresUrl, isPostgresTarget } from './postgres-url.js';
import {
  type EventFilter,
  type EventRow,
  type EventSink,
  type StoredRow,
  toEvent,
} from './sink.js';

export { describePostgresUrl, isPostgresTarget };

/** Rows per INSERT statement (10 parameters each, below PostgreSQL's 65,535 limit). */
const INSERT_CHUNK = 1000;
/** Connections of the pool: appends are serialised; a query may run beside one. */
const POOL_SIZE = 3;

/** Identifiers we put into SQL ourselves: a schema or table name, never a value. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresSinkOptions {
  retentionMs: number;
  maxEvents: number;
  /**
   * The schema holding the table (created if missing). Default: the connection's `search_path`
   * (so `?options=-c search_path=…` in the URL works too), normally `public`.
   */
  schema?: string;
}

/** Events in one PostgreSQL table, shared by every gateway instance pointed at it. */
export class PostgresSink implements EventSink {
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #retentionMs: number;
  readonly #maxEvents: number;
  /** Appends in order, one at a time: the sink answers calls in the order they were made. */
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(url: string, options: PostgresSinkOptions) {
    this.location = describePostgresUrl(url);
    const schema = options.schema;
    if (schema !== undefined && !IDENTIFIER.test(schema)) {
      throw new Error(`invalid schema name '${schema}'`);
    }
    this.#table = schema === undefined ? 'gateway_events' : `"${schema}".gateway_events`;
    this.#retentionMs = options.retentionMs;
    this.#maxEvents = options.maxEvents;
    this.#pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
    // An idle connection that drops must not crash the gateway; the next call reports it.
    this.#pool.on('error', () => {});
  }

  /**
   * Connects, creates the schema, table and indexes if need be, and returns the sink. Rejects with
   * the server's reason (and the URL without its password) when it cannot.
   */
  static async connect(url: string, options: PostgresSinkOptions): Promise<PostgresSink> {
    const sink = new PostgresSink(url, options);
    try {
      await sink.#migrate(options.schema);
    } catch (err) {
      await sink.#pool.end().catch(() => {});
      throw err;
    }
    return sink;
  }

  async #migrate(schema: string | undefined): Promise<void> {
    const t = this.#table;
    // Several instances may start at once: one takes the lock, the others find it done.
    await lockedTransaction(this.#pool, 'gateway_events', async (client) => {
      if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${t} (
        id          bigserial PRIMARY KEY,
        ts          bigint NOT NULL,
        trace_id    text NOT NULL,
        event_type  text NOT NULL,
        status      text NOT NULL,
        source      text NOT NULL,
        backend     text,
        tool        text,
        duration_ms double precision,
        data        text,
        instance    text
      )`);
      for (const [name, columns] of [
        ['ts', 'ts, id'],
        ['trace_ts', 'trace_id, ts, id'],
        ['type_ts', 'event_type, ts, id'],
        ['status_ts', 'status, ts, id'],
        ['type_status_ts', 'event_type, status, ts, id'],
        ['instance_ts', 'instance, ts, id'],
      ] as const) {
        await client.query(
          `CREATE INDEX IF NOT EXISTS gateway_events_${name} ON ${t} (${columns})`,
        );
      }
    });
  }

  append(rows: EventRow[]): Promise<void> {
    return this.#inOrder(async () => {
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const chunk = rows.slice(start, start + INSERT_CHUNK);
        const values: unknown[] = [];
        const tuples = chunk.map((row, i) => {
          values.push(...row);
          const base = i * 10;
          return `(${Array.from({ length: 10 }, (_, k) => `$${base + k + 1}`).join(', ')})`;
        });
        await this.#pool.query(
          `INSERT INTO ${this.#table}
             (ts, trace_id, event_type, status, source, backend, tool, duration_ms, data, instance)
           VALUES ${tuples.join(', ')}`,
          values,
        );
      }
    });
  }

  query(filter: EventFilter): Promise<GatewayEvent[]> {
    return this.#inOrder(async () => {
      const { sql, params } = this.#compile(filter);
      const result = await this.#pool.query<StoredRow>(sql, params);
      return result.rows.map(toEvent);
    });
  }

  explain(filter: EventFilter): Promise<string[]> {
    return this.#inOrder(async () => {
      const { sql, params } = this.#compile(filter);
      const result = await this.#pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      return result.rows.map((r) => r['QUERY PLAN']);
    });
  }

  count(): Promise<number> {
    return this.#inOrder(async () => {
      const result = await this.#pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${this.#table}`,
      );
      return Number(result.rows[0]?.n ?? 0);
    });
  }

  prune(now: number): Promise<number> {
    return this.#inOrder(async () => {
      let removed = 0;
      if (Number.isFinite(this.#retentionMs)) {
        removed +=
          (
            await this.#pool.query(`DELETE FROM ${this.#table} WHERE ts < $1`, [
              now - this.#retentionMs,
            ])
          ).rowCount ?? 0;
      }
      // Oldest first beyond the maximum: the newest maxEvents rows are kept.
      removed +=
        (
          await this.#pool.query(
            `DELETE FROM ${this.#table} WHERE id IN (
               SELECT id FROM ${this.#table} ORDER BY ts DESC, id DESC OFFSET $1)`,
            [this.#maxEvents],
          )
        ).rowCount ?? 0;
      return removed;
    });
  }

  async close(rows: EventRow[]): Promise<void> {
    if (this.#closed) return;
    try {
      if (rows.length > 0) await this.append(rows);
      else await this.#chain.catch(() => {});
    } finally {
      this.#closed = true;
      await this.#pool.end();
    }
  }

  /**
   * A network store cannot be written synchronously: what is still queued when the process exits
   * without close() (a `process.exit()` elsewhere) is lost — the gateway closes the log on every
   * normal stop (stdin EOF, SIGTERM, SIGINT), so this is the crash case.
   */
  closeSync(): boolean {
    return false;
  }

  #inOrder<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error(`the event log ${this.location} is closed`));
    const next = this.#chain.then(work, work);
    this.#chain = next.catch(() => {});
    return next;
  }

  #compile(filter: EventFilter): { sql: string; params: (string | number)[] } {
    const where: string[] = [];
    const params: (string | number)[] = [];
    for (const key of ['trace_id', 'event_type', 'status', 'instance'] as const) {
      const value = filter[key];
      if (value === undefined) continue;
      params.push(value);
      where.push(`${key} = $${params.length}`);
    }
    if (filter.sinceMs !== undefined) {
      params.push(filter.sinceMs);
      where.push(`ts >= $${params.length}`);
    }
    params.push(filter.limit);
    const sql = `SELECT ts, trace_id, event_type, status, source, backend, tool, duration_ms, data, instance
      FROM ${this.#table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ts DESC, id DESC LIMIT $${params.length}`;
    return { sql, params };
  }
}
