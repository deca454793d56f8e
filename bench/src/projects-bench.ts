/**
 * projects: latency of get_project and list_projects through an in-memory connection, on a
 * SQLite file holding 100,000 projects of one user. list_projects is measured on the first page
 * and on a deep page (50,000 projects in, reached by chaining nextCursor): keyset pagination
 * should make both cost the same.
 *
 * Seeding goes around the Store API (one INSERT transaction through better-sqlite3 into the
 * schema the store migrated): the API commits, and syncs, every project on its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProjectsServer, type Store } from '@mcpkit/projects';
import type { AuthInfo } from '@mcpkit/protocol';
import { connectClient } from '@mcpkit/testing';
import SqliteDatabase from 'better-sqlite3';
import { size } from './mode.js';

const PROJECTS = size(100_000, 20_000);
const CALLS = size(500, 200);
const WARMUP = 50;
const DEEP = size(50_000, 10_000);
const WALK_PAGE = 100;

/**
 * `openStore` is not part of the package's exports; it sits next to the entry point in dist.
 * The bench reaches it there rather than reimplementing the schema.
 */
async function loadOpenStore(): Promise<(url: string) => Promise<Store>> {
  const entry = import.meta.resolve('@mcpkit/projects');
  const mod = (await import(new URL('./db/store.js', entry).href)) as {
    openStore: (url: string) => Promise<Store>;
  };
  return mod.openStore;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Ids in the store's format (`proj_` + 12 of [a-z0-9]), unique by their counter part. */
function projectId(i: number): string {
  let tail = '';
  for (const byte of randomBytes(6)) tail += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `proj_${i.toString(36).padStart(6, '0')}${tail}`;
}

function seed(file: string, userId: string): { ids: string[]; ms: number } {
  const start = performance.now();
  const db = new SqliteDatabase(file);
  const ids: string[] = [];
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      `insert into projects (id, user_id, name, description, domain, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const base = Date.parse('2024-01-01T00:00:00.000Z');
    const statuses = ['draft', 'published', 'archived'] as const;
    db.transaction(() => {
      for (let i = 0; i < PROJECTS; i++) {
        const id = projectId(i);
        ids.push(id);
        // Two projects share each millisecond: the cursor's id tie-break is exercised too.
        const at = new Date(base + Math.floor(i / 2)).toISOString();
        insert.run(
          id,
          userId,
          `Projekt ${i}`,
          i % 3 === 0 ? null : `Beschreibung ${i}`,
          i % 5 === 0 ? `site-${i}.example` : null,
          statuses[i % 3],
          at,
          at,
        );
      }
    })();
  } finally {
    db.close();
  }
  return { ids, ms: performance.now() - start };
}

interface Stats {
  p50: number;
  p99: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const ms = (n: number) => (n < 10 ? n.toFixed(3) : n.toFixed(1)).padStart(9);

export async function projectsBench(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'projects-bench-'));
  const file = join(dir, 'projects.db');
  const openStore = await loadOpenStore();
  try {
    const setup = await openStore(file);
    const user = await setup.createUser('bench@example.com', 'Bench');
    await setup.close();
    const seeded = seed(file, user.id);

    const store = await openStore(file);
    try {
      if ((await store.countProjects(user.id)) !== PROJECTS) {
        throw new Error('seeding did not store every project');
      }
      const server = createProjectsServer({ store });
      const auth: AuthInfo = {
        subject: 'bench',
        scopes: new Set(['read']),
        data: { userId: user.id },
      };
      const client = await connectClient(server, { auth });
      const call = async (name: string, args: Record<string, unknown>) => {
        const start = performance.now();
        const result = await client.callTool(name, args);
        const elapsed = performance.now() - start;
        if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
        return { elapsed, data: result.structuredContent ?? {} };
      };
      const measure = async (name: string, args: () => Record<string, unknown>) => {
        for (let i = 0; i < WARMUP; i++) await call(name, args());
        const samples: number[] = [];
        for (let i = 0; i < CALLS; i++) samples.push((await call(name, args())).elapsed);
        return stats(samples);
      };

      // Spread over the whole table, the same pseudo-random sequence each run.
      let pick = 12345;
      const anyId = () => {
        pick = (pick * 1103515245 + 12345) % 2 ** 31;
        return seeded.ids[pick % seeded.ids.length] as string;
      };
      const get = await measure('get_project', () => ({ projectId: anyId() }));
      const first = await measure('list_projects', () => ({}));

      // Walk to 50,000 projects in by chaining cursors, checking the order on the way.
      const walkStart = performance.now();
      let cursor: string | undefined;
      let seen = 0;
      let last = '';
      for (let page = 0; page < DEEP / WALK_PAGE; page++) {
        const { data } = await call(
          'list_projects',
          cursor ? { cursor, limit: WALK_PAGE } : { limit: WALK_PAGE },
        );
        const items = data.projects as { id: string; createdAt: string }[];
        for (const p of items) {
          const key = `${p.createdAt} ${p.id}`;
          if (last && key >= last) throw new Error('list_projects is not newest first');
          last = key;
        }
        seen += items.length;
        cursor = data.nextCursor as string | undefined;
        if (!cursor) throw new Error(`the list ended after ${seen} projects`);
      }
      const walkMs = (performance.now() - walkStart) / (DEEP / WALK_PAGE);
      const deepCursor = cursor;
      const deep = await measure('list_projects', () => ({ cursor: deepCursor }));
      // The deep page starts where the walk stopped: the (DEEP + 1)-th newest project.
      const { data: deepPage } = await call('list_projects', { cursor: deepCursor, limit: 1 });
      const expected = seeded.ids[PROJECTS - 1 - DEEP];
      const got = (deepPage.projects as { id: string }[])[0]?.id;
      if (got !== expected) throw new Error(`deep page starts at ${got}, expected ${expected}`);
      await client.close();

      console.log(
        `\nprojects: tools/call through an in-memory connection, SQLite, ${PROJECTS.toLocaleString('en-US')} projects of one user (seeded in ${(seeded.ms / 1000).toFixed(1)} s), ${CALLS} calls each after ${WARMUP} warm-up`,
      );
      console.log(`  ${''.padEnd(44)}   p50 ms    p99 ms   mean ms`);
      const row = (label: string, s: Stats) =>
        console.log(`  ${label.padEnd(44)} ${ms(s.p50)} ${ms(s.p99)} ${ms(s.mean)}`);
      row('get_project (random id)', get);
      row('list_projects first page (50)', first);
      row(`list_projects page at ${DEEP.toLocaleString('en-US')} (50, by cursor)`, deep);
      console.log(
        `  walking ${DEEP / WALK_PAGE} pages of ${WALK_PAGE} by nextCursor: ${walkMs.toFixed(3)} ms per page`,
      );
      const ratio = deep.p50 / first.p50;
      const ok = ratio <= 3;
      console.log(
        `  ratio deep / first page p50          ${ratio.toFixed(2).padStart(9)} ×   target ≤ 3 ×   ${ok ? 'OK' : 'MISSED'}`,
      );
      return ok;
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
