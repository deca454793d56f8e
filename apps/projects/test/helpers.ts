import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/db/store.js';
import type { Scope, Store } from '../src/db/types.js';
import { generateKey } from '../src/keys.js';

export async function tempStore(): Promise<{ store: Store; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'projects-'));
  const file = join(dir, 'projects.db');
  return { store: await openStore(file), file };
}

/** A user with a key of the given scopes; returns the key in clear. */
export async function userWithKey(store: Store, email: string, scopes: Scope[]) {
  const user = (await store.getUserByEmail(email)) ?? (await store.createUser(email));
  const { key, prefix, hash } = generateKey();
  await store.createApiKey(user.id, prefix, hash, scopes);
  return { user, key };
}
