/**
 * The tasks of the MCP tasks extension (`io.modelcontextprotocol/tasks`) in PostgreSQL: for a
 * fleet whose shared state is a database rather than Redis. One row per task; every change is a
 * transaction that locks the row (`SELECT … FOR UPDATE`) and applies the same rules as every other
 * store (`applyChange`, `applyAsk`, `applyAnswer` of @mcpkit/protocol), so two instances changing
 * one task cannot lose each other's change; the bound per identity is counted under an advisory
 * lock of that identity. Changes are told over `LISTEN`/`NOTIFY` (the payload is the task's id:
 * NOTIFY carries at most 8000 bytes, a result may be megabytes). JSON columns are `json`, not
 * `jsonb`: a tool's result comes back with its members as written.
 */
import {
  applyAnswer,
  applyAsk,
  applyChange,
  type NewTask,
  newTaskRecord,
  type TaskChange,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  TERMINAL_STATUSES,
} from '@mcpkit/protocol';
import type pg from 'pg';
import { RUNNER_GONE, StoreUnavailableError } from './store.js';

/** How long the listener waits before connecting again after it lost its connection. */
const RELISTEN_MS = 1000;

/** Options of {@link createPostgresTaskStore}. */
export interface PostgresTaskStoreOptions {
  /** The table (made if missing; letters, digits, `_`). Default `mcpkit_tasks`. */
  table?: string;
  /** Unfinished tasks one identity may have at once, across the fleet. Default 100. */
  maxActivePerOwner?: number;
  /** Tasks one identity may have kept at once, finished ones included. Default 1000. */
  maxStoredPerOwner?: number;
  /** The listener lost its connection (it connects again by itself). */
  onError?(err: Error): void;
}

interface Row {
  task_id: string;
  owner: string;
  status: string;
  status_message: string | null;
  created_at: string;
  last_updated_at: string;
  ttl_ms: string | null;
  poll_interval_ms: number | null;
  runner: string | null;
  result: Record<string, unknown> | null;
  error: TaskRecord['error'] | null;
  input_requests: Record<string, Record<string, unknown>> | null;
  input_responses: Record<string, unknown> | null;
}

function recordOf(row: Row): TaskRecord {
  const record: TaskRecord = {
    taskId: row.task_id,
    owner: row.owner,
    status: row.status as TaskStatus,
    createdAt: Number(row.created_at),
    lastUpdatedAt: Number(row.last_updated_at),
    ttlMs: row.ttl_ms === null ? null : Number(row.ttl_ms),
  };
  const mutable = record as { -readonly [K in keyof TaskRecord]: TaskRecord[K] };
  if (row.poll_interval_ms !== null) mutable.pollIntervalMs = row.poll_interval_ms;
  if (row.runner !== null) mutable.runner = row.runner;
  if (row.status_message !== null) mutable.statusMessage = row.status_message;
  if (row.result !== null) mutable.result = row.result;
  if (row.error !== null) mutable.error = row.error;
  if (row.input_requests !== null) mutable.inputRequests = row.input_requests;
  if (row.input_responses !== null) mutable.inputResponses = row.input_responses;
  return record;
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * Open the tasks table at `url` (its `search_path` picks the schema): made if missing, and
 * listening for the other instances' changes. Rejects with {@link StoreUnavailableError} when the
 * database cannot be used.
 */
export async function createPostgresTaskStore(
  url: string,
  options: PostgresTaskStoreOptions = {},
): Promise<PostgresTaskStore> {
  const table = options.table ?? 'mcpkit_tasks';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
    throw new TypeError(`table '${table}' must be letters, digits and _ (PostgreSQL identifier)`);
  }
  // Loaded only when asked for: an app without PostgreSQL never pays for the driver.
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({ connectionString: url, max: 4 });
  // An idle connection that drops must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const store = new PgTaskStore(driver, url, pool, table, options);
  try {
    await store.open();
  } catch (err) {
    await store.close();
    throw new StoreUnavailableError(`PostgreSQL tasks: ${(err as Error).message}`, { cause: err });
  }
  return store;
}

