import { readFileSync } from 'node:fs';
import { CliUsageError, type StaticToken } from '@mcpkit/node';
import { ErrorCode, RpcError, type ScopeDeniedBy } from '@mcpkit/protocol';

/** The scopes a tool may require: `core` (always on) and `sensitive` (auth logs, sessions). */
export const KNOWN_SCOPES = ['core', 'sensitive'] as const;
/** One of {@link KNOWN_SCOPES}. */
export type Scope = (typeof KNOWN_SCOPES)[number];

/** `core,sensitive` → the set; unknown names are a usage error, `core` is always on. */
export function parseScopes(list: string | undefined, enableSensitive: boolean): Set<Scope> {
  const scopes = new Set<Scope>(['core']);
  for (const raw of (list ?? '').split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (!(KNOWN_SCOPES as readonly string[]).includes(name)) {
      throw new CliUsageError(`unknown scope '${name}'; known scopes: ${KNOWN_SCOPES.join(', ')}`);
    }
    scopes.add(name as Scope);
  }
  if (enableSensitive) scopes.add('sensitive');
  return scopes;
}

/**
 * MCP System Info's exact error for a tool whose scope the server does not enable: -32600 "Query
 * '<tool>' requires scope '<scope>' which is not enabled". When the server enables it but the
 * caller's token lacks it, the same code says so instead of blaming the server: "… which is not
 * granted to this token" (asking the operator to enable a scope that is on would not help).
 */
export const scopeError = (tool: string, scope: string, deniedBy: ScopeDeniedBy): RpcError =>
  new RpcError(
    ErrorCode.InvalidRequest,
    deniedBy === 'caller'
      ? `Query '${tool}' requires scope '${scope}' which is not granted to this token`
      : `Query '${tool}' requires scope '${scope}' which is not enabled`,
  );

/**
 * Tokens from `--token` (holds every enabled scope) and from a JSON file:
 * `{"tokens": [{"name": "ops", "token": "…", "scopes": ["core", "sensitive"]}]}`.
 */
export function loadTokens(
  token: string | undefined,
  file: string | undefined,
  enabled: ReadonlySet<Scope>,
): StaticToken[] {
  const tokens: StaticToken[] = [];
  if (token !== undefined) {
    if (token.length < 16) throw new CliUsageError('--token must have at least 16 characters');
    tokens.push({ token, subject: 'token', scopes: enabled });
  }
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new CliUsageError(`cannot read tokens file ${file}: ${(err as Error).message}`);
    }
    const list = (parsed as { tokens?: unknown }).tokens;
    if (!Array.isArray(list))
      throw new CliUsageError(`tokens file ${file} must hold {"tokens": [...]}`);
    list.forEach((entry, i) => {
      const e = entry as { name?: unknown; token?: unknown; scopes?: unknown };
      if (typeof e.token !== 'string' || e.token.length < 16) {
        throw new CliUsageError(
          `tokens file ${file}: entry ${i + 1} needs a token of at least 16 characters`,
        );
      }
      const scopes = Array.isArray(e.scopes) ? e.scopes.map(String) : ['core'];
      for (const s of scopes) {
        if (!(KNOWN_SCOPES as readonly string[]).includes(s)) {
          throw new CliUsageError(`tokens file ${file}: entry ${i + 1} has unknown scope '${s}'`);
        }
      }
      tokens.push({
        token: e.token,
        subject: typeof e.name === 'string' ? e.name : `token-${i + 1}`,
        scopes,
      });
    });
  }
  return tokens;
}
