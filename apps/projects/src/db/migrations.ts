import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * Migrations as code. Each runs once, in order, inside one transaction together with its record in
 * `schema_migrations`. The DDL is written with Kysely's schema builder only, with types both
 * dialects share: text ids, text ISO timestamps, integer positions, bigint sizes, JSON as text.
 * Never edit a migration that has shipped; append a new one.
 */
export interface Migration {
  /** Unique and sortable, e.g. `0001_initial`. */
  name: string;
  up(db: Kysely<unknown>): Promise<void>;
}

export const migrations: readonly Migration[] = [
  {
    name: '0001_initial',
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('users_email_key', ['email'])
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .addUniqueConstraint('api_keys_hash_key', ['hash'])
        .execute();
      await db.schema.createIndex('api_keys_prefix_idx').on('api_keys').column('prefix').execute();
      await db.schema
        .createIndex('api_keys_user_idx')
        .on('api_keys')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('domain', 'text')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('draft'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addCheckConstraint(
          'projects_status_check',
          sql`status in ('draft', 'published', 'archived')`,
        )
        .execute();
      // Keyset pagination: WHERE user_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC.
      await db.schema
        .createIndex('projects_user_created_idx')
        .on('projects')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();

      // Positions are contiguous per project but shift inside transactions, so the index is not unique.
      await db.schema
        .createTable('blocks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) =>
          c.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addCheckConstraint('blocks_position_check', sql`position >= 0`)
        .execute();
      await db.schema
        .createIndex('blocks_project_position_idx')
        .on('blocks')
        .columns(['project_id', 'position'])
        .execute();

      await db.schema
        .createTable('assets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) =>
          c.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('mime_type', 'text', (c) => c.notNull())
        .addColumn('size_bytes', 'bigint', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addCheckConstraint('assets_size_bytes_check', sql`size_bytes >= 0`)
        .execute();
      await db.schema
        .createIndex('assets_project_created_idx')
        .on('assets')
        .columns(['project_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('design_systems')
        .addColumn('project_id', 'text', (c) =>
          c.primaryKey().references('projects.id').onDelete('cascade'),
        )
        .addColumn('tokens', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  {
    // OAuth sign-in (--auth-issuer): each (issuer, subject) is linked to one user on its first
    // sign-in, so a person's projects follow their identity, not a claim they can edit.
    name: '0002_oauth_identities',
    async up(db) {
      await db.schema
        .createTable('oauth_identities')
        .addColumn('issuer', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('oauth_identities_pkey', ['issuer', 'subject'])
        .execute();
      await db.schema
        .createIndex('oauth_identities_user_idx')
        .on('oauth_identities')
        .column('user_id')
        .execute();
    },
  },
  {
    // A version history of each project's design tokens. `design_systems.version` is the
    // project's counter: the history drops its oldest versions, and numbers are never reused.
    // Tokens stored before the history existed become its version 1 (with no author: it is not
    // known), so every project with tokens has a history that ends with what it holds.
    name: '0003_design_token_versions',
    async up(db) {
      // The default only numbers the rows that exist now, as the backfill below does; the store
      // writes the version of every row explicitly.
      await db.schema
        .alterTable('design_systems')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      // The project's modes (a DTCG resolver document), versioned with its tokens.
      await db.schema.alterTable('design_systems').addColumn('resolver', 'text').execute();

      // The author is a user or null: deleting a user keeps the versions they wrote, without
      // their id (no dangling id for a user who is gone), and an id that is no user is refused
      // when written, not found out when shown.
      await db.schema
        .createTable('design_token_versions')
        .addColumn('project_id', 'text', (c) =>
          c.notNull().references('projects.id').onDelete('cascade'),
        )
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('tokens', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('note', 'text')
        .addColumn('resolver', 'text')
        // Also the index of the newest-first listing and of the retention's range delete.
        .addPrimaryKeyConstraint('design_token_versions_pkey', ['project_id', 'version'])
        .addCheckConstraint('design_token_versions_version_check', sql`version >= 1`)
        .execute();
      // Deleting a user sets their versions' author to null: without an index, a scan of every
      // project's history.
      await db.schema
        .createIndex('design_token_versions_author_idx')
        .on('design_token_versions')
        .column('author_id')
        .execute();

      await sql`
        insert into design_token_versions (project_id, version, tokens, created_at, author_id, note)
        select project_id, 1, tokens, updated_at, null, null from design_systems
      `.execute(db);
    },
  },
];

/** Any constant works; it only has to be the same for every process migrating this database. */
const PG_MIGRATION_LOCK = 0x6d63_706b; // "mcpk"

export interface MigrateOptions {
  /** PostgreSQL only: a schema to create (if missing) before migrating; it should be on search_path. */
  schema?: string | undefined;
  /** The migrations to apply; defaults to {@link migrations}. */
  migrations?: readonly Migration[];
}

/**
 * Applies the pending migrations; returns the names applied now (empty when up to date). Safe to run
 * at every start and from several processes at once: PostgreSQL serializes runners with a
 * transaction-scoped advisory lock, SQLite with `BEGIN IMMEDIATE` (the write lock, waited for with
 * busy_timeout). Everything — including creating `schema_migrations` — happens in one transaction,
 * so a failed migration leaves nothing behind.
 */
export async function migrate(
  db: Kysely<Database>,
  kind: 'sqlite' | 'postgres',
  options: MigrateOptions = {},
): Promise<string[]> {
  const list = options.migrations ?? migrations;
  return db.connection().execute(async (conn) => {
    await (kind === 'sqlite' ? sql`begin immediate` : sql`begin`).execute(conn);
    try {
      if (kind === 'postgres') {
        await sql`select pg_advisory_xact_lock(${PG_MIGRATION_LOCK})`.execute(conn);
        if (options.schema !== undefined) {
          await conn.schema.createSchema(options.schema).ifNotExists().execute();
        }
      }
      await conn.schema
        .createTable('schema_migrations')
        .ifNotExists()
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('applied_at', 'text', (c) => c.notNull())
        .execute();
      const done = new Set(
        (await conn.selectFrom('schema_migrations').select('name').execute()).map((r) => r.name),
      );
      const applied: string[] = [];
      for (const migration of list) {
        if (done.has(migration.name)) continue;
        await migration.up(conn as unknown as Kysely<unknown>);
        await conn
          .insertInto('schema_migrations')
          .values({ name: migration.name, applied_at: new Date().toISOString() })
          .execute();
        applied.push(migration.name);
      }
      await sql`commit`.execute(conn);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
