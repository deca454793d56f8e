/**
 * events: the gateway's telemetry event log (@mcpkit/gateway EventLog) on a temp file holding
 * 1 000 000 events spread over 14 days — seeding rate, record() on the hot path, and get_events
 * query latency per shape against the target p95 ≤ 20 ms.
 *
 * The seed goes through the public API too: record() with the clock stepped per event, written by
 * the log's own batched transactions (2000 rows each, one prepared statement).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, type EventQuery, type EventStatus } from '@mcpkit/gateway';
import { seededRandom } from '@mcpkit/protocol/testing';

const SEED_EVENTS = 1_000_000;
const RECORD_EVENTS = 100_000;
const FLUSH_ROUNDS = 50;
const QUERIES_PER_SHAPE = 200;
const WARMUP_PER_SHAPE = 10;
const SPAN_MS = 14 * 86_400_000;
const TARGET_P95_MS = 20;

const BACKENDS = ['fs', 'git', 'github', 'postgres', 'slack', 'fetch', 'memory', 'time'];
const TYPES = [
  'gateway.tool_call',
  'backend.stdout_noise',
  'backend.started',
  'backend.failed',
  'backend.restarted',
  'gateway.started',
];
const STATUSES: EventStatus[] = ['success', 'failure', 'pending'];
const SINCES = ['30m', '24h', '7d'];

function pick<T>(xs: readonly T[], r: number): T {
  return xs[Math.floor(r * xs.length)] as T;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const ms = (n: number) => `${n < 10 ? n.toFixed(3) : n.toFixed(1)}`.padStart(8);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** Seeds `path`; returns a sample of the trace ids written. */
function seed(path: string, end: number, random: () => number): string[] {
  let clock = end - SPAN_MS;
  const log = EventLog.open(path, { maxEvents: 2_000_000, now: () => clock });
  const step = SPAN_MS / SEED_EVENTS;
  const traces: string[] = [];
  let written = 0;
  while (written < SEED_EVENTS) {
    // A client request: a tool call, sometimes with backend noise around it; now and then a
    // lifecycle event with a trace of its own.
    const trace_id = randomUUID();
    if (traces.length < 2000 && random() < 0.01) traces.push(trace_id);
    const backend = pick(BACKENDS, random());
    const r = random();
    const lifecycle = r < 0.03;
    const n = lifecycle ? 1 : 1 + (random() < 0.3 ? 1 : 0) + (random() < 0.1 ? 1 : 0);
    for (let k = 0; k < n && written < SEED_EVENTS; k++, written++) {
      clock += step;
      if (lifecycle) {
        const event_type = pick(TYPES.slice(2), random());
        log.record({
          trace_id,
          event_type,
          status: event_type === 'backend.failed' ? 'failure' : 'success',
          source: event_type === 'gateway.started' ? 'gateway' : backend,
          backend: event_type === 'gateway.started' ? null : backend,
          data: { pid: 1000 + Math.floor(random() * 60_000) },
        });
      } else if (k === 0) {
        const s = random();
        const status: EventStatus = s < 0.93 ? 'success' : s < 0.98 ? 'failure' : 'pending';
        log.record({
          trace_id,
          event_type: 'gateway.tool_call',
          status,
          source: 'gateway',
          backend,
          tool: `${backend}__tool_${Math.floor(random() * 20)}`,
          duration_ms: Math.round(random() * 2000) / 10,
          data: status === 'failure' ? { error: 'backend returned an error' } : null,
        });
      } else {
        log.record({
          trace_id,
          event_type: 'backend.stdout_noise',
          status: 'success',
          source: backend,
          backend,
          data: { line: 'debug: request handled' },
        });
      }
    }
  }
  log.close();
  return traces;
}

