/**
 * Rows to records and back, cursors, limits and the checks both dialects share: the plumbing of
 * store.ts, kept apart so the store reads as its queries.
 */
import type { Selectable } from 'kysely';
import type {
  ApiKeysTable,
  AssetsTable,
  BlocksTable,
  DesignSystemsTable,
  DesignTokenVersionsTable,
  ProjectsTable,
  UsersTable,
} from './schema.js';
import {
  type ApiKey,
  type Asset,
  type Block,
  type DesignSystem,
  type DesignTokenVersion,
  type DesignTokenVersionInfo,
  InvalidCursorError,
  type Page,
  type Project,
  type ProjectStatus,
  type Scope,
  type User,
} from './types.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
export const SCOPES: readonly Scope[] = ['read', 'write'];
export const STATUSES: readonly ProjectStatus[] = ['draft', 'published', 'archived'];

export function monotonicClock(now: () => number): () => string {
  let last = 0;
  return () => {
    last = Math.max(last, now());
    return new Date(last).toISOString();
  };
}

// ---------------------------------------------------------------------------------------------
// Cursors: base64url of the JSON `[createdAt, id]` of the last item of a page.

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID_CHARS = /^[a-z]+_[a-z0-9]+$/;

export interface CursorKey {
  createdAt: string;
  id: string;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.createdAt, key.id]), 'utf8').toString('base64url');
}

/** The `[sort key, id]` pair a cursor encodes, the id checked against `idPrefix`. */
function cursorPair(cursor: string, idPrefix: string): [unknown, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError(cursor);
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw new InvalidCursorError(cursor);
  const [sortKey, id] = parsed as unknown[];
  if (typeof id !== 'string' || !id.startsWith(`${idPrefix}_`) || !ID_CHARS.test(id)) {
    throw new InvalidCursorError(cursor);
  }
  return [sortKey, id];
}

export function decodeCursor(cursor: string, idPrefix: string): CursorKey {
  const [createdAt, id] = cursorPair(cursor, idPrefix);
  if (typeof createdAt !== 'string' || !ISO_MS.test(createdAt)) {
    throw new InvalidCursorError(cursor);
  }
  const key = { createdAt, id };
  // Only the canonical encoding is one the store issued (base64 decoding is lenient).
  if (encodeCursor(key) !== cursor) throw new InvalidCursorError(cursor);
  return key;
}

/** Cursors of position-ordered lists (blocks): base64url of the JSON `[position, id]`. */
export interface PositionKey {
  position: number;
  id: string;
}

export function encodePositionCursor(key: PositionKey): string {
  return Buffer.from(JSON.stringify([key.position, key.id]), 'utf8').toString('base64url');
}

export function decodePositionCursor(cursor: string, idPrefix: string): PositionKey {
  const [position, id] = cursorPair(cursor, idPrefix);
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) {
    throw new InvalidCursorError(cursor);
  }
  const key = { position, id };
  if (encodePositionCursor(key) !== cursor) throw new InvalidCursorError(cursor);
  return key;
}

/** The largest design-token version: PostgreSQL's `integer`. A larger one is none, not an error. */
export const MAX_VERSION = 2 ** 31 - 1;

/** Whether a value can be a design-token version: an integer in 1…{@link MAX_VERSION}. */
export function isVersion(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_VERSION;
}

/**
 * Cursors of a project's design-token history: base64url of the JSON `[version, projectId]`.
 * The project is in it so that a cursor of another project's history is refused, not followed.
 */
export interface VersionKey {
  version: number;
  projectId: string;
}

export function encodeVersionCursor(key: VersionKey): string {
  return Buffer.from(JSON.stringify([key.version, key.projectId]), 'utf8').toString('base64url');
}

