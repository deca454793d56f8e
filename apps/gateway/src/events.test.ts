import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultEventLogPath,
  EventLog,
  EventQueryError,
  type EventStatus,
  type GatewayEvent,
  parseSince,
} from './events.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let dir: string;
const logs: EventLog[] = [];
const others: Database.Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'events-test-'));
});
afterEach(() => {
  for (const log of logs.splice(0)) log.close();
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
  it('counts durations back from now', () => {
    expect(parseSince('30m', T0)).toBe(T0 - 30 * MIN);
    expect(parseSince('24h', T0)).toBe(T0 - DAY);
    expect(parseSince('7d', T0)).toBe(T0 - 7 * DAY);
    expect(parseSince('2w', T0)).toBe(T0 - 14 * DAY);
    expect(parseSince(' 1h ', T0)).toBe(T0 - HOUR);
  });

  it('reads ISO 8601 dates, UTC unless they carry an offset', () => {
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

  it('names the accepted forms in its error', () => {
    expect(() => parseSince('yesterday', T0)).toThrow(/"24h".*ISO 8601.*"yesterday"/);
  });
});

describe('defaultEventLogPath', () => {
  const saved = process.env.XDG_STATE_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
  });

  it('lives under XDG_STATE_HOME, else ~/.local/state', () => {
    process.env.XDG_STATE_HOME = '/var/state';
    expect(defaultEventLogPath()).toBe('/var/state/mcpkit/gateway-events.db');
    delete process.env.XDG_STATE_HOME;
    expect(defaultEventLogPath()).toBe(join(homedir(), '.local/state/mcpkit/gateway-events.db'));
    process.env.XDG_STATE_HOME = 'relative/is/invalid';
    expect(defaultEventLogPath()).toBe(join(homedir(), '.local/state/mcpkit/gateway-events.db'));
  });
});

describe('EventLog.record', () => {
  it('returns the complete event at once, with a v4 UUID and the current time', () => {
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
    });
    const other = log.record({ event_type: 'gateway.started', status: 'success', source: 'gw' });
    expect(other.trace_id).not.toBe(event.trace_id);
  });

  it('keeps a given trace_id and normalises a given timestamp', () => {
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
    expect(log.query({})).toEqual([event]);
  });

  it('writes nothing synchronously', () => {
    const { log, path } = open();
    for (let i = 0; i < 100; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(0);
  });

  it('rejects a malformed event at once rather than poisoning a batch', () => {
    const { log } = open();
    const base = { event_type: 'e', status: 'success' as EventStatus, source: 'gw' };
    expect(() => log.record({ ...base, status: 'ok' as EventStatus })).toThrow(TypeError);
    expect(() => log.record({ ...base, event_type: '' })).toThrow(TypeError);
    expect(() => log.record({ ...base, source: 7 as unknown as string })).toThrow(TypeError);
    expect(() => log.record({ ...base, timestamp: 'noon' })).toThrow(TypeError);
    expect(log.count()).toBe(0);
  });

  it('stores unserialisable data as a note instead of failing the call', () => {
    const { log } = open();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    log.record({ event_type: 'e', status: 'success', source: 'gw', data: circular });
    log.record({ event_type: 'e', status: 'success', source: 'gw', data: { n: 10n } });
    for (const event of log.query({})) expect(event.data).toHaveProperty('unserializable');
  });

  it('stores a non-finite duration as null', () => {
    const { log } = open();
    log.record({ event_type: 'e', status: 'success', source: 'gw', duration_ms: Number.NaN });
    expect(log.query({})[0]?.duration_ms).toBeNull();
  });
});

describe('flush batching', () => {
  it('writes 1000 events in one go, on flush', () => {
    const { log, path } = open();
    for (let i = 0; i < 1000; i++) {
      log.record({ event_type: 'gateway.tool_call', status: 'success', source: 'gw' });
    }
    expect(rowsOnDisk(path)).toBe(0);
    log.flush();
    expect(rowsOnDisk(path)).toBe(1000);
    expect(log.count()).toBe(1000);
  });

  it('flushes on its timer, as a single transaction', async () => {
    const { log, path } = open({ flushIntervalMs: 20 });
    for (let i = 0; i < 1000; i++) {
      log.record({ event_type: 'gateway.tool_call', status: 'success', source: 'gw' });
    }
    // Another connection polls: it must never see part of the batch.
    const seen = new Set<number>();
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      const n = rowsOnDisk(path);
      seen.add(n);
      if (n === 1000) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1000]);
  });

  it('does not keep the process alive', () => {
    const { log } = open();
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    const timer = (log as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
  });

  it('writes a burst of 2000 at once, bounding memory', () => {
    const { log, path } = open();
    for (let i = 0; i < 1999; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(0);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(2000);
  });
});

