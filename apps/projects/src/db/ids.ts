import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes at or above this are rejected so that every character is equally likely (252 = 7 × 36). */
const LIMIT = 252;
const LENGTH = 12;

/**
 * A new id: `prefix` + `_` + 12 random characters from [a-z0-9] (about 62 bits), drawn from the
 * CSPRNG without modulo bias, e.g. `newId('proj')` → `proj_k3j9x0a8b2c1`. A prefix that already
 * ends with `_` is used as is.
 */
export function newId(prefix: string): string {
  const head = prefix.endsWith('_') ? prefix : `${prefix}_`;
  let out = '';
  while (out.length < LENGTH) {
    for (const byte of randomBytes(LENGTH * 2)) {
      if (byte < LIMIT) {
        out += ALPHABET[byte % ALPHABET.length];
        if (out.length === LENGTH) break;
      }
    }
  }
  return head + out;
}
