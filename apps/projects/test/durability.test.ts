/**
 * The real server process (`node dist/cli.js --transport http`, needs `pnpm build`):
 *
 * - SQLite: a burst of create_project calls, SIGKILL mid-burst; every acknowledged project must be
 *   in the file afterwards and `PRAGMA integrity_check` must say ok (WAL + synchronous=FULL).
 * - PostgreSQL: two server processes on one database (a fresh schema) see each other's writes.
 *   PostgreSQL unreachable: the test fails, saying so.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.js';
import { userWithKey } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const children = new Set<ChildProcessWithoutNullStreams>();

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CODEFLUSS_|MCP_|DATABASE_URL$|LOG_LEVEL$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, LOG_LEVEL: 'info', ...extra };
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/** Starts the HTTP server on a free port; resolves with its URL from the "serving" log line. */
function startServer(databaseUrl: string, timeoutMs = 15_000): Promise<Running> {
  expect(existsSync(CLI), `${CLI} is missing: run pnpm build first`).toBe(true);
  const child = spawn(
    process.execPath,
    [CLI, '--transport', 'http', '--port', '0', '--rate-limit', '1000000'],
    { env: cleanEnv({ DATABASE_URL: databaseUrl }) },
  );
  children.add(child);
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.resume();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      for (const line of stderr.split('\n')) {
        if (!line.includes('serving MCP over HTTP')) continue;
        const { url } = JSON.parse(line) as { url: string };
        clearTimeout(timer);
        resolve({ child, url: `${url}/api/mcp`, exited, stderr: () => stderr });
        return;
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening; stderr: ${stderr}`));
    });
  });
}

/** Stops a server: SIGTERM, then SIGKILL if it lingers. */
async function stop(server: Running): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await server.exited;
  clearTimeout(timer);
}

interface Reply {
  id: number;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown };
}

let rpcId = 1;
async function callTool(
  url: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; body: Reply | undefined }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: rpcId++,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Reply) : undefined };
}

describe('SQLite: SIGKILL mid-burst loses no acknowledged write', () => {
  const TOTAL = 400;
  const CONCURRENCY = 8;
  const KILL_AFTER = 150;

  it(`${TOTAL} create_project calls, ${CONCURRENCY} at a time, killed after ${KILL_AFTER} acks`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'projects-durable-'));
    const file = join(dir, 'projects.db');
    const setup = await openStore(file);
    const { user, key } = await userWithKey(setup, 'burst@example.com', ['read', 'write']);
    await setup.close();

    const server = await startServer(file);
    const acked: { name: string; id: string }[] = [];
    const failed: string[] = [];
    let next = 0;
    let killed = false;
    try {
      const worker = async () => {
        while (!killed && next < TOTAL) {
          const name = `burst-${next++}`;
          try {
            const { status, body } = await callTool(server.url, key, 'create_project', { name });
            const project = body?.result?.structuredContent as { id: string } | undefined;
            if (status === 200 && body?.result?.isError === false && project) {
              acked.push({ name, id: project.id });
            } else {
              failed.push(`${name}: ${status} ${JSON.stringify(body)}`);
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
      await stop(server);
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
      rmSync(dir, { recursive: true, force: true });
    }
  }, 50_000);
});

// ---------------------------------------------------------------------------------------------

const PG_URLS = process.env.PROJECTS_TEST_DATABASE_URL
  ? [process.env.PROJECTS_TEST_DATABASE_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

async function probePostgres(): Promise<{ url: string } | { error: string }> {
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

describe('PostgreSQL: two server processes share one database', () => {
  it('a write through process A is read through process B, and back', async () => {
    const probe = await probePostgres();
    if ('error' in probe) {
      throw new Error(
        `PostgreSQL is not reachable (start it on 127.0.0.1:5432, see .ci/run): ${probe.error}`,
      );
    }
    const schema = `projects_durability_${process.pid}_${randomBytes(4).toString('hex')}`;
    const servers: Running[] = [];
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

      const ids: string[] = [];
      for (const name of ['Eins', 'Zwei', 'Drei']) {
        const { status, body } = await callTool(a.url, key, 'create_project', { name });
        expect(status).toBe(200);
        ids.push(String(body?.result?.structuredContent?.id));
      }
      const listed = await callTool(b.url, key, 'list_projects', {});
      expect(listed.status).toBe(200);
      const page = listed.body?.result?.structuredContent as
        | { projects: { id: string }[] }
        | undefined;
      const projects = page?.projects ?? [];
      expect(projects.map((p) => p.id)).toEqual([...ids].reverse());

      // B writes, A reads.
      const renamed = await callTool(b.url, key, 'update_project', {
        projectId: ids[0],
        name: 'Eins (B)',
      });
      expect(renamed.body?.result?.isError).toBe(false);
      const seen = await callTool(a.url, key, 'get_project', { projectId: ids[0] });
      expect(seen.body?.result?.structuredContent).toMatchObject({ id: ids[0], name: 'Eins (B)' });

      // A deletes, B no longer finds it.
      await callTool(a.url, key, 'delete_project', { projectId: ids[1] });
      const gone = await callTool(b.url, key, 'get_project', { projectId: ids[1] });
      expect(gone.body?.error).toEqual({
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
      for (const server of servers) await stop(server);
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
