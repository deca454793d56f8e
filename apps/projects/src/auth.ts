import type { Authenticator } from '@mcpkit/node';
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
