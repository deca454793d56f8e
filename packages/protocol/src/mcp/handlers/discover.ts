import { method } from '../../jsonrpc/method.js';
import type { ServerInternals } from '../internals.js';
import { MODERN_PROTOCOL_VERSIONS } from '../versions.js';

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
        supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
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
 * cache hint. The default hint is the safe one — not cached (`ttlMs: 0`), per caller
 * (`private`) — until servers declare their own. The handler's object is copied, never changed:
 * lists may hand out shared entries.
 */
export function decorateModernResult(
  name: string,
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
): Record<string, unknown> {
  const meta = result._meta;
  const out: Record<string, unknown> = {
    ...result,
    resultType: 'complete',
    _meta: typeof meta === 'object' && meta !== null ? { ...meta, ...serverInfo } : serverInfo,
  };
  if (CACHEABLE.has(name)) {
    out.ttlMs ??= 0;
    out.cacheScope ??= 'private';
  }
  return out;
}
