// @module-tag postgres
/**
 * The event log in PostgreSQL (a fleet's shared log) against the real server on 127.0.0.1: two
 * logs stand for two gateway instances writing one table. Each test runs in a schema of its own,
 * dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../events.js';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const schemas: string[] = [];
const logs: EventLog[] = [];

function schema(): string {
  const name = `gw_events_${randomBytes(4).toString('hex')}`;
  schemas.push(name);
  return name;
}

beforeAll(async () => {
  // PostgreSQL runs here and in CI (.ci/run starts it); a clear failure if it does not.
  const client = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  await client.end();
});

afterAll(async () => {
  for (const log of logs.splice(0)) await log.close();
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  for (const name of schemas) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await client.end();
});

async function open(s: string, instance: string, now = () => T0): Promise<EventLog> {
  const log = await EventLog.connect(URL, { schema: s, instance, now, flushIntervalMs: 10 });
  logs.push(log);
  return log;
}

describe('the event log in PostgreSQL', () => {
  it("lets every instance see every instance's events, newest first, filtered like SQLite", async () => {
    const s = schema();
    const [a, b] = await Promise.all([open(s, 'host:1:aaaaaa'), open(s, 'host:2:bbbbbb')]);
    for (let i = 0; i < 5; i++) {
      a.record({
        event_type: 'gateway.tool_call',
        status: i === 4 ? 'failure' : 'success',
        source: 'gw',
        backend: 'fs',
        tool: 'fs__read',
        duration_ms: i,
        timestamp: new Date(T0 - (10 - i) * 60_000).toISOString(),
        ...(i === 4 ? { data: { error: 'boom' } } : {}),
      });
    }
    b.record({
      event_type: 'backend.failed',
      status: 'failure',
      source: 'gw',
      backend: 'git',
      trace_id: 'trace-b',
      timestamp: new Date(T0 - 60_000).toISOString(),
    });
    await a.flush();
    await b.flush();
    const seenByA = await a.query({});
    expect(seenByA.map((e) => e.instance)).toEqual([
      'host:2:bbbbbb',
      ...Array(5).fill('host:1:aaaaaa'),
    ]);
    expect(seenByA[1]).toMatchObject({
      status: 'failure',
      data: { error: 'boom' },
      duration_ms: 4,
    });
    expect(await b.count()).toBe(6);
    expect(await b.query({ instance: 'host:1:aaaaaa', status: 'failure' })).toHaveLength(1);
    expect(await b.query({ trace_id: 'trace-b' })).toMatchObject([
      { event_type: 'backend.failed' },
    ]);
    expect(await a.query({ since: '7m' })).toHaveLength(3);
    expect(await a.query({ event_type: 'gateway.tool_call', limit: 2 })).toHaveLength(2);
    expect((await a.explain({ instance: 'x' })).join('\n')).toMatch(/gateway_events/);
  });

  it('prunes by age and by count, oldest first', async () => {
    const s = schema();
    let now = T0;
    const log = await EventLog.connect(URL, {
      schema: s,
      retentionDays: 1,
      maxEvents: 3,
      now: () => now,
    });
    logs.push(log);
    for (let h = 0; h < 6; h++) {
      log.record({
        event_type: 'e',
        status: 'success',
        source: 'gw',
        data: { h },
        timestamp: new Date(T0 - h * 3_600_000).toISOString(),
      });
    }
    expect(await log.prune()).toBe(3);
    expect((await log.query({})).map((e) => e.data?.h)).toEqual([0, 1, 2]);
    now = T0 + 86_400_000 - 30 * 60_000; // 23.5 h later: the 1 h and 2 h old ones are past a day
    expect(await log.prune()).toBe(2);
    expect(await log.count()).toBe(1);
  });

  it('stores what is queued when it closes, and refuses reads afterwards', async () => {
    const s = schema();
    const log = await open(s, 'closing');
    log.record({ event_type: 'last', status: 'success', source: 'gw' });
    await log.close();
    const again = await open(s, 'reader');
    expect((await again.query({})).map((e) => e.event_type)).toEqual(['last']);
    await expect(log.query({})).rejects.toThrow(/closed/);
  });

  it('names the server it cannot use, without the password', async () => {
    await expect(
      EventLog.connect('postgres://nouser:s3cret@127.0.0.1:5432/test', { schema: schema() }),
    ).rejects.toThrow(
      /^cannot open the event log at postgres:\/\/127\.0\.0\.1:5432\/test: .*role "nouser" does not exist/,
    );
    await expect(
      EventLog.connect('postgres://nouser:s3cret@127.0.0.1:5432/test', { schema: schema() }),
    ).rejects.not.toThrow(/s3cret/);
    await expect(EventLog.connect(URL, { schema: 'Bad-Name' })).rejects.toThrow(
      /invalid schema name/,
    );
  });
});
