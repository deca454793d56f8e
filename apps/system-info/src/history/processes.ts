/**
 * Who used the machine: snapshots of the top processes at two tiers (10 s for an hour, 1 min for
 * 48 h by default). Each bucket merges the process lists sampled in it — CPU averaged over the
 * bucket's samples (a process absent from one counts 0 there), memory at its peak — and keeps the
 * top {@link TOP_KEPT} by CPU and the top {@link TOP_KEPT} by memory. A process outside both in
 * every bucket of a window is not a top consumer of it, which is what `top_consumers` answers.
 */
import type { TierSpec } from './series.js';

/** Process tiers: 10 s for 1 h, 1 min for 48 h. */
export const PROCESS_TIERS: readonly TierSpec[] = Object.freeze([
  Object.freeze({ stepMs: 10_000, slots: 360 }),
  Object.freeze({ stepMs: 60_000, slots: 2880 }),
]);

/** Processes kept per bucket by each measure. */
export const TOP_KEPT = 10;

/** A process as the history takes it from a sample. */
export interface ProcessSample {
  pid: number;
  name: string;
  user: string;
  started: string | null;
  command: string;
  cpu_percent: number;
  memory_rss_bytes: number;
}

/** Who a process is across samples: a pid is reused, pid + start time + name is not. */
export interface ProcessIdentity {
  pid: number;
  name: string;
  user: string;
  started: string | null;
  command: string;
}

interface Snapshot {
  bucket: number;
  ids: Int32Array;
  cpu: Float32Array;
  rss: Float64Array;
}

interface Accumulated {
  cpuSum: number;
  rssMax: number;
}

class ProcessTier {
  readonly stepMs: number;
  readonly slots: number;
  readonly ring: (Snapshot | undefined)[];
  openBucket = Number.NaN;
  openSamples = 0;
  readonly open = new Map<number, Accumulated>();

  constructor(spec: TierSpec) {
    this.stepMs = spec.stepMs;
    this.slots = spec.slots;
    this.ring = new Array(spec.slots).fill(undefined);
  }

  add(t: number, list: readonly { id: number; cpu: number; rss: number }[]): void {
    const bucket = Math.floor(t / this.stepMs);
    if (bucket !== this.openBucket) {
      this.close();
      this.openBucket = bucket;
    }
    this.openSamples++;
    for (const p of list) {
      const acc = this.open.get(p.id);
      if (acc) {
        acc.cpuSum += p.cpu;
        acc.rssMax = Math.max(acc.rssMax, p.rss);
      } else this.open.set(p.id, { cpuSum: p.cpu, rssMax: p.rss });
    }
  }

  /** The open bucket as a snapshot (what a query reads before the bucket closes). */
  openSnapshot(): Snapshot | undefined {
    if (this.openSamples === 0) return undefined;
    const n = this.openSamples;
    const all = [...this.open].map(([id, a]) => ({ id, cpu: a.cpuSum / n, rss: a.rssMax }));
    const byCpu = [...all].sort((a, b) => b.cpu - a.cpu).slice(0, TOP_KEPT);
    const byRss = [...all].sort((a, b) => b.rss - a.rss).slice(0, TOP_KEPT);
    const kept = [...new Map([...byCpu, ...byRss].map((p) => [p.id, p])).values()];
    return {
      bucket: this.openBucket,
      ids: Int32Array.from(kept, (p) => p.id),
      cpu: Float32Array.from(kept, (p) => p.cpu),
      rss: Float64Array.from(kept, (p) => p.rss),
    };
  }

  close(): void {
    const snap = this.openSnapshot();
    if (snap) this.ring[((snap.bucket % this.slots) + this.slots) % this.slots] = snap;
    this.open.clear();
    this.openSamples = 0;
  }

  /** Snapshots of buckets `[first, last]` that the tier holds, the open one included. */
  *between(first: number, last: number): Generator<Snapshot> {
    const open = this.openSnapshot();
    for (let b = first; b <= last; b++) {
      if (open && b === open.bucket) {
        yield open;
        continue;
      }
      const snap = this.ring[((b % this.slots) + this.slots) % this.slots];
      if (snap && snap.bucket === b) yield snap;
    }
  }
}

/** One process's use over a window. */
export interface Consumer extends ProcessIdentity {
  /** CPU time used in the window, in seconds of one core (estimated from the samples). */
  cpu_seconds: number;
  /** Average CPU over the window's sampled time, in % of one core (top's convention). */
  cpu_percent_avg: number;
  /** The most resident memory seen. */
  memory_peak_bytes: number;
  /** In how many of the window's buckets it was a top process. */
  buckets: number;
}

