import type { AuthInfo } from '@mcpkit/protocol';

/**
 * Whether a caller may see and use what needs `scopes` — a backend's tools, resources and
 * prompts, and its activity: its status, its events, its log lines. The same rule as the
 * protocol's `requiredScopes`: every scope is needed; a caller without auth (stdio, loopback
 * without tokens) and an operator's token (`allScopes`) may use everything.
 */
export function mayUse(scopes: readonly string[] | undefined, auth: AuthInfo | undefined): boolean {
  if (!scopes || scopes.length === 0 || !auth || auth.allScopes) return true;
  return scopes.every((scope) => auth.scopes.has(scope));
}
