// @module-tag process
/**
 * The real server process (`node dist/cli.js --transport http`, needs `pnpm build`):
 *
 * - SQLite: a burst of create_project calls, SIGKILL mid-burst; every acknowledged project must be
 *   in the file afterwards and `PRAGMA integrity_check` must say ok (WAL + synchronous=FULL).
 * - PostgreSQL: two server processes on one database (a fresh schema) see each other's writes.
 *   PostgreSQL unreachable: the test fails, saying so.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { McpClient, RpcError } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  spawnHttpServer,
  tempDir,
} from '@mcpkit/testing';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.js';
import { CLI, cleanEnv, probePostgres, requireCli, userWithKey } from './helpers.js';

afterAll(() => {
  killSpawned();
  removeTempDirs();
});

/** The HTTP server on a free port, on `databaseUrl`. */
function startServer(databaseUrl: string): Promise<HttpProcess> {
  requireCli();
  return spawnHttpServer(
    process.execPath,
    [CLI, '--transport', 'http', '--port', '0', '--rate-limit', '1000000'],
    { env: cleanEnv({ LOG_LEVEL: 'info', DATABASE_URL: databaseUrl }), inheritEnv: false },
  );
}

/** An McpClient of `server` acting as the owner of `key`, each call bounded to 10 s. */
const clientOf = (server: HttpProcess, key: string): Promise<McpClient> =>
  server.connect({ headers: { Authorization: `Bearer ${key}` }, timeoutMs: 10_000 });

describe('SQLite: SIGKILL mid-burst loses no acknowledged write', () => {
  const TOTAL = 400;
  const CONCURRENCY = 8;
  const KILL_AFTER = 150;

  it(`${TOTAL} create_project calls, ${CONCURRENCY} at a time, killed after ${KILL_AFTER} acks`, async () => {
    const file = join(tempDir('projects-durable-'), 'projects.db');
    const setup = await openStore(file);
    const { user, key } = await userWithKey(setup, 'burst@example.com', ['read', 'write']);
    await setup.close();

    const server = await startServer(file);
    const client = await clientOf(server, key);
    const acked: { name: string; id: string }[] = [];
    const failed: string[] = [];
    let next = 0;
    let killed = false;
    try {
      const worker = async () => {
        while (!killed && next < TOTAL) {
          const name = `burst-${next++}`;
          try {
            const result = await client.callTool('create_project', { name });
            const project = result.structuredContent as { id: string } | undefined;
            if (result.isError === false && project) {
              acked.push({ name, id: project.id });
            } else {
              failed.push(`${name}: ${JSON.stringify(result)}`);
            }
          } catch (error) {
            if (!killed) throw error;
            failed.push(`${name}: ${(error as Error).message}`);
          }
          if (!killed && acked.length >= KILL_AFTER) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(killed, `only ${acked.length} acks before the burst ended`).toBe(true);
      expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    } finally {
      await server.stop();
    }
    // Nothing failed before the kill: every failure is an in-flight call the kill cut off.
    expect(failed.length).toBeLessThanOrEqual(CONCURRENCY);
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);

    // The file as the kill left it (WAL and all): structurally sound.
    const raw = new SqliteDatabase(file);
    try {
      expect(raw.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(raw.pragma('foreign_key_check')).toEqual([]);
    } finally {
      raw.close();
    }

    const store = await openStore(file);
    try {
      const missing: string[] = [];
      for (const { name, id } of acked) {
        const project = await store.getProject(id);
        if (!project || project.name !== name || project.userId !== user.id) missing.push(name);
        // create_project answers after the starter design system is stored, too.
        else if (!(await store.getDesignSystem(id))) missing.push(`${name} (design system)`);
      }
      expect(missing).toEqual([]);
      const count = await store.countProjects(user.id);
      expect(count).toBeGreaterThanOrEqual(acked.length);
      expect(count).toBeLessThanOrEqual(acked.length + CONCURRENCY);
    } finally {
      await store.close();
    }
  }, 50_000);
});

// ---------------------------------------------------------------------------------------------

describe('PostgreSQL: two server processes share one database', { tags: ['postgres'] }, () => {
  it('a write through process A is read through process B, and back', async () => {
    const probe = await probePostgres();
    if ('error' in probe) {
      throw new Error(
        `PostgreSQL is not reachable (start it on 127.0.0.1:5432, see .ci/run): ${probe.error}`,
      );
    }
    const schema = `projects_durability_${process.pid}_${randomBytes(4).toString('hex')}`;
    const servers: HttpProcess[] = [];
    try {
      // Migrate the fresh schema and make the key, then point both processes at it.
      const setup = await openStore(probe.url, { schema });
      const { user, key } = await userWithKey(setup, `pg-${schema}@example.com`, ['read', 'write']);
      await setup.close();
      const url = new URL(probe.url);
      url.searchParams.set('options', `-c search_path=${schema}`);

      const a = await startServer(url.href);
      servers.push(a);
      const b = await startServer(url.href);
      servers.push(b);
      const [viaA, viaB] = [await clientOf(a, key), await clientOf(b, key)];

      const ids: string[] = [];
      for (const name of ['Eins', 'Zwei', 'Drei']) {
        const created = await viaA.callTool('create_project', { name });
        expect(created.isError).toBe(false);
        ids.push(String(created.structuredContent?.id));
        // Newest first is by creation time to the millisecond (then by id): one each.
        await new Promise((r) => setTimeout(r, 2));
      }
      const listed = await viaB.callTool('list_projects', {});
      const page = listed.structuredContent as { projects: { id: string }[] } | undefined;
      const projects = page?.projects ?? [];
      expect(projects.map((p) => p.id)).toEqual([...ids].reverse());

      // B writes, A reads.
      const renamed = await viaB.callTool('update_project', {
        projectId: ids[0],
        name: 'Eins (B)',
      });
      expect(renamed.isError).toBe(false);
      const seen = await viaA.callTool('get_project', { projectId: ids[0] });
      expect(seen.structuredContent).toMatchObject({ id: ids[0], name: 'Eins (B)' });

      // A deletes, B no longer finds it.
      await viaA.callTool('delete_project', { projectId: ids[1] });
      const gone = await viaB.callTool('get_project', { projectId: ids[1] }).then(
        (result) => ({ result }),
        (error: RpcError) => error.toJSON(),
      );
      expect(gone).toEqual({
        code: -32003,
        message: 'Resource not found',
        data: { kind: 'project', id: ids[1] },
      });

      const check = await openStore(probe.url, { schema });
      try {
        expect(await check.countProjects(user.id)).toBe(2);
      } finally {
        await check.close();
      }
    } finally {
      for (const server of servers) await server.stop();
      const client = new pg.Client({ connectionString: probe.url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    }
  }, 40_000);
});
