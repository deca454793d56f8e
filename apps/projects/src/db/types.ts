// The storage contract of the projects server: what the MCP layer asks of a database. One
// implementation (Kysely) serves SQLite and PostgreSQL with the same queries and migrations.
// Times are ISO 8601 strings; ids carry a type prefix (`usr_`, `key_`, `proj_`, `blk_`, `ast_`).

/** What an API key allows: `read` (list and get) or `write` (create, update, delete). */
export type Scope = 'read' | 'write';

/** A user: the owner of projects and API keys. */
export interface User {
  /** `usr_…` */
  id: string;
  /** Unique. */
  email: string;
  /** Display name, if given. */
  name: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** An API key's record (the key itself is never stored, only its hash). */
export interface ApiKey {
  /** `key_…` */
  id: string;
  /** Whose key it is. */
  userId: string;
  /** The first characters of the key (e.g. `cf_live_sk_a1b2c3d4`), shown in listings and used to revoke. */
  prefix: string;
  /** What the key allows. */
  scopes: Scope[];
  /** ISO 8601. */
  createdAt: string;
  /** When it was last used (updated at most once a minute). */
  lastUsedAt: string | null;
  /** When it was revoked; null while it is live. */
  revokedAt: string | null;
}

/** Where a project is in its life. */
export type ProjectStatus = 'draft' | 'published' | 'archived';

/** A website project. */
export interface Project {
  /** `proj_…` */
  id: string;
  /** Its owner. */
  userId: string;
  /** Display name. */
  name: string;
  /** Free text, if given. */
  description: string | null;
  /** The site's domain name, if it has one. */
  domain: string | null;
  /** Draft, published or archived. */
  status: ProjectStatus;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; bumped by every change. */
  updatedAt: string;
}

/** A content block of a project's page, in order. */
export interface Block {
  /** `blk_…` */
  id: string;
  /** The project it belongs to. */
  projectId: string;
  /** 0-based, contiguous within a project. */
  position: number;
  /** Its kind, e.g. `hero` or `text` (lowercase letters, digits, `_`, `-`). */
  type: string;
  /** Any JSON value (stored as JSON text). */
  content: unknown;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

/** A file a project uses (image, font …), stored elsewhere and referenced by URL. */
export interface Asset {
  /** `ast_…` */
  id: string;
  /** The project it belongs to. */
  projectId: string;
  /** File name. */
  name: string;
  /** E.g. `image/png`. */
  mimeType: string;
  /** Its size. */
  sizeBytes: number;
  /** Where it is served from. */
  url: string;
  /** ISO 8601. */
  createdAt: string;
}

/** A project's design tokens. */
export interface DesignSystem {
  /** The project it belongs to. */
  projectId: string;
  /** A W3C DTCG token document (JSON object). */
  tokens: Record<string, unknown>;
  /** ISO 8601. */
  updatedAt: string;
  /** The number of the version these tokens are in the project's history: 1 or more. */
  version: number;
  /** The project's modes: a DTCG 2025.10 resolver document over these tokens, or null. */
  resolver: Record<string, unknown> | null;
}

/** Who wrote a design-token version, and why; both are optional. */
export interface DesignTokenWriteOptions {
  /** The user (`usr_…`) who wrote it; must exist. */
  author?: string | undefined;
  /** Free text, e.g. `restored version 3`. */
  note?: string | undefined;
  /**
   * The project's modes (a DTCG resolver document) to store with the tokens; null removes them.
   * Default: the modes stay as they are.
   */
  resolver?: Record<string, unknown> | null | undefined;
  /**
   * The tokens as JSON text (`JSON.stringify(tokens)`), when the caller has made it already: a
   * server writes a large document's text in a turn of its event loop of its own, not in the one
   * that runs the transaction. Default: made from `tokens`.
   */
  json?: string | undefined;
}

/** One entry of a project's design-token history, without the tokens (see `listDesignTokenVersions`). */
export interface DesignTokenVersionInfo {
  /** 1, 2, 3 … per project, in the order written; never reused, also when old ones are dropped. */
  version: number;
  /** ISO 8601: when it was written. */
  createdAt: string;
  /** The user who wrote it: null when not given, or when that user was deleted. */
  author: string | null;
  /** The note it was written with, if any. */
  note: string | null;
}

/** One version of a project's design tokens, with the tokens (see `getDesignTokenVersion`). */
export interface DesignTokenVersion extends DesignTokenVersionInfo {
  /** The W3C DTCG token document as it was written. */
  tokens: Record<string, unknown>;
  /** The resolver document (modes) it was written with, or null. */
  resolver: Record<string, unknown> | null;
}

/** One page of a keyset-paginated list. */
export interface Page<T> {
  /** The items of this page. */
  items: T[];
  /** Opaque; absent on the last page. */
  nextCursor?: string;
}

/** Which page of a list to return. */
export interface PageRequest {
  /** The previous page's `nextCursor`; omitted for the first page. */
  cursor?: string | undefined;
  /** 1…100, default 50. */
  limit?: number | undefined;
}

/** Which page of a project's blocks to return. */
export interface BlockPageRequest extends PageRequest {
  /**
   * At most this many bytes of block content (as JSON) in the page, though always at least one
   * block. Default {@link MAX_BLOCK_PAGE_BYTES}.
   */
  maxBytes?: number | undefined;
}

/** Blocks one project may hold, unless the store was opened with another limit. */
export const MAX_BLOCKS_PER_PROJECT = 1000;
/** Block content (JSON bytes) one page of `listBlocks` carries at most, unless asked for less. */
export const MAX_BLOCK_PAGE_BYTES = 512 * 1024;
/**
 * Versions of its design tokens a project's history keeps, unless the store was opened with
 * another number: a write past it drops the oldest in the same transaction.
 */
export const DESIGN_TOKEN_VERSIONS_KEPT = 200;

/** The fields of a new project (or, partial, of a project update). */
export interface ProjectInput {
  /** Display name. */
  name: string;
  /** Free text. */
  description?: string | null;
  /** The site's domain name. */
  domain?: string | null;
  /** Default `draft`. */
  status?: ProjectStatus;
}

/** The fields of a new block (or, partial, of a block update). */
export interface BlockInput {
  /** Its kind. */
  type: string;
  /** Any JSON value. */
  content: unknown;
  /** Insert here (0-based); others shift down. Default: append. Clamped to [0, count]. */
  position?: number;
}

/** The fields of a new asset. */
export interface AssetInput {
  /** File name. */
  name: string;
  /** E.g. `image/png`. */
  mimeType: string;
  /** Its size. */
  sizeBytes: number;
  /** Where it is served from. */
  url: string;
}

/** Thrown for a cursor the store did not issue. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`invalid cursor '${cursor}'`);
    this.name = 'InvalidCursorError';
  }
}

/** Thrown when a write would take something past a limit, e.g. a project's number of blocks. */
export class LimitError extends Error {
  constructor(
    /** What is limited: `blocks` (per project). */
    readonly limit: 'blocks',
    /** The most there may be. */
    readonly max: number,
  ) {
    super(`at most ${max} ${limit}`);
    this.name = 'LimitError';
  }
}

/** Thrown when a unique value already exists (e.g. a user's email). */
export class ConflictError extends Error {
  constructor(
    /** The field whose value is taken, e.g. `email`. */
    readonly field: string,
  ) {
    super(`${field} already exists`);
    this.name = 'ConflictError';
  }
}

/** The database behind the projects server: SQLite or PostgreSQL, the same contract. */
export interface Store {
  /** Which database it is. */
  readonly kind: 'sqlite' | 'postgres';
  /** Release the connection (pool). */
  close(): Promise<void>;

