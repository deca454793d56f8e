/**
 * One metric's history: a ring buffer per tier (1 s, 10 s, 1 min by default), each slot a bucket
 * of the tier's step holding the average, minimum, maximum and 95th percentile of the raw samples
 * that fell in it. Every raw sample goes into every tier's open bucket, so a coarse bucket's
 * figures come from the raw samples themselves, not from averages of averages. Storage is typed
 * arrays allocated once: a series weighs the same empty and full ({@link seriesBytes}).
 */

/** One tier: buckets of `stepMs`, `slots` of them kept (retention = step × slots). */
export interface TierSpec {
  stepMs: number;
  slots: number;
}

/**
 * The default tiers, after Netdata's (per-second data, then coarser tiers kept longer): 1 s for
 * 10 min, 10 s for 6 h, 1 min for 48 h.
 */
export const DEFAULT_TIERS: readonly TierSpec[] = Object.freeze([
  Object.freeze({ stepMs: 1000, slots: 600 }),
  Object.freeze({ stepMs: 10_000, slots: 2160 }),
  Object.freeze({ stepMs: 60_000, slots: 2880 }),
]);

/** How a step's samples become one value. */
export const AGGREGATES = ['avg', 'min', 'max', 'p95'] as const;
/** One of {@link AGGREGATES}. */
export type Aggregate = (typeof AGGREGATES)[number];

/** Bytes one slot takes: bucket number (8), avg/min/max/p95 (4 × 4), sample count (2). */
const SLOT_BYTES = 8 + 4 * 4 + 2;

/** What a series of `tiers` weighs, in bytes of typed arrays. */
export function seriesBytes(tiers: readonly TierSpec[]): number {
  return tiers.reduce((sum, t) => sum + t.slots * SLOT_BYTES, 0);
}

/** The nearest-rank percentile `q` (0–1) of `values`, which it sorts in place. */
export function percentile(values: number[] | Float64Array, q: number): number {
  values.sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * values.length));
  return values[rank - 1] as number;
}

/** The samples of the bucket a tier is filling now. */
class OpenBucket {
  bucket = Number.NaN;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  values: number[] = [];

  reset(bucket: number): void {
    this.bucket = bucket;
    this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
    this.values.length = 0;
  }

  add(value: number): void {
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    this.values.push(value);
  }
}

/** A bucket as a query reads it. */
interface Bucket {
  avg: number;
  min: number;
  max: number;
  p95: number;
  count: number;
}

class Tier {
  readonly stepMs: number;
  readonly slots: number;
  readonly #bucket: Float64Array;
  readonly #avg: Float32Array;
  readonly #min: Float32Array;
  readonly #max: Float32Array;
  readonly #p95: Float32Array;
  readonly #count: Uint16Array;
  readonly open = new OpenBucket();

  constructor(spec: TierSpec) {
    this.stepMs = spec.stepMs;
    this.slots = spec.slots;
    this.#bucket = new Float64Array(spec.slots).fill(Number.NaN);
    this.#avg = new Float32Array(spec.slots);
    this.#min = new Float32Array(spec.slots);
    this.#max = new Float32Array(spec.slots);
    this.#p95 = new Float32Array(spec.slots);
    this.#count = new Uint16Array(spec.slots);
  }

  add(t: number, value: number): void {
    const bucket = Math.floor(t / this.stepMs);
    if (bucket !== this.open.bucket) {
      // A sample from before the open bucket (a clock stepped back) starts a new bucket too: the
      // ring keeps whichever bucket was written last in a slot.
      this.close();
      this.open.reset(bucket);
    }
    this.open.add(value);
  }

  close(): void {
    const open = this.open;
    const n = open.values.length;
    if (n === 0) return;
    const slot = ((open.bucket % this.slots) + this.slots) % this.slots;
    this.#bucket[slot] = open.bucket;
    this.#avg[slot] = open.sum / n;
    this.#min[slot] = open.min;
    this.#max[slot] = open.max;
    this.#p95[slot] = percentile(open.values, 0.95);
    this.#count[slot] = Math.min(n, 0xffff);
    open.values.length = 0;
  }

