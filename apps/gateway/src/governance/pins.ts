/**
 * Pinned tool definitions: a backend must not change what its tools say behind the gateway's
 * back (the "rug pull" of tool poisoning — a description that was harmless when approved and
 * instructs the model later). The gateway keeps a hash of each tool's definition as approved;
 * a definition that changes, in `block` mode, is quarantined — not listed, not callable — until
 * an operator approves it; in `warn` mode it is an event. The first definitions the gateway sees
 * of a backend are approved as they are (trust on first use); a tool the backend adds later
 * follows the mode: `warn` pins it as it comes, `block` quarantines it like a change.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../private-file.js';

/** How a backend's tool definitions are held to what was approved. */
export type PinMode = 'off' | 'warn' | 'block';

/** The members of a tool's list entry that are its definition (what a model reads). */
const DEFINITION = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;

/** A tool held back, and why. */
export interface Quarantined {
  tool: string;
  /** `changed`: its definition differs from the approved one; `new`: none was approved. */
  reason: 'changed' | 'new';
  /** The members that differ from the approved definition (all of them for a new tool). */
  fields: string[];
  /** The approved definition (a changed tool) and the one offered now. */
  approved?: Record<string, unknown>;
  offered: Record<string, unknown>;
  /** When it was first held back (ms since the epoch). */
  since: number;
}

/** What {@link ToolPins.review} found in one backend's list. */
export interface Review {
  /** The tools that may be listed and called. */
  allowed: Set<string>;
  /** The tools held back (block mode). */
  quarantined: Quarantined[];
  /** What the event log should hear, once per distinct definition. */
  news: {
    type: 'tool.definition_changed' | 'tool.quarantined' | 'tool.pinned';
    detail: Quarantined;
  }[];
}

/** A tool's definition: the members a model reads, in a fixed order. */
export function definitionOf(entry: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of DEFINITION) if (entry[key] !== undefined) out[key] = entry[key];
  return out;
}

/** JSON with object keys sorted at every depth: one text per definition. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hash a definition is pinned by. */
export function definitionHash(definition: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonical(definition)).digest('hex');
}

/** The members in which two definitions differ. */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return DEFINITION.filter((k) => canonical(a[k]) !== canonical(b[k]));
}

/** One approved definition: its hash, and itself as JSON. */
export interface PinRow {
  hash: string;
  definition: string;
}

/**
 * Where approved definitions are kept, read synchronously (a registry rebuild decides at once):
 * a SQLite file on one machine, or a fleet's PostgreSQL table mirrored in memory
 * (postgres-pins.ts).
 */
export interface PinRows {
  /** How many definitions of `backend` are approved. */
  count(backend: string): number;
  get(backend: string, tool: string): PinRow | undefined;
  /**
   * Approve a definition. `replace` false: unless one is approved already — another instance of
   * a fleet may have approved its first sight first, and that one stands.
   */
  put(backend: string, tool: string, row: PinRow, replace: boolean): void;
  /** Call `listener` when another instance changed `backend`'s approvals (a fleet's store). */
  watch?(listener: (backend: string) => void): void;
  close(): void | Promise<void>;
}

/** The approved definitions in a SQLite file (0600) that outlives restarts. */
export class SqlitePinRows implements PinRows {
  readonly #db: Database.Database;
  readonly #get: Database.Statement<[string, string], PinRow>;
  readonly #put: Database.Statement<[string, string, string, string, number]>;
  readonly #add: Database.Statement<[string, string, string, string, number]>;
  readonly #count: Database.Statement<[string], { n: number }>;

