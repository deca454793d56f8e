import type { AppLogger } from '../logger.js';
import type { Filesystem } from '../sampler/shapes.js';
import { kindOf, MAX_INSTANCES, METRIC_KINDS, type MetricKind, splitMetric } from './metrics.js';
import { PROCESS_TIERS, ProcessHistory, type ProcessSample } from './processes.js';
import {
  type Aggregate,
  DEFAULT_TIERS,
  type QueryResult,
  Series,
  seriesBytes,
  type TierSpec,
} from './series.js';
import type { FastReading, FastSource } from './sources.js';

/** What the history reads besides its fast source: process and filesystem lists. */
export interface SlowReads {
  processes: () => Promise<readonly ProcessSample[]>;
  filesystems: () => Promise<Filesystem[]>;
}

/** Options of a {@link History}. */
export interface HistoryOptions {
  /** The per-second readings. */
  source: FastSource;
  /** Process and filesystem lists (the sampler's, so tools and history share one call). */
  slow: SlowReads;
  /** Metric tiers; default {@link DEFAULT_TIERS}. */
  tiers?: readonly TierSpec[];
  /** Process tiers; default {@link PROCESS_TIERS}. */
  processTiers?: readonly TierSpec[];
  /** ms between fast readings. Default 1000. */
  intervalMs?: number;
  /** ms between process lists. Default 10,000. */
  processIntervalMs?: number;
  /** ms between filesystem lists. Default 60,000. */
  diskIntervalMs?: number;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  logger?: AppLogger;
}

/** Told after every recorded reading: its time and the values recorded, by metric. */
export type RecordListener = (t: number, values: ReadonlyMap<string, number>) => void;

/** A metric the history holds, as `resources/list` and the tools name it. */
export interface MetricEntry {
  metric: string;
  kind: MetricKind;
}

/**
 * The machine's recent past: a {@link Series} per metric filled from the fast source every
 * second, filesystem usage every minute, and a {@link ProcessHistory} every 10 s. Readings never
 * overlap: a reading still running when the next is due makes that one skip.
 */
export class History {
  readonly processes: ProcessHistory;
  readonly #series = new Map<string, Series>();
  readonly #instances = new Map<string, number>();
  readonly #listeners = new Set<RecordListener>();
  readonly #source: FastSource;
  readonly #slow: SlowReads;
  readonly #tiers: readonly TierSpec[];
  readonly #now: () => number;
  readonly #logger: AppLogger | undefined;
  readonly #intervals: { fast: number; processes: number; disks: number };
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  readonly #busy = new Set<string>();
  readonly #failing = new Set<string>();
  /** Instances not kept because their kind was at {@link MAX_INSTANCES}. */
  dropped = 0;

