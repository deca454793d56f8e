import type { Authenticator, OAuthResourceOptions } from '@mcpkit/node';
import type { AuthInfo } from '@mcpkit/protocol';
import type { ApiKey, Store, User } from './db/types.js';
import { hashKey, looksLikeKey } from './keys.js';

/** Who a key's holder is to the MCP server: subject = the key's prefix, its scopes, the user id. */
export function authInfo(key: ApiKey, user: User): AuthInfo {
  return {
    subject: key.prefix,
    scopes: new Set(key.scopes),
    data: { userId: user.id, keyId: key.id },
  };
}

/**
 * Bearer `cf_live_sk_…` → the key's user and scopes. Keys are looked up by their SHA-256 hash:
 * the comparison happens inside the database's index on a digest, so timing says nothing about
 * the key, and a stolen database holds no usable key.
 */
export function apiKeyAuthenticator(store: Store): Authenticator {
  return async (token) => {
    if (!looksLikeKey(token)) return undefined;
    const found = await store.findApiKey(hashKey(token));
    return found ? authInfo(found.key, found.user) : undefined;
  };
}

/** The scopes projects knows: what an API key holds, and what an OAuth token may. */
export const PROJECT_SCOPES = ['read', 'write'] as const;

/**
 * How projects takes OAuth sign-in (`--auth-issuer`): a token's issuer and subject are linked to
 * one projects user on its first sign-in (`Store.userForIdentity`: the user of its verified
 * email, or a new one), whose projects it then reaches; its `scope` claim grants `read` and
 * `write` as an API key's scopes do.
 */
export function projectsOAuth(
  store: Store,
): Pick<OAuthResourceOptions, 'scopes' | 'requiredScopes' | 'identity' | 'scopeHierarchy'> {
  return {
    scopes: PROJECT_SCOPES,
    requiredScopes: ['read'],
    // Whoever may write may read what they write.
    scopeHierarchy: { write: ['read'] },
    identity: async (claims) => {
      if (typeof claims.iss !== 'string' || typeof claims.sub !== 'string') return undefined;
      const user = await store.userForIdentity({
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        emailVerified: claims.email_verified === true,
        name: typeof claims.name === 'string' ? claims.name : undefined,
      });
      const granted = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
      return {
        subject: claims.sub,
        scopes: new Set(PROJECT_SCOPES.filter((s) => granted.includes(s))),
        data: { userId: user.id },
      };
    },
  };
}