/** The top processes of a window and how much of it was sampled. */
export interface ConsumersResult {
  consumers: Consumer[];
  /** The tier's bucket, in ms. */
  stepMs: number;
  /** How many buckets of the window hold a sample (the server may have started recently). */
  sampledBuckets: number;
}

/** Snapshots of the top processes, tiered; see the module comment. */
export class ProcessHistory {
  readonly #tiers: ProcessTier[];
  readonly #ids = new Map<string, number>();
  readonly #who = new Map<number, ProcessIdentity>();
  #nextId = 1;
  /** Identities held before the next sweep: twice those the last sweep kept, at least 4,096. */
  #sweepAt = 4096;

  constructor(tiers: readonly TierSpec[] = PROCESS_TIERS) {
    this.#tiers = tiers.map((t) => new ProcessTier(t));
  }

  /** Record one process list taken at `t`. */
  add(t: number, list: readonly ProcessSample[]): void {
    const entries = list.map((p) => ({
      id: this.#intern(p),
      cpu: Number.isFinite(p.cpu_percent) ? p.cpu_percent : 0,
      rss: Number.isFinite(p.memory_rss_bytes) ? p.memory_rss_bytes : 0,
    }));
    for (const tier of this.#tiers) tier.add(t, entries);
    if (this.#who.size > this.#sweepAt) {
      this.#forget();
      this.#sweepAt = Math.max(4096, 2 * this.#who.size);
    }
  }

  /** The top `top` processes of `[now − windowMs, now]` by `by`. */
  top(now: number, windowMs: number, by: 'cpu' | 'memory', top: number): ConsumersResult {
    const tier =
      this.#tiers.find((t) => t.stepMs * t.slots >= windowMs) ??
      (this.#tiers[this.#tiers.length - 1] as ProcessTier);
    const last = Math.floor(now / tier.stepMs);
    const first = Math.floor((now - windowMs) / tier.stepMs) + 1;
    const use = new Map<number, { cpuSeconds: number; rss: number; buckets: number }>();
    let sampled = 0;
    for (const snap of tier.between(first, last)) {
      sampled++;
      snap.ids.forEach((id, i) => {
        const u = use.get(id) ?? { cpuSeconds: 0, rss: 0, buckets: 0 };
        u.cpuSeconds += ((snap.cpu[i] as number) / 100) * (tier.stepMs / 1000);
        u.rss = Math.max(u.rss, snap.rss[i] as number);
        u.buckets++;
        use.set(id, u);
      });
    }
    const seconds = (sampled * tier.stepMs) / 1000;
    const consumers = [...use]
      .sort(([, a], [, b]) => (by === 'cpu' ? b.cpuSeconds - a.cpuSeconds : b.rss - a.rss))
      .slice(0, top)
      .map(([id, u]) => ({
        ...(this.#who.get(id) as ProcessIdentity),
        cpu_seconds: u.cpuSeconds,
        cpu_percent_avg: seconds > 0 ? (u.cpuSeconds / seconds) * 100 : 0,
        memory_peak_bytes: u.rss,
        buckets: u.buckets,
      }));
    return { consumers, stepMs: tier.stepMs, sampledBuckets: sampled };
  }

  /** An estimate of the bytes kept: snapshot arrays and identities. */
  bytes(): number {
    let total = 0;
    for (const tier of this.#tiers) {
      total += tier.slots * 8;
      for (const snap of tier.ring) if (snap) total += 160 + snap.ids.length * 16;
    }
    for (const who of this.#who.values()) total += 120 + 2 * (who.name.length + who.command.length);
    return total;
  }

  #intern(p: ProcessSample): number {
    const key = `${p.pid}\u0000${p.started ?? ''}\u0000${p.name}`;
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(key, id);
      this.#who.set(id, {
        pid: p.pid,
        name: p.name,
        user: p.user,
        started: p.started,
        // Bounded: a command line can be megabytes; the tool redacts what it shows.
        command: p.command.slice(0, 1024),
      });
    }
    return id;
  }

  /** Drop identities no bucket holds any more (a busy machine starts processes all day). */
  #forget(): void {
    const held = new Set<number>();
    for (const tier of this.#tiers) {
      for (const snap of tier.ring) if (snap) for (const id of snap.ids) held.add(id);
      for (const id of tier.open.keys()) held.add(id);
    }
    for (const [key, id] of this.#ids) {
      if (!held.has(id)) {
        this.#ids.delete(key);
        this.#who.delete(id);
      }
    }
  }
}