  constructor(options: HistoryOptions) {
    this.#source = options.source;
    this.#slow = options.slow;
    this.#tiers = options.tiers ?? DEFAULT_TIERS;
    this.processes = new ProcessHistory(options.processTiers ?? PROCESS_TIERS);
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    this.#intervals = {
      fast: options.intervalMs ?? 1000,
      processes: options.processIntervalMs ?? 10_000,
      disks: options.diskIntervalMs ?? 60_000,
    };
  }

  /** The history's clock, epoch ms. */
  now(): number {
    return this.#now();
  }

  /** Which fast source feeds it. */
  get sourceKind(): FastSource['kind'] {
    return this.#source.kind;
  }

  /** How often each reading is taken, in ms. */
  get intervals(): Readonly<{ fast: number; processes: number; disks: number }> {
    return this.#intervals;
  }

  /** Start reading on the intervals (timers unref'd: they never keep the process alive). */
  start(): void {
    if (this.#timers.length > 0) return;
    const every = (ms: number, what: string, run: () => Promise<void>) => {
      const go = () => void this.#once(what, run);
      go();
      const timer = setInterval(go, ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(this.#intervals.fast, 'fast', () => this.readFast());
    every(this.#intervals.processes, 'processes', () => this.readProcesses());
    every(this.#intervals.disks, 'disks', () => this.readDisks());
  }

  /** Stop reading; what was recorded stays queryable. */
  stop(): void {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
  }

  /** Be told of every recorded reading (the alert engine is). Returns the way to stop. */
  onRecord(listener: RecordListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Take one fast reading and record it. */
  async readFast(): Promise<void> {
    this.#record(this.#now(), fastValues(await this.#source.read()));
  }

  /** Take one process list and record it. */
  async readProcesses(): Promise<void> {
    const list = await this.#slow.processes();
    this.processes.add(this.#now(), list);
  }

  /** Take one filesystem list and record each filesystem's usage. */
  async readDisks(): Promise<void> {
    const values = new Map<string, number>();
    for (const fs of await this.#slow.filesystems()) {
      if (fs.use_percent !== null && fs.size_bytes > 0)
        values.set(`disk.used_percent:${fs.mount}`, fs.use_percent);
    }
    this.#record(this.#now(), values);
  }

  /** Every metric held, in catalogue order then by instance. */
  metrics(): MetricEntry[] {
    const order = (m: string) => {
      const { kind, instance } = splitMetric(m);
      return METRIC_KINDS.findIndex(
        (k) => k.name === kind && (instance === undefined) === (k.instance === undefined),
      );
    };
    return [...this.#series.keys()]
      .sort((a, b) => order(a) - order(b) || a.localeCompare(b, 'en', { numeric: true }))
      .map((metric) => ({ metric, kind: kindOf(metric) as MetricKind }));
  }

  /** The series of `metric`, if the history holds one. */
  series(metric: string): Series | undefined {
    return this.#series.get(metric);
  }

  /** `metric`'s values over the last `windowMs`; undefined when no such series is held. */
  query(
    metric: string,
    windowMs: number,
    stepMs: number,
    aggregate: Aggregate,
  ): (QueryResult & { now: number }) | undefined {
    const series = this.#series.get(metric);
    if (!series) return undefined;
    const now = this.#now();
    return { now, ...series.query(now, windowMs, stepMs, aggregate) };
  }

  /** The longest window a query can reach back, in ms. */
  get retentionMs(): number {
    return Math.max(...this.#tiers.map((t) => t.stepMs * t.slots));
  }

  /** What the buffers weigh now: series (allocated whole) plus process snapshots. */
  bytes(): { series: number; seriesCount: number; processes: number; perSeries: number } {
    const perSeries = seriesBytes(this.#tiers);
    return {
      series: perSeries * this.#series.size,
      seriesCount: this.#series.size,
      processes: this.processes.bytes(),
      perSeries,
    };
  }

  #record(t: number, values: Map<string, number>): void {
    for (const [metric, value] of values) {
      const series = this.#series.get(metric) ?? this.#create(metric);
      if (series) series.add(t, value);
      else values.delete(metric);
    }
    for (const listener of this.#listeners) listener(t, values);
  }

  #create(metric: string): Series | undefined {
    const kind = kindOf(metric);
    if (!kind) return undefined;
    if (kind.instance) {
      const key = `${kind.name}:${kind.instance}`;
      const count = this.#instances.get(key) ?? 0;
      if (count >= MAX_INSTANCES[kind.instance]) {
        this.dropped++;
        return undefined;
      }
      this.#instances.set(key, count + 1);
    }
    const series = new Series(this.#tiers);
    this.#series.set(metric, series);
    return series;
  }

  /** Run `run` unless the last one of `what` is still running; log a failure once per streak. */
  async #once(what: string, run: () => Promise<void>): Promise<void> {
    if (this.#busy.has(what)) return;
    this.#busy.add(what);
    try {
      await run();
      if (this.#failing.delete(what))
        this.#logger?.info?.({ reading: what }, 'history reading back');
    } catch (err) {
      if (!this.#failing.has(what)) {
        this.#failing.add(what);
        this.#logger?.warn({ err, reading: what }, 'history reading failed');
      }
    } finally {
      this.#busy.delete(what);
    }
  }
}

/** A fast reading as metric values; what the machine cannot tell is left out. */
export function fastValues(r: FastReading): Map<string, number> {
  const v = new Map<string, number>();
  if (r.cpu) {
    v.set('cpu.percent', r.cpu.total);
    v.set('cpu.user_percent', r.cpu.user);
    v.set('cpu.system_percent', r.cpu.system);
    v.set('cpu.iowait_percent', r.cpu.iowait);
    r.cpu.cores.forEach((p, i) => {
      v.set(`cpu.percent:${i}`, p);
    });
  }
  v.set('load.1m', r.load[0]);
  v.set('load.5m', r.load[1]);
  v.set('load.15m', r.load[2]);
  if (r.memory && r.memory.totalBytes > 0) {
    const used = r.memory.totalBytes - r.memory.availableBytes;
    v.set('memory.used_bytes', used);
    v.set('memory.used_percent', (used * 100) / r.memory.totalBytes);
    if (r.memory.swapTotalBytes > 0) {
      const swapUsed = r.memory.swapTotalBytes - r.memory.swapFreeBytes;
      v.set('swap.used_percent', (swapUsed * 100) / r.memory.swapTotalBytes);
    }
  }
  if (r.memoryPressure !== null) v.set('memory.pressure_percent', r.memoryPressure);
  if (r.swapPagesPerSec !== null) v.set('swap.pages_per_sec', r.swapPagesPerSec);
  if (r.disk) {
    v.set('disk.read_bytes_per_sec', r.disk.readBytesPerSec);
    v.set('disk.write_bytes_per_sec', r.disk.writeBytesPerSec);
  }
  if (r.net.size > 0) {
    let rx = 0;
    let tx = 0;
    for (const [name, n] of r.net) {
      rx += n.rxBytesPerSec;
      tx += n.txBytesPerSec;
      v.set(`net.rx_bytes_per_sec:${name}`, n.rxBytesPerSec);
      v.set(`net.tx_bytes_per_sec:${name}`, n.txBytesPerSec);
    }
    v.set('net.rx_bytes_per_sec', rx);
    v.set('net.tx_bytes_per_sec', tx);
  }
  return v;
}
