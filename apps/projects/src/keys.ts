import { createHash, randomBytes } from 'node:crypto';

/** `cf_live_sk_` + 32 base62 characters: ~190 bits of randomness. */
export const KEY_PREFIX = 'cf_live_sk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** How much of a key is kept in clear to name it (listings, revocation). */
export const SHOWN_CHARS = KEY_PREFIX.length + 8;

/** The SHA-256 hex digest a key is stored and looked up by. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key, its shown prefix and its hash. The key itself is shown once and never stored. */
export function generateKey(): { key: string; prefix: string; hash: string } {
  let body = '';
  // Rejection sampling keeps every character equally likely.
  while (body.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 32) body += ALPHABET[byte % 62];
    }
  }
  const key = `${KEY_PREFIX}${body}`;
  return { key, prefix: key.slice(0, SHOWN_CHARS), hash: hashKey(key) };
}

export function looksLikeKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX) && /^[0-9A-Za-z]{32}$/.test(token.slice(KEY_PREFIX.length));
}
