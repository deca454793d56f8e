import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@mcpkit/testing';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteSink } from './events/sqlite-sink.js';
import {
  defaultEventLogPath,
  EventLog,
  EventQueryError,
  type EventSink,
  type EventStatus,
  type GatewayEvent,
  parseSince,
} from './events.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const T0 = Date.parse('2026-11-22T06:00:00.000Z');

/** A forwarded call of backend `fs` as the gateway records it; a failure carries its error. */
const recordCall = (log: EventLog, tool: string, status: EventStatus, duration_ms: number) =>
  log.record({
    event_type: 'gateway.tool_call',
    status,
    source: 'gw',
    backend: 'fs',
    tool,
    duration_ms,
    ...(status === 'failure' ? { data: { error: 'boom' } } : {}),
  });
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let dir: string;
const logs: EventLog[] = [];
const others: Database.Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'events-test-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const log of logs.splice(0)) await log.close();
  for (const db of others.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A log on a file in the test's directory, on a clock the test moves. */
function open(
  options: { retentionDays?: number; maxEvents?: number; flushIntervalMs?: number } = {},
) {
  const clock = { now: T0 };
  const path = join(dir, 'events.db');
  const log = EventLog.open(path, { ...options, now: () => clock.now });
  logs.push(log);
  return { log, clock, path };
}

/** A second connection, as another process would see the file. */
function rowsOnDisk(path: string): number {
  const db = new Database(path, { readonly: true });
  others.push(db);
  return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('parseSince', () => {
  it('counts durations back from now', async () => {
    expect(parseSince('30m', T0)).toBe(T0 - 30 * MIN);
    expect(parseSince('24h', T0)).toBe(T0 - DAY);
    expect(parseSince('7d', T0)).toBe(T0 - 7 * DAY);
    expect(parseSince('2w', T0)).toBe(T0 - 14 * DAY);
    expect(parseSince(' 1h ', T0)).toBe(T0 - HOUR);
  });

  it('reads ISO 8601 dates, UTC unless they carry an offset', async () => {
    expect(parseSince('2026-11-22T06:11:03.123Z', T0)).toBe(Date.parse('2026-11-22T06:11:03.123Z'));
    expect(parseSince('2026-11-22', T0)).toBe(Date.parse('2026-11-22T00:00:00Z'));
    expect(parseSince('2026-11-22T06:11', T0)).toBe(Date.parse('2026-11-22T06:11:00Z'));
    expect(parseSince('2026-11-22 06:11:03Z', T0)).toBe(Date.parse('2026-11-22T06:11:03Z'));
    expect(parseSince('2026-11-22T07:11:03+01:00', T0)).toBe(Date.parse('2026-11-22T06:11:03Z'));
    expect(parseSince('2026-11-22T01:11:03-0500', T0)).toBe(Date.parse('2026-11-22T06:11:03Z'));
    expect(parseSince('2026-11-22T06:11:03.123456Z', T0)).toBe(
      Date.parse('2026-11-22T06:11:03.123Z'),
    );
    expect(parseSince('2024-02-29', T0)).toBe(Date.parse('2024-02-29T00:00:00Z'));
  });

  it.each([
    '',
    '24',
    'h',
    '0h',
    '-1h',
    '1.5h',
    '24 hours',
    '3M',
    '1y',
    'yesterday',
    'Sun Nov 22 2026',
    '1795327860000',
    '2026-02-30',
    '2026-02-29',
    '2026-13-01',
    '2026-11-22T24:00Z',
    '2026-11-22T06:60Z',
    '2026-11-22T06:11:03+25:00',
    '2026-11-22T06:11:03.Z',
    '2026-11-22garbage',
  ])('rejects %j', (since) => {
    expect(() => parseSince(since, T0)).toThrow(EventQueryError);
  });

  it('names the accepted forms in its error', async () => {
    expect(() => parseSince('yesterday', T0)).toThrow(/"24h".*ISO 8601.*"yesterday"/);
  });
});

describe('defaultEventLogPath', () => {
  const saved = process.env.XDG_STATE_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
  });

  it('lives under XDG_STATE_HOME, else ~/.local/state', async () => {
    process.env.XDG_STATE_HOME = '/var/state';
    expect(defaultEventLogPath()).toBe('/var/state/mcpkit/gateway-events.db');
    delete process.env.XDG_STATE_HOME;
    expect(defaultEventLogPath()).toBe(join(homedir(), '.local/state/mcpkit/gateway-events.db'));
    process.env.XDG_STATE_HOME = 'relative/is/invalid';
    expect(defaultEventLogPath()).toBe(join(homedir(), '.local/state/mcpkit/gateway-events.db'));
  });
});