/** Tasks in PostgreSQL, shared by a fleet. Made by {@link createPostgresTaskStore}. */
export interface PostgresTaskStore extends TaskStore {
  /** Fail every unfinished task of a runner not in `alive`; resolves with how many. */
  failOrphans(alive: ReadonlySet<string>): Promise<number>;
  /** Stop listening and close the connections. */
  close(): Promise<void>;
}

/**
 * The store behind {@link PostgresTaskStore}: not exported, so the package's types name no type of
 * the `pg` driver (a consumer needs no `@types/pg`).
 */
class PgTaskStore implements PostgresTaskStore {
  readonly #driver: typeof pg;
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #channel: string;
  readonly #max: number;
  readonly #maxStored: number;
  readonly #options: PostgresTaskStoreOptions;
  readonly #listeners = new Set<(task: TaskRecord) => void>();
  #listener: pg.Client | undefined;
  #closed = false;

  constructor(
    driver: typeof pg,
    url: string,
    pool: pg.Pool,
    table: string,
    options: PostgresTaskStoreOptions,
  ) {
    this.#driver = driver;
    this.#url = url;
    this.#pool = pool;
    this.#table = table;
    this.#channel = `${table}_changed`;
    this.#max = options.maxActivePerOwner ?? 100;
    this.#maxStored = options.maxStoredPerOwner ?? 1000;
    this.#options = options;
  }

