import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type Selectable,
  type SelectQueryBuilder,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';
import { DocumentCache } from './document-cache.js';
import { newId } from './ids.js';
import { migrate } from './migrations.js';
import {
  checkScopes,
  checkStatus,
  clamp,
  decodeCursor,
  decodePositionCursor,
  decodeVersionCursor,
  designSystemOf,
  encodePositionCursor,
  encodeVersionCursor,
  isUniqueViolation,
  isVersion,
  jsonText,
  monotonicClock,
  pageLimit,
  requestedPosition,
  toApiKey,
  toAsset,
  toBlock,
  toDesignSystem,
  toDesignTokenVersion,
  toDesignTokenVersionInfo,
  toPage,
  toProject,
  toUser,
  withParent,
} from './rows.js';
import type { Database, ProjectsTable } from './schema.js';
import {
  type ApiKey,
  type Asset,
  type AssetInput,
  type Block,
  type BlockInput,
  type BlockPageRequest,
  ConflictError,
  DESIGN_TOKEN_VERSIONS_KEPT,
  type DesignSystem,
  type DesignTokenVersion,
  type DesignTokenVersionInfo,
  type DesignTokenWriteOptions,
  LimitError,
  MAX_BLOCK_PAGE_BYTES,
  MAX_BLOCKS_PER_PROJECT,
  type OAuthIdentity,
  type Page,
  type PageRequest,
  type Project,
  type ProjectInput,
  type Scope,
  type Store,
  type User,
} from './types.js';

export interface StoreOptions {
  /** SQLite only, when no URL is given: the directory of `projects.db` (instead of the XDG default). */
  dataDir?: string | undefined;
  /**
   * PostgreSQL only: the schema to use (created if missing, then the only entry of `search_path`).
   * Lets tests, or several deployments, share one database. Lowercase letters, digits, `_`.
   */
  schema?: string | undefined;
  /** The clock, in epoch milliseconds; for tests. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Blocks one project may hold. Default {@link MAX_BLOCKS_PER_PROJECT}. */
  maxBlocksPerProject?: number | undefined;
  /**
   * Versions of its design tokens each project's history keeps; a write past it drops the oldest.
   * Default {@link DESIGN_TOKEN_VERSIONS_KEPT}.
   */
  designTokenVersionsKept?: number | undefined;
  /**
   * Where a one-line warning goes (SQLite: an existing file's permissions were tightened; see
   * {@link openSqliteDatabase}). Default: stderr, prefixed `projects store:`.
   */
  warn?: ((message: string) => void) | undefined;
}

const LAST_USED_THROTTLE_MS = 60_000;
const MIN_REVOKE_PREFIX = 8;
const PG_POOL_MAX = 10;

/** `${XDG_DATA_HOME ?? ~/.local/share}/mcpkit/projects.db`, or `${dataDir}/projects.db`. */
export function defaultDatabasePath(
  dataDir?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (dataDir) return join(resolve(dataDir), 'projects.db');
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says to ignore a relative (or empty) value.
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share');
  return join(base, 'mcpkit', 'projects.db');
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * The store could not be opened: a database URL of an unsupported kind, a PostgreSQL server that
 * refuses, a file that is not a SQLite database. The message is one line a person can act on
 * (it names the database without credentials); the driver's error is the `cause`.
 */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/** `host:port/database` of a PostgreSQL URL: what an error may show (never the password). */
function whereIs(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'the given URL';
  }
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const defaultWarn = (message: string) => console.error(`projects store: ${message}`);

/**
 * Creates the database file, empty, readable and writable by its owner only (and its directory,
 * if missing, 0700): it holds users' emails and API-key hashes. SQLite would create it 0644 (less
 * the umask); it takes an empty file for an empty database, and gives the `-wal` and `-shm` files
 * it creates the main file's mode. A pre-created file keeps the process umask untouched. Returns
 * false when the file already exists.
 */
function createPrivateFile(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Takes group and other permissions off an existing database and its `-wal`/`-shm` files that
 * this user owns (one from before files were created 0600), saying so in one line: such a file
 * was readable by other local users. A file of another user is left alone (chmod would fail, and
 * its owner chose its mode); so is every file where there are no Unix owners (Windows).
 */
function tightenExisting(path: string, warn: (message: string) => void): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const tightened: string[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(file);
    } catch {
      continue; // no side file: nothing to tighten
    }
    if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) === 0) continue;
    chmodSync(file, stat.mode & 0o700);
    tightened.push(`${file} (was ${(stat.mode & 0o777).toString(8).padStart(4, '0')})`);
  }
  if (tightened.length > 0) {
    warn(
      `database permissions tightened to owner-only (it holds emails and API-key hashes): ${tightened.join(', ')}`,
    );
  }
}