/** The version after which the page starts; an InvalidCursorError for another project's cursor. */
export function decodeVersionCursor(cursor: string, projectId: string): number {
  const [version, id] = cursorPair(cursor, 'proj');
  if (!isVersion(version)) throw new InvalidCursorError(cursor);
  if (id !== projectId || encodeVersionCursor({ version, projectId }) !== cursor) {
    throw new InvalidCursorError(cursor);
  }
  return version;
}

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || Number.isNaN(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

/** Rows were fetched with `limit + 1`; the extra one only says that there is a next page. */
export function toPage<R extends { created_at: string; id: string }, T>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
): Page<T> {
  const more = rows.length > limit;
  const items = (more ? rows.slice(0, limit) : rows).map(map);
  const last = more ? rows[limit - 1] : undefined;
  return last
    ? { items, nextCursor: encodeCursor({ createdAt: last.created_at, id: last.id }) }
    : { items };
}

// ---------------------------------------------------------------------------------------------
// Errors

export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Runs `fn`, turning a foreign key violation into a readable "not found" error. */
export async function withParent<T>(what: string, id: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new Error(`${what} '${id}' not found`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Rows → contract types

export function toUser(row: Selectable<UsersTable>): User {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.created_at };
}

export function parseScopes(text: string): Scope[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(value) ? value.filter((s): s is Scope => SCOPES.includes(s as Scope)) : [];
}

export function toApiKey(row: Omit<Selectable<ApiKeysTable>, 'hash'>): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    prefix: row.prefix,
    scopes: parseScopes(row.scopes),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export function toProject(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    description: row.description,
    domain: row.domain,
    status: row.status as ProjectStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toBlock(row: Selectable<BlocksTable>): Block {
  return {
    id: row.id,
    projectId: row.project_id,
    position: row.position,
    type: row.type,
    content: JSON.parse(row.content) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAsset(row: Selectable<AssetsTable>): Asset {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    mimeType: row.mime_type,
    sizeBytes: Number(row.size_bytes),
    url: row.url,
    createdAt: row.created_at,
  };
}

export function toDesignSystem(row: Selectable<DesignSystemsTable>): DesignSystem {
  return designSystemOf(row, JSON.parse(row.tokens) as Record<string, unknown>);
}

/** A design system from its row (without its tokens' text) and its tokens, parsed already. */
export function designSystemOf(
  row: Omit<Selectable<DesignSystemsTable>, 'tokens'>,
  tokens: Record<string, unknown>,
): DesignSystem {
  return {
    projectId: row.project_id,
    tokens,
    updatedAt: row.updated_at,
    version: row.version,
    resolver: row.resolver === null ? null : (JSON.parse(row.resolver) as Record<string, unknown>),
  };
}

export function toDesignTokenVersionInfo(
  row: Omit<Selectable<DesignTokenVersionsTable>, 'project_id' | 'tokens' | 'resolver'>,
): DesignTokenVersionInfo {
  return {
    version: row.version,
    createdAt: row.created_at,
    author: row.author_id,
    note: row.note,
  };
}

export function toDesignTokenVersion(
  row: Selectable<DesignTokenVersionsTable>,
): DesignTokenVersion {
  return {
    ...toDesignTokenVersionInfo(row),
    tokens: JSON.parse(row.tokens) as Record<string, unknown>,
    resolver: row.resolver === null ? null : (JSON.parse(row.resolver) as Record<string, unknown>),
  };
}

export function jsonText(value: unknown): string {
  // JSON.stringify(undefined) (or a function) is undefined: store JSON null.
  return JSON.stringify(value) ?? 'null';
}

export function checkStatus(status: string): ProjectStatus {
  if (!STATUSES.includes(status as ProjectStatus)) {
    throw new Error(`invalid project status '${status}'`);
  }
  return status as ProjectStatus;
}

export function checkScopes(scopes: Scope[]): Scope[] {
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) throw new Error(`invalid scope '${String(scope)}'`);
  }
  return [...new Set(scopes)];
}

/** A requested block position as an integer; NaN is refused, ±Infinity is left to the clamp. */
export function requestedPosition(position: number): number {
  if (Number.isNaN(position)) throw new Error('block position must be a number');
  return Math.floor(position);
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

// ---------------------------------------------------------------------------------------------
