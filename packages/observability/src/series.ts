/**
 * Labelled counters and histograms for hot paths: each series is a few plain numbers that a
 * call updates with no label hashing, turned into prom-client's exposition at scrape time.
 * prom-client hashes the label set on every `inc`/`observe` (a child from `labels()` too), which
 * cost a request-per-second figure of several percent at 15,000 calls per second.
 */
import type { Metric, Registry } from 'prom-client';

type Labels<L extends string> = Readonly<Record<L, string>>;

/** One series of a {@link LabelledCounter}: `inc()` is an addition. */
export class CounterSeries {
  /** The count so far. */
  value = 0;
  /** The series' labels, as exported. */
  readonly labels: Readonly<Record<string, string>>;
  /** @param labels - the series' labels, as exported */
  constructor(labels: Readonly<Record<string, string>>) {
    this.labels = labels;
  }
  /** Add `n` (default 1). */
  inc(n = 1): void {
    this.value += n;
  }
}

/** One series of a {@link LabelledHistogram}: `observe()` bumps a bucket, the sum and the count. */
export class HistogramSeries {
  /** Observations per bucket (not cumulative), the last one for +Inf. */
  readonly counts: Float64Array;
  /** The sum of the observations. */
  sum = 0;
  /** How many there were. */
  count = 0;
  /**
   * @param labels - the series' labels, as exported
   * @param bounds - the upper bounds of the buckets, ascending
   */
  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }
  /** The series' labels, as exported. */
  readonly labels: Readonly<Record<string, string>>;
  /** The upper bounds of the buckets, ascending. */
  readonly bounds: readonly number[];
  /** Record one value. */
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    (this.counts as Float64Array)[i] = ((this.counts as Float64Array)[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

/** What a family is configured with. */
export interface SeriesOptions<L extends string> {
  /** The metric name (a counter's should end in `_total`). */
  name: string;
  /** The `# HELP` text. */
  help: string;
  /** The label names, in the order they are exported. */
  labelNames: readonly L[];
  /** Where it is exported. */
  registry: Registry;
}

abstract class Family<L extends string, S extends { labels: Readonly<Record<string, string>> }> {
  readonly #series = new Map<string, S>();
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';

  constructor(options: SeriesOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    options.registry.registerMetric(this as unknown as Metric);
  }

  /**
   * The series of these labels, made on first use: keep it (a Map lookup per call otherwise).
   * Label values must come from a bounded set — unknown input is no label.
   */
  series(labels: Labels<L>): S {
    const key = this.labelNames.map((n) => labels[n]).join('\u0000');
    let series = this.#series.get(key);
    if (series === undefined) {
      const own: Record<string, string> = {};
      for (const n of this.labelNames) own[n] = labels[n];
      series = this.make(own);
      this.#series.set(key, series);
    }
    return series;
  }

  /** Forget every series (a backend that is gone). */
  reset(): void {
    this.#series.clear();
  }

  protected all(): IterableIterator<S> {
    return this.#series.values();
  }

  protected abstract make(labels: Record<string, string>): S;
}

/** A labelled counter whose series are plain numbers (see the module comment). */
export class LabelledCounter<L extends string> extends Family<L, CounterSeries> {
  /** The Prometheus type. */
  readonly type = 'counter' as const;
  /** A new series of these labels. */
  protected make(labels: Record<string, string>): CounterSeries {
    return new CounterSeries(labels);
  }
  /** prom-client's view of it, at scrape time. */
  async get() {
    const values = [...this.all()].map((s) => ({ value: s.value, labels: s.labels }));
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}

/** A labelled histogram whose series are plain numbers (see the module comment). */
export class LabelledHistogram<L extends string> extends Family<L, HistogramSeries> {
  /** The Prometheus type. */
  readonly type = 'histogram' as const;
  readonly #bounds: readonly number[];
  /** @param options - also `buckets`: the upper bounds, ascending */
  constructor(options: SeriesOptions<L> & { buckets: readonly number[] }) {
    super(options);
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
  }
  /** A new series of these labels. */
  protected make(labels: Record<string, string>): HistogramSeries {
    return new HistogramSeries(labels, this.#bounds);
  }
  /** prom-client's view of it, at scrape time: cumulative buckets, `+Inf`, sum and count. */
  async get() {
    const values: { value: number; labels: Record<string, string | number>; metricName: string }[] =
      [];
    for (const s of this.all()) {
      let cumulative = 0;
      s.bounds.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        values.push({
          value: cumulative,
          labels: { ...s.labels, le },
          metricName: `${this.name}_bucket`,
        });
      });
      values.push({
        value: s.count,
        labels: { ...s.labels, le: '+Inf' },
        metricName: `${this.name}_bucket`,
      });
      values.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}
