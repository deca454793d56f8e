/**
 * What the fleet tests share: the real HAProxy running `deploy/haproxy.cfg` in front of
 * instances, a PostgreSQL schema of their own, and the checks that say they are up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createRedisStateStore } from '@mcpkit/fleet';
import { waitFor } from '@mcpkit/testing';
import { REPO } from './helpers.js';

export const HAPROXY = process.env.HAPROXY ?? '/usr/sbin/haproxy';
export const PG_URL =
  process.env.PROJECTS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

// The projects app's own PostgreSQL driver: schemas are made (and dropped) with it.
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
export const pg = createRequire(join(REPO, 'apps', 'projects', 'package.json'))('pg') as {
  Client: new (config: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient;
};

/** HAProxy is installed and PostgreSQL answers, or an error saying which is missing. */
export async function preflightBalancerAndPostgres(): Promise<void> {
  if (!existsSync(HAPROXY))
    throw new Error(`HAProxy not found at ${HAPROXY} (.ci/run installs it)`);
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  await client.connect().catch((err: Error) => {
    throw new Error(`PostgreSQL unreachable at ${PG_URL}: ${err.message}`);
  });
  await client.end();
}

/**
 * A fresh schema: its name, the database URL whose `search_path` is it, and the step that drops
 * it (push it on your undo list).
 */
export async function freshSchema(
  label: string,
): Promise<{ schema: string; url: string; drop: () => Promise<void> }> {
  const schema = `e2e_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create schema "${schema}"`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    url: url.toString(),
    drop: () => run(`drop schema if exists "${schema}" cascade`),
  };
}

/** Resolves when `origin`'s `/readyz` is 200; the last answer is in the error otherwise. */
export async function ready(origin: string): Promise<void> {
  await waitFor(
    `${origin}/readyz to be 200`,
    async () => {
      const res = await fetch(`${origin}/readyz`);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${body}`);
      return true;
    },
    60_000,
    100,
  );
}

/** Which instances answered `n` probes through the balancer. */
export async function servedBy(lb: string, n: number): Promise<Set<string>> {
  const names = new Set<string>();
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${lb}/healthz`).catch(() => undefined);
    if (res?.ok) names.add(res.headers.get('x-served-by') ?? '?');
    await res?.text();
  }
  return names;
}

/**
 * HAProxy with `deploy/haproxy.cfg` on 127.0.0.1:`port` in front of three instances (their
 * origins), resolved once it routes to all three.
 */
export async function startBalancer(
  port: number,
  instances: readonly string[],
): Promise<{ lb: string; haproxy: ChildProcess }> {
  const haproxy = spawn(HAPROXY, ['-db', '-f', join(REPO, 'deploy', 'haproxy.cfg')], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      MCP_LB_BIND: `127.0.0.1:${port}`,
      ...Object.fromEntries(
        instances.map((origin, n) => [`MCP_APP${n + 1}`, new URL(origin).host]),
      ),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  haproxy.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const lb = `http://127.0.0.1:${port}`;
  try {
    // Up when every instance has passed its health checks: each of the three answers in turn.
    await waitFor(
      `HAProxy on ${lb} with three healthy instances`,
      async () => {
        if (haproxy.exitCode !== null) throw new Error(`HAProxy exited: ${stderr}`);
        return (await servedBy(lb, 6)).size === instances.length;
      },
      30_000,
      200,
    );
  } catch (err) {
    haproxy.kill('SIGKILL');
    throw err;
  }
  return { lb, haproxy };
}

/** Delete every Redis key at `redisUrl` starting with `prefix` (what a fleet left there). */
export async function dropKeys(
  prefix: string,
  redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
): Promise<void> {
  const store = await createRedisStateStore(redisUrl, { prefix });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await store.client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await store.client.del(...keys);
    } while (cursor !== '0');
  } finally {
    await store.close();
  }
}
