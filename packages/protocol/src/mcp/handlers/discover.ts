import { method } from '../../jsonrpc/method.js';
import type { ServerInternals } from '../internals.js';
import { SERVED_PROTOCOL_VERSIONS } from '../versions.js';

/** 2025-era methods that `resources/*` brings and the modern era dropped (spec changelog). */
export const LEGACY_ONLY: ReadonlySet<string> = new Set([
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * Results a modern client may cache, which must say for how long and for whom
 * (spec `server/utilities/caching`: `ttlMs` and `cacheScope` are required on these).
 */
const CACHEABLE: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** A method whose 2026-07-28 results carry a cache hint. */
export type CacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

/**
 * How long a modern client may reuse a result, and for whom: `public` — the same for every
 * caller; `private` — for this authorization context only (spec `server/utilities/caching`).
 */
export interface CacheHint {
  /** How long the result may be reused, in ms; 0: not at all. */
  ttlMs: number;
  /** `public`: the same for every caller; `private`: for this authorization context only. */
  cacheScope: 'public' | 'private';
}

/** The safe hint: not cached, per caller. */
const NO_CACHE: CacheHint = { ttlMs: 0, cacheScope: 'private' };

/**
 * `server/discover` (MCP 2026-07-28, `server/discover`): the versions, capabilities and
 * instructions a modern client needs before its first call — what initialize told a 2025 client.
 */
export function discoverMethods(
  server: ServerInternals,
  capabilities: () => Record<string, unknown>,
) {
  return [
    method('server/discover', () => {
      const result: Record<string, unknown> = {
        supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
        capabilities: capabilities(),
      };
      if (server.instructions !== undefined) result.instructions = server.instructions;
      return result;
    }),
  ];
}

/**
 * What every modern result carries (spec `basic/index` §ResultType and §_meta): `resultType`,
 * the server's info under `_meta` (initialize no longer delivers it), and on cacheable results a
 * cache hint: the server's own for that method (`McpServerOptions.cache`), else the safe one —
 * not cached (`ttlMs: 0`), per caller (`private`). The handler's object is copied, never changed:
 * lists may hand out shared entries.
 */
export function decorateModernResult(
  name: string,
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
  hints: Partial<Record<CacheableMethod, CacheHint>> = {},
): Record<string, unknown> {
  const meta = result._meta;
  const out: Record<string, unknown> = {
    ...result,
    // A task's creation is the one result that is not complete (tasks extension, SEP-2663).
    resultType: result.resultType === 'task' ? 'task' : 'complete',
    _meta: typeof meta === 'object' && meta !== null ? { ...meta, ...serverInfo } : serverInfo,
  };
  if (CACHEABLE.has(name)) {
    const hint = hints[name as CacheableMethod] ?? NO_CACHE;
    out.ttlMs ??= hint.ttlMs;
    out.cacheScope ??= hint.cacheScope;
  }
  return out;
}

/**
 * The fields {@link decorateModernResult} adds, as JSON members to append to a result object that
 * has none of them — the same output without copying the result (the hot path of modern calls).
 */
export function modernResultSuffix(
  name: string,
  serverInfo: Record<string, unknown>,
  hints: Partial<Record<CacheableMethod, CacheHint>> = {},
): string {
  let suffix = '"resultType":"complete"';
  if (CACHEABLE.has(name)) {
    const hint = hints[name as CacheableMethod] ?? NO_CACHE;
    suffix += `,"ttlMs":${JSON.stringify(hint.ttlMs)},"cacheScope":${JSON.stringify(hint.cacheScope)}`;
  }
  return `${suffix},"_meta":${JSON.stringify(serverInfo)}`;
}