  /** Create a user; a ConflictError when the email is taken. */
  createUser(email: string, name?: string | null): Promise<User>;
  /** A user by id. */
  getUser(id: string): Promise<User | undefined>;
  /** A user by email. */
  getUserByEmail(email: string): Promise<User | undefined>;
  /**
   * The user an OAuth identity (issuer + subject) is linked to; on its first sign-in, linked to
   * the user of its email when the authorization server says the email is verified, else to a
   * new user (its verified email, or `<subject>@<issuer host>`). Safe under concurrent first
   * sign-ins of one identity: every caller gets the same user.
   */
  userForIdentity(identity: OAuthIdentity): Promise<User>;
  /** Every user, by email (for the CLI's `users list`). */
  listUsers(): Promise<User[]>;

  /** Store a key by its SHA-256 hash (hex); the key itself is never stored. */
  createApiKey(userId: string, prefix: string, hash: string, scopes: Scope[]): Promise<ApiKey>;
  /** A live (not revoked) key and its user, by hash. Updates lastUsedAt at most once a minute. */
  findApiKey(hash: string): Promise<{ key: ApiKey; user: User } | undefined>;
  /** A user's keys, revoked ones included. */
  listApiKeys(userId: string): Promise<ApiKey[]>;
  /** Revoke every live key whose prefix starts with `prefix` (at least 8 characters); returns the count. */
  revokeApiKeys(prefix: string): Promise<number>;

