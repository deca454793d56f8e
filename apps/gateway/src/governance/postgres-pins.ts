/**
 * A fleet's approved tool definitions in PostgreSQL (`gateway.pins.path: postgres://…`): every
 * instance holds the table in memory — a registry rebuild decides synchronously — writes its
 * approvals through, and hears the others' over `LISTEN`/`NOTIFY`, so a tool an operator
 * approves on one instance is listed again by all of them (and one held back is held back
 * everywhere). A first sight races between instances starting together: the first to write
 * wins, the others take its definitions when they hear of it.
 */
import pg from 'pg';
import { describePostgresUrl } from '../events/postgres-url.js';
import { lockedTransaction } from '../postgres-lock.js';
import type { PinRow, PinRows } from './pins.js';

/** The channel instances tell each other on: its payload is the backend whose pins changed. */
const CHANNEL = 'mcpkit_tool_pins';
const SCHEMA = `CREATE TABLE IF NOT EXISTS tool_pins (
  backend text NOT NULL, tool text NOT NULL, hash text NOT NULL, definition text NOT NULL,
  approved_at bigint NOT NULL, PRIMARY KEY (backend, tool)
)`;
/** How long the listener waits before connecting again after it lost its connection. */
const RELISTEN_MS = 1000;

/** What {@link openPostgresPins} reports besides the rows. */
export interface PostgresPinsOptions {
  /** A write or a refresh failed (the row stays in memory; the next write tries again). */
  onError?(err: Error): void;
}

/** Open the fleet's pins at `url` (its `search_path` picks the schema): loaded, and listening. */
export async function openPostgresPins(
  url: string,
  options: PostgresPinsOptions = {},
): Promise<PinRows> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // An idle connection that drops must not crash the gateway; the next query reports it.
  pool.on('error', () => {});
  try {
    // Instances starting together: one creates the table, the others wait and find it.
    await lockedTransaction(pool, 'tool_pins', (client) => client.query(SCHEMA));
    const rows = new PostgresPinRows(url, pool, options);
    await rows.start();
    return rows;
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(
      `gateway.pins.path: cannot use ${describePostgresUrl(url)}: ${(err as Error).message}`,
    );
  }
}

class PostgresPinRows implements PinRows {
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #options: PostgresPinsOptions;
  /** The table, by backend then tool. */
  readonly #rows = new Map<string, Map<string, PinRow>>();
  readonly #listeners: ((backend: string) => void)[] = [];
  /** Writes in order, one at a time. */
  #writes: Promise<void> = Promise.resolve();
  #listener: pg.Client | undefined;
  #closed = false;

  constructor(url: string, pool: pg.Pool, options: PostgresPinsOptions) {
    this.#url = url;
    this.#pool = pool;
    this.#options = options;
  }

  async start(): Promise<void> {
    await this.#listen();
    const { rows } = await this.#pool.query<PinRow & { backend: string; tool: string }>(
      'SELECT backend, tool, hash, definition FROM tool_pins',
    );
    for (const row of rows) this.#of(row.backend).set(row.tool, row);
  }

  count(backend: string): number {
    return this.#rows.get(backend)?.size ?? 0;
  }

  get(backend: string, tool: string): PinRow | undefined {
    return this.#rows.get(backend)?.get(tool);
  }

  put(backend: string, tool: string, row: PinRow, replace: boolean): void {
    const mine = this.#of(backend);
    if (!replace && mine.has(tool)) return;
    mine.set(tool, row);
    const sql = `INSERT INTO tool_pins (backend, tool, hash, definition, approved_at)
      VALUES ($1, $2, $3, $4, $5) ON CONFLICT (backend, tool) ${
        replace
          ? 'DO UPDATE SET hash = excluded.hash, definition = excluded.definition, approved_at = excluded.approved_at'
          : 'DO NOTHING'
      }`;
    this.#writes = this.#writes.then(async () => {
      try {
        await this.#pool.query(sql, [backend, tool, row.hash, row.definition, Date.now()]);
        await this.#pool.query('SELECT pg_notify($1, $2)', [CHANNEL, backend]);
      } catch (err) {
        this.#options.onError?.(err as Error);
      }
    });
  }

  watch(listener: (backend: string) => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#writes;
    await this.#listener?.end().catch(() => {});
    await this.#pool.end().catch(() => {});
  }

  #of(backend: string): Map<string, PinRow> {
    let rows = this.#rows.get(backend);
    if (!rows) {
      rows = new Map();
      this.#rows.set(backend, rows);
    }
    return rows;
  }

  /** A connection of its own that LISTENs; lost, it comes back and reloads everything. */
  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('error', () => {});
    client.on('notification', (message) => {
      if (message.payload) void this.#refresh(message.payload);
    });
    client.on('end', () => {
      if (this.#closed) return;
      setTimeout(() => void this.#relisten(), RELISTEN_MS).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.#listener = client;
  }

  async #relisten(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#listen();
      // What changed while it was away: every backend, read again.
      await Promise.all([...this.#rows.keys()].map((b) => this.#refresh(b)));
    } catch (err) {
      this.#options.onError?.(err as Error);
      setTimeout(() => void this.#relisten(), RELISTEN_MS).unref();
    }
  }

  /** Read `backend`'s rows again (another instance changed them) and tell the watchers. */
  async #refresh(backend: string): Promise<void> {
    try {
      const { rows } = await this.#pool.query<PinRow & { tool: string }>(
        'SELECT tool, hash, definition FROM tool_pins WHERE backend = $1',
        [backend],
      );
      const fresh = new Map(rows.map((r) => [r.tool, { hash: r.hash, definition: r.definition }]));
      const old = this.#rows.get(backend);
      const same =
        old?.size === fresh.size &&
        [...fresh].every(([tool, row]) => old.get(tool)?.hash === row.hash);
      this.#rows.set(backend, fresh);
      if (!same) for (const listener of this.#listeners) listener(backend);
    } catch (err) {
      if (!this.#closed) this.#options.onError?.(err as Error);
    }
  }
}
