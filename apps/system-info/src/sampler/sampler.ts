/** How often a value changes, which sets how long its sample is reused. */
export type Tier = 'static' | 'semi' | 'dynamic';

/** How long a sample of each tier is reused, in ms. */
export const DEFAULT_TTL_MS: Readonly<Record<Tier, number>> = {
  static: Number.POSITIVE_INFINITY,
  semi: 30_000,
  dynamic: 1_500,
};

/** A collected value and when it was taken. */
export interface Sample<T> {
  /** What the collector returned. */
  value: T;
  /** ISO 8601 time the value was collected. */
  sampledAt: string;
}

type CollectorMap = Record<string, () => Promise<unknown>>;
type ValueOf<C extends CollectorMap, K extends keyof C> = Awaited<ReturnType<C[K]>>;

interface Entry {
  sample?: Sample<unknown>;
  takenAt: number;
  inflight?: Promise<Sample<unknown>>;
}

/** Options of a {@link Sampler}. */
export interface SamplerOptions {
  /** TTLs per tier instead of {@link DEFAULT_TTL_MS}. */
  ttlMs?: Partial<Record<Tier, number>>;
  /** The clock, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * One shared owner of every systeminformation call. Rates (CPU load, per-process CPU, network
 * throughput) are computed by systeminformation from the previous call in this process, so calls
 * must not be made per request: the sampler makes each at most once per TTL, shares one
 * in-flight call between concurrent callers (single-flight), and stamps every value with the time
 * it was taken.
 */
export class Sampler<C extends CollectorMap> {
  readonly #collectors: C;
  readonly #tiers: Record<keyof C, Tier>;
  readonly #ttl: Record<Tier, number>;
  readonly #now: () => number;
  readonly #entries = new Map<keyof C, Entry>();
  /** Collector invocations per key: what the single-flight test counts. */
  readonly calls = new Map<keyof C, number>();

  constructor(collectors: C, tiers: Record<keyof C, Tier>, options: SamplerOptions = {}) {
    this.#collectors = collectors;
    this.#tiers = tiers;
    this.#ttl = { ...DEFAULT_TTL_MS, ...options.ttlMs };
    this.#now = options.now ?? Date.now;
  }

  /** The sample of `key`: the cached one while fresh, else the result of one (shared) new call. */
  get<K extends keyof C>(key: K): Promise<Sample<ValueOf<C, K>>> {
    const entry = this.#entries.get(key) ?? { takenAt: Number.NEGATIVE_INFINITY };
    this.#entries.set(key, entry);
    if (entry.inflight) return entry.inflight as Promise<Sample<ValueOf<C, K>>>;
    const ttl = this.#ttl[this.#tiers[key]];
    if (entry.sample && this.#now() - entry.takenAt < ttl) {
      return Promise.resolve(entry.sample as Sample<ValueOf<C, K>>);
    }
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    const collector = this.#collectors[key] as () => Promise<ValueOf<C, K>>;
    const flight = Promise.resolve()
      .then(collector)
      .then(
        (value) => {
          const takenAt = this.#now();
          const sample: Sample<ValueOf<C, K>> = {
            value,
            sampledAt: new Date(takenAt).toISOString(),
          };
          entry.sample = sample;
          entry.takenAt = takenAt;
          entry.inflight = undefined;
          return sample;
        },
        (err: unknown) => {
          // Failures are not cached: the next caller tries again.
          entry.inflight = undefined;
          throw err;
        },
      );
    entry.inflight = flight;
    return flight;
  }

  /** Take a first sample of each key so rates have a baseline before the first request. */
  async warm(keys: readonly (keyof C)[]): Promise<void> {
    await Promise.allSettled(keys.map((k) => this.get(k)));
  }
}