/**
 * Opens a SQLite file (creating it 0600 and its directory 0700) with the settings the store relies
 * on: WAL, synchronous=FULL (with WAL, NORMAL may lose the last acknowledged commits on power loss
 * or a kill at the wrong moment; FULL syncs the WAL at every commit), busy_timeout 5 s, foreign
 * keys on. An existing file of this user that group or others may read is made owner-only, with
 * one line to `warn`.
 */
export function openSqliteDatabase(
  path: string,
  warn: (message: string) => void = defaultWarn,
): SqliteDatabase.Database {
  const created = path !== ':memory:' && createPrivateFile(path);
  const db = new SqliteDatabase(path);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // After the pragmas, which read the header: a file that is not a database is refused as such,
    // not chmod-ed.
    if (path !== ':memory:' && !created) tightenExisting(path, warn);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens the store: a `postgres://` / `postgresql://` URL selects PostgreSQL (a pool of 10);
 * anything else is a SQLite file path (or `file:` URL, or `:memory:`); no URL means
 * {@link defaultDatabasePath}. Migrations run before this resolves.
 */
export async function openStore(url?: string, options: StoreOptions = {}): Promise<Store> {
  const clock = monotonicClock(options.now ?? Date.now);
  let db: Kysely<Database>;
  let kind: Store['kind'];
  // `mysql://…` must not become a SQLite file named `mysql:/…` (a scheme is `x://`; a Windows
  // drive letter `C:\` or a plain path never matches).
  const scheme = url ? /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1] : undefined;
  if (url && scheme && !isPostgresUrl(url) && scheme.toLowerCase() !== 'file') {
    throw new StoreOpenError(
      `unsupported database URL scheme '${scheme}:' — use postgres://… (or postgresql://…), a SQLite file path, or file:…`,
    );
  }
  if (url && isPostgresUrl(url)) {
    kind = 'postgres';
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new Error(`invalid schema name '${schema}'`);
    }
    const pool = new pg.Pool({
      connectionString: url,
      max: PG_POOL_MAX,
      ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client losing its connection must not crash the process; the next query reports it.
    pool.on('error', (error) => {
      console.error(`projects store: idle PostgreSQL connection failed: ${error.message}`);
    });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrate(db, kind, { schema });
    } catch (error) {
      await db.destroy();
      throw new StoreOpenError(
        `cannot connect to PostgreSQL at ${whereIs(url)}: ${reason(error)}`,
        {
          cause: error,
        },
      );
    }
  } else {
    kind = 'sqlite';
    if (options.schema !== undefined) throw new Error('options.schema is for PostgreSQL only');
    let path: string;
    if (!url) path = defaultDatabasePath(options.dataDir);
    else if (url === ':memory:') path = url;
    else if (url.startsWith('file:')) path = fileURLToPath(url);
    else path = resolve(url);
    let sqlite: SqliteDatabase.Database;
    try {
      sqlite = openSqliteDatabase(path, options.warn);
    } catch (error) {
      throw new StoreOpenError(`cannot open the SQLite database at ${path}: ${reason(error)}`, {
        cause: error,
      });
    }
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    try {
      await migrate(db, kind);
    } catch (error) {
      await db.destroy();
      throw new StoreOpenError(`cannot open the SQLite database at ${path}: ${reason(error)}`, {
        cause: error,
      });
    }
  }
  const maxBlocks = options.maxBlocksPerProject ?? MAX_BLOCKS_PER_PROJECT;
  const versionsKept = options.designTokenVersionsKept ?? DESIGN_TOKEN_VERSIONS_KEPT;
  for (const [option, value] of [
    ['maxBlocksPerProject', maxBlocks],
    ['designTokenVersionsKept', versionsKept],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      await db.destroy();
      throw new Error(`${option} must be a positive integer, got ${value}`);
    }
  }
  return new KyselyStore(db, kind, clock, maxBlocks, versionsKept);
}