export async function eventsBench(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-events-bench-'));
  const path = join(dir, 'events.db');
  // The same data set on every run.
  const random = seededRandom(0x5eed);
  try {
    const end = Date.now();
    let t = performance.now();
    const traces = seed(path, end, random);
    const seedSec = (performance.now() - t) / 1000;
    const sizeMb = statSync(path).size / 1024 / 1024;

    // record() through the public API with the real clock, into the same 1M-event file.
    const recordLog = EventLog.open(path, { maxEvents: 2_000_000 });
    const calls: number[] = new Array(RECORD_EVENTS);
    t = performance.now();
    for (let i = 0; i < RECORD_EVENTS; i++) {
      const backend = BACKENDS[i % BACKENDS.length] as string;
      const c = performance.now();
      recordLog.record({
        event_type: 'gateway.tool_call',
        status: 'success',
        source: 'gateway',
        backend,
        tool: `${backend}__read`,
        duration_ms: 1.5,
        data: { bytes: i },
      });
      calls[i] = performance.now() - c;
    }
    recordLog.flush();
    const recordSec = (performance.now() - t) / 1000;
    calls.sort((a, b) => a - b);
    // What the 100 ms timer does under a steady 1000 calls/s: write a batch of 100.
    const flushes: number[] = [];
    for (let round = 0; round < FLUSH_ROUNDS; round++) {
      for (let i = 0; i < 100; i++) {
        recordLog.record({ event_type: 'gateway.tool_call', status: 'success', source: 'gateway' });
      }
      const start = performance.now();
      recordLog.flush();
      flushes.push(performance.now() - start);
    }
    recordLog.close();
    flushes.sort((a, b) => a - b);

    const log = EventLog.open(path, { maxEvents: 2_000_000 });
    const total = log.count();
    const shapes: { label: string; make: () => EventQuery; target: boolean }[] = [
      { label: 'by trace_id', make: () => ({ trace_id: pick(traces, random()) }), target: true },
      {
        label: 'event_type + since',
        make: () => ({ event_type: pick(TYPES, random()), since: pick(SINCES, random()) }),
        target: true,
      },
      { label: 'status', make: () => ({ status: pick(STATUSES, random()) }), target: true },
      { label: 'no filter, limit 100', make: () => ({ limit: 100 }), target: true },
      {
        label: 'event_type + status + since (info)',
        make: () => ({
          event_type: pick(TYPES, random()),
          status: pick(STATUSES, random()),
          since: pick(SINCES, random()),
        }),
        target: false,
      },
    ];
    const samples = shapes.map(() => [] as number[]);
    const rows = shapes.map(() => 0);
    // Rounds interleave the shapes, so drift in machine load hits them all alike.
    for (let round = 0; round < WARMUP_PER_SHAPE + QUERIES_PER_SHAPE; round++) {
      shapes.forEach((shape, i) => {
        const q = shape.make();
        const start = performance.now();
        const got = log.query(q);
        const elapsed = performance.now() - start;
        if (round >= WARMUP_PER_SHAPE) {
          (samples[i] as number[]).push(elapsed);
          rows[i] = (rows[i] as number) + got.length;
        }
      });
    }
    log.close();

    console.log(
      `\nevents: EventLog (SQLite, WAL) on a temp file, ${int(SEED_EVENTS)} events over 14 days`,
    );
    console.log(
      `  seed via record() + batched flushes  ${int(SEED_EVENTS / seedSec).padStart(10)} events/s   (${seedSec.toFixed(1)} s, file ${sizeMb.toFixed(0)} MB)`,
    );
    console.log(
      `  record() × ${int(RECORD_EVENTS)} via the API, incl. writes ${int(RECORD_EVENTS / recordSec).padStart(10)} events/s`,
    );
    console.log(
      `    per call p50 ${(quantile(calls, 0.5) * 1000).toFixed(1)} µs, p99 ${(quantile(calls, 0.99) * 1000).toFixed(1)} µs, max ${(calls[calls.length - 1] as number).toFixed(1)} ms (a 2000-event batch written inline)`,
    );
    console.log(
      `  timer flush of 100 events (1000 calls/s)  p50 ${quantile(flushes, 0.5).toFixed(2)} ms, p95 ${quantile(flushes, 0.95).toFixed(2)} ms`,
    );
    console.log(
      `  get_events queries on ${int(total)} events: ${QUERIES_PER_SHAPE} per shape after ${WARMUP_PER_SHAPE} warm-up`,
    );
    console.log(`  ${''.padEnd(36)}  p50 ms   p95 ms   max ms   rows/query`);
    let ok = true;
    shapes.forEach((shape, i) => {
      const sorted = [...(samples[i] as number[])].sort((a, b) => a - b);
      const p95 = quantile(sorted, 0.95);
      const verdict = shape.target
        ? `target p95 ≤ ${TARGET_P95_MS} ms  ${p95 <= TARGET_P95_MS ? 'OK' : 'MISSED'}`
        : '(informational)';
      if (shape.target && p95 > TARGET_P95_MS) ok = false;
      console.log(
        `  ${shape.label.padEnd(36)} ${ms(quantile(sorted, 0.5))} ${ms(p95)} ${ms(sorted[sorted.length - 1] as number)} ${((rows[i] as number) / QUERIES_PER_SHAPE).toFixed(0).padStart(12)}   ${verdict}`,
      );
    });
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
