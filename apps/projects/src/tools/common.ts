import { z } from 'zod';
import type { Caller } from '../access.js';
import {
  type Asset,
  type Block,
  InvalidCursorError,
  type Project,
  type Store,
} from '../db/types.js';
import { invalidParams, validationError } from '../errors.js';
import { jsonOverLimit } from '../json.js';
import type { TokenBuilder } from '../tokens/builder.js';
import type { TokenWrites } from './tokens-common.js';

export interface ToolDeps {
  store: Store;
  /** Tell the user's subscribers a resource changed (`notifications/resources/updated`). */
  changed: (uri: string, userId: string) => void;
  /** Builds design tokens into code, off the event loop. */
  builder: TokenBuilder;
  /** Runs a project's token writes one after the other (read, merge, check, write). */
  tokenWrites: TokenWrites;
}

export const PROJECTS_URI = 'codefluss://projects';
export const designSystemUri = (projectId: string) => `codefluss://design-system/${projectId}`;

export const READ = ['read'] as const;
export const WRITE = ['write'] as const;

/** Tool annotations of a read: nothing changes, nothing outside the server is touched. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
/** A write that adds (a second call adds again). */
export const ADDS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
/** A write that sets (a second call with the same arguments changes nothing more). */
export const SETS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
/** A write that deletes (idempotent: what is gone stays gone). */
export const DELETES = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const projectId = z.string().describe('Die eindeutige Projekt-ID');
export const cursor = z.string().optional().describe('Cursor from a previous page (nextCursor)');
export const limit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .optional()
  .describe('Page size, 1–100 (default 50)');

export const projectShape = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  domain: z.string().nullable(),
  status: z.enum(['draft', 'published', 'archived']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const blockShape = z.object({
  id: z.string(),
  projectId: z.string(),
  position: z.number().int(),
  type: z.string(),
  content: z.unknown(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const assetShape = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number(),
  url: z.string(),
  createdAt: z.string(),
});

export const publicProject = ({ userId: _owner, ...p }: Project) => p;
export const publicBlock = (b: Block) => b;
export const publicAsset = (a: Asset) => a;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const BLOCK_TYPE = /^[a-z][a-z0-9_-]{0,63}$/;
/** Block content: at most this many bytes of JSON … */
export const MAX_CONTENT_BYTES = 256 * 1024;
/** … nesting objects and arrays at most this deep. */
export const MAX_CONTENT_DEPTH = 64;

/** Semantic checks beyond the schema: CODEFLUSS's -32004 Validation error, with field and error. */
export function checkName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (trimmed.length === 0) throw validationError('name', 'must not be empty');
  if (trimmed.length > 200) throw validationError('name', 'must be at most 200 characters');
  return trimmed;
}

export function checkDomain(domain: string | null | undefined): string | null | undefined {
  if (domain === undefined || domain === null) return domain;
  if (!DOMAIN.test(domain))
    throw validationError('domain', 'must be a host name such as example.com');
  return domain.toLowerCase();
}

export function checkBlockType(type: string | undefined): void {
  if (type !== undefined && !BLOCK_TYPE.test(type)) {
    throw validationError(
      'type',
      'must be lowercase letters, digits, - or _ (e.g. hero, text, gallery)',
    );
  }
}

export function checkContent(content: unknown): void {
  if (content === undefined) return;
  // Without recursion: JSON.stringify (and every other recursive walk) throws a RangeError on
  // content nested deeper than the stack, which JSON.parse happily builds. And without writing it
  // out: the walk stops at the first limit crossed, so refusing megabytes costs what 256 KiB does.
  const over = jsonOverLimit(content, MAX_CONTENT_DEPTH, MAX_CONTENT_BYTES);
  if (over?.limit === 'depth') {
    throw validationError(
      'content',
      `must nest objects and arrays at most ${MAX_CONTENT_DEPTH} deep (too deep at ${describePath(over.path)})`,
    );
  }
  if (over) throw validationError('content', `must be at most ${MAX_CONTENT_BYTES} bytes of JSON`);
}

/** `content.a.b[0]`-style, for error messages; long paths keep their start and end. */
function describePath(path: string[]): string {
  const parts = path.map((key) => (/^\d+$/.test(key) ? `[${key}]` : `.${key}`));
  const shown = parts.length > 12 ? [...parts.slice(0, 6), '…', ...parts.slice(-6)] : parts;
  return `content${shown.join('')}`;
}

export type { Caller };

/**
 * The text of a page: the page itself, then — when another follows — `{"nextCursor": "…"}` as a
 * second block, so that a host that shows the model only text still tells it there is more.
 */
export function pageText(page: string, nextCursor: string | undefined) {
  const blocks = [{ type: 'text' as const, text: page }];
  if (nextCursor !== undefined) {
    blocks.push({ type: 'text' as const, text: JSON.stringify({ nextCursor }) });
  }
  return blocks;
}

/** A cursor the store did not issue is the caller's mistake: -32602 naming the field. */
export async function withCursor<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof InvalidCursorError)
      throw invalidParams('cursor', 'not a cursor this server issued');
    throw err;
  }
}
