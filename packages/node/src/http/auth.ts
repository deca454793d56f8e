import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@mcpkit/protocol';

/** Decides who a request comes from. Undefined means "not authenticated". */
export type Authenticator = (
  token: string,
  req: IncomingMessage,
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/** A fixed bearer token and what its holder may do (see {@link staticTokens}). */
export interface StaticToken {
  /** The secret, as sent in `Authorization: Bearer <token>`. */
  token: string;
  /** A non-secret label for logs and rate limiting. Default: `token-<n>`. */
  subject?: string;
  /** The scopes its holder gets. Default: none. */
  scopes?: Iterable<string>;
  /** Its holder has every scope (an operator's token); `scopes` is then not consulted. */
  allScopes?: boolean;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * An authenticator for a fixed set of bearer tokens. Every candidate is compared in constant
 * time over SHA-256 digests (equal length by construction), and all of them are always compared,
 * so neither the content nor the position of a token leaks through timing.
 */
export function staticTokens(tokens: readonly StaticToken[]): Authenticator {
  const entries = tokens.map((t, i) => {
    if (typeof t.token !== 'string' || t.token.length < 8)
      throw new TypeError('a bearer token must have at least 8 characters');
    return {
      digest: digest(t.token),
      info: {
        subject: t.subject ?? `token-${i + 1}`,
        scopes: new Set(t.scopes ?? []),
        ...(t.allScopes ? { allScopes: true } : {}),
      } satisfies AuthInfo,
    };
  });
  return (token) => {
    const candidate = digest(token);
    let found: AuthInfo | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(candidate, entry.digest) && !found) found = entry.info;
    }
    return found;
  };
}

/** The token of an `Authorization: Bearer …` header, or the reason there is none. */
export function bearerToken(header: string | undefined): { token: string } | { reason: string } {
  if (!header) return { reason: 'missing Authorization header' };
  const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header);
  if (!match) return { reason: 'Authorization header is not a Bearer token' };
  return { token: match[1] as string };
}
