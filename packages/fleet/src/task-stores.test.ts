// @module-tag redis
// @module-tag postgres
/**
 * One task contract, every store — the memory store of a process alone, and a fleet's in Redis
 * (127.0.0.1:6379, each test under its own prefix) and in PostgreSQL (127.0.0.1:5432, database
 * `test`, each test its own table) — and what only a fleet has: changes heard on every instance,
 * one bound per identity across them, and the tasks of an instance that stopped failed by the
 * others.
 */
import { randomUUID } from 'node:crypto';
import { MemoryTaskStore, TaskLimitError, type TaskStore } from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresTaskStore, type PostgresTaskStore } from './postgres-tasks.js';
import { clearRedisPrefix, createRedisStateStore, type RedisStateStore } from './redis.js';
import { createRedisTaskStore, type RedisTaskStore } from './redis-tasks.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_URL = process.env.PROJECTS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const opened: { close(): Promise<void> }[] = [];
const prefixes: string[] = [];
const tables: string[] = [];
afterAll(async () => {
  for (const s of opened.reverse()) await s.close();
  await Promise.all(prefixes.map((p) => clearRedisPrefix(REDIS_URL, p)));
  if (tables.length > 0) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const table of tables) await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  }
});

/** An instance of a fleet on the PostgreSQL table `table`. */
async function pgInstance(table: string, max?: number, kept?: number): Promise<PostgresTaskStore> {
  const store = await createPostgresTaskStore(PG_URL, {
    table,
    ...(max === undefined ? {} : { maxActivePerOwner: max }),
    ...(kept === undefined ? {} : { maxStoredPerOwner: kept }),
  });
  opened.push(store);
  return store;
}