  /** Make the table (once across instances starting together) and start listening. */
  async open(): Promise<void> {
    await this.#transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mcpkit.${this.#table}`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
        task_id text PRIMARY KEY, owner text NOT NULL, status text NOT NULL, status_message text,
        created_at bigint NOT NULL, last_updated_at bigint NOT NULL, ttl_ms bigint,
        expires_at bigint, poll_interval_ms integer, runner text, result json, error json,
        input_requests json, input_responses json)`);
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${this.#table}_owner ON ${this.#table} (owner)`,
      );
    });
    await this.#listen();
  }

  /** See `TaskStore.create`. */
  async create(task: NewTask): Promise<TaskRecord> {
    const now = Date.now();
    const record = newTaskRecord(task, now);
    await this.#transaction(async (client) => {
      // One identity's creations one at a time across the fleet: the count stays a bound.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `mcpkit.tasks:${task.owner}`,
      ]);
      const { rows } = await client.query<{ active: string; kept: string }>(
        `SELECT count(*) FILTER (WHERE status NOT IN ('completed', 'failed', 'cancelled')) AS active, count(*) AS kept
         FROM ${this.#table} WHERE owner = $1 AND (expires_at IS NULL OR expires_at > $2)`,
        [task.owner, now],
      );
      if (Number(rows[0]?.active ?? 0) >= this.#max) throw new TaskLimitError(this.#max);
      if (Number(rows[0]?.kept ?? 0) >= this.#maxStored) throw new TaskLimitError(this.#maxStored);
      await client.query(
        `INSERT INTO ${this.#table} (task_id, owner, status, status_message, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms, runner)
         VALUES ($1, $2, 'working', $3, $4, $4, $5, $6, $7, $8)`,
        [
          record.taskId,
          record.owner,
          record.statusMessage ?? null,
          now,
          record.ttlMs,
          record.ttlMs === null ? null : now + record.ttlMs,
          record.pollIntervalMs ?? null,
          record.runner ?? null,
        ],
      );
      await client.query('SELECT pg_notify($1, $2)', [this.#channel, record.taskId]);
    });
    return record;
  }

  /** See `TaskStore.get`. */
  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const task = await this.#read(taskId);
    return task && task.owner === owner ? task : undefined;
  }

  /** See `TaskStore.update`. */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return this.#change(taskId, (task, now) => {
      if (TERMINAL_STATUSES.has(task.status)) return false;
      applyChange(task, change, now);
      return true;
    });
  }

  /** See `TaskStore.ask`. */
  ask(
    taskId: string,
    key: string,
    request: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    return this.#change(taskId, (task, now) => {
      if (TERMINAL_STATUSES.has(task.status)) return false;
      applyAsk(task, key, request, now);
      return true;
    });
  }

  /** See `TaskStore.answer`. */
  async answer(
    taskId: string,
    owner: string,
    responses: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    let mine = false;
    let unchanged: TaskRecord | undefined;
    const changed = await this.#change(taskId, (task, now) => {
      if (task.owner !== owner) return false;
      mine = true;
      unchanged = task;
      return applyAnswer(task, responses, now);
    });
    return changed ?? (mine ? unchanged : undefined);
  }

  /** See `TaskStore.watch`: every instance's changes. */
  watch(listener: (task: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** See `TaskStore.sweep`: expired rows deleted now. */
  async sweep(): Promise<number> {
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#table} WHERE expires_at IS NOT NULL AND expires_at <= $1`,
      [Date.now()],
    );
    return rowCount ?? 0;
  }

  /** Fail every unfinished task of a runner not in `alive`; resolves with how many. */
  async failOrphans(alive: ReadonlySet<string>): Promise<number> {
    const { rows } = await this.#query<{ task_id: string; runner: string }>(
      `SELECT task_id, runner FROM ${this.#table} WHERE runner IS NOT NULL AND status NOT IN ('completed', 'failed', 'cancelled')`,
    );
    let failed = 0;
    for (const row of rows) {
      if (alive.has(row.runner)) continue;
      const task = await this.update(row.task_id, { status: 'failed', error: RUNNER_GONE });
      if (task) failed++;
    }
    return failed;
  }

  /** Stop listening and close the connections. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    await this.#listener?.end().catch(() => {});
    await this.#pool.end().catch(() => {});
  }

  /** Apply `apply` to the locked row; the record after it, or undefined when nothing changed. */
  async #change(
    taskId: string,
    apply: (task: TaskRecord, now: number) => boolean,
  ): Promise<TaskRecord | undefined> {
    return this.#transaction(async (client) => {
      const { rows } = await client.query<Row>(
        `SELECT * FROM ${this.#table} WHERE task_id = $1 AND (expires_at IS NULL OR expires_at > $2) FOR UPDATE`,
        [taskId, Date.now()],
      );
      const row = rows[0];
      if (!row) return undefined;
      const task = recordOf(row);
      if (!apply(task, Date.now())) return undefined;
      await client.query(
        `UPDATE ${this.#table} SET status = $2, status_message = $3, last_updated_at = $4, result = $5, error = $6, input_requests = $7, input_responses = $8 WHERE task_id = $1`,
        [
          taskId,
          task.status,
          task.statusMessage ?? null,
          task.lastUpdatedAt,
          json(task.result),
          json(task.error),
          json(task.inputRequests),
          json(task.inputResponses),
        ],
      );
      await client.query('SELECT pg_notify($1, $2)', [this.#channel, taskId]);
      return task;
    });
  }

  async #read(taskId: string): Promise<TaskRecord | undefined> {
    const { rows } = await this.#query<Row>(
      `SELECT * FROM ${this.#table} WHERE task_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
      [taskId, Date.now()],
    );
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new this.#driver.Client({ connectionString: this.#url });
    const again = (err: Error) => {
      if (this.#listener !== client || this.#closed) return;
      this.#listener = undefined;
      this.#options.onError?.(err);
      setTimeout(() => void this.#listen().catch(() => {}), RELISTEN_MS).unref();
    };
    client.on('error', again);
    client.on('end', () => again(new Error('PostgreSQL listener connection ended')));
    client.on('notification', (message) => {
      if (message.channel !== this.#channel || !message.payload) return;
      this.#read(message.payload).then(
        (task) => {
          if (!task) return;
          for (const listener of this.#listeners) {
            try {
              listener(task);
            } catch {
              // A watcher's failure is its own: the change stands.
            }
          }
        },
        () => undefined,
      );
    });
    await client.connect();
    await client.query(`LISTEN ${this.#channel}`);
    this.#listener = client;
  }

  async #transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw new StoreUnavailableError(`PostgreSQL: ${(err as Error).message}`, { cause: err });
    }
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      if (TaskLimitError.is(err)) throw err;
      throw new StoreUnavailableError(`PostgreSQL: ${(err as Error).message}`, { cause: err });
    } finally {
      client.release();
    }
  }

  async #query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(sql, params);
    } catch (err) {
      throw new StoreUnavailableError(`PostgreSQL: ${(err as Error).message}`, { cause: err });
    }
  }
}
