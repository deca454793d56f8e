import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePostgres } from '../../test/helpers.js';
import { newId } from './ids.js';
import { type Migration, migrate, migrations } from './migrations.js';
import type { Database } from './schema.js';
import {
  defaultDatabasePath,
  isPostgresUrl,
  openSqliteDatabase,
  openStore,
  type StoreOptions,
} from './store.js';
import {
  ConflictError,
  DESIGN_TOKEN_VERSIONS_KEPT,
  InvalidCursorError,
  LimitError,
  type Page,
  type Project,
  type Scope,
  type Store,
} from './types.js';

// ---------------------------------------------------------------------------------------------
// Dialects under test. PostgreSQL: database `test` on 127.0.0.1 as `postgres` (else `root`), or
// PROJECTS_TEST_DATABASE_URL; every run works in fresh schemas that afterAll drops. Its half
// carries the `postgres` tag: skipped with a summary where PostgreSQL is missing, a failure with
// the reason under MCPKIT_REQUIRE_SERVICES (CI).

const probe = await probePostgres();
const pgUrl = 'url' in probe ? probe.url : undefined;

interface Target {
  url: string;
  options: StoreOptions;
}

interface Dialect {
  name: Store['kind'];
  /** A new, empty database: a SQLite file in a fresh nested directory or a fresh PG schema. */
  fresh(): Target;
  /** Raw SQL against a target, for assertions the Store API cannot make. */
  query<T>(target: Target, text: string): Promise<T[]>;
  cleanup(): Promise<void>;
}