function pgTable(): string {
  const table = `tasks_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  tables.push(table);
  return table;
}

/** An instance of a fleet under `prefix`: its own connections, the same Redis. */
async function instance(prefix: string, max?: number, kept?: number): Promise<RedisTaskStore> {
  const state: RedisStateStore = await createRedisStateStore(REDIS_URL, { prefix });
  opened.push(state);
  const tasks = await createRedisTaskStore(state, {
    ...(max === undefined ? {} : { maxActivePerOwner: max }),
    ...(kept === undefined ? {} : { maxStoredPerOwner: kept }),
  });
  opened.push(tasks);
  return tasks;
}

function fleetPrefix(): string {
  const p = `test:tasks:${randomUUID()}:`;
  prefixes.push(p);
  return p;
}

const stores: [string, (max?: number, kept?: number) => Promise<TaskStore>][] = [
  [
    'memory',
    async (max, kept) =>
      new MemoryTaskStore({
        ...(max === undefined ? {} : { maxActivePerOwner: max }),
        ...(kept === undefined ? {} : { maxStoredPerOwner: kept }),
      }),
  ],
  ['redis', (max, kept) => instance(fleetPrefix(), max, kept)],
  ['postgres', (max, kept) => pgInstance(pgTable(), max, kept)],
];

/** A request whose JSON Redis's Lua would mangle if it ever parsed it (`[]` vs `{}`). */
const request = {
  method: 'elicitation/create',
  params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {}, required: [] } },
};

describe.each(stores)('%s task store', (_name, make) => {
  it('keeps a task for its owner only, with every field as created', async () => {
    const store = await make();
    const created = await store.create({
      owner: 'alice',
      ttlMs: 60_000,
      pollIntervalMs: 500,
      runner: 'r1',
      statusMessage: 'queued',
    });
    const read = await store.get(created.taskId, 'alice');
    expect(read).toEqual(created);
    expect(read).toMatchObject({
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 500,
      runner: 'r1',
      statusMessage: 'queued',
    });
    expect(await store.get(created.taskId, 'bob')).toBeUndefined();
    expect(await store.get('missing', 'alice')).toBeUndefined();
    const forever = await store.create({ owner: 'alice', ttlMs: null });
    expect((await store.get(forever.taskId, 'alice'))?.ttlMs).toBeNull();
  });

  it('asks, takes answers in parts, ends once and for all — JSON exactly as given', async () => {
    const store = await make();
    const { taskId } = await store.create({ owner: 'alice', ttlMs: 60_000 });
    await store.ask(taskId, 'a', request);
    const asked = await store.ask(taskId, 'b', request);
    expect(asked?.status).toBe('input_required');
    expect(asked?.inputRequests).toEqual({ a: request, b: request });
    expect(await store.answer(taskId, 'bob', { a: {} })).toBeUndefined();
    const partial = await store.answer(taskId, 'alice', {
      a: { action: 'accept', content: { list: [] } },
      zz: 1,
    });
    expect(partial?.status).toBe('input_required');
    expect(partial?.inputRequests).toEqual({ b: request });
    expect(partial?.inputResponses).toEqual({ a: { action: 'accept', content: { list: [] } } });
    const working = await store.answer(taskId, 'alice', { b: { action: 'decline' } });
    expect(working?.status).toBe('working');
    expect(working?.inputRequests).toBeUndefined();
    const result = {
      content: [],
      structuredContent: { items: [], nested: { empty: {} } },
      isError: false,
    };
    const done = await store.update(taskId, { status: 'completed', result, statusMessage: 'done' });
    expect(done?.result).toEqual(result);
    expect(done?.inputResponses).toBeUndefined();
    expect(await store.update(taskId, { status: 'failed' })).toBeUndefined();
    expect(await store.ask(taskId, 'c', request)).toBeUndefined();
    const late = await store.answer(taskId, 'alice', { b: {} });
    expect(late?.status).toBe('completed');
    expect((await store.get(taskId, 'alice'))?.result).toEqual(result);
  });

  it('bounds the unfinished tasks of one identity; a finished one frees its place', async () => {
    const store = await make(2);
    const first = await store.create({ owner: 'alice', ttlMs: 60_000 });
    await store.create({ owner: 'alice', ttlMs: 60_000 });
    const refused = await store.create({ owner: 'alice', ttlMs: 60_000 }).catch((e: unknown) => e);
    expect(TaskLimitError.is(refused)).toBe(true);
    await store.create({ owner: 'bob', ttlMs: 60_000 });
    await store.update(first.taskId, { status: 'cancelled' });
    await store.create({ owner: 'alice', ttlMs: 60_000 });
  });

  it('bounds the tasks one identity keeps, finished ones included', async () => {
    const store = await make(10, 2);
    for (let i = 0; i < 2; i++) {
      const { taskId } = await store.create({ owner: 'alice', ttlMs: 60_000 });
      await store.update(taskId, { status: 'completed', result: { content: [] } });
    }
    const refused = await store.create({ owner: 'alice', ttlMs: 60_000 }).catch((e: unknown) => e);
    expect(TaskLimitError.is(refused)).toBe(true);
    await store.create({ owner: 'bob', ttlMs: 60_000 });
  });

  it('forgets a task once its ttlMs has passed', async () => {
    const store = await make(1);
    const { taskId } = await store.create({ owner: 'alice', ttlMs: 30 });
    await waitFor('expired', async () => ((await store.get(taskId, 'alice')) ? undefined : true));
    // Its place is free again.
    await store.create({ owner: 'alice', ttlMs: 60_000 });
  });
});

const fleets: [string, (max?: number) => Promise<[FleetStore, FleetStore]>][] = [
  [
    'redis',
    async (max) => {
      const prefix = fleetPrefix();
      return [await instance(prefix, max), await instance(prefix, max)];
    },
  ],
  [
    'postgres',
    async (max) => {
      const table = pgTable();
      return [await pgInstance(table, max), await pgInstance(table, max)];
    },
  ],
];

type FleetStore = TaskStore & { failOrphans(alive: ReadonlySet<string>): Promise<number> };

describe.each(fleets)('%s task store: a fleet', (_name, fleet) => {
  it("hears every instance's changes and shares one bound per identity", async () => {
    const [a, b] = await fleet(2);
    const heard: string[] = [];
    a.watch((task) => heard.push(`${task.taskId}:${task.status}`));
    const { taskId } = await a.create({ owner: 'alice', ttlMs: 60_000 });
    await b.create({ owner: 'alice', ttlMs: 60_000 });
    expect(
      TaskLimitError.is(await b.create({ owner: 'alice', ttlMs: 60_000 }).catch((e: unknown) => e)),
    ).toBe(true);
    expect((await b.get(taskId, 'alice'))?.status).toBe('working');
    await b.update(taskId, { status: 'cancelled' });
    await waitFor('cancel heard on a', () => heard.includes(`${taskId}:cancelled`) || undefined);
    expect((await a.get(taskId, 'alice'))?.status).toBe('cancelled');
  });

  it('fails the unfinished tasks of a runner that is gone, and only those', async () => {
    const [a] = await fleet();
    const gone = await a.create({ owner: 'alice', ttlMs: 60_000, runner: 'gone' });
    const finished = await a.create({ owner: 'alice', ttlMs: 60_000, runner: 'gone' });
    await a.update(finished.taskId, { status: 'completed', result: { content: [] } });
    const alive = await a.create({ owner: 'alice', ttlMs: 60_000, runner: 'alive' });
    expect(await a.failOrphans(new Set(['alive']))).toBe(1);
    expect(await a.get(gone.taskId, 'alice')).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('stopped') },
    });
    expect((await a.get(finished.taskId, 'alice'))?.status).toBe('completed');
    expect((await a.get(alive.taskId, 'alice'))?.status).toBe('working');
    // Nothing left of the gone runner to fail again.
    expect(await a.failOrphans(new Set(['alive']))).toBe(0);
  });
});