  constructor(path: string) {
    ensurePrivateFile(path);
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('busy_timeout = 5000');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS tool_pins (
      backend     TEXT NOT NULL,
      tool        TEXT NOT NULL,
      hash        TEXT NOT NULL,
      definition  TEXT NOT NULL,
      approved_at INTEGER NOT NULL,
      PRIMARY KEY (backend, tool)
    )`);
    this.#get = this.#db.prepare(
      'SELECT hash, definition FROM tool_pins WHERE backend = ? AND tool = ?',
    );
    const insert =
      'INSERT INTO tool_pins (backend, tool, hash, definition, approved_at) VALUES (?, ?, ?, ?, ?)';
    this.#put = this.#db.prepare(
      `${insert} ON CONFLICT (backend, tool) DO UPDATE SET hash = excluded.hash,
         definition = excluded.definition, approved_at = excluded.approved_at`,
    );
    this.#add = this.#db.prepare(`${insert} ON CONFLICT (backend, tool) DO NOTHING`);
    this.#count = this.#db.prepare('SELECT COUNT(*) AS n FROM tool_pins WHERE backend = ?');
  }

  count(backend: string): number {
    return this.#count.get(backend)?.n ?? 0;
  }

  get(backend: string, tool: string): PinRow | undefined {
    return this.#get.get(backend, tool);
  }

  put(backend: string, tool: string, row: PinRow, replace: boolean): void {
    (replace ? this.#put : this.#add).run(backend, tool, row.hash, row.definition, Date.now());
  }

  close(): void {
    this.#db.close();
  }
}

/** The approved definitions, and what a backend's list comes to against them. */
export class ToolPins {
  readonly #rows: PinRows;
  /** When each held-back definition was first seen: `backend\0tool\0hash` → ms. */
  readonly #since = new Map<string, number>();
  /** The definitions already told of (each is an event once, not at every list refresh). */
  readonly #told = new Set<string>();

  constructor(rows: PinRows) {
    this.#rows = rows;
  }

  /**
   * Hold `tools` (a backend's list entries) to their approved definitions under `mode`. A
   * backend never seen before has its definitions approved as they are.
   */
  review(
    backend: string,
    mode: PinMode,
    tools: readonly Readonly<Record<string, unknown>>[],
  ): Review {
    const allowed = new Set<string>();
    const quarantined: Quarantined[] = [];
    const news: Review['news'] = [];
    const firstSight = mode !== 'off' && this.#rows.count(backend) === 0;
    for (const entry of tools) {
      const name = entry.name;
      if (typeof name !== 'string') continue;
      if (mode === 'off') {
        allowed.add(name);
        continue;
      }
      const offered = definitionOf(entry);
      const hash = definitionHash(offered);
      const row = this.#rows.get(backend, name);
      if (row?.hash === hash) {
        allowed.add(name);
        continue;
      }
      if (!row && (firstSight || mode === 'warn')) {
        this.#approve(backend, name, offered, hash, false);
        allowed.add(name);
        if (!firstSight)
          news.push({ type: 'tool.pinned', detail: this.#held(backend, 'new', offered, hash) });
        continue;
      }
      const approved = row ? (JSON.parse(row.definition) as Record<string, unknown>) : undefined;
      const detail = this.#held(backend, row ? 'changed' : 'new', offered, hash, approved);
      const key = `${backend}\0${name}\0${hash}`;
      if (mode === 'warn') {
        allowed.add(name);
        if (!this.#told.has(key)) news.push({ type: 'tool.definition_changed', detail });
      } else {
        quarantined.push(detail);
        if (!this.#told.has(key)) news.push({ type: 'tool.quarantined', detail });
      }
      this.#told.add(key);
    }
    return { allowed, quarantined, news };
  }

  /**
   * Approve what `backend` offers now for `tool` (or for every tool in `offered`): the pins take
   * the offered definitions. Returns the names approved.
   */
  approve(
    backend: string,
    offered: readonly Readonly<Record<string, unknown>>[],
    tool?: string,
  ): string[] {
    const approved: string[] = [];
    for (const entry of offered) {
      if (typeof entry.name !== 'string' || (tool !== undefined && entry.name !== tool)) continue;
      const definition = definitionOf(entry);
      this.#approve(backend, entry.name, definition, definitionHash(definition), true);
      approved.push(entry.name);
    }
    return approved;
  }

  close(): void | Promise<void> {
    return this.#rows.close();
  }

  #approve(
    backend: string,
    tool: string,
    definition: Record<string, unknown>,
    hash: string,
    replace: boolean,
  ): void {
    this.#rows.put(backend, tool, { hash, definition: JSON.stringify(definition) }, replace);
  }

  #held(
    backend: string,
    reason: Quarantined['reason'],
    offered: Record<string, unknown>,
    hash: string,
    approved?: Record<string, unknown>,
  ): Quarantined {
    const key = `${backend}\0${String(offered.name)}\0${hash}`;
    const since = this.#since.get(key) ?? Date.now();
    this.#since.set(key, since);
    return {
      tool: String(offered.name),
      reason,
      fields: approved ? changedFields(approved, offered) : Object.keys(offered),
      ...(approved ? { approved } : {}),
      offered,
      since,
    };
  }
}