  /** A user's projects, newest first (createdAt desc, id desc), keyset-paginated. */
  listProjects(userId: string, page?: PageRequest): Promise<Page<Project>>;
  /** How many projects a user has. */
  countProjects(userId: string): Promise<number>;
  /** A project by id, whoever owns it (the caller checks ownership). */
  getProject(id: string): Promise<Project | undefined>;
  /** Create a project for a user. */
  createProject(userId: string, input: ProjectInput): Promise<Project>;
  /** Only the given fields change; updatedAt is bumped. Undefined when absent. */
  updateProject(id: string, patch: Partial<ProjectInput>): Promise<Project | undefined>;
  /** Deletes the project with its blocks, assets, design system and design-token history. */
  deleteProject(id: string): Promise<boolean>;
  /** Project ids of a user starting with `prefix`, sorted, at most `limit`. */
  projectIdsStartingWith(userId: string, prefix: string, limit: number): Promise<string[]>;

  /**
   * A project's blocks in position order (position, id), keyset-paginated: `limit` blocks (1…100,
   * default 50) and at most `maxBytes` of their content, whichever comes first. Blocks moved
   * while a client pages may be skipped or seen twice: the cursor is a position.
   */
  listBlocks(projectId: string, page?: BlockPageRequest): Promise<Page<Block>>;
  /** How many blocks a project has. */
  countBlocks(projectId: string): Promise<number>;
  /** A block by id. */
  getBlock(id: string): Promise<Block | undefined>;
  /**
   * In one transaction: shifts later blocks down and inserts. A LimitError when the project
   * already holds as many blocks as the store allows (default {@link MAX_BLOCKS_PER_PROJECT}).
   */
  createBlock(projectId: string, input: BlockInput): Promise<Block>;
  /** Moving (position) re-packs the others in one transaction. */
  updateBlock(id: string, patch: Partial<BlockInput>): Promise<Block | undefined>;
  /** Deletes and closes the gap in one transaction. */
  deleteBlock(id: string): Promise<boolean>;

  /** A project's assets, keyset-paginated. */
  listAssets(projectId: string, page?: PageRequest): Promise<Page<Asset>>;
  /** An asset by id. */
  getAsset(id: string): Promise<Asset | undefined>;
  /** Add an asset to a project. */
  createAsset(projectId: string, input: AssetInput): Promise<Asset>;

  /**
   * A project's design tokens and their version number (the latest in its history); undefined
   * when none were set, so a returned version is always 1 or more.
   */
  getDesignSystem(projectId: string): Promise<DesignSystem | undefined>;
  /**
   * Replace a project's design tokens. In one transaction, under the project's write lock (so
   * concurrent writers to one project get consecutive versions, none lost or doubled): stores
   * them, appends them to the history as the next version, and drops the versions past the
   * store's limit (default {@link DESIGN_TOKEN_VERSIONS_KEPT}), oldest first. An error, and
   * nothing written, when the project or the author does not exist.
   */
  setDesignSystem(
    projectId: string,
    tokens: Record<string, unknown>,
    options?: DesignTokenWriteOptions,
  ): Promise<DesignSystem>;
  /**
   * A project's design-token history, newest first (version desc), paginated; without the
   * tokens. Empty for a project without design tokens, or no such project.
   */
  listDesignTokenVersions(
    projectId: string,
    page?: PageRequest,
  ): Promise<Page<DesignTokenVersionInfo>>;
  /** One version of a project's design tokens; undefined when it was never written or dropped. */
  getDesignTokenVersion(
    projectId: string,
    version: number,
  ): Promise<DesignTokenVersion | undefined>;
}

/** A person as an authorization server's token names them (see `Store.userForIdentity`). */
export interface OAuthIdentity {
  /** The token's `iss`. */
  issuer: string;
  /** The token's `sub`: stable per person at that issuer. */
  subject: string;
  /** The `email` claim, if any. */
  email?: string | undefined;
  /** Whether the issuer verified that email (`email_verified: true`); only then is it linked. */
  emailVerified?: boolean;
  /** The `name` claim, for a new user. */
  name?: string | undefined;
}