  /** Bucket number `b` if the tier holds it (closed or open), else undefined. */
  read(b: number): Bucket | undefined {
    const open = this.open;
    if (b === open.bucket && open.values.length > 0) {
      const n = open.values.length;
      return {
        avg: open.sum / n,
        min: open.min,
        max: open.max,
        p95: percentile([...open.values], 0.95),
        count: n,
      };
    }
    const slot = ((b % this.slots) + this.slots) % this.slots;
    if (this.#bucket[slot] !== b) return undefined;
    return {
      avg: this.#avg[slot] as number,
      min: this.#min[slot] as number,
      max: this.#max[slot] as number,
      p95: this.#p95[slot] as number,
      count: this.#count[slot] as number,
    };
  }
}

/** One point of a query's answer: the step's start and its value, `null` where nothing was kept. */
export interface Point {
  t: number;
  value: number | null;
}

/** A query's answer: the points and which tier they came from. */
export interface QueryResult {
  /** The tier's step in ms (what one stored bucket spans). */
  tierMs: number;
  /** The answer's step in ms: a multiple of the tier's. */
  stepMs: number;
  points: Point[];
}

/**
 * Combines the buckets of one step. `avg` weighs each bucket by its sample count; `p95` is exact
 * where each bucket holds one sample (the 1 s tier) and otherwise the 95th percentile of the
 * buckets' own p95s — the value a step's worst tenth of a minute stays under, which is what a
 * chart of a coarse window can honestly say.
 */
function combine(buckets: Bucket[], aggregate: Aggregate): number {
  switch (aggregate) {
    case 'min':
      return Math.min(...buckets.map((b) => b.min));
    case 'max':
      return Math.max(...buckets.map((b) => b.max));
    case 'p95':
      return percentile(
        buckets.map((b) => b.p95),
        0.95,
      );
    default: {
      let sum = 0;
      let n = 0;
      for (const b of buckets) {
        sum += b.avg * b.count;
        n += b.count;
      }
      return sum / n;
    }
  }
}

/** A metric's tiered history. */
export class Series {
  readonly #tiers: Tier[];

  constructor(tiers: readonly TierSpec[] = DEFAULT_TIERS) {
    if (tiers.length === 0) throw new TypeError('a series needs at least one tier');
    this.#tiers = tiers.map((t) => new Tier(t));
  }

  /** Record `value` taken at `t` (epoch ms). Non-finite values are not samples and are dropped. */
  add(t: number, value: number): void {
    if (!Number.isFinite(value)) return;
    for (const tier of this.#tiers) tier.add(t, value);
  }

  /** The most recent sample's bucket value at the finest tier, if any. */
  latest(): number | null {
    const open = (this.#tiers[0] as Tier).open;
    const n = open.values.length;
    return n > 0 ? open.sum / n : null;
  }

  /** How far back each tier reaches, in ms. */
  retentionMs(): number[] {
    return this.#tiers.map((t) => t.stepMs * t.slots);
  }

  /**
   * The values of the window `[now − windowMs, now]` in steps of `stepMs` (raised to the finest
   * tier that still reaches back that far, and rounded up to a multiple of its step). Steps with
   * no sample are `null`: before the server started, or while sampling stalled.
   */
  query(now: number, windowMs: number, stepMs: number, aggregate: Aggregate): QueryResult {
    const tier =
      this.#tiers.find((t) => t.stepMs * t.slots >= windowMs && t.stepMs <= Math.max(stepMs, 1)) ??
      this.#tiers.find((t) => t.stepMs * t.slots >= windowMs) ??
      (this.#tiers[this.#tiers.length - 1] as Tier);
    const per = Math.max(1, Math.ceil(stepMs / tier.stepMs));
    const step = per * tier.stepMs;
    const last = Math.floor(now / step);
    const first = Math.floor((now - windowMs) / step) + 1;
    const points: Point[] = [];
    const buckets: Bucket[] = [];
    for (let s = first; s <= last; s++) {
      buckets.length = 0;
      const start = (s * step) / tier.stepMs;
      for (let b = start; b < start + per; b++) {
        const bucket = tier.read(b);
        if (bucket) buckets.push(bucket);
      }
      points.push({ t: s * step, value: buckets.length > 0 ? combine(buckets, aggregate) : null });
    }
    return { tierMs: tier.stepMs, stepMs: step, points };
  }
}
