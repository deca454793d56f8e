import type { ColumnType } from 'kysely';

/**
 * Kysely typings of the tables created by `migrations.ts`. Column names are snake_case; times are
 * ISO 8601 strings with millisecond precision (`2025-01-31T12:00:00.000Z`, stored as text so that
 * both dialects compare and sort them the same way); JSON values are stored as text.
 */

/** `count(*)` and `bigint` columns come back as strings from node-postgres and numbers from SQLite. */
export type BigIntColumn = ColumnType<number | string | bigint, number, number>;

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  prefix: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** JSON array of scopes, e.g. `["read","write"]`. */
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProjectsTable {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  domain: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface BlocksTable {
  id: string;
  project_id: string;
  position: number;
  type: string;
  /** JSON text. */
  content: string;
  created_at: string;
  updated_at: string;
}

export interface AssetsTable {
  id: string;
  project_id: string;
  name: string;
  mime_type: string;
  size_bytes: BigIntColumn;
  url: string;
  created_at: string;
}

export interface DesignSystemsTable {
  project_id: string;
  /** JSON text of a DTCG token document. */
  tokens: string;
  updated_at: string;
  /** The version of `tokens` in `design_token_versions`: the project's counter of versions. */
  version: number;
  /** JSON text of a DTCG 2025.10 resolver document (the project's modes), or null. */
  resolver: string | null;
}

/** A project's design-token history: the newest versions, up to the store's limit. */
export interface DesignTokenVersionsTable {
  project_id: string;
  /** 1, 2, 3 … per project; never reused. */
  version: number;
  /** JSON text of a DTCG token document. */
  tokens: string;
  created_at: string;
  /** The user who wrote it; set to null when that user is deleted. */
  author_id: string | null;
  note: string | null;
  /** JSON text of the resolver document that went with these tokens, or null. */
  resolver: string | null;
}

/** Who signed in with OAuth: an authorization server's subject, linked to a projects user. */
export interface OAuthIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: string;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: string;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  blocks: BlocksTable;
  assets: AssetsTable;
  design_systems: DesignSystemsTable;
  design_token_versions: DesignTokenVersionsTable;
  oauth_identities: OAuthIdentitiesTable;
  schema_migrations: SchemaMigrationsTable;
}