function sqliteDialect(): Dialect {
  let dir: string | undefined;
  return {
    name: 'sqlite',
    fresh() {
      dir ??= mkdtempSync(join(tmpdir(), 'projects-store-'));
      // A nested, not yet existing directory: openStore must create it.
      return { url: join(dir, newId('db'), 'nested', 'projects.db'), options: {} };
    },
    async query<T>(target: Target, text: string) {
      const db = new SqliteDatabase(target.url, { readonly: true });
      try {
        return db.prepare(text).all() as T[];
      } finally {
        db.close();
      }
    },
    async cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresDialect(): Dialect {
  const schemas: string[] = [];
  const url = (): string => {
    if (pgUrl) return pgUrl;
    throw new Error(
      `PostgreSQL is not reachable (${'error' in probe ? probe.error : ''}): start it on ` +
        '127.0.0.1:5432 (see .ci/run) or set PROJECTS_TEST_DATABASE_URL.',
    );
  };
  const run = async <T>(text: string, schema?: string): Promise<T[]> => {
    const client = new pg.Client({
      connectionString: url(),
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    fresh() {
      const schema = `projects_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return { url: url(), options: { schema } };
    },
    query: <T>(target: Target, text: string) => run<T>(text, target.options.schema),
    async cleanup() {
      if (!pgUrl) return;
      for (const schema of schemas) await run(`drop schema if exists "${schema}" cascade`);
    },
  };
}

/** A Kysely of one connection on a target, migrated by hand (or not at all); destroy it after. */
function kyselyOn(name: Store['kind'], target: Target): Kysely<Database> {
  return name === 'sqlite'
    ? new Kysely<Database>({
        dialect: new SqliteDialect({ database: openSqliteDatabase(target.url) }),
      })
    : new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: new pg.Pool({
            connectionString: target.url,
            max: 1,
            options: `-c search_path=${target.options.schema}`,
          }),
        }),
      });
}

// ---------------------------------------------------------------------------------------------
// Helpers

const ID = (prefix: string) => new RegExp(`^${prefix}_[a-z0-9]{12}$`);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const uniqueEmail = (): string => `${newId('u')}@example.test`;
const hashOf = (): string => randomBytes(32).toString('hex');

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2031-05-01T12:00:00.000Z')) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

/** (createdAt desc, id desc), the documented order of listings. */
function newestFirst(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

async function allPages<T>(fetch: (cursor?: string) => Promise<Page<T>>): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

async function expectPositions(store: Store, projectId: string, ids: string[]): Promise<void> {
  const blocks = (await store.listBlocks(projectId)).items;
  expect(blocks.map((b) => b.id)).toEqual(ids);
  expect(blocks.map((b) => b.position)).toEqual(ids.map((_, i) => i));
}

// ---------------------------------------------------------------------------------------------

for (const dialect of [sqliteDialect(), postgresDialect()])
  describe(`Store on ${dialect.name}`, {
    tags: dialect.name === 'postgres' ? ['postgres'] : [],
  }, () => {
    let target: Target;
    let store: Store;

    beforeAll(async () => {
      target = dialect.fresh();
      store = await openStore(target.url, target.options);
    });

    afterAll(async () => {
      await store?.close();
      await dialect.cleanup();
    });

    /** A second store on the same database with a hand-moved clock. */
    async function clockStore(clock = manualClock()): Promise<Store> {
      return openStore(target.url, { ...target.options, now: clock.now });
    }

    it('reports its kind', () => {
      expect(store.kind).toBe(dialect.name);
    });

    describe('users', () => {
      it('creates and finds users by id and email', async () => {
        const email = uniqueEmail();
        const user = await store.createUser(email, 'Ada Lovelace');
        expect(user).toEqual({
          id: expect.stringMatching(ID('usr')),
          email,
          name: 'Ada Lovelace',
          createdAt: expect.stringMatching(ISO_MS),
        });
        expect(await store.getUser(user.id)).toEqual(user);
        expect(await store.getUserByEmail(email)).toEqual(user);

        const anonymous = await store.createUser(uniqueEmail());
        expect(anonymous.name).toBeNull();
        expect((await store.getUser(anonymous.id))?.name).toBeNull();
      });

      it('returns undefined for unknown users', async () => {
        expect(await store.getUser('usr_000000000000')).toBeUndefined();
        expect(await store.getUserByEmail('nobody@example.test')).toBeUndefined();
      });

      it('rejects a duplicate email with ConflictError("email")', async () => {
        const email = uniqueEmail();
        await store.createUser(email);
        const error = await store.createUser(email, 'again').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConflictError);
        expect((error as ConflictError).field).toBe('email');
        // The store still works after the failed insert.
        expect((await store.getUserByEmail(email))?.name).toBeNull();
      });

      it('lists every user by email', async () => {
        const made = [await store.createUser(uniqueEmail()), await store.createUser(uniqueEmail())];
        const users = await store.listUsers();
        for (const user of made) expect(users).toContainEqual(user);
        // Ordered by email (both addresses are `u_<random>@example.test`: any collation agrees).
        const at = made.map((user) => users.findIndex((u) => u.id === user.id));
        const [first, second] = made.map((u) => u.email);
        expect((at[0] as number) < (at[1] as number)).toBe((first as string) < (second as string));
      });
    });

    describe('OAuth identities', () => {
      const issuer = 'https://auth.example.test/realms/team';
      const sub = () => `sub-${Math.random().toString(36).slice(2)}`;

      it('provisions a user on first sign-in and returns the same user after', async () => {
        const subject = sub();
        const first = await store.userForIdentity({ issuer, subject, name: 'Bo' });
        expect(first.email).toBe(`${subject}@auth.example.test`);
        expect(first.name).toBe('Bo');
        expect(await store.userForIdentity({ issuer, subject })).toEqual(first);
        // Another issuer's subject of the same name is another person.
        const other = await store.userForIdentity({
          issuer: 'https://other.example.test',
          subject,
        });
        expect(other.id).not.toBe(first.id);
      });

      it('links a verified email to the user who has it; never an unverified one', async () => {
        const email = uniqueEmail();
        const existing = await store.createUser(email, 'Key holder');
        const unverified = await store.userForIdentity({
          issuer,
          subject: sub(),
          email,
          emailVerified: false,
        });
        expect(unverified.id).not.toBe(existing.id);
        const verified = await store.userForIdentity({
          issuer,
          subject: sub(),
          email,
          emailVerified: true,
        });
        expect(verified.id).toBe(existing.id);
        // Linked for good: the claim no longer decides once the identity is known.
        const again = await store.userForIdentity({ issuer, subject: sub(), email: uniqueEmail() });
        expect(again.id).not.toBe(existing.id);
      });

      it('gives concurrent first sign-ins of one identity one user', async () => {
        const subject = sub();
        const users = await Promise.all(
          Array.from({ length: 8 }, () => store.userForIdentity({ issuer, subject })),
        );
        expect(new Set(users.map((u) => u.id)).size).toBe(1);
      });
    });

    describe('API keys', () => {
      it('creates keys and finds live ones by hash, with their user', async () => {
        const user = await store.createUser(uniqueEmail(), 'Key Owner');
        const hash = hashOf();
        const key = await store.createApiKey(user.id, 'cf_live_sk_a1b2c3d4', hash, [
          'read',
          'write',
        ]);
        expect(key).toEqual({
          id: expect.stringMatching(ID('key')),
          userId: user.id,
          prefix: 'cf_live_sk_a1b2c3d4',
          scopes: ['read', 'write'],
          createdAt: expect.stringMatching(ISO_MS),
          lastUsedAt: null,
          revokedAt: null,
        });
        expect(key).not.toHaveProperty('hash');

        const found = await store.findApiKey(hash);
        expect(found?.user).toEqual(user);
        expect(found?.key).toEqual({ ...key, lastUsedAt: expect.stringMatching(ISO_MS) });
        expect(found?.key).not.toHaveProperty('hash');
        expect(await store.findApiKey(hashOf())).toBeUndefined();
      });

      it('keeps scopes as given (deduplicated) and rejects unknown ones', async () => {
        const user = await store.createUser(uniqueEmail());
        const readOnly = await store.createApiKey(user.id, 'cf_live_sk_readonly', hashOf(), [
          'read',
        ]);
        expect(readOnly.scopes).toEqual(['read']);
        const doubled = await store.createApiKey(user.id, 'cf_live_sk_doubled1', hashOf(), [
          'write',
          'write',
        ]);
        expect(doubled.scopes).toEqual(['write']);
        await expect(
          store.createApiKey(user.id, 'cf_live_sk_bad', hashOf(), ['admin' as Scope]),
        ).rejects.toThrow(/scope/);
      });

      it('rejects a duplicate hash and an unknown user', async () => {
        const user = await store.createUser(uniqueEmail());
        const hash = hashOf();
        await store.createApiKey(user.id, 'cf_live_sk_dup00001', hash, ['read']);
        await expect(
          store.createApiKey(user.id, 'cf_live_sk_dup00002', hash, ['read']),
        ).rejects.toBeInstanceOf(ConflictError);
        await expect(
          store.createApiKey('usr_000000000000', 'cf_live_sk_nouser01', hashOf(), ['read']),
        ).rejects.toThrow(/not found/);
      });

      it('revokes by prefix: counts live keys only; revoked keys are no longer found', async () => {
        const user = await store.createUser(uniqueEmail());
        const other = await store.createUser(uniqueEmail());
        const tag = `t${randomBytes(4).toString('hex')}`;
        const hashes = [hashOf(), hashOf(), hashOf(), hashOf()];
        await store.createApiKey(user.id, `${tag}_a1`, hashes[0] ?? '', ['read']);
        await store.createApiKey(user.id, `${tag}_a2`, hashes[1] ?? '', ['read']);
        await store.createApiKey(other.id, `${tag}_a3`, hashes[2] ?? '', ['write']);
        await store.createApiKey(user.id, `${tag}_b1`, hashes[3] ?? '', ['read']);

        // Wildcards are literal and matching is case-sensitive on both dialects.
        expect(await store.revokeApiKeys(`${tag}_%`)).toBe(0);
        expect(await store.revokeApiKeys(`${tag.toUpperCase()}_A`)).toBe(0);
        expect(await store.revokeApiKeys(`${tag}__`)).toBe(0);

        expect(await store.revokeApiKeys(`${tag}_a`)).toBe(3);
        expect(await store.revokeApiKeys(`${tag}_a`)).toBe(0);
        expect(await store.findApiKey(hashes[0] ?? '')).toBeUndefined();
        expect(await store.findApiKey(hashes[2] ?? '')).toBeUndefined();
        expect((await store.findApiKey(hashes[3] ?? ''))?.key.prefix).toBe(`${tag}_b1`);

        const listed = await store.listApiKeys(user.id);
        expect(listed.map((k) => k.prefix).sort()).toEqual([`${tag}_a1`, `${tag}_a2`, `${tag}_b1`]);
        for (const key of listed) {
          if (key.prefix.startsWith(`${tag}_a`)) expect(key.revokedAt).toMatch(ISO_MS);
          else expect(key.revokedAt).toBeNull();
        }
        expect((await store.listApiKeys(other.id)).map((k) => k.prefix)).toEqual([`${tag}_a3`]);
      });

      it('rejects revoking with a prefix shorter than 8 characters', async () => {
        await expect(store.revokeApiKeys('cf_live')).rejects.toThrow(Error);
        await expect(store.revokeApiKeys('')).rejects.toThrow(/8/);
      });

      it('lists a user’s keys newest first', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const first = await s.createApiKey(user.id, 'cf_live_sk_first001', hashOf(), ['read']);
          clock.advance(1);
          const second = await s.createApiKey(user.id, 'cf_live_sk_second01', hashOf(), ['read']);
          expect((await store.listApiKeys(user.id)).map((k) => k.id)).toEqual([
            second.id,
            first.id,
          ]);
          expect(await store.listApiKeys('usr_000000000000')).toEqual([]);
        } finally {
          await s.close();
        }
      });

      it('updates lastUsedAt at most once a minute', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const hash = hashOf();
          await s.createApiKey(user.id, 'cf_live_sk_throttle', hash, ['read']);
          const t0 = new Date(clock.now()).toISOString();

          expect((await s.findApiKey(hash))?.key.lastUsedAt).toBe(t0);
          clock.advance(30_000);
          expect((await s.findApiKey(hash))?.key.lastUsedAt).toBe(t0);
          clock.advance(29_999);
          expect((await s.findApiKey(hash))?.key.lastUsedAt).toBe(t0);
          clock.advance(2);
          const t1 = new Date(clock.now()).toISOString();
          expect((await s.findApiKey(hash))?.key.lastUsedAt).toBe(t1);
          clock.advance(1_000);
          expect((await s.findApiKey(hash))?.key.lastUsedAt).toBe(t1);
          // Persisted, and visible to the other store.
          const listed = await store.listApiKeys(user.id);
          expect(listed[0]?.lastUsedAt).toBe(t1);
        } finally {
          await s.close();
        }
      });
    });

    describe('projects', () => {
      it('creates with defaults, reads, counts', async () => {
        const user = await store.createUser(uniqueEmail());
        expect(await store.countProjects(user.id)).toBe(0);
        const project = await store.createProject(user.id, { name: 'Landing page' });
        expect(project).toEqual({
          id: expect.stringMatching(ID('proj')),
          userId: user.id,
          name: 'Landing page',
          description: null,
          domain: null,
          status: 'draft',
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: project.createdAt,
        });
        expect(await store.getProject(project.id)).toEqual(project);

        const full = await store.createProject(user.id, {
          name: 'Shop',
          description: 'Ünïcødé ✓ 🚀',
          domain: 'shop.example.com',
          status: 'published',
        });
        expect(await store.getProject(full.id)).toEqual(full);
        expect(full).toMatchObject({ description: 'Ünïcødé ✓ 🚀', status: 'published' });
        expect(await store.countProjects(user.id)).toBe(2);
        expect(await store.getProject('proj_000000000000')).toBeUndefined();
      });

      it('rejects an unknown user and an invalid status', async () => {
        await expect(store.createProject('usr_000000000000', { name: 'x' })).rejects.toThrow(
          /not found/,
        );
        const user = await store.createUser(uniqueEmail());
        await expect(
          store.createProject(user.id, { name: 'x', status: 'deleted' as 'draft' }),
        ).rejects.toThrow(/status/);
        expect(await store.countProjects(user.id)).toBe(0);
      });

      it('updates only the given fields and bumps updatedAt', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const project = await s.createProject(user.id, {
            name: 'Before',
            description: 'desc',
            domain: 'a.example',
          });
          clock.advance(1_500);
          const renamed = await s.updateProject(project.id, { name: 'After' });
          expect(renamed).toEqual({
            ...project,
            name: 'After',
            updatedAt: new Date(clock.now()).toISOString(),
          });
          clock.advance(10);
          const cleared = await s.updateProject(project.id, {
            description: null,
            status: 'archived',
          });
          expect(cleared).toMatchObject({
            name: 'After',
            description: null,
            domain: 'a.example',
            status: 'archived',
            createdAt: project.createdAt,
          });
          expect(await store.getProject(project.id)).toEqual(cleared);
          expect(await s.updateProject('proj_000000000000', { name: 'x' })).toBeUndefined();
          await expect(s.updateProject(project.id, { status: 'gone' as 'draft' })).rejects.toThrow(
            /status/,
          );
        } finally {
          await s.close();
        }
      });

      it('deletes a project with its blocks, assets and design system', async () => {
        const user = await store.createUser(uniqueEmail());
        const project = await store.createProject(user.id, { name: 'Doomed' });
        const keep = await store.createProject(user.id, { name: 'Kept' });
        const block = await store.createBlock(project.id, { type: 'text', content: 'bye' });
        const kept = await store.createBlock(keep.id, { type: 'text', content: 'stay' });
        const asset = await store.createAsset(project.id, {
          name: 'logo.png',
          mimeType: 'image/png',
          sizeBytes: 10,
          url: 'https://cdn.example/logo.png',
        });
        await store.setDesignSystem(project.id, { color: {} });
        await store.setDesignSystem(project.id, { color: { a: {} } });
        await store.setDesignSystem(keep.id, { kept: {} });

        expect(await store.deleteProject(project.id)).toBe(true);
        expect(await store.getProject(project.id)).toBeUndefined();
        expect(await store.getBlock(block.id)).toBeUndefined();
        expect((await store.listBlocks(project.id)).items).toEqual([]);
        expect(await store.getAsset(asset.id)).toBeUndefined();
        expect((await store.listAssets(project.id)).items).toEqual([]);
        expect(await store.getDesignSystem(project.id)).toBeUndefined();
        expect(await store.listDesignTokenVersions(project.id)).toEqual({ items: [] });
        expect(await store.getDesignTokenVersion(project.id, 1)).toBeUndefined();
        expect(await store.deleteProject(project.id)).toBe(false);
        // Nothing else went with it.
        expect(await store.getBlock(kept.id)).toEqual(kept);
        expect(await store.countProjects(user.id)).toBe(1);
        expect((await store.listDesignTokenVersions(keep.id)).items).toHaveLength(1);

        for (const table of ['blocks', 'design_token_versions']) {
          const rows = await dialect.query<{ n: number | string }>(
            target,
            `select count(*) as n from ${table} where project_id = '${project.id}'`,
          );
          expect(Number(rows[0]?.n), table).toBe(0);
        }
      });

      describe('keyset pagination over 250 projects', () => {
        let userId: string;
        let all: Project[];

        beforeAll(async () => {
          const user = await store.createUser(uniqueEmail());
          userId = user.id;
          all = [];
          // Ten at a time, so that many share a millisecond and only the id breaks the tie.
          for (let i = 0; i < 25; i++) {
            all.push(
              ...(await Promise.all(
                Array.from({ length: 10 }, (_, j) =>
                  store.createProject(user.id, { name: `p${i * 10 + j}` }),
                ),
              )),
            );
          }
          const noise = await store.createUser(uniqueEmail());
          await store.createProject(noise.id, { name: 'someone else’s' });
        });

        it('returns 3 pages of 100/100/50 without duplicates or gaps, newest first', async () => {
          expect(await store.countProjects(userId)).toBe(250);
          const pages = await allPages((cursor) =>
            store.listProjects(userId, { cursor, limit: 100 }),
          );
          expect(pages.map((p) => p.items.length)).toEqual([100, 100, 50]);
          expect(pages[0]?.nextCursor).toEqual(expect.any(String));
          expect(pages[1]?.nextCursor).toEqual(expect.any(String));
          expect(pages[2]).not.toHaveProperty('nextCursor');

          const listed = pages.flatMap((p) => p.items);
          expect(new Set(listed.map((p) => p.id)).size).toBe(250);
          expect(listed).toEqual([...all].sort(newestFirst));
        });

        it('defaults to 50 and clamps the limit to 1…100', async () => {
          expect((await store.listProjects(userId)).items).toHaveLength(50);
          expect((await store.listProjects(userId, { limit: 1000 })).items).toHaveLength(100);
          expect((await store.listProjects(userId, { limit: 0 })).items).toHaveLength(1);
          expect((await store.listProjects(userId, { limit: 2.9 })).items).toHaveLength(2);
        });

        it('pages by 7 the same way (ties in createdAt included)', async () => {
          const pages = await allPages((cursor) =>
            store.listProjects(userId, { cursor, limit: 7 }),
          );
          expect(pages).toHaveLength(36);
          expect(pages.flatMap((p) => p.items).map((p) => p.id)).toEqual(
            [...all].sort(newestFirst).map((p) => p.id),
          );
        });

        it('keeps its place when rows are added or removed between pages', async () => {
          const first = await store.listProjects(userId, { limit: 100 });
          const added = await store.createProject(userId, { name: 'late' });
          const last = first.items[first.items.length - 1];
          const next = await store.listProjects(userId, { cursor: first.nextCursor, limit: 100 });
          expect(next.items.map((p) => p.id)).not.toContain(added.id);
          expect(newestFirst(last as Project, next.items[0] as Project)).toBeLessThan(0);
          expect(await store.deleteProject(added.id)).toBe(true);
        });

        it('rejects cursors it did not issue with InvalidCursorError', async () => {
          const good = (await store.listProjects(userId, { limit: 100 })).nextCursor ?? '';
          const json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
          const bad = [
            'not-a-cursor',
            '!!!',
            json({ createdAt: '2024-01-01T00:00:00.000Z', id: 'proj_abc' }),
            json(['2024-01-01', 'proj_abc']),
            json(['2024-01-01T00:00:00.000Z', 'ast_abcdefabcdef']),
            json(['2024-01-01T00:00:00.000Z', "proj_x' or 1=1 --"]),
            json(['2024-01-01T00:00:00.000Z', 'proj_abc', 'extra']),
            `${good}=`,
            good.slice(0, -2),
          ];
          for (const cursor of bad) {
            await expect(store.listProjects(userId, { cursor }), cursor).rejects.toBeInstanceOf(
              InvalidCursorError,
            );
          }
        });

        it('lists project ids by prefix, sorted, limited, for this user only', async () => {
          const ids = all.map((p) => p.id).sort();
          const head = ids[0]?.slice(0, 6) ?? '';
          const matching = ids.filter((id) => id.startsWith(head));
          expect(await store.projectIdsStartingWith(userId, head, 1000)).toEqual(matching);
          expect(await store.projectIdsStartingWith(userId, 'proj_', 5)).toEqual(ids.slice(0, 5));
          expect(await store.projectIdsStartingWith(userId, '', 3)).toEqual(ids.slice(0, 3));
          const one = ids[42] ?? '';
          expect(await store.projectIdsStartingWith(userId, one, 10)).toEqual([one]);
          expect(await store.projectIdsStartingWith(userId, one.toUpperCase(), 10)).toEqual([]);
          expect(await store.projectIdsStartingWith(userId, 'proj_%', 10)).toEqual([]);
          expect(await store.projectIdsStartingWith(userId, 'proj_', 0)).toEqual([]);
          expect(await store.projectIdsStartingWith('usr_000000000000', 'proj_', 10)).toEqual([]);
        });
      });

      it('orders newest first and breaks createdAt ties by id', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const a = await s.createProject(user.id, { name: 'a' });
          clock.advance(1);
          const b = await s.createProject(user.id, { name: 'b' });
          clock.advance(1);
          // Seven in the same millisecond.
          const same = await Promise.all(
            Array.from({ length: 7 }, (_, i) => s.createProject(user.id, { name: `same${i}` })),
          );
          const sameIds = same
            .map((p) => p.id)
            .sort()
            .reverse();
          const pages = await allPages((cursor) => s.listProjects(user.id, { cursor, limit: 3 }));
          expect(pages.map((p) => p.items.length)).toEqual([3, 3, 3]);
          expect(pages.flatMap((p) => p.items).map((p) => p.id)).toEqual([...sameIds, b.id, a.id]);
        } finally {
          await s.close();
        }
      });

      it('keeps timestamps monotonic when the clock goes back', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const project = await s.createProject(user.id, { name: 'x' });
          clock.advance(-60_000);
          const updated = await s.updateProject(project.id, { name: 'y' });
          expect(updated?.updatedAt).toBe(project.createdAt);
          const later = await s.createProject(user.id, { name: 'z' });
          expect(later.createdAt >= project.createdAt).toBe(true);
        } finally {
          await s.close();
        }
      });
    });

    describe('blocks', () => {
      async function newProject(): Promise<string> {
        const user = await store.createUser(uniqueEmail());
        return (await store.createProject(user.id, { name: 'Blocks' })).id;
      }

      it('appends by default with contiguous 0-based positions', async () => {
        const projectId = await newProject();
        expect((await store.listBlocks(projectId)).items).toEqual([]);
        const a = await store.createBlock(projectId, { type: 'hero', content: { title: 'A' } });
        const b = await store.createBlock(projectId, { type: 'text', content: 'B' });
        const c = await store.createBlock(projectId, { type: 'text', content: 'C' });
        expect([a.position, b.position, c.position]).toEqual([0, 1, 2]);
        expect(a).toEqual({
          id: expect.stringMatching(ID('blk')),
          projectId,
          position: 0,
          type: 'hero',
          content: { title: 'A' },
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: a.createdAt,
        });
        expect(await store.getBlock(a.id)).toEqual(a);
        expect(await store.getBlock('blk_000000000000')).toBeUndefined();
        await expectPositions(store, projectId, [a.id, b.id, c.id]);
      });

      it('inserts in the middle and shifts later blocks; clamps positions', async () => {
        const projectId = await newProject();
        const a = await store.createBlock(projectId, { type: 't', content: 'a' });
        const b = await store.createBlock(projectId, { type: 't', content: 'b' });
        const c = await store.createBlock(projectId, { type: 't', content: 'c' });
        const mid = await store.createBlock(projectId, { type: 't', content: 'mid', position: 1 });
        expect(mid.position).toBe(1);
        await expectPositions(store, projectId, [a.id, mid.id, b.id, c.id]);

        const first = await store.createBlock(projectId, { type: 't', content: 0, position: 0 });
        const end = await store.createBlock(projectId, { type: 't', content: 9, position: 99 });
        const neg = await store.createBlock(projectId, { type: 't', content: -1, position: -5 });
        const atEnd = await store.createBlock(projectId, { type: 't', content: 7, position: 7 });
        expect([first.position, end.position, neg.position, atEnd.position]).toEqual([0, 5, 0, 7]);
        await expectPositions(store, projectId, [
          neg.id,
          first.id,
          a.id,
          mid.id,
          b.id,
          c.id,
          end.id,
          atEnd.id,
        ]);
        await expect(
          store.createBlock(projectId, { type: 't', content: 1, position: Number.NaN }),
        ).rejects.toThrow();
      });

      it('moves blocks up and down and re-packs the others', async () => {
        const projectId = await newProject();
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push((await store.createBlock(projectId, { type: 't', content: i })).id);
        }
        const [b0, b1, b2, b3, b4] = ids as [string, string, string, string, string];

        const down = await store.updateBlock(b0, { position: 3 });
        expect(down?.position).toBe(3);
        await expectPositions(store, projectId, [b1, b2, b3, b0, b4]);

        const up = await store.updateBlock(b4, { position: 1 });
        expect(up?.position).toBe(1);
        await expectPositions(store, projectId, [b1, b4, b2, b3, b0]);

        expect((await store.updateBlock(b2, { position: 100 }))?.position).toBe(4);
        await expectPositions(store, projectId, [b1, b4, b3, b0, b2]);
        expect((await store.updateBlock(b2, { position: -1 }))?.position).toBe(0);
        await expectPositions(store, projectId, [b2, b1, b4, b3, b0]);
        expect((await store.updateBlock(b4, { position: 2 }))?.position).toBe(2);
        await expectPositions(store, projectId, [b2, b1, b4, b3, b0]);
      });

      it('updates type and content in place and bumps updatedAt', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const projectId = (await s.createProject(user.id, { name: 'p' })).id;
          const a = await s.createBlock(projectId, { type: 'text', content: 'old' });
          const b = await s.createBlock(projectId, { type: 'text', content: 'keep' });
          clock.advance(5);
          const updated = await s.updateBlock(a.id, { type: 'heading', content: { level: 2 } });
          expect(updated).toEqual({
            ...a,
            type: 'heading',
            content: { level: 2 },
            updatedAt: new Date(clock.now()).toISOString(),
          });
          expect(await store.getBlock(a.id)).toEqual(updated);
          const contentOnly = await s.updateBlock(a.id, { content: null });
          expect(contentOnly).toMatchObject({ type: 'heading', content: null, position: 0 });
          await expectPositions(store, projectId, [a.id, b.id]);
          expect(await s.updateBlock('blk_000000000000', { type: 'x' })).toBeUndefined();
        } finally {
          await s.close();
        }
      });

      it('deletes blocks and closes the gap', async () => {
        const projectId = await newProject();
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) {
          ids.push((await store.createBlock(projectId, { type: 't', content: i })).id);
        }
        const [b0, b1, b2, b3] = ids as [string, string, string, string];
        expect(await store.deleteBlock(b1)).toBe(true);
        await expectPositions(store, projectId, [b0, b2, b3]);
        expect(await store.deleteBlock(b3)).toBe(true);
        await expectPositions(store, projectId, [b0, b2]);
        expect(await store.deleteBlock(b0)).toBe(true);
        await expectPositions(store, projectId, [b2]);
        expect(await store.deleteBlock(b0)).toBe(false);
        expect(await store.deleteBlock('blk_000000000000')).toBe(false);
      });

      it('keeps positions contiguous under concurrent inserts, moves and deletes', async () => {
        const projectId = await newProject();
        const created = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            store.createBlock(projectId, { type: 't', content: i, position: i % 3 }),
          ),
        );
        let blocks = (await store.listBlocks(projectId)).items;
        expect(blocks.map((b) => b.position)).toEqual([...Array(12).keys()]);
        await Promise.all([
          ...created.slice(0, 4).map((b) => store.deleteBlock(b.id)),
          ...created.slice(4, 8).map((b, i) => store.updateBlock(b.id, { position: 7 - i })),
          ...Array.from({ length: 4 }, (_, i) =>
            store.createBlock(projectId, { type: 'u', content: i, position: i * 2 }),
          ),
        ]);
        blocks = (await store.listBlocks(projectId)).items;
        expect(blocks).toHaveLength(12);
        expect(blocks.map((b) => b.position)).toEqual([...Array(12).keys()]);
      });

      it('round-trips any JSON content', async () => {
        const projectId = await newProject();
        const contents: unknown[] = [
          {
            title: 'Grüße, 世界! 🚀 שלום',
            nested: { deep: { deeper: [1, 2.5, -3e-7, { x: null, y: true, z: false }] } },
            quotes: 'it\'s "quoted" \\ back\nslash\ttab \u0000 nul',
            empty: {},
            list: [],
          },
          ['a', 1, null, { b: [] }],
          'just a string',
          42,
          true,
          null,
        ];
        for (const content of contents) {
          const block = await store.createBlock(projectId, { type: 'json', content });
          expect(block.content).toEqual(content);
          expect((await store.getBlock(block.id))?.content).toEqual(content);
        }
        expect((await store.listBlocks(projectId)).items.map((b) => b.content)).toEqual(contents);
        const undef = await store.createBlock(projectId, { type: 'json', content: undefined });
        expect(undef.content).toBeNull();
      });

      it('rejects a block for an unknown project', async () => {
        await expect(
          store.createBlock('proj_000000000000', { type: 't', content: 1 }),
        ).rejects.toThrow(/not found/);
      });

      it('pages blocks in position order: limit, a byte budget, at least one block', async () => {
        const projectId = await newProject();
        const ids: string[] = [];
        // Content of 100 bytes of JSON each; the fourth ü is two bytes in UTF-8.
        for (let i = 0; i < 7; i++) {
          const text = i === 3 ? `${'x'.repeat(81)}ü` : 'x'.repeat(83);
          ids.push((await store.createBlock(projectId, { type: 't', content: { i, text } })).id);
        }
        const bytes = (await store.listBlocks(projectId)).items.map((b) =>
          Buffer.byteLength(JSON.stringify(b.content)),
        );
        expect(bytes).toEqual([100, 100, 100, 100, 100, 100, 100]);
        expect(await store.countBlocks(projectId)).toBe(7);

        const byLimit = await allPages((cursor) =>
          store.listBlocks(projectId, { cursor, limit: 3 }),
        );
        expect(byLimit.map((p) => p.items.length)).toEqual([3, 3, 1]);
        expect(byLimit.flatMap((p) => p.items.map((b) => b.id))).toEqual(ids);
        expect(byLimit.at(-1)).not.toHaveProperty('nextCursor');

        // 250 bytes hold two blocks of 100; 300 three.
        const byBytes = await allPages((cursor) =>
          store.listBlocks(projectId, { cursor, maxBytes: 250 }),
        );
        expect(byBytes.map((p) => p.items.length)).toEqual([2, 2, 2, 1]);
        expect(byBytes.flatMap((p) => p.items.map((b) => b.id))).toEqual(ids);
        const exact = await store.listBlocks(projectId, { maxBytes: 300 });
        expect(exact.items).toHaveLength(3);
        // A block bigger than the budget still comes, alone.
        const tiny = await allPages((cursor) =>
          store.listBlocks(projectId, { cursor, maxBytes: 1 }),
        );
        expect(tiny.map((p) => p.items.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
        // A full last page has no next one.
        expect(await store.listBlocks(projectId, { limit: 7 })).not.toHaveProperty('nextCursor');
        expect(await store.listBlocks(newId('proj'))).toEqual({ items: [] });
      });

      it('rejects block cursors it did not issue with InvalidCursorError', async () => {
        const projectId = await newProject();
        await store.createBlock(projectId, { type: 't', content: 1 });
        await store.createBlock(projectId, { type: 't', content: 2 });
        const { nextCursor } = await store.listBlocks(projectId, { limit: 1 });
        expect(nextCursor).toEqual(expect.any(String));
        const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        for (const bad of [
          'garbage',
          b64(['2024-01-01T00:00:00.000Z', 'blk_abc']),
          b64([-1, 'blk_abc']),
          b64([1.5, 'blk_abc']),
          b64([1, 'proj_abc']),
          b64([1, 'blk_ABC']),
          `${nextCursor}=`,
        ]) {
          await expect(store.listBlocks(projectId, { cursor: bad })).rejects.toBeInstanceOf(
            InvalidCursorError,
          );
        }
      });

      it('caps blocks per project with a LimitError, concurrent inserts included', async () => {
        const capped = await openStore(target.url, { ...target.options, maxBlocksPerProject: 3 });
        try {
          const projectId = await newProject();
          const results = await Promise.allSettled(
            Array.from({ length: 6 }, (_, i) =>
              capped.createBlock(projectId, { type: 't', content: i, position: 0 }),
            ),
          );
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
          for (const r of results.filter((r) => r.status === 'rejected')) {
            expect(r.reason).toBeInstanceOf(LimitError);
            expect(r.reason).toMatchObject({ limit: 'blocks', max: 3 });
          }
          expect(await capped.countBlocks(projectId)).toBe(3);
          const [first] = (await capped.listBlocks(projectId)).items;
          expect(await capped.deleteBlock(first?.id ?? '')).toBe(true);
          await capped.createBlock(projectId, { type: 't', content: 'room again' });
          expect(await capped.countBlocks(projectId)).toBe(3);
        } finally {
          await capped.close();
        }
        await expect(
          openStore(target.url, { ...target.options, maxBlocksPerProject: 0 }),
        ).rejects.toThrow(/maxBlocksPerProject/);
      });
    });

    describe('assets', () => {
      it('creates, reads and pages assets newest first', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const projectId = (await s.createProject(user.id, { name: 'Assets' })).id;
          const created = [];
          for (let i = 0; i < 7; i++) {
            clock.advance(i % 2); // some share a millisecond
            created.push(
              await s.createAsset(projectId, {
                name: `image-${i}.png`,
                mimeType: 'image/png',
                sizeBytes: 5_000_000_000 + i, // beyond 32 bits: bigint on PostgreSQL
                url: `https://cdn.example/${i}.png`,
              }),
            );
          }
          const first = created[0];
          expect(first).toEqual({
            id: expect.stringMatching(ID('ast')),
            projectId,
            name: 'image-0.png',
            mimeType: 'image/png',
            sizeBytes: 5_000_000_000,
            url: 'https://cdn.example/0.png',
            createdAt: expect.stringMatching(ISO_MS),
          });
          expect(await store.getAsset(first?.id ?? '')).toEqual(first);
          expect(await store.getAsset('ast_000000000000')).toBeUndefined();

          const pages = await allPages((cursor) =>
            store.listAssets(projectId, { cursor, limit: 3 }),
          );
          expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
          expect(pages.flatMap((p) => p.items)).toEqual([...created].sort(newestFirst));
          expect((await store.listAssets(projectId)).items).toHaveLength(7);
          expect((await store.listAssets('proj_000000000000')).items).toEqual([]);

          const projectCursor = (await store.listProjects(user.id, { limit: 1 })).nextCursor;
          expect(projectCursor).toBeUndefined(); // one project: no next page
          await expect(
            store.listAssets(projectId, { cursor: pages[0]?.nextCursor?.slice(1) }),
          ).rejects.toBeInstanceOf(InvalidCursorError);
        } finally {
          await s.close();
        }
      });

      it('rejects project cursors, bad sizes and unknown projects', async () => {
        const user = await store.createUser(uniqueEmail());
        const p1 = await store.createProject(user.id, { name: '1' });
        await store.createProject(user.id, { name: '2' });
        const projectCursor = (await store.listProjects(user.id, { limit: 1 })).nextCursor;
        expect(projectCursor).toEqual(expect.any(String));
        await expect(store.listAssets(p1.id, { cursor: projectCursor })).rejects.toBeInstanceOf(
          InvalidCursorError,
        );
        const input = { name: 'a', mimeType: 'text/plain', sizeBytes: 1, url: 'https://x/a' };
        await expect(store.createAsset(p1.id, { ...input, sizeBytes: -1 })).rejects.toThrow(/size/);
        await expect(store.createAsset(p1.id, { ...input, sizeBytes: 1.5 })).rejects.toThrow(
          /size/,
        );
        await expect(store.createAsset('proj_000000000000', input)).rejects.toThrow(/not found/);
        const zero = await store.createAsset(p1.id, { ...input, sizeBytes: 0 });
        expect((await store.getAsset(zero.id))?.sizeBytes).toBe(0);
      });
    });

    describe('design systems', () => {
      it('sets, gets and replaces the token document', async () => {
        const clock = manualClock();
        const s = await clockStore(clock);
        try {
          const user = await s.createUser(uniqueEmail());
          const projectId = (await s.createProject(user.id, { name: 'DS' })).id;
          expect(await s.getDesignSystem(projectId)).toBeUndefined();

          const tokens = {
            color: {
              $type: 'color',
              brand: { $value: '#0055ff', $description: 'Primäre Farbe 🎨' },
            },
            spacing: { sm: { $type: 'dimension', $value: { value: 4, unit: 'px' } } },
          };
          const set = await s.setDesignSystem(projectId, tokens);
          expect(set).toEqual({
            projectId,
            tokens,
            updatedAt: new Date(clock.now()).toISOString(),
            version: 1,
            resolver: null,
          });
          expect(await store.getDesignSystem(projectId)).toEqual(set);

          clock.advance(1_000);
          const replaced = await s.setDesignSystem(projectId, { font: { $value: 'Inter' } });
          expect(replaced.tokens).toEqual({ font: { $value: 'Inter' } }); // replaced, not merged
          expect(replaced.updatedAt > set.updatedAt).toBe(true);
          expect(replaced.version).toBe(2);
          expect(await store.getDesignSystem(projectId)).toEqual(replaced);

          await expect(s.setDesignSystem('proj_000000000000', { a: 1 })).rejects.toThrow(
            /not found/,
          );
          await expect(
            s.setDesignSystem(projectId, [] as unknown as Record<string, unknown>),
          ).rejects.toThrow(/object/);
          expect((await store.getDesignSystem(projectId))?.version).toBe(2);
        } finally {
          await s.close();
        }
      });

      it('reads a document it wrote or read without parsing it again, until another store writes', async () => {
        const other = await clockStore();
        try {
          const user = await store.createUser(uniqueEmail());
          const projectId = (await store.createProject(user.id, { name: 'Cached' })).id;
          const written = await store.setDesignSystem(projectId, { a: { $value: 1 } });
          // The very object written: no JSON was parsed for this read.
          expect((await store.getDesignSystem(projectId))?.tokens).toBe(written.tokens);

          // Another instance of the fleet writes: the version moved, the document is read anew.
          await other.setDesignSystem(projectId, { b: { $value: 2 } });
          const fresh = await store.getDesignSystem(projectId);
          expect([fresh?.version, fresh?.tokens]).toEqual([2, { b: { $value: 2 } }]);
          // Read once, cached from then on.
          expect((await store.getDesignSystem(projectId))?.tokens).toBe(fresh?.tokens);

          // A resolver written by the other store is read with the cached tokens' version only.
          await other.setDesignSystem(projectId, { b: { $value: 3 } }, { resolver: null });
          expect((await store.getDesignSystem(projectId))?.tokens).toEqual({ b: { $value: 3 } });

          // The project is deleted elsewhere: nothing is served from the cache.
          await other.deleteProject(projectId);
          expect(await store.getDesignSystem(projectId)).toBeUndefined();
        } finally {
          await other.close();
        }
      });

      it('stores the JSON text a caller made of the tokens as it is', async () => {
        const other = await clockStore();
        try {
          const user = await store.createUser(uniqueEmail());
          const projectId = (await store.createProject(user.id, { name: 'Text' })).id;
          const tokens = { a: { $value: 1, $description: 'ü 🎨' } };
          const json = JSON.stringify(tokens, null, 2);
          await store.setDesignSystem(projectId, tokens, { json });
          // Read by a store that never saw the object: parsed from the text given.
          expect((await other.getDesignSystem(projectId))?.tokens).toEqual(tokens);
          expect((await other.getDesignTokenVersion(projectId, 1))?.tokens).toEqual(tokens);
          // The text is taken, not made again: it is what the caller vouched for.
          await store.setDesignSystem(projectId, tokens, { json: '{"b":{"$value":2}}' });
          expect((await other.getDesignSystem(projectId))?.tokens).toEqual({ b: { $value: 2 } });
        } finally {
          await other.close();
        }
      });

      describe('version history', () => {
        async function newProject(on: Store = store): Promise<string> {
          const user = await on.createUser(uniqueEmail());
          return (await on.createProject(user.id, { name: 'History' })).id;
        }

        /** The version numbers a project's history lists, newest first, over every page. */
        async function listedVersions(on: Store, projectId: string): Promise<number[]> {
          const pages = await allPages((cursor) =>
            on.listDesignTokenVersions(projectId, { cursor, limit: 100 }),
          );
          return pages.flatMap((p) => p.items.map((v) => v.version));
        }

        it('numbers versions 1, 2, 3 … and keeps each one’s tokens, author and note', async () => {
          const clock = manualClock();
          const s = await clockStore(clock);
          try {
            const author = await s.createUser(uniqueEmail());
            const projectId = await newProject(s);
            const docs = [
              { color: { $type: 'color', brand: { $value: '#0055ff' } } },
              { color: { $type: 'color', brand: { $value: '#ff5500', $description: 'Grüße 🎨' } } },
              {},
            ];
            const written = [
              await s.setDesignSystem(projectId, docs[0] ?? {}),
              await s.setDesignSystem(projectId, docs[1] ?? {}, { author: author.id }),
            ];
            clock.advance(1_000);
            written.push(
              await s.setDesignSystem(projectId, docs[2] ?? {}, {
                author: author.id,
                note: 'restored version 1',
              }),
            );
            expect(written.map((w) => w.version)).toEqual([1, 2, 3]);
            expect(await store.getDesignSystem(projectId)).toEqual(written[2]);

            expect(await store.getDesignTokenVersion(projectId, 1)).toEqual({
              version: 1,
              tokens: docs[0],
              createdAt: written[0]?.updatedAt,
              author: null,
              note: null,
              resolver: null,
            });
            expect(await store.getDesignTokenVersion(projectId, 2)).toEqual({
              version: 2,
              tokens: docs[1],
              createdAt: written[1]?.updatedAt,
              author: author.id,
              note: null,
              resolver: null,
            });
            expect(await store.getDesignTokenVersion(projectId, 3)).toEqual({
              version: 3,
              tokens: {},
              createdAt: new Date(clock.now()).toISOString(),
              author: author.id,
              note: 'restored version 1',
              resolver: null,
            });
            for (const none of [0, 4, -1, 1.5, Number.NaN, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
              expect(await store.getDesignTokenVersion(projectId, none), String(none)).toBe(
                undefined,
              );
            }
            expect(await store.getDesignTokenVersion(newId('proj'), 1)).toBeUndefined();
          } finally {
            await s.close();
          }
        });

        it('keeps the modes (resolver) with the tokens: given, kept, removed, versioned', async () => {
          const projectId = await newProject();
          const modes = { version: '2025.10', resolutionOrder: [{ $ref: '#/modifiers/theme' }] };
          expect((await store.setDesignSystem(projectId, { a: {} })).resolver).toBeNull();
          const given = await store.setDesignSystem(projectId, { b: {} }, { resolver: modes });
          expect(given.resolver).toEqual(modes);
          // A write of tokens alone keeps the modes.
          const kept = await store.setDesignSystem(projectId, { c: {} });
          expect(kept.resolver).toEqual(modes);
          expect((await store.getDesignSystem(projectId))?.resolver).toEqual(modes);
          const removed = await store.setDesignSystem(projectId, { d: {} }, { resolver: null });
          expect(removed.resolver).toBeNull();
          expect((await store.getDesignSystem(projectId))?.resolver).toBeNull();
          const resolvers = [];
          for (let v = 1; v <= 4; v++) {
            resolvers.push((await store.getDesignTokenVersion(projectId, v))?.resolver);
          }
          expect(resolvers).toEqual([null, modes, modes, null]);
        });

        it('lists versions newest first without their tokens, paginated', async () => {
          const projectId = await newProject();
          const other = await newProject();
          for (let i = 1; i <= 7; i++) await store.setDesignSystem(projectId, { i: { $value: i } });
          await store.setDesignSystem(other, { other: {} });

          const pages = await allPages((cursor) =>
            store.listDesignTokenVersions(projectId, { cursor, limit: 3 }),
          );
          expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
          expect(pages.at(-1)).not.toHaveProperty('nextCursor');
          const items = pages.flatMap((p) => p.items);
          expect(items.map((v) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
          expect(items[0]).toEqual({
            version: 7,
            createdAt: expect.stringMatching(ISO_MS),
            author: null,
            note: null,
          });
          expect((await store.listDesignTokenVersions(projectId)).items).toHaveLength(7);
          expect(await store.listDesignTokenVersions(projectId, { limit: 7 })).not.toHaveProperty(
            'nextCursor',
          );
          expect(await store.listDesignTokenVersions(newId('proj'))).toEqual({ items: [] });

          // A cursor keeps its place while versions are written: the new ones are ahead of it.
          const first = await store.listDesignTokenVersions(projectId, { limit: 2 });
          await store.setDesignSystem(projectId, { i: { $value: 8 } });
          const next = await store.listDesignTokenVersions(projectId, {
            cursor: first.nextCursor,
            limit: 2,
          });
          expect(next.items.map((v) => v.version)).toEqual([5, 4]);

          // Cursors of another project's history, or of other lists, are not this list's.
          const otherCursor = (await store.listDesignTokenVersions(other, { limit: 1 })).nextCursor;
          expect(otherCursor).toBeUndefined(); // one version: no next page
          const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
          for (const bad of [
            'garbage',
            b64([3, other]),
            b64([0, projectId]),
            b64([1.5, projectId]),
            b64([2 ** 31, projectId]),
            b64(['3', projectId]),
            b64([3, 'blk_abcdefabcdef']),
            `${first.nextCursor}=`,
          ]) {
            await expect(
              store.listDesignTokenVersions(projectId, { cursor: bad }),
              bad,
            ).rejects.toBeInstanceOf(InvalidCursorError);
          }
        });

        it('keeps the newest versions past the limit, numbers counting on', async () => {
          const capped = await openStore(target.url, {
            ...target.options,
            designTokenVersionsKept: 3,
          });
          try {
            const projectId = await newProject(capped);
            for (let i = 1; i <= 5; i++)
              await capped.setDesignSystem(projectId, { i: { $value: i } });
            expect(await listedVersions(capped, projectId)).toEqual([5, 4, 3]);
            expect(await capped.getDesignTokenVersion(projectId, 2)).toBeUndefined();
            expect((await capped.getDesignTokenVersion(projectId, 3))?.tokens).toEqual({
              i: { $value: 3 },
            });
            const sixth = await capped.setDesignSystem(projectId, { i: { $value: 6 } });
            expect(sixth.version).toBe(6);
            expect(await listedVersions(capped, projectId)).toEqual([6, 5, 4]);
            expect((await capped.getDesignSystem(projectId))?.version).toBe(6);
          } finally {
            await capped.close();
          }
          await expect(
            openStore(target.url, { ...target.options, designTokenVersionsKept: 0 }),
          ).rejects.toThrow(/designTokenVersionsKept/);
        });

        it(`keeps ${DESIGN_TOKEN_VERSIONS_KEPT} versions by default`, async () => {
          const projectId = await newProject();
          for (let i = 1; i <= DESIGN_TOKEN_VERSIONS_KEPT + 1; i++) {
            await store.setDesignSystem(projectId, { i: { $value: i } });
          }
          const versions = await listedVersions(store, projectId);
          expect(versions).toHaveLength(DESIGN_TOKEN_VERSIONS_KEPT);
          expect(versions[0]).toBe(DESIGN_TOKEN_VERSIONS_KEPT + 1);
          expect(versions.at(-1)).toBe(2);
          expect(await store.getDesignTokenVersion(projectId, 1)).toBeUndefined();
        });

        it('gives concurrent writers to one project distinct, consecutive versions', async () => {
          // On PostgreSQL, up to 10 transactions at once (the store's pool); on SQLite, the one
          // connection's transactions queue.
          const projectId = await newProject();
          const written = await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              store.setDesignSystem(projectId, { i: { $value: i } }),
            ),
          );
          const versions = written.map((w) => w.version).sort((a, b) => a - b);
          expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
          expect(await listedVersions(store, projectId)).toEqual(versions.toReversed());
          // Each version holds what the write that got its number wrote; the last is current.
          for (const w of written) {
            expect((await store.getDesignTokenVersion(projectId, w.version))?.tokens).toEqual(
              w.tokens,
            );
          }
          const current = await store.getDesignSystem(projectId);
          expect(current?.version).toBe(20);
          expect(current?.tokens).toEqual(written.find((w) => w.version === 20)?.tokens);
        });

        it('refuses an unknown author and writes nothing', async () => {
          const projectId = await newProject();
          const before = await store.setDesignSystem(projectId, { a: {} });
          await expect(
            store.setDesignSystem(projectId, { b: {} }, { author: 'usr_000000000000' }),
          ).rejects.toThrow(/user 'usr_000000000000' not found/);
          expect(await store.getDesignSystem(projectId)).toEqual(before);
          expect(await listedVersions(store, projectId)).toEqual([1]);
          expect((await store.setDesignSystem(projectId, { b: {} })).version).toBe(2);
        });

        it('keeps the versions of a deleted author, without the author', async () => {
          const author = await store.createUser(uniqueEmail());
          const projectId = await newProject();
          await store.setDesignSystem(projectId, { a: {} }, { author: author.id, note: 'n' });
          const raw = kyselyOn(dialect.name, target);
          try {
            await raw.deleteFrom('users').where('id', '=', author.id).execute();
          } finally {
            await raw.destroy();
          }
          expect(await store.getDesignTokenVersion(projectId, 1)).toMatchObject({
            tokens: { a: {} },
            author: null,
            note: 'n',
          });
        });
      });
    });

    describe('migrations and connections', () => {
      it('is idempotent: reopening applies nothing and keeps the data', async () => {
        const fresh = dialect.fresh();
        const first = await openStore(fresh.url, fresh.options);
        const user = await first.createUser(uniqueEmail());
        await first.close();
        const second = await openStore(fresh.url, fresh.options);
        try {
          expect(await second.getUser(user.id)).toEqual(user);
        } finally {
          await second.close();
        }
        const rows = await dialect.query<{ name: string }>(
          fresh,
          'select name from schema_migrations order by name',
        );
        expect(rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name));
      });

      it('makes the design tokens of a database from before the history its version 1', async () => {
        const fresh = dialect.fresh();
        const before = migrations.findIndex((m) => m.name === '0003_design_token_versions');
        expect(before).toBeGreaterThan(0);
        const kysely = kyselyOn(dialect.name, fresh);
        try {
          await migrate(kysely, dialect.name, {
            schema: fresh.options.schema,
            migrations: migrations.slice(0, before),
          });
          // Rows as the store wrote them then (no version column): one project with tokens, one
          // without.
          await sql`insert into users (id, email, name, created_at)
            values ('usr_old000000001', 'old@example.test', null, '2030-01-01T00:00:00.000Z')`.execute(
            kysely,
          );
          for (const id of ['proj_old000000001', 'proj_old000000002']) {
            await sql`insert into projects (id, user_id, name, status, created_at, updated_at)
              values (${id}, 'usr_old000000001', 'Old', 'draft',
                '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z')`.execute(kysely);
          }
          await sql`insert into design_systems (project_id, tokens, updated_at)
            values ('proj_old000000001', '{"color":{"$type":"color"}}', '2030-01-02T00:00:00.000Z')`.execute(
            kysely,
          );
        } finally {
          await kysely.destroy();
        }

        const s = await openStore(fresh.url, fresh.options);
        try {
          const tokens = { color: { $type: 'color' } };
          expect(await s.getDesignSystem('proj_old000000001')).toEqual({
            projectId: 'proj_old000000001',
            tokens,
            updatedAt: '2030-01-02T00:00:00.000Z',
            version: 1,
            resolver: null,
          });
          expect(await s.listDesignTokenVersions('proj_old000000001')).toEqual({
            items: [
              { version: 1, createdAt: '2030-01-02T00:00:00.000Z', author: null, note: null },
            ],
          });
          expect(await s.getDesignTokenVersion('proj_old000000001', 1)).toMatchObject({ tokens });
          expect(await s.listDesignTokenVersions('proj_old000000002')).toEqual({ items: [] });
          const next = await s.setDesignSystem('proj_old000000001', { font: {} });
          expect(next.version).toBe(2);
          expect((await s.setDesignSystem('proj_old000000002', { font: {} })).version).toBe(1);
        } finally {
          await s.close();
        }
      });

      it('rolls a failed migration back completely', async () => {
        const fresh = dialect.fresh();
        const kysely = kyselyOn(dialect.name, fresh);
        try {
          const broken: Migration[] = [
            {
              name: '0001_ok',
              up: async (db) => {
                await db.schema.createTable('half').addColumn('x', 'integer').execute();
              },
            },
            {
              name: '0002_broken',
              up: async (db) => {
                await sql`select * from no_such_table`.execute(db);
              },
            },
          ];
          await expect(
            migrate(kysely, dialect.name, { schema: fresh.options.schema, migrations: broken }),
          ).rejects.toThrow();
          const fixed = broken.slice(0, 1);
          expect(
            await migrate(kysely, dialect.name, {
              schema: fresh.options.schema,
              migrations: fixed,
            }),
          ).toEqual(['0001_ok']);
          expect(
            await migrate(kysely, dialect.name, {
              schema: fresh.options.schema,
              migrations: fixed,
            }),
          ).toEqual([]);
        } finally {
          await kysely.destroy();
        }
      });

      it('sees the writes of another store on the same database', async () => {
        const other = await openStore(target.url, target.options);
        try {
          const user = await other.createUser(uniqueEmail());
          expect(await store.getUser(user.id)).toEqual(user);
          const project = await store.createProject(user.id, { name: 'shared' });
          expect(await other.getProject(project.id)).toEqual(project);
          const block = await other.createBlock(project.id, { type: 't', content: 'x' });
          expect((await store.listBlocks(project.id)).items).toEqual([block]);
        } finally {
          await other.close();
        }
      });

      if (dialect.name === 'postgres') {
        it('migrates a fresh schema from two concurrent openStore calls', async () => {
          const fresh = dialect.fresh();
          const stores = await Promise.all([
            openStore(fresh.url, fresh.options),
            openStore(fresh.url, fresh.options),
            openStore(fresh.url, fresh.options),
          ]);
          try {
            const [a, b] = stores;
            const user = await a.createUser(uniqueEmail());
            expect(await b.getUser(user.id)).toEqual(user);
          } finally {
            await Promise.all(stores.map((s) => s.close()));
          }
          const rows = await dialect.query<{ name: string }>(
            fresh,
            'select name from schema_migrations',
          );
          expect(rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name));
        });

        it('rejects a schema name it cannot quote safely', async () => {
          await expect(openStore(target.url, { schema: 'x; drop table users' })).rejects.toThrow(
            /schema/,
          );
        });
      }

      if (dialect.name === 'sqlite') {
        it('uses WAL, and the file passes integrity_check', async () => {
          expect(existsSync(target.url)).toBe(true);
          const [mode] = await dialect.query<{ journal_mode: string }>(
            target,
            'pragma journal_mode',
          );
          expect(mode?.journal_mode).toBe('wal');
          const check = await dialect.query<{ integrity_check: string }>(
            target,
            'pragma integrity_check',
          );
          expect(check).toEqual([{ integrity_check: 'ok' }]);
          const fk = await dialect.query<{ table: string }>(target, 'pragma foreign_key_check');
          expect(fk).toEqual([]);
        });

        it('opens connections with synchronous=FULL, busy_timeout and foreign keys', () => {
          const db = openSqliteDatabase(target.url);
          try {
            expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
            expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
            expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
            expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
          } finally {
            db.close();
          }
        });

        it('works in memory', async () => {
          const memory = await openStore(':memory:');
          try {
            const user = await memory.createUser('mem@example.test');
            expect(await memory.getUserByEmail('mem@example.test')).toEqual(user);
          } finally {
            await memory.close();
          }
        });

        // Unix only: where files have no owner and mode bits, there is nothing to tighten.
        it.skipIf(process.getuid === undefined)(
          'makes an existing database of this user owner-only, WAL files too, saying so once',
          async () => {
            const base = mkdtempSync(join(tmpdir(), 'projects-mode-'));
            const file = join(base, 'projects.db');
            const files = [file, `${file}-wal`, `${file}-shm`];
            const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
            // A database from before files were created 0600, open in a process that writes
            // (so its -wal and -shm files exist as well).
            const writer = await openStore(file);
            try {
              await writer.createUser('old@example.test');
              for (const f of files) chmodSync(f, 0o644);
              const warnings: string[] = [];
              const warn = (message: string) => warnings.push(message);
              await (await openStore(file, { warn })).close();
              expect(files.map(mode)).toEqual(['600', '600', '600']);
              expect(warnings).toEqual([
                `database permissions tightened to owner-only (it holds emails and API-key hashes): ${files.map((f) => `${f} (was 0644)`).join(', ')}`,
              ]);
              // Owner-only already: nothing to say.
              await (await openStore(file, { warn })).close();
              expect(warnings).toHaveLength(1);
            } finally {
              await writer.close();
              rmSync(base, { recursive: true, force: true });
            }
          },
        );

        it('defaults to $XDG_DATA_HOME/mcpkit/projects.db, or dataDir', async () => {
          const base = mkdtempSync(join(tmpdir(), 'projects-xdg-'));
          const saved = process.env.XDG_DATA_HOME;
          try {
            process.env.XDG_DATA_HOME = join(base, 'xdg');
            const viaXdg = await openStore();
            await viaXdg.close();
            expect(existsSync(join(base, 'xdg', 'mcpkit', 'projects.db'))).toBe(true);

            const viaDataDir = await openStore(undefined, { dataDir: join(base, 'data') });
            await viaDataDir.close();
            expect(existsSync(join(base, 'data', 'projects.db'))).toBe(true);

            const viaFileUrl = await openStore(`file://${join(base, 'url', 'p.db')}`);
            await viaFileUrl.close();
            expect(existsSync(join(base, 'url', 'p.db'))).toBe(true);
          } finally {
            if (saved === undefined) delete process.env.XDG_DATA_HOME;
            else process.env.XDG_DATA_HOME = saved;
            rmSync(base, { recursive: true, force: true });
          }
          const home = join(homedir(), '.local', 'share', 'mcpkit', 'projects.db');
          expect(defaultDatabasePath(undefined, {})).toBe(home);
          expect(defaultDatabasePath(undefined, { XDG_DATA_HOME: '' })).toBe(home);
          expect(defaultDatabasePath(undefined, { XDG_DATA_HOME: 'relative/dir' })).toBe(home);
          expect(defaultDatabasePath(undefined, { XDG_DATA_HOME: '/x' })).toBe(
            '/x/mcpkit/projects.db',
          );
        });
      }
    });
  });

describe('ids and URLs', () => {
  it('newId: prefix + 12 random [a-z0-9]', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId('proj')));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^proj_[a-z0-9]{12}$/);
    expect(newId('blk_')).toMatch(/^blk_[a-z0-9]{12}$/);
    const chars = new Set([...ids].flatMap((id) => [...id.slice(5)]));
    expect(chars.size).toBe(36);
  });

  it('recognizes PostgreSQL URLs', () => {
    expect(isPostgresUrl('postgres://u@h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://u@h:5432/db?sslmode=require')).toBe(true);
    expect(isPostgresUrl('/var/lib/projects.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
  });
});
