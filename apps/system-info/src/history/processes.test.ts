import { describe, expect, it } from 'vitest';
import { ProcessHistory, type ProcessSample, TOP_KEPT } from './processes.js';

const T0 = Date.parse('2026-07-01T00:00:00Z');
const p = (pid: number, cpu: number, rss: number, name = `p${pid}`): ProcessSample => ({
  pid,
  name,
  user: 'app',
  started: '2026-07-01T00:00:00.000Z',
  command: `${name} --run`,
  cpu_percent: cpu,
  memory_rss_bytes: rss,
});

describe('ProcessHistory', () => {
  it('ranks by CPU time over the window: a long moderate user beats a short spike', () => {
    const h = new ProcessHistory();
    for (let i = 0; i < 60; i++) {
      // pid 1: 50 % for 10 minutes; pid 2: 100 % for one minute; pid 3: idle, big.
      h.add(T0 + i * 10_000, [p(1, 50, 10), p(2, i < 6 ? 100 : 0, 20), p(3, 0, 5000)]);
    }
    const now = T0 + 599_000;
    const cpu = h.top(now, 600_000, 'cpu', 3);
    expect(cpu.stepMs).toBe(10_000);
    expect(cpu.sampledBuckets).toBe(60);
    expect(cpu.consumers.map((c) => [c.pid, c.cpu_seconds, Math.round(c.cpu_percent_avg)])).toEqual(
      [
        [1, 300, 50],
        [2, 60, 10],
        [3, 0, 0],
      ],
    );
    expect(
      h.top(now, 600_000, 'memory', 1).consumers.map((c) => [c.pid, c.memory_peak_bytes]),
    ).toEqual([[3, 5000]]);
  });

  it('keeps only the top processes per bucket, and a reused pid is another process', () => {
    const h = new ProcessHistory();
    const many = Array.from({ length: 40 }, (_, i) => p(100 + i, i, i));
    h.add(T0, many);
    h.add(T0 + 10_000, [p(100, 99, 1, 'reused')]);
    const all = h.top(T0 + 10_000, 60_000, 'cpu', 50).consumers;
    // 10 by CPU and 10 by memory are the same ten here (both grow with i), plus the new one.
    expect(all).toHaveLength(TOP_KEPT + 1);
    expect(all[0]).toMatchObject({ pid: 100, name: 'reused' });
    expect(all.filter((c) => c.pid === 100)).toHaveLength(1);
  });

  it('answers windows longer than the first tier from the minute tier', () => {
    const h = new ProcessHistory();
    for (let i = 0; i < 3 * 360; i++) h.add(T0 + i * 10_000, [p(7, 10, 1)]);
    const now = T0 + 3 * 3_600_000 - 1;
    const r = h.top(now, 3 * 3_600_000, 'cpu', 1);
    expect(r.stepMs).toBe(60_000);
    expect(r.sampledBuckets).toBe(180);
    expect(r.consumers[0]?.cpu_seconds).toBeCloseTo(0.1 * 3 * 3600, 5);
  });

  it('bounds command lines and forgets processes no bucket holds', () => {
    const h = new ProcessHistory([{ stepMs: 1000, slots: 2 }]);
    h.add(T0, [{ ...p(1, 1, 1), command: 'x'.repeat(100_000) }]);
    expect(h.top(T0, 1000, 'cpu', 1).consumers[0]?.command).toHaveLength(1024);
    // Past 4,096 identities a sweep keeps only those the two kept buckets hold, so at most
    // 4,096 are held at any time where 21,000 (over 2.5 MB) would be without it.
    for (let i = 0; i < 21_000; i++) h.add(T0 + 1000 + i * 1000, [p(1000 + i, 1, 1)]);
    expect(h.bytes()).toBeLessThan(4097 * 130 + 2 * 200);
  });
});
