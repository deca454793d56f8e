// The gateway's files that hold secrets or trust decisions (the authorization store, the pins).
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Make `path` an empty file readable by this user only (0600, in a 0700 directory) unless it
 * exists: before SQLite opens it, which would make it 0644 (its -wal and -shm take its mode).
 * `:memory:` is left alone.
 */
export function ensurePrivateFile(path: string): void {
  if (path === ':memory:') return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
