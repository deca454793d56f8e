import { describe, expect, it } from 'vitest';
import { percentile, Series, seriesBytes } from './series.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const tiers = [
  { stepMs: 1000, slots: 10 },
  { stepMs: 5000, slots: 12 },
];

describe('Series', () => {
  it('answers a window at the finest tier, one point per second, null where nothing was recorded', () => {
    const s = new Series(tiers);
    for (let i = 0; i < 5; i++) s.add(T0 + i * 1000 + 200, i * 10);
    const r = s.query(T0 + 4500, 8000, 1000, 'avg');
    expect(r.tierMs).toBe(1000);
    expect(r.points.map((p) => p.value)).toEqual([null, null, null, 0, 10, 20, 30, 40]);
    expect(r.points.at(-1)?.t).toBe(T0 + 4000);
  });

  it('aggregates each step by avg, min, max and p95 from the raw samples', () => {
    const s = new Series(tiers);
    // Four samples in the same second: one bucket of the 1 s tier.
    for (const v of [10, 20, 30, 100]) s.add(T0 + 100, v);
    s.add(T0 + 1100, 0);
    const at = (agg: 'avg' | 'min' | 'max' | 'p95') =>
      s.query(T0 + 1500, 2000, 2000, agg).points.map((p) => p.value);
    expect(at('avg')).toEqual([32]); // (10+20+30+100+0)/5, weighted by samples
    expect(at('min')).toEqual([0]);
    expect(at('max')).toEqual([100]);
    expect(at('p95')).toEqual([100]);
  });

  it('forgets buckets older than a tier keeps and answers longer windows from the next tier', () => {
    const s = new Series(tiers);
    for (let i = 0; i < 30; i++) s.add(T0 + i * 1000, i);
    const fine = s.query(T0 + 29_000, 10_000, 1000, 'avg');
    expect(fine.points.map((p) => p.value)).toEqual([20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    // 30 s is beyond the 1 s tier's 10 slots: the 5 s tier answers, each bucket the mean of 5.
    const coarse = s.query(T0 + 29_000, 30_000, 1000, 'avg');
    expect(coarse.tierMs).toBe(5000);
    expect(coarse.stepMs).toBe(5000);
    expect(coarse.points.map((p) => p.value)).toEqual([2, 7, 12, 17, 22, 27]);
    expect(s.query(T0 + 29_000, 30_000, 5000, 'max').points.map((p) => p.value)).toEqual([
      4, 9, 14, 19, 24, 29,
    ]);
  });

  it('rounds a step up to a multiple of the tier and combines buckets', () => {
    const s = new Series(tiers);
    for (let i = 0; i < 10; i++) s.add(T0 + i * 1000, i);
    const r = s.query(T0 + 9000, 10_000, 2500, 'min');
    expect(r.stepMs).toBe(3000);
    // Steps are aligned to multiples of the step since the epoch: [0,2], [3,5], [6,8], [9].
    expect(r.points.map((p) => p.value)).toEqual([0, 3, 6, 9]);
  });

  it('drops non-finite values and reports the latest sample', () => {
    const s = new Series(tiers);
    expect(s.latest()).toBeNull();
    s.add(T0, 5);
    s.add(T0 + 1000, Number.NaN);
    s.add(T0 + 1000, Number.POSITIVE_INFINITY);
    expect(s.latest()).toBe(5);
    expect(s.query(T0 + 1000, 2000, 1000, 'avg').points.map((p) => p.value)).toEqual([5, null]);
  });

  it('survives a clock stepped back: the slot keeps the bucket written last', () => {
    const s = new Series(tiers);
    s.add(T0 + 5000, 1);
    s.add(T0 + 2000, 2);
    s.add(T0 + 6000, 3);
    const r = s.query(T0 + 6000, 5000, 1000, 'avg');
    expect(r.points.map((p) => p.value)).toEqual([2, null, null, 1, 3]);
  });

  it('weighs the same empty and full: typed arrays allocated once', () => {
    expect(seriesBytes(tiers)).toBe((10 + 12) * 26);
  });

  it('takes the nearest-rank percentile', () => {
    expect(percentile([5, 1, 4, 2, 3], 0.95)).toBe(5);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(95);
    expect(percentile([7], 0.95)).toBe(7);
  });
});
