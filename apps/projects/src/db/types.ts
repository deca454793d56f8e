/**
 * The storage contract of the projects server: what the MCP layer asks of a database. One
 * implementation (Kysely) serves SQLite and PostgreSQL with the same queries and migrations.
 * Times are ISO 8601 strings; ids carry a type prefix (`usr_`, `key_`, `proj_`, `blk_`, `ast_`).
 */
export type Scope = 'read' | 'write';

export interface User {
  id: string;
  email: string;
  name: string | null;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  userId: string;
  /** The first characters of the key (e.g. `cf_live_sk_a1b2c3d4`), shown in listings and used to revoke. */
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export type ProjectStatus = 'draft' | 'published' | 'archived';

export interface Project {
  id: string;
  userId: string;
  name: string;
  description: string | null;
  domain: string | null;
  status: ProjectStatus;
  createdAt: string;
  updatedAt: string;
}

export interface Block {
  id: string;
  projectId: string;
  /** 0-based, contiguous within a project. */
  position: number;
  type: string;
  /** Any JSON value (stored as JSON text). */
  content: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface Asset {
  id: string;
  projectId: string;
  name: string;
  mimeType: string;
  sizeBytes: number;
  url: string;
  createdAt: string;
}

export interface DesignSystem {
  projectId: string;
  /** A W3C DTCG token document (JSON object). */
  tokens: Record<string, unknown>;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  /** Opaque; absent on the last page. */
  nextCursor?: string;
}

export interface PageRequest {
  cursor?: string | undefined;
  /** 1…100, default 50. */
  limit?: number | undefined;
}

export interface ProjectInput {
  name: string;
  description?: string | null;
  domain?: string | null;
  status?: ProjectStatus;
}

export interface BlockInput {
  type: string;
  content: unknown;
  /** Insert here (0-based); others shift down. Default: append. Clamped to [0, count]. */
  position?: number;
}

export interface AssetInput {
  name: string;
  mimeType: string;
  sizeBytes: number;
  url: string;
}

/** Thrown for a cursor the store did not issue. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`invalid cursor '${cursor}'`);
    this.name = 'InvalidCursorError';
  }
}

/** Thrown when a unique value already exists (e.g. a user's email). */
export class ConflictError extends Error {
  constructor(readonly field: string) {
    super(`${field} already exists`);
    this.name = 'ConflictError';
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;

  createUser(email: string, name?: string | null): Promise<User>;
  getUser(id: string): Promise<User | undefined>;
  getUserByEmail(email: string): Promise<User | undefined>;

  /** Store a key by its SHA-256 hash (hex); the key itself is never stored. */
  createApiKey(userId: string, prefix: string, hash: string, scopes: Scope[]): Promise<ApiKey>;
  /** A live (not revoked) key and its user, by hash. Updates lastUsedAt at most once a minute. */
  findApiKey(hash: string): Promise<{ key: ApiKey; user: User } | undefined>;
  listApiKeys(userId: string): Promise<ApiKey[]>;
  /** Revoke every live key whose prefix starts with `prefix` (at least 8 characters); returns the count. */
  revokeApiKeys(prefix: string): Promise<number>;

  /** A user's projects, newest first (createdAt desc, id desc), keyset-paginated. */
  listProjects(userId: string, page?: PageRequest): Promise<Page<Project>>;
  countProjects(userId: string): Promise<number>;
  getProject(id: string): Promise<Project | undefined>;
  createProject(userId: string, input: ProjectInput): Promise<Project>;
  /** Only the given fields change; updatedAt is bumped. Undefined when absent. */
  updateProject(id: string, patch: Partial<ProjectInput>): Promise<Project | undefined>;
  /** Deletes the project with its blocks, assets and design system. */
  deleteProject(id: string): Promise<boolean>;
  /** Project ids of a user starting with `prefix`, sorted, at most `limit`. */
  projectIdsStartingWith(userId: string, prefix: string, limit: number): Promise<string[]>;

  listBlocks(projectId: string): Promise<Block[]>;
  getBlock(id: string): Promise<Block | undefined>;
  /** In one transaction: shifts later blocks down and inserts. */
  createBlock(projectId: string, input: BlockInput): Promise<Block>;
  /** Moving (position) re-packs the others in one transaction. */
  updateBlock(id: string, patch: Partial<BlockInput>): Promise<Block | undefined>;
  /** Deletes and closes the gap in one transaction. */
  deleteBlock(id: string): Promise<boolean>;

  listAssets(projectId: string, page?: PageRequest): Promise<Page<Asset>>;
  getAsset(id: string): Promise<Asset | undefined>;
  createAsset(projectId: string, input: AssetInput): Promise<Asset>;

  getDesignSystem(projectId: string): Promise<DesignSystem | undefined>;
  setDesignSystem(projectId: string, tokens: Record<string, unknown>): Promise<DesignSystem>;
}