describe('defaultEventLogPath per config', () => {
  it('gives each config file its own log, and the built-in config the shared name', () => {
    const a = defaultEventLogPath('/etc/mcpkit/team.json');
    expect(a).toMatch(/\/mcpkit\/gateway-events-team-[0-9a-f]{8}\.db$/);
    expect(defaultEventLogPath('/etc/mcpkit/team.json')).toBe(a);
    expect(defaultEventLogPath('/srv/other/team.json')).not.toBe(a);
    expect(defaultEventLogPath('/x/we ird$name.json')).toMatch(/gateway-events-we_ird_name-/);
    expect(defaultEventLogPath()).toMatch(/\/mcpkit\/gateway-events\.db$/);
  });
});

describe('EventLog.record', () => {
  it('returns the complete event at once, with a v4 UUID and the current time', async () => {
    const { log } = open();
    const event = log.record({ event_type: 'gateway.started', status: 'success', source: 'gw' });
    expect(event).toEqual({
      timestamp: '2026-11-22T06:00:00.000Z',
      trace_id: expect.stringMatching(UUID_V4),
      event_type: 'gateway.started',
      status: 'success',
      source: 'gw',
      backend: null,
      tool: null,
      duration_ms: null,
      data: null,
      instance: log.instance,
    });
    expect(log.instance).toMatch(/^.+:\d+:[0-9a-f]{6}$/);
    const other = log.record({ event_type: 'gateway.started', status: 'success', source: 'gw' });
    expect(other.trace_id).not.toBe(event.trace_id);
  });

  it('keeps a given trace_id and normalises a given timestamp', async () => {
    const { log } = open();
    const event = log.record({
      event_type: 'gateway.tool_call',
      status: 'failure',
      source: 'gw',
      trace_id: 'trace-1',
      timestamp: '2026-11-22T07:11:03+01:00',
      backend: 'fs',
      tool: 'fs__read',
      duration_ms: 12.5,
      data: { error: 'ENOENT', pid: 42 },
    });
    expect(event.trace_id).toBe('trace-1');
    expect(event.timestamp).toBe('2026-11-22T06:11:03.000Z');
    // What query returns is what record returned.
    expect(await log.query({})).toEqual([event]);
  });

  it('writes nothing synchronously', async () => {
    const { log, path } = open();
    for (let i = 0; i < 100; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(0);
  });

  it('rejects a malformed event at once rather than poisoning a batch', async () => {
    const { log } = open();
    const base = { event_type: 'e', status: 'success' as EventStatus, source: 'gw' };
    expect(() => log.record({ ...base, status: 'ok' as EventStatus })).toThrow(TypeError);
    expect(() => log.record({ ...base, event_type: '' })).toThrow(TypeError);
    expect(() => log.record({ ...base, source: 7 as unknown as string })).toThrow(TypeError);
    expect(() => log.record({ ...base, timestamp: 'noon' })).toThrow(TypeError);
    expect(await log.count()).toBe(0);
  });

  it('stores unserialisable data as a note instead of failing the call', async () => {
    const { log } = open();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    log.record({ event_type: 'e', status: 'success', source: 'gw', data: circular });
    log.record({ event_type: 'e', status: 'success', source: 'gw', data: { n: 10n } });
    for (const event of await log.query({})) expect(event.data).toHaveProperty('unserializable');
  });

  it('note() stores the same event, and hands it to watchers, without returning it', async () => {
    const { log } = open();
    const watched: GatewayEvent[] = [];
    const event = {
      event_type: 'gateway.tool_call',
      status: 'failure' as EventStatus,
      source: 'gw',
      trace_id: 'trace-2',
      backend: 'fs',
      tool: 'fs__read',
      duration_ms: 3.5,
      data: { error: 'ENOENT' },
    };
    expect(log.note(event)).toBeUndefined();
    const unsubscribe = log.subscribe((e) => watched.push(e));
    log.note({ ...event, trace_id: 'trace-3' });
    unsubscribe();
    const stored = await log.query({});
    expect(stored).toHaveLength(2);
    expect(stored.find((e) => e.trace_id === 'trace-2')).toEqual({
      ...event,
      timestamp: '2026-11-22T06:00:00.000Z',
      instance: log.instance,
    });
    expect(watched).toEqual([stored.find((e) => e.trace_id === 'trace-3')]);
  });

  it('stores a non-finite duration as null', async () => {
    const { log } = open();
    log.record({ event_type: 'e', status: 'success', source: 'gw', duration_ms: Number.NaN });
    expect((await log.query({}))[0]?.duration_ms).toBeNull();
  });
});

describe('flush batching', () => {
  it('writes 1000 events in one go, on flush', async () => {
    const { log, path } = open();
    for (let i = 0; i < 1000; i++) {
      log.record({ event_type: 'gateway.tool_call', status: 'success', source: 'gw' });
    }
    expect(rowsOnDisk(path)).toBe(0);
    await log.flush();
    expect(rowsOnDisk(path)).toBe(1000);
    expect(await log.count()).toBe(1000);
  });

  it('flushes on its timer, as a single transaction', async () => {
    const { log, path } = open({ flushIntervalMs: 20 });
    for (let i = 0; i < 1000; i++) {
      log.record({ event_type: 'gateway.tool_call', status: 'success', source: 'gw' });
    }
    // Another connection polls: it must never see part of the batch.
    const seen = new Set<number>();
    await waitFor(
      'the batch on disk',
      () => {
        const n = rowsOnDisk(path);
        seen.add(n);
        return n === 1000;
      },
      30_000,
      2,
    );
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1000]);
  });

  it('neither keeps the process alive nor loses what it queued when the process ends, whatever its Node flags', {
    tags: ['process'],
  }, async () => {
    // A real process: it records and then has nothing left to do (exit by the end of the event
    // loop), or calls process.exit() — either way the queued events are on disk afterwards.
    const path = join(dir, 'exit.db');
    const events = new URL('../dist/events.js', import.meta.url).href;
    for (const ending of ['', 'process.exit(0);']) {
      const script = `import { EventLog } from ${JSON.stringify(events)};
        const log = EventLog.open(${JSON.stringify(path)}, { flushIntervalMs: 60000 });
        for (let i = 0; i < 500; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
        ${ending}`;
      // Started as operators start Node, with per-process flags a worker thread refuses to take.
      const flags = ['--max-old-space-size=256', '--title=mcpkit-events-test'];
      // A hang guard, half the 60 s flush interval: a process a timer or the worker held would
      // be killed by it (status null), so exiting with 0 is the proof — however long it took.
      const child = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
        timeout: 30_000,
        encoding: 'utf8',
      });
      expect(child.status, child.stderr).toBe(0);
    }
    expect(rowsOnDisk(path)).toBe(1000);
  });

  it('writes a burst of 2000 at once, bounding memory', async () => {
    // What the log hands its sink is counted: record() decides at once whether to ship.
    const appends = vi.spyOn(SqliteSink.prototype, 'append');
    const { log, path } = open({ flushIntervalMs: 60_000 });
    for (let i = 0; i < 1999; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(appends).not.toHaveBeenCalled();
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(appends.mock.calls.map(([rows]) => rows.length)).toEqual([2000]);
    // Written by the worker without any read or flush from here, long before the timer.
    await waitFor('the burst on disk', () => rowsOnDisk(path) === 2000 || undefined, 30_000);
  });
});