describe('a write that fails', () => {
  it('keeps the events, warns once, never throws from the timer or a read, and retries', async () => {
    const { log, path } = open({ flushIntervalMs: 0 });
    log.record({ event_type: 'stored', status: 'success', source: 'gw' });
    log.flush();
    const locker = new Database(path);
    others.push(locker);
    locker.exec('BEGIN IMMEDIATE'); // another writer holds the lock past the busy timeout
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      log.record({ event_type: 'pending', status: 'pending', source: 'gw' });
      const deadline = Date.now() + 3000;
      while (warnings.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      // Reads still answer from what is stored; an explicit flush reports the failure.
      expect(log.query({}).map((e) => e.event_type)).toEqual(['stored']);
      expect(() => log.flush()).toThrow(/locked/);
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([
        expect.stringMatching(/cannot write events, will retry: .*locked/),
      ]);
      locker.exec('COMMIT');
      expect(log.query({}).map((e) => e.event_type)).toEqual(['pending', 'stored']);
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

  it('returns the newest first, 100 by default', () => {
    const { log, all } = seeded();
    expect(log.query({})).toEqual(all);
  });

  it('applies the default limit of 100', () => {
    const { log } = open();
    for (let i = 0; i < 150; i++) log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(log.query({})).toHaveLength(100);
    expect(log.query({ limit: 1000 })).toHaveLength(150);
  });

  it('breaks timestamp ties by recording order, later first', () => {
    const { log } = open();
    for (let i = 0; i < 5; i++) {
      log.record({ event_type: 'e', status: 'success', source: 'gw', data: { i } });
    }
    log.flush();
    for (let i = 5; i < 10; i++) {
      log.record({ event_type: 'e', status: 'success', source: 'gw', data: { i } });
    }
    expect(idx(log.query({}))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(idx(log.query({ event_type: 'e', status: 'success', limit: 3 }))).toEqual([9, 8, 7]);
  });

  it('filters by trace_id', () => {
    const { log } = seeded();
    expect(idx(log.query({ trace_id: 'trace-3' }))).toEqual([6, 7]);
    expect(log.query({ trace_id: 'nope' })).toEqual([]);
  });

  it('filters by event_type', () => {
    const { log } = seeded();
    const got = log.query({ event_type: 'backend.started' });
    expect(idx(got)).toEqual(Array.from({ length: 16 }, (_, k) => 1 + 3 * k));
  });

  it('filters by status', () => {
    const { log } = seeded();
    expect(idx(log.query({ status: 'failure' }))).toEqual(
      Array.from({ length: 12 }, (_, k) => 1 + 4 * k),
    );
  });

  it('filters by since, relative or absolute, inclusively', () => {
    const { log } = seeded();
    expect(idx(log.query({ since: '2h' }))).toEqual([0, 1, 2, 3, 4]);
    expect(idx(log.query({ since: iso(T0 - 60 * MIN) }))).toEqual([0, 1, 2]);
    expect(log.query({ since: '1d' })).toHaveLength(48);
    expect(log.query({ since: '2026-12-01' })).toEqual([]);
  });

  it('combines every filter with every other', () => {
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
              expect(log.query(q), JSON.stringify(q)).toEqual(expected);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBe(4 * 4 * 4 * 3 * 2);
  });

  it('rejects a bad limit, status or since with EventQueryError', () => {
    const { log } = seeded();
    for (const limit of [0, -1, 1001, 1.5, Number.NaN, '10' as unknown as number]) {
      expect(() => log.query({ limit }), String(limit)).toThrow(EventQueryError);
    }
    expect(log.query({ limit: 1 })).toHaveLength(1);
    expect(log.query({ limit: 1000 })).toHaveLength(48);
    expect(() => log.query({ status: 'ok' as EventStatus })).toThrow(EventQueryError);
    expect(() => log.query({ since: 'last week' })).toThrow(EventQueryError);
    expect(() => log.query({ trace_id: 5 as unknown as string })).toThrow(EventQueryError);
    expect(() => log.query({ limit: 0 })).toThrow(/limit must be an integer from 1 to 1000/);
  });

  it('reads events still in the buffer', () => {
    const { log, path } = open();
    log.record({ event_type: 'e', status: 'pending', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(0);
    expect(log.query({ status: 'pending' })).toHaveLength(1);
  });
});

describe('indexes', () => {
  it('serve every query shape, filter and order, with no sort step and no table scan', () => {
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
    ];
    for (const [q, index] of cases) {
      const plan = log.explain(q).join(' | ');
      expect(plan, JSON.stringify(q)).toMatch(
        new RegExp(`^(SEARCH|SCAN) events USING INDEX ${index}\\b`),
      );
      expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
    expect(log.explain({ event_type: 'e', since }).join()).toMatch(/\(event_type=\? AND ts>\?\)/);
  });
});

describe('persistence', () => {
  it('survives closing and reopening', () => {
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
    log.close();
    const again = EventLog.open(path, { now: () => T0 });
    logs.push(again);
    expect(again.query({})).toEqual(recorded.reverse());
    expect(again.count()).toBe(2);
  });

  it('flushes on close, then refuses reads but tolerates late records', () => {
    const { log, path } = open();
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    log.close();
    log.close();
    expect(rowsOnDisk(path)).toBe(1);
    expect(log.record({ event_type: 'late', status: 'success', source: 'gw' }).event_type).toBe(
      'late',
    );
    expect(() => log.query({})).toThrow(/closed/);
  });

  it('works in memory', () => {
    const log = EventLog.open(':memory:');
    logs.push(log);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(log.count()).toBe(1);
  });

  it('creates missing parent directories', () => {
    const path = join(dir, 'a', 'b', 'events.db');
    const log = EventLog.open(path);
    logs.push(log);
    log.record({ event_type: 'e', status: 'success', source: 'gw' });
    log.flush();
    expect(rowsOnDisk(path)).toBe(1);
  });

  it('throws a clear error at open for a path it cannot use', () => {
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

  it('rejects bad options', () => {
    expect(() => EventLog.open(':memory:', { maxEvents: 0 })).toThrow(RangeError);
    expect(() => EventLog.open(':memory:', { retentionDays: -1 })).toThrow(RangeError);
    expect(() => EventLog.open(':memory:', { flushIntervalMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('retention', () => {
  it('drops events older than retentionDays', () => {
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
    expect(log.prune()).toBe(3); // 7, 8 and 9 days (and a millisecond) old
    expect(log.count()).toBe(7);
    clock.now += 2 * DAY;
    expect(log.prune()).toBe(2);
    expect(log.query({}).map((e) => (e.data as { d: number }).d)).toEqual([0, 1, 2, 3, 4]);
  });

  it('prunes by age when it opens', () => {
    const { log, path } = open({ retentionDays: 1 });
    log.record({ event_type: 'old', status: 'success', source: 'gw', timestamp: iso(T0 - HOUR) });
    log.record({ event_type: 'new', status: 'success', source: 'gw' });
    log.close();
    const later = EventLog.open(path, { retentionDays: 1, now: () => T0 + DAY - MIN });
    logs.push(later);
    expect(later.query({}).map((e) => e.event_type)).toEqual(['new']);
  });

  it('keeps at most maxEvents, dropping the oldest first', () => {
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
    expect(log.prune()).toBe(5);
    expect(log.count()).toBe(10);
    expect(log.query({}).map((e) => (e.data as { age: number }).age)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(log.prune()).toBe(0);
  });

  it('prunes on its own every ~10 000 inserts', () => {
    const { log, path } = open({ maxEvents: 500 });
    for (let i = 0; i < 10_000; i++)
      log.record({ event_type: 'e', status: 'success', source: 'gw' });
    expect(rowsOnDisk(path)).toBe(500);
  });
});