/** ISO timestamps (ms precision) that never go backwards within one store, even if the clock does. */
type Db = Kysely<Database>;

/**
 * Keyset pagination of a listing newest first, (created_at, id) descending: the rows after the
 * cursor's key, one more than the page so the caller knows whether another page follows.
 */
function newestFirstAfter(after: { createdAt: string; id: string } | undefined, limit: number) {
  return <TB extends 'projects' | 'assets', O>(
    q: SelectQueryBuilder<Database, TB, O>,
  ): SelectQueryBuilder<Database, TB, O> => {
    const keyed = (q as unknown as SelectQueryBuilder<Database, 'projects', O>)
      .$if(after !== undefined, (k) =>
        k.where(({ eb, refTuple, tuple }) =>
          eb(refTuple('created_at', 'id'), '<', tuple(after?.createdAt ?? '', after?.id ?? '')),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    // Both tables have these columns; the cast only tells TypeScript so.
    return keyed as unknown as SelectQueryBuilder<Database, TB, O>;
  };
}

class KyselyStore implements Store {
  constructor(
    private readonly db: Db,
    readonly kind: Store['kind'],
    private readonly now: () => string,
    private readonly maxBlocks: number,
    /** Versions each project's design-token history keeps. */
    private readonly versionsKept: number,
  ) {}

  /** The token documents read or written last (./document-cache.ts). */
  readonly #documents = new DocumentCache();

  async close(): Promise<void> {
    await this.db.destroy();
  }

  // Users ---------------------------------------------------------------------------------------

  async createUser(email: string, name: string | null = null): Promise<User> {
    const row = { id: newId('usr'), email, name, created_at: this.now() };
    try {
      await this.db.insertInto('users').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('email');
      throw error;
    }
    return toUser(row);
  }

  async getUser(id: string): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async getUserByEmail(email: string): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async userForIdentity(identity: OAuthIdentity): Promise<User> {
    const linked = await this.#linkedUser(identity);
    if (linked) return linked;
    const { issuer, subject, email, emailVerified, name } = identity;
    // First sign-in: the user of a verified email (an account made with an API key before), or
    // a new one. An unverified email is never linked: anyone may type anyone's address.
    const address = email && emailVerified ? email : `${subject}@${new URL(issuer).host}`;
    let user = await this.getUserByEmail(address);
    if (!user) {
      try {
        user = await this.createUser(address, name ?? null);
      } catch (error) {
        // Another first sign-in of the same identity made it a moment ago.
        if (!(error instanceof ConflictError)) throw error;
        user = await this.getUserByEmail(address);
        if (!user) throw error;
      }
    }
    await this.db
      .insertInto('oauth_identities')
      .values({ issuer, subject, user_id: user.id, created_at: this.now() })
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
      .execute();
    // Whoever linked the identity first decides (a concurrent sign-in may have won).
    return (await this.#linkedUser(identity)) ?? user;
  }

  async #linkedUser({ issuer, subject }: OAuthIdentity): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('oauth_identities as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .select(['u.id', 'u.email', 'u.name', 'u.created_at'])
      .where('i.issuer', '=', issuer)
      .where('i.subject', '=', subject)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async listUsers(): Promise<User[]> {
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .orderBy('email', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toUser);
  }

  // API keys ------------------------------------------------------------------------------------

  async createApiKey(
    userId: string,
    prefix: string,
    hash: string,
    scopes: Scope[],
  ): Promise<ApiKey> {
    const row = {
      id: newId('key'),
      user_id: userId,
      prefix,
      hash,
      scopes: JSON.stringify(checkScopes(scopes)),
      created_at: this.now(),
      last_used_at: null,
      revoked_at: null,
    };
    try {
      await withParent('user', userId, () => this.db.insertInto('api_keys').values(row).execute());
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('hash');
      throw error;
    }
    return toApiKey(row);
  }

  async findApiKey(hash: string): Promise<{ key: ApiKey; user: User } | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id',
        'k.user_id',
        'k.prefix',
        'k.scopes',
        'k.created_at',
        'k.last_used_at',
        'k.revoked_at',
        'u.email as user_email',
        'u.name as user_name',
        'u.created_at as user_created_at',
      ])
      .where('k.hash', '=', hash)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;

    const now = this.now();
    const threshold = new Date(Date.parse(now) - LAST_USED_THROTTLE_MS).toISOString();
    if (row.last_used_at === null || row.last_used_at <= threshold) {
      // Conditional, so that concurrent requests write at most once per minute.
      const result = await this.db
        .updateTable('api_keys')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', threshold)]))
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) row.last_used_at = now;
    }
    return {
      key: toApiKey(row),
      user: {
        id: row.user_id,
        email: row.user_email,
        name: row.user_name,
        createdAt: row.user_created_at,
      },
    };
  }

  async listApiKeys(userId: string): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toApiKey);
  }

  async revokeApiKeys(prefix: string): Promise<number> {
    if (prefix.length < MIN_REVOKE_PREFIX) {
      throw new Error(`a key prefix to revoke needs at least ${MIN_REVOKE_PREFIX} characters`);
    }
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: this.now() })
      .where('revoked_at', 'is', null)
      // substr rather than LIKE: no wildcards to escape, and case-sensitive on both dialects.
      .where((eb) =>
        eb(eb.fn<string>('substr', ['prefix', eb.lit(1), eb.lit(prefix.length)]), '=', prefix),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  // Projects ------------------------------------------------------------------------------------

  async listProjects(userId: string, page: PageRequest = {}): Promise<Page<Project>> {
    const limit = pageLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor, 'proj') : undefined;
    const rows = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('user_id', '=', userId)
      .$call(newestFirstAfter(after, limit))
      .execute();
    return toPage(rows, limit, toProject);
  }

  async countProjects(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async getProject(id: string): Promise<Project | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toProject(row);
  }

  async createProject(userId: string, input: ProjectInput): Promise<Project> {
    const now = this.now();
    const row = {
      id: newId('proj'),
      user_id: userId,
      name: input.name,
      description: input.description ?? null,
      domain: input.domain ?? null,
      status: checkStatus(input.status ?? 'draft'),
      created_at: now,
      updated_at: now,
    };
    await withParent('user', userId, () => this.db.insertInto('projects').values(row).execute());
    return toProject(row);
  }

  async updateProject(id: string, patch: Partial<ProjectInput>): Promise<Project | undefined> {
    const set: Partial<Selectable<ProjectsTable>> = { updated_at: this.now() };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.domain !== undefined) set.domain = patch.domain;
    if (patch.status !== undefined) set.status = checkStatus(patch.status);
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('projects')
        .set(set)
        .where('id', '=', id)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return undefined;
      const row = await trx
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return toProject(row);
    });
  }

  async deleteProject(id: string): Promise<boolean> {
    // Blocks, assets, the design system and its history go with it (ON DELETE CASCADE).
    const result = await this.db.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async projectIdsStartingWith(userId: string, prefix: string, limit: number): Promise<string[]> {
    const max = Math.floor(limit);
    if (!(max > 0)) return [];
    const rows = await this.db
      .selectFrom('projects')
      .select('id')
      .where('user_id', '=', userId)
      .$if(prefix.length > 0, (q) =>
        q.where((eb) =>
          eb(eb.fn<string>('substr', ['id', eb.lit(1), eb.lit(prefix.length)]), '=', prefix),
        ),
      )
      .orderBy('id', 'asc')
      .limit(Math.min(max, 1_000_000))
      .execute();
    return rows.map((r) => r.id);
  }

  // Blocks --------------------------------------------------------------------------------------
  //
  // Positions are 0..n-1 per project. Every change runs in a transaction that first takes the
  // project's write lock (a no-op UPDATE of the project row: a row lock on PostgreSQL, the database
  // write lock on SQLite), so concurrent changes to one project's blocks serialize and the
  // count/shift/insert sequence cannot interleave.

  /** Locks the project row; false when there is no such project. */
  private async lockProject(trx: Db, projectId: string): Promise<boolean> {
    const result = await trx
      .updateTable('projects')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', projectId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Locks the project of a block; false when there is no such block. */
  private async lockProjectOfBlock(trx: Db, blockId: string): Promise<boolean> {
    const result = await trx
      .updateTable('projects')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', (eb) =>
        eb.selectFrom('blocks').select('blocks.project_id').where('blocks.id', '=', blockId),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  private async countBlocksIn(trx: Db, projectId: string): Promise<number> {
    const row = await trx
      .selectFrom('blocks')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countBlocks(projectId: string): Promise<number> {
    return this.countBlocksIn(this.db, projectId);
  }

  /**
   * Two steps in one snapshot: which blocks fit the page, judged by the byte length of their
   * content as the database has it (no content leaves the database for that), then those blocks.
   */
  async listBlocks(projectId: string, page: BlockPageRequest = {}): Promise<Page<Block>> {
    const limit = pageLimit(page.limit);
    const maxBytes = page.maxBytes ?? MAX_BLOCK_PAGE_BYTES;
    const after = page.cursor ? decodePositionCursor(page.cursor, 'blk') : undefined;
    const bytes =
      this.kind === 'postgres'
        ? sql<number | string>`octet_length(content)`
        : sql<number | string>`length(cast(content as blob))`;
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const candidates = await trx
          .selectFrom('blocks')
          .select(['id', 'position', bytes.as('bytes')])
          .where('project_id', '=', projectId)
          .$if(after !== undefined, (q) =>
            q.where(({ eb, refTuple, tuple }) =>
              eb(refTuple('position', 'id'), '>', tuple(after?.position ?? 0, after?.id ?? '')),
            ),
          )
          .orderBy('position', 'asc')
          .orderBy('id', 'asc')
          .limit(limit + 1)
          .execute();
        const ids: string[] = [];
        let total = 0;
        for (const candidate of candidates) {
          const size = Number(candidate.bytes);
          if (ids.length === limit || (ids.length > 0 && total + size > maxBytes)) break;
          ids.push(candidate.id);
          total += size;
        }
        if (ids.length === 0) return { items: [] };
        const rows = await trx
          .selectFrom('blocks')
          .selectAll()
          .where('id', 'in', ids)
          .orderBy('position', 'asc')
          .orderBy('id', 'asc')
          .execute();
        const items = rows.map(toBlock);
        const last = rows[rows.length - 1];
        return candidates.length > ids.length && last
          ? { items, nextCursor: encodePositionCursor({ position: last.position, id: last.id }) }
          : { items };
      });
  }

  async getBlock(id: string): Promise<Block | undefined> {
    const row = await this.db
      .selectFrom('blocks')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toBlock(row);
  }

  async createBlock(projectId: string, input: BlockInput): Promise<Block> {
    const content = jsonText(input.content);
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.lockProject(trx, projectId))) {
        throw new Error(`project '${projectId}' not found`);
      }
      const count = await this.countBlocksIn(trx, projectId);
      if (count >= this.maxBlocks) throw new LimitError('blocks', this.maxBlocks);
      const position =
        input.position === undefined ? count : clamp(requestedPosition(input.position), 0, count);
      if (position < count) {
        await trx
          .updateTable('blocks')
          .set((eb) => ({ position: eb('position', '+', 1) }))
          .where('project_id', '=', projectId)
          .where('position', '>=', position)
          .execute();
      }
      const now = this.now();
      const row = {
        id: newId('blk'),
        project_id: projectId,
        position,
        type: input.type,
        content,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('blocks').values(row).execute();
      return toBlock(row);
    });
  }

  async updateBlock(id: string, patch: Partial<BlockInput>): Promise<Block | undefined> {
    const content = patch.content === undefined ? undefined : jsonText(patch.content);
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.lockProjectOfBlock(trx, id))) return undefined;
      const block = await trx
        .selectFrom('blocks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!block) return undefined;

      let position = block.position;
      if (patch.position !== undefined) {
        const count = await this.countBlocksIn(trx, block.project_id);
        position = clamp(requestedPosition(patch.position), 0, count - 1);
        if (position < block.position) {
          await trx
            .updateTable('blocks')
            .set((eb) => ({ position: eb('position', '+', 1) }))
            .where('project_id', '=', block.project_id)
            .where('position', '>=', position)
            .where('position', '<', block.position)
            .execute();
        } else if (position > block.position) {
          await trx
            .updateTable('blocks')
            .set((eb) => ({ position: eb('position', '-', 1) }))
            .where('project_id', '=', block.project_id)
            .where('position', '>', block.position)
            .where('position', '<=', position)
            .execute();
        }
      }
      const set = {
        position,
        type: patch.type ?? block.type,
        content: content ?? block.content,
        updated_at: this.now(),
      };
      await trx.updateTable('blocks').set(set).where('id', '=', id).execute();
      return toBlock({ ...block, ...set });
    });
  }

  async deleteBlock(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.lockProjectOfBlock(trx, id))) return false;
      const block = await trx
        .selectFrom('blocks')
        .select(['project_id', 'position'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!block) return false;
      await trx.deleteFrom('blocks').where('id', '=', id).execute();
      await trx
        .updateTable('blocks')
        .set((eb) => ({ position: eb('position', '-', 1) }))
        .where('project_id', '=', block.project_id)
        .where('position', '>', block.position)
        .execute();
      return true;
    });
  }

  // Assets --------------------------------------------------------------------------------------

  /** Newest first (createdAt desc, id desc), like projects. */
  async listAssets(projectId: string, page: PageRequest = {}): Promise<Page<Asset>> {
    const limit = pageLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor, 'ast') : undefined;
    const rows = await this.db
      .selectFrom('assets')
      .selectAll()
      .where('project_id', '=', projectId)
      .$call(newestFirstAfter(after, limit))
      .execute();
    return toPage(rows, limit, toAsset);
  }

  async getAsset(id: string): Promise<Asset | undefined> {
    const row = await this.db
      .selectFrom('assets')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAsset(row);
  }

  async createAsset(projectId: string, input: AssetInput): Promise<Asset> {
    if (!Number.isSafeInteger(input.sizeBytes) || input.sizeBytes < 0) {
      throw new Error(`invalid asset size ${input.sizeBytes}`);
    }
    const row = {
      id: newId('ast'),
      project_id: projectId,
      name: input.name,
      mime_type: input.mimeType,
      size_bytes: input.sizeBytes,
      url: input.url,
      created_at: this.now(),
    };
    await withParent('project', projectId, () =>
      this.db.insertInto('assets').values(row).execute(),
    );
    return toAsset(row);
  }

  // Design systems ------------------------------------------------------------------------------
  //
  // `design_systems` holds a project's current tokens and the number of their version; every
  // write also appends that version to `design_token_versions`. A write takes the project's write
  // lock first, as block changes do, so the read-increment-write of the version cannot interleave
  // with another writer's (on PostgreSQL two writers would otherwise read the same version and both
  // write the next). The history drops versions only at its old end, so a number is never reused
  // and a version cursor keeps its place while versions are written.

  async getDesignSystem(projectId: string): Promise<DesignSystem | undefined> {
    // The version first: the document is parsed only when it is not the one cached.
    const head = await this.db
      .selectFrom('design_systems')
      .select(['project_id', 'version', 'updated_at', 'resolver'])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (head === undefined) {
      this.#documents.delete(projectId);
      return undefined;
    }
    const tokens = this.#documents.get(projectId, head.version);
    if (tokens !== undefined) return designSystemOf(head, tokens);
    const row = await this.db
      .selectFrom('design_systems')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const system = toDesignSystem(row);
    this.#documents.set(projectId, row.version, system.tokens, row.tokens.length);
    return system;
  }

  async setDesignSystem(
    projectId: string,
    tokens: Record<string, unknown>,
    options: DesignTokenWriteOptions = {},
  ): Promise<DesignSystem> {
    if (typeof tokens !== 'object' || tokens === null || Array.isArray(tokens)) {
      throw new Error('design tokens must be a JSON object');
    }
    const text = options.json ?? JSON.stringify(tokens);
    const author = options.author ?? null;
    const saved = await this.db.transaction().execute(async (trx) => {
      if (!(await this.lockProject(trx, projectId))) {
        throw new Error(`project '${projectId}' not found`);
      }
      const current = await trx
        .selectFrom('design_systems')
        .select(['version', 'resolver'])
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      const version = (current?.version ?? 0) + 1;
      const updatedAt = this.now();
      const resolver =
        options.resolver === undefined
          ? (current?.resolver ?? null)
          : options.resolver === null
            ? null
            : JSON.stringify(options.resolver);
      await trx
        .insertInto('design_systems')
        .values({ project_id: projectId, tokens: text, updated_at: updatedAt, version, resolver })
        .onConflict((oc) =>
          oc
            .column('project_id')
            .doUpdateSet({ tokens: text, updated_at: updatedAt, version, resolver }),
        )
        .execute();
      // The project is locked and exists: a foreign key that fails here is the author's.
      await withParent('user', author ?? '', () =>
        trx
          .insertInto('design_token_versions')
          .values({
            project_id: projectId,
            version,
            tokens: text,
            created_at: updatedAt,
            author_id: author,
            note: options.note ?? null,
            resolver,
          })
          .execute(),
      );
      await trx
        .deleteFrom('design_token_versions')
        .where('project_id', '=', projectId)
        .where('version', '<=', version - this.versionsKept)
        .execute();
      // What was stored is `tokens` as JSON: no need to parse the text back.
      return {
        projectId,
        tokens,
        updatedAt,
        version,
        resolver: resolver === null ? null : (JSON.parse(resolver) as Record<string, unknown>),
      };
    });
    // Once committed: the next read of this version needs no parse.
    this.#documents.set(projectId, saved.version, tokens, text.length);
    return saved;
  }

  async listDesignTokenVersions(
    projectId: string,
    page: PageRequest = {},
  ): Promise<Page<DesignTokenVersionInfo>> {
    const limit = pageLimit(page.limit);
    const after = page.cursor ? decodeVersionCursor(page.cursor, projectId) : undefined;
    const rows = await this.db
      .selectFrom('design_token_versions')
      .select(['version', 'created_at', 'author_id', 'note'])
      .where('project_id', '=', projectId)
      .$if(after !== undefined, (q) => q.where('version', '<', after ?? 0))
      .orderBy('version', 'desc')
      .limit(limit + 1)
      .execute();
    // One row more than the page only says that there is a next page.
    const items = rows.slice(0, limit).map(toDesignTokenVersionInfo);
    const last = items[items.length - 1];
    return rows.length > limit && last
      ? { items, nextCursor: encodeVersionCursor({ version: last.version, projectId }) }
      : { items };
  }

  async getDesignTokenVersion(
    projectId: string,
    version: number,
  ): Promise<DesignTokenVersion | undefined> {
    // Anything else would be an error on PostgreSQL (NaN, 1.5, past its integer), not no row.
    if (!isVersion(version)) return undefined;
    const row = await this.db
      .selectFrom('design_token_versions')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && toDesignTokenVersion(row);
  }
}