describe('a write that fails', () => {
  it('keeps the events, warns once, never throws from the timer or a read, and retries', async () => {
    const { log, path } = open({ flushIntervalMs: 0 });
    log.record({ event_type: 'stored', status: 'success', source: 'gw' });
    await log.flush();
    const locker = new Database(path);
    others.push(locker);
    locker.exec('BEGIN IMMEDIATE'); // another writer holds the lock past the busy timeout
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      log.record({ event_type: 'pending', status: 'pending', source: 'gw' });
      // The timer's write fails (after the busy timeout) and says so.
      await waitFor('the failed write warned', () => warnings.length > 0, 30_000);
      // Reads still answer from what is stored; an explicit flush reports the failure.
      expect((await log.query({})).map((e) => e.event_type)).toEqual(['stored']);
      await expect(log.flush()).rejects.toThrow(/locked/);
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([
        expect.stringMatching(/cannot write events, will retry: .*locked/),
      ]);
      locker.exec('COMMIT');
      expect((await log.query({})).map((e) => e.event_type)).toEqual(['pending', 'stored']);
    } finally {
      process.off('warning', onWarning);
      if (locker.inTransaction) locker.exec('ROLLBACK');
    }
  });
});

describe('EventLog.query', () => {
  // 48 events, one every 30 minutes back from T0: types cycle a,b,c; statuses cycle over 4 (so
  // every type meets every status); traces pair them up.
  const types = ['gateway.tool_call', 'backend.started', 'backend.failed'];
  const statuses: EventStatus[] = ['success', 'failure', 'pending', 'success'];
  function seeded() {
    const opened = open();
    const all: GatewayEvent[] = [];
    for (let i = 47; i >= 0; i--) {
      all.push(
        opened.log.record({
          timestamp: iso(T0 - i * 30 * MIN),
          trace_id: `trace-${Math.floor(i / 2)}`,
          event_type: types[i % 3] as string,
          status: statuses[i % 4] as EventStatus,
          source: i % 2 === 0 ? 'gw' : 'fs',
          backend: i % 2 === 0 ? null : 'fs',
          data: { i },
        }),
      );
    }
    const newestFirst = [...all].reverse();
    return { ...opened, all: newestFirst };
  }
  const idx = (events: GatewayEvent[]) => events.map((e) => (e.data as { i: number }).i);

  it('returns the newest first, 100 by default', async () => {
    const { log, all } = seeded();
    expect(await log.query({})).toEqual(all);
  });

  it('applies the default limit of 100', async () => {
    const { log } = open();
    for (let i = 0; i < 150; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(await log.query({})).toHaveLength(100);
    expect(await log.query({ limit: 1000 })).toHaveLength(150);
  });

  it('breaks timestamp ties by recording order, later first', async () => {
    const { log } = open();
    for (let i = 0; i < 5; i++) {
      log.record({ event_type: 'e', status: 'success', source: 'gw', data: { i } });
    }
    await log.flush();
    for (let i = 5; i < 10; i++) {
      log.record({ event_type: 'e', status: 'success', source: 'gw', data: { i } });
    }
    expect(idx(await log.query({}))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(idx(await log.query({ event_type: 'e', status: 'success', limit: 3 }))).toEqual([
      9, 8, 7,
    ]);
  });

  it('filters by trace_id', async () => {
    const { log } = seeded();
    expect(idx(await log.query({ trace_id: 'trace-3' }))).toEqual([6, 7]);
    expect(await log.query({ trace_id: 'nope' })).toEqual([]);
  });

  it('filters by event_type', async () => {
    const { log } = seeded();
    const got = await log.query({ event_type: 'backend.started' });
    expect(idx(got)).toEqual(Array.from({ length: 16 }, (_, k) => 1 + 3 * k));
  });

  it('filters by status', async () => {
    const { log } = seeded();
    expect(idx(await log.query({ status: 'failure' }))).toEqual(
      Array.from({ length: 12 }, (_, k) => 1 + 4 * k),
    );
  });

  it('filters by since, relative or absolute, inclusively', async () => {
    const { log } = seeded();
    expect(idx(await log.query({ since: '2h' }))).toEqual([0, 1, 2, 3, 4]);
    expect(idx(await log.query({ since: iso(T0 - 60 * MIN) }))).toEqual([0, 1, 2]);
    expect(await log.query({ since: '1d' })).toHaveLength(48);
    expect(await log.query({ since: '2026-12-01' })).toEqual([]);
  });

  it('combines every filter with every other', async () => {
    const { log, all } = seeded();
    const sinceValues = [undefined, '6h', iso(T0 - 90 * MIN)];
    const traceValues = [undefined, 'trace-0', 'trace-5', 'nope'];
    const typeValues = [undefined, ...types];
    const statusValues = [undefined, 'success', 'failure', 'pending'] as const;
    let checked = 0;
    for (const trace_id of traceValues) {
      for (const event_type of typeValues) {
        for (const status of statusValues) {
          for (const since of sinceValues) {
            for (const limit of [undefined, 2]) {
              const floor = since === undefined ? -Infinity : parseSince(since, T0);
              const expected = all
                .filter(
                  (e) =>
                    (trace_id === undefined || e.trace_id === trace_id) &&
                    (event_type === undefined || e.event_type === event_type) &&
                    (status === undefined || e.status === status) &&
                    Date.parse(e.timestamp) >= floor,
                )
                .slice(0, limit ?? 100);
              const q = { trace_id, event_type, status, since, limit };
              expect(await log.query(q), JSON.stringify(q)).toEqual(expected);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBe(4 * 4 * 4 * 3 * 2);
  });

  it('rejects a bad limit, status or since with EventQueryError', async () => {
    const { log } = seeded();
    for (const limit of [0, -1, 1001, 1.5, Number.NaN, '10' as unknown as number]) {
      await expect(log.query({ limit }), String(limit)).rejects.toThrow(EventQueryError);
    }
    expect(await log.query({ limit: 1 })).toHaveLength(1);
    expect(await log.query({ limit: 1000 })).toHaveLength(48);
    await expect(log.query({ status: 'ok' as EventStatus })).rejects.toThrow(EventQueryError);
    await expect(log.query({ since: 'last week' })).rejects.toThrow(EventQueryError);
    await expect(log.query({ trace_id: 5 as unknown as string })).rejects.toThrow(EventQueryError);
    await expect(log.query({ limit: 0 })).rejects.toThrow(
      /limit must be an integer from 1 to 1000/,
    );
  });

  it('reads events still in the buffer', async () => {
    const { log, path } = open();
    log.record({ event_type: 'e', status: 'pending', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(0);
    expect(await log.query({ status: 'pending' })).toHaveLength(1);
  });
});

describe('indexes', () => {
  it('serve every query shape, filter and order, with no sort step and no table scan', async () => {
    const { log } = open();
    const since = '24h';
    const cases: [Parameters<EventLog['query']>[0], string][] = [
      [{}, 'events_ts'],
      [{ since }, 'events_ts'],
      [{ trace_id: 't' }, 'events_trace_ts'],
      [{ trace_id: 't', since }, 'events_trace_ts'],
      [{ trace_id: 't', event_type: 'e', status: 'failure', since }, 'events_trace_ts'],
      [{ event_type: 'e' }, 'events_type_ts'],
      [{ event_type: 'e', since }, 'events_type_ts'],
      [{ event_type: 'e', status: 'failure' }, 'events_type_status_ts'],
      [{ event_type: 'e', status: 'failure', since }, 'events_type_status_ts'],
      [{ status: 'failure' }, 'events_status_ts'],
      [{ status: 'failure', since }, 'events_status_ts'],
      [{ instance: 'i' }, 'events_instance_ts'],
      [{ instance: 'i', since }, 'events_instance_ts'],
    ];
    for (const [q, index] of cases) {
      const plan = (await log.explain(q)).join(' | ');
      expect(plan, JSON.stringify(q)).toMatch(
        new RegExp(`^(SEARCH|SCAN) events USING INDEX ${index}\\b`),
      );
      expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
    expect((await log.explain({ event_type: 'e', since })).join()).toMatch(
      /\(event_type=\? AND ts>\?\)/,
    );
  });
});

describe('persistence', () => {
  it('survives closing and reopening', async () => {
    const { log, path } = open();
    const recorded = [
      log.record({
        event_type: 'gateway.started',
        status: 'success',
        source: 'gw',
        data: { pid: 1 },
      }),
      log.record({ event_type: 'backend.failed', status: 'failure', source: 'fs', backend: 'fs' }),
    ];
    await log.close();
    const again = EventLog.open(path, { now: () => T0 });
    logs.push(again);
    expect(await again.query({})).toEqual(recorded.reverse());
    expect(await again.count()).toBe(2);
  });

  it('flushes on close, then refuses reads but tolerates late records', async () => {
    const { log, path } = open();
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    await log.close();
    await log.close();
    expect(rowsOnDisk(path)).toBe(1);
    expect(log.record({ event_type: 'late', status: 'success', source: 'gw' }).event_type).toBe(
      'late',
    );
    await expect(log.query({})).rejects.toThrow(/closed/);
  });

  it('works in memory', async () => {
    const log = EventLog.open(':memory:');
    logs.push(log);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(await log.count()).toBe(1);
  });

  it('creates missing parent directories', async () => {
    const path = join(dir, 'a', 'b', 'events.db');
    const log = EventLog.open(path);
    logs.push(log);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    await log.flush();
    expect(rowsOnDisk(path)).toBe(1);
  });

  it('throws a clear error at open for a path it cannot use', async () => {
    const file = join(dir, 'file');
    writeFileSync(file, 'not a directory');
    expect(() => EventLog.open(join(file, 'events.db'))).toThrow(
      /cannot open the event log at .*file\/events\.db: .*(ENOTDIR|EEXIST)/,
    );
    // A directory that cannot be written (root writes anywhere: /proc refuses even root).
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o500 });
    const unwritable = process.getuid?.() === 0 ? '/proc/self/events.db' : join(readOnly, 'x.db');
    expect(() => EventLog.open(unwritable)).toThrow(/cannot open the event log at .*\.db: /);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(() => EventLog.open(sub)).toThrow(/cannot open the event log at .*sub/);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'x'.repeat(4096));
    expect(() => EventLog.open(junk)).toThrow(
      /cannot open the event log at .*junk\.db: .*not a database/,
    );
  });

  it('rejects bad options', async () => {
    expect(() => EventLog.open(':memory:', { maxEvents: 0 })).toThrow(RangeError);
    expect(() => EventLog.open(':memory:', { retentionDays: -1 })).toThrow(RangeError);
    expect(() => EventLog.open(':memory:', { flushIntervalMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('retention', () => {
  it('drops events older than retentionDays', async () => {
    const { log, clock } = open({ retentionDays: 7 });
    for (let d = 0; d < 10; d++) {
      log.record({
        event_type: 'e',
        status: 'success',
        source: 'gw',
        timestamp: iso(T0 - d * DAY - 1),
        data: { d },
      });
    }
    expect(await log.prune()).toBe(3); // 7, 8 and 9 days (and a millisecond) old
    expect(await log.count()).toBe(7);
    clock.now += 2 * DAY;
    expect(await log.prune()).toBe(2);
    expect((await log.query({})).map((e) => (e.data as { d: number }).d)).toEqual([0, 1, 2, 3, 4]);
  });

  it('prunes by age when it opens', async () => {
    const { log, path } = open({ retentionDays: 1 });
    log.record({ event_type: 'old', status: 'success', source: 'gw', timestamp: iso(T0 - HOUR) });
    log.record({ event_type: 'new', status: 'success', source: 'gw' });
    await log.close();
    const later = EventLog.open(path, { retentionDays: 1, now: () => T0 + DAY - MIN });
    logs.push(later);
    expect((await later.query({})).map((e) => e.event_type)).toEqual(['new']);
  });

  it('keeps at most maxEvents, dropping the oldest first', async () => {
    const { log } = open({ maxEvents: 10 });
    for (let i = 0; i < 15; i++) {
      // recorded out of time order: age decides, not insertion order
      const age = (i * 7) % 15;
      log.record({
        event_type: 'e',
        status: 'success',
        source: 'gw',
        timestamp: iso(T0 - age * MIN),
        data: { age },
      });
    }
    expect(await log.prune()).toBe(5);
    expect(await log.count()).toBe(10);
    expect((await log.query({})).map((e) => (e.data as { age: number }).age)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(await log.prune()).toBe(0);
  });

  it('prunes on its own every ~10 000 inserts', async () => {
    const { log, path } = open({ maxEvents: 500 });
    for (let i = 0; i < 10_000; i++)
      log.record({ event_type: 'e', status: 'success', source: 'gw' });
    await log.flush();
    await log.count(); // answered after the batch and its prune
    expect(rowsOnDisk(path)).toBe(500);
  });
});

describe('instances', () => {
  it('stamps every event with the instance id and filters by it', async () => {
    const path = join(dir, 'shared.db');
    const a = EventLog.open(path, { instance: 'host:1:aaaaaa' });
    const b = EventLog.open(path, { instance: 'host:2:bbbbbb' });
    logs.push(a, b);
    a.record({ event_type: 'e', status: 'success', source: 'gw', data: { from: 'a' } });
    b.record({ event_type: 'e', status: 'success', source: 'gw', data: { from: 'b' } });
    b.record({ event_type: 'e', status: 'success', source: 'gw', instance: null });
    await a.flush();
    await b.flush();
    const all = await a.query({});
    expect(all.map((e) => e.instance).sort()).toEqual(['host:1:aaaaaa', 'host:2:bbbbbb', null]);
    const onlyB = await a.query({ instance: 'host:2:bbbbbb' });
    expect(onlyB.map((e) => e.data)).toEqual([{ from: 'b' }]);
    await expect(a.query({ instance: 7 as unknown as string })).rejects.toThrow(EventQueryError);
  });

  it('migrates a log written before instance ids, keeping its events', async () => {
    const path = join(dir, 'v1.db');
    const old = new Database(path);
    old.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, trace_id TEXT NOT NULL,
      event_type TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL, backend TEXT, tool TEXT,
      duration_ms REAL, data TEXT);
      CREATE INDEX events_ts ON events (ts);`);
    old.pragma('user_version = 1');
    old
      .prepare(
        'INSERT INTO events (ts, trace_id, event_type, status, source) VALUES (?, ?, ?, ?, ?)',
      )
      .run(T0 - MIN, 'old-trace', 'gateway.started', 'success', 'gw');
    old.close();
    const { log } = { log: EventLog.open(path, { now: () => T0, instance: 'new' }) };
    logs.push(log);
    log.record({ event_type: 'gateway.started', status: 'success', source: 'gw' });
    const events = await log.query({});
    expect(events.map((e) => [e.trace_id === 'old-trace', e.instance])).toEqual([
      [false, 'new'],
      [true, null],
    ]);
    expect(await log.explain({ instance: 'new' })).toEqual([
      expect.stringMatching(/USING INDEX events_instance_ts/),
    ]);
  });
});

/**
 * The real SQLite sink, held back: appends wait until the test lets them through, as a stalled
 * disk would make them.
 */
function heldBack(): { sink: EventSink; release: () => void; appends: number[] } {
  const real = SqliteSink.open(join(dir, 'slow.db'), 30 * DAY, 1_000_000);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  /** The size of each batch handed over, as it is. */
  const appends: number[] = [];
  const sink: EventSink = {
    location: real.location,
    append: async (rows, now) => {
      appends.push(rows.length);
      await gate;
      return real.append(rows, now);
    },
    query: (f) => real.query(f),
    explain: (f) => real.explain(f),
    count: () => real.count(),
    prune: (now) => real.prune(now),
    close: (rows, now) => real.close(rows, now),
    closeSync: (rows, now, ms) => real.closeSync(rows, now, ms),
  };
  return { sink, release, appends };
}

describe('watching and keeping up', () => {
  it('flush() waits for a batch its timer already handed over', async () => {
    const { sink, release, appends } = heldBack();
    const log = EventLog.over(sink, { flushIntervalMs: 0 });
    logs.push(log);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    await waitFor('the timer to hand the batch over', () => appends.length === 1);
    const order: string[] = [];
    const flush = log.flush().then(() => order.push('flushed'));
    // A flush that did not wait for the batch would have settled by now: nothing but promises
    // stands between it and its answer, and a macrotask runs after every one of them.
    await new Promise((r) => setImmediate(r));
    order.push('released');
    release();
    await flush;
    expect(order).toEqual(['released', 'flushed']);
    expect(appends).toEqual([1]);
    expect(log.stats()).toMatchObject({ written: 1, pending: 0 });
  });

  it('tells subscribers of every event as it is recorded, until they stop', async () => {
    const { log } = open();
    const seen: string[] = [];
    const stop = log.subscribe((e) => seen.push(e.event_type));
    log.subscribe(() => {
      throw new Error('a broken watcher');
    });
    log.record({ event_type: 'one', status: 'success', source: 'gw' });
    stop();
    log.record({ event_type: 'two', status: 'success', source: 'gw' });
    expect(seen).toEqual(['one']);
    expect(await log.count()).toBe(2);
  });

  it('reports what it recorded, stored and still holds', async () => {
    const { log, clock } = open({ flushIntervalMs: 60_000 });
    for (let i = 0; i < 10; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    clock.now += 250;
    expect(log.stats()).toMatchObject({ recorded: 10, written: 0, pending: 10, lag_ms: 250 });
    await log.flush();
    expect(log.stats()).toEqual({
      recorded: 10,
      written: 10,
      pending: 0,
      lag_ms: 0,
      aggregated: 0,
      dropped: 0,
      failing: false,
    });
  });

  it('aggregates successful calls while the store lags, keeping failures one by one', async () => {
    const { sink: slow, release } = heldBack();
    // Every call in detail below the overload (they all fall in one second of the fixed clock).
    const log = EventLog.over(slow, {
      now: () => T0,
      flushIntervalMs: 60_000,
      detailPerSecond: Number.POSITIVE_INFINITY,
    });
    logs.push(log);
    const call = (tool: string, status: EventStatus, duration_ms: number) =>
      recordCall(log, tool, status, duration_ms);
    // 20 000 rows handed to the sink (10 batches of 2 000), none stored yet: it lags.
    for (let i = 0; i < 20_000; i++) call('fs__read', 'success', 1);
    expect(log.stats().pending).toBe(20_000);
    for (let i = 0; i < 300; i++) call('fs__read', 'success', i === 299 ? 9 : 3);
    for (let i = 0; i < 100; i++) call('fs__list', 'success', 2);
    call('fs__read', 'failure', 5);
    const stats = log.stats();
    expect(stats.aggregated).toBe(400);
    // Two aggregate buckets and the failure, besides the 20 000 in flight.
    expect(stats.pending).toBe(20_003);
    release();
    await log.flush();
    const aggregates = await log.query({ event_type: 'gateway.tool_call', limit: 3 });
    const byTool = Object.fromEntries(
      aggregates.filter((e) => e.data?.aggregated).map((e) => [e.tool, e]),
    );
    expect(byTool.fs__read).toMatchObject({
      status: 'success',
      backend: 'fs',
      duration_ms: 3.02,
      data: { aggregated: 300, max_duration_ms: 9 },
    });
    expect(byTool.fs__list?.data).toMatchObject({ aggregated: 100, max_duration_ms: 2 });
    expect(await log.query({ status: 'failure' })).toHaveLength(1);
    expect(await log.count()).toBe(20_000 + 2 + 1);
    expect(log.stats()).toMatchObject({ recorded: 20_401, written: 20_003, pending: 0 });
  });
});

describe('detailPerSecond: a busy gateway: successful calls beyond the rate are aggregated', () => {
  it('keeps that many calls a second one by one, folds the rest, and starts again each second', async () => {
    let now = T0;
    const log = EventLog.open(':memory:', { now: () => now, detailPerSecond: 3 });
    logs.push(log);
    const call = (tool: string, status: EventStatus = 'success') =>
      recordCall(log, tool, status, 2);
    for (let i = 0; i < 10; i++) call('fs__read');
    call('fs__read', 'failure'); // failures are never folded
    // Lifecycle events carry no tool: never folded either.
    log.record({ event_type: 'backend.started', status: 'success', source: 'gw', backend: 'fs' });
    now = T0 + 1000; // the next second: three in detail again
    for (let i = 0; i < 4; i++) call('fs__list');
    await log.flush();
    expect(log.stats()).toMatchObject({ recorded: 16, aggregated: 8 });
    const events = await log.query({ event_type: 'gateway.tool_call', limit: 100 });
    const single = events.filter((e) => e.status === 'success' && !e.data?.aggregated);
    expect(single.filter((e) => e.tool === 'fs__read')).toHaveLength(3);
    expect(single.filter((e) => e.tool === 'fs__list')).toHaveLength(3);
    const folded = Object.fromEntries(
      events.filter((e) => e.data?.aggregated).map((e) => [e.tool, e.data?.aggregated]),
    );
    expect(folded).toEqual({ fs__read: 7, fs__list: 1 });
    expect(await log.query({ status: 'failure' })).toHaveLength(1);
    expect(await log.query({ event_type: 'backend.started' })).toHaveLength(1);
  });

  it('counts gateway.tool_call events only, in seconds of its own clock whatever their timestamp', async () => {
    const log = EventLog.open(':memory:', { now: () => T0, detailPerSecond: 2 });
    logs.push(log);
    // Back-dated (replayed) calls, each in another second by its own timestamp: all recorded in
    // this one second of the log's.
    for (let i = 1; i <= 5; i++) {
      log.record({
        event_type: 'gateway.tool_call',
        status: 'success',
        source: 'gw',
        backend: 'fs',
        tool: 'fs__read',
        timestamp: new Date(T0 - i * 1000).toISOString(),
      });
    }
    // An event of another type that names a tool is not a call the rate limits.
    for (let i = 0; i < 5; i++) {
      log.record({ event_type: 'tool.audit', status: 'success', source: 'gw', tool: 'fs__read' });
    }
    await log.flush();
    expect(log.stats()).toMatchObject({ recorded: 10, aggregated: 3 });
    expect(await log.query({ event_type: 'tool.audit', limit: 100 })).toHaveLength(5);
  });

  it('0 folds every successful call; the option is checked', () => {
    const log = EventLog.open(':memory:', { detailPerSecond: 0 });
    logs.push(log);
    log.record({
      event_type: 'gateway.tool_call',
      status: 'success',
      source: 'gw',
      backend: 'fs',
      tool: 'fs__read',
    });
    expect(log.stats().aggregated).toBe(1);
    expect(() => EventLog.open(':memory:', { detailPerSecond: -1 })).toThrow(
      /detailPerSecond must be a number ≥ 0/,
    );
  });
});

describe('a SQLite log whose writer thread starts later (startAfter, the CLI at start-up)', () => {
  const record = (log: EventLog, n: number) => {
    for (let i = 0; i < n; i++) log.record({ event_type: 'later', status: 'success', source: 't' });
  };

  it('keeps the writes until then, and stores them in order when it starts', async () => {
    let go!: () => void;
    const startAfter = new Promise<void>((resolve) => {
      go = resolve;
    });
    // The writer thread itself is watched (Node tells of each thread started), not given time.
    let writers = 0;
    const onWorker = () => writers++;
    process.on('worker', onWorker);
    const path = join(dir, 'later.db');
    const log = EventLog.open(path, { startAfter, flushIntervalMs: 0 });
    logs.push(log);
    record(log, 3);
    // The batch handed to the sink now (as the 0 ms timer would), which keeps it: no thread to
    // write it was started, at open or by the batch (the 'worker' event comes on the next tick).
    const flushed = log.flush();
    await new Promise((r) => setImmediate(r));
    process.off('worker', onWorker);
    expect(writers).toBe(0);
    expect(rowsOnDisk(path)).toBe(0);
    go();
    await flushed;
    expect(rowsOnDisk(path)).toBe(3);
    const events = await log.query();
    expect(events.map((e) => e.event_type)).toStrictEqual(['later', 'later', 'later']);
  });

  it('starts at once for a query, which sees every event recorded before it', async () => {
    const log = EventLog.open(join(dir, 'query.db'), { startAfter: new Promise(() => {}) });
    logs.push(log);
    record(log, 2);
    expect(await log.query()).toHaveLength(2);
    expect(await log.count()).toBe(2);
  });

  it('stores the events at an exit before it started, from the calling thread', () => {
    const path = join(dir, 'exit.db');
    const log = EventLog.open(path, { startAfter: new Promise(() => {}), flushIntervalMs: 0 });
    record(log, 2);
    log.closeSync();
    expect(rowsOnDisk(path)).toBe(2);
  });

  it('is closed by close() before it started, with nothing lost', async () => {
    const path = join(dir, 'close.db');
    const log = EventLog.open(path, { startAfter: new Promise(() => {}) });
    record(log, 4);
    await log.close();
    expect(rowsOnDisk(path)).toBe(4);
  });
});
