/**
 * The projects app's own test harness, shared by its test files: a store in a temp file, users
 * with keys, the built CLI and a clean environment for it, and the PostgreSQL the storage tests
 * need. Everything generic (clients, processes, temp dirs) comes from `@mcpkit/protocol/testing`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@mcpkit/testing';
import pg from 'pg';
import { openStore } from '../src/db/store.js';
import type { Scope, Store } from '../src/db/types.js';
import { generateKey } from '../src/keys.js';

/** The built CLI (`pnpm build` first). */
export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Throws, saying what to do, when the CLI is not built. */
export function requireCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
}

/**
 * A SQLite store in a fresh temp directory (removed by the kit's `removeTempDirs`).
 *
 * @example
 * ```ts
 * afterAll(removeTempDirs);
 * const { store } = await tempStore();
 * ```
 */
export async function tempStore(): Promise<{ store: Store; file: string; dir: string }> {
  const dir = tempDir('projects-');
  const file = join(dir, 'projects.db');
  return { store: await openStore(file), file, dir };
}

/** A user with a key of the given scopes; returns the key in clear. */
export async function userWithKey(store: Store, email: string, scopes: Scope[]) {
  const user = (await store.getUserByEmail(email)) ?? (await store.createUser(email));
  const { key, prefix, hash } = generateKey();
  await store.createApiKey(user.id, prefix, hash, scopes);
  return { user, key };
}

/**
 * This process's environment without anything that would steer the CLI from outside the test
 * (CODEFLUSS_*, MCP_*, DATABASE_URL, LOG_LEVEL), plus `extra`. Pass it with `inheritEnv: false`.
 */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(CODEFLUSS_|MCP_|DATABASE_URL$|LOG_LEVEL$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Where the storage tests find PostgreSQL: PROJECTS_TEST_DATABASE_URL, else database `test` on
 * 127.0.0.1 as `postgres`, else as `root`.
 */
export const PG_URLS = process.env.PROJECTS_TEST_DATABASE_URL
  ? [process.env.PROJECTS_TEST_DATABASE_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

/** The first of PG_URLS that answers, or why none did (passwords elided). */
export async function probePostgres(): Promise<{ url: string } | { error: string }> {
  const errors: string[] = [];
  for (const url of PG_URLS) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return { url };
    } catch (error) {
      errors.push(`${url.replace(/\/\/[^@]*@/, '//…@')}: ${(error as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return { error: errors.join('; ') };
}
