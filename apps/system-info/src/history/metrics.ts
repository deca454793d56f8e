/**
 * The metrics the history keeps. A name is `family.measure`, and `family.measure:instance` for
 * one of several (a core, a mount point, a network interface): `cpu.percent` is the whole CPU,
 * `cpu.percent:0` its first core, `disk.used_percent:/var` one filesystem.
 */

/** What a metric measures, as a person reads it. */
export interface MetricKind {
  /** `family.measure`, without an instance. */
  name: string;
  unit: 'percent' | 'bytes' | 'bytes/s' | 'pages/s' | 'load';
  description: string;
  /** What an instance is, for metrics that have them. */
  instance?: 'core' | 'mount' | 'interface';
}

/** Every kind of metric, in the order `resources/list` shows them. */
export const METRIC_KINDS: readonly MetricKind[] = Object.freeze([
  { name: 'cpu.percent', unit: 'percent', description: 'CPU busy, all cores' },
  { name: 'cpu.user_percent', unit: 'percent', description: 'CPU in user space (nice included)' },
  { name: 'cpu.system_percent', unit: 'percent', description: 'CPU in the kernel' },
  { name: 'cpu.iowait_percent', unit: 'percent', description: 'CPU idle waiting for I/O' },
  { name: 'cpu.percent', unit: 'percent', description: 'CPU busy, one core', instance: 'core' },
  { name: 'load.1m', unit: 'load', description: 'Load average over 1 minute' },
  { name: 'load.5m', unit: 'load', description: 'Load average over 5 minutes' },
  { name: 'load.15m', unit: 'load', description: 'Load average over 15 minutes' },
  { name: 'memory.used_percent', unit: 'percent', description: 'Memory in use (not available)' },
  { name: 'memory.used_bytes', unit: 'bytes', description: 'Memory in use (not available)' },
  {
    name: 'memory.pressure_percent',
    unit: 'percent',
    description: 'Share of the last 10 s some task stalled waiting for memory (Linux PSI)',
  },
  { name: 'swap.used_percent', unit: 'percent', description: 'Swap in use' },
  { name: 'swap.pages_per_sec', unit: 'pages/s', description: 'Pages swapped in and out' },
  { name: 'disk.read_bytes_per_sec', unit: 'bytes/s', description: 'Read from whole disks' },
  { name: 'disk.write_bytes_per_sec', unit: 'bytes/s', description: 'Written to whole disks' },
  {
    name: 'disk.used_percent',
    unit: 'percent',
    description: 'Space used on one filesystem',
    instance: 'mount',
  },
  { name: 'net.rx_bytes_per_sec', unit: 'bytes/s', description: 'Received, all interfaces' },
  { name: 'net.tx_bytes_per_sec', unit: 'bytes/s', description: 'Sent, all interfaces' },
  {
    name: 'net.rx_bytes_per_sec',
    unit: 'bytes/s',
    description: 'Received on one interface',
    instance: 'interface',
  },
  {
    name: 'net.tx_bytes_per_sec',
    unit: 'bytes/s',
    description: 'Sent on one interface',
    instance: 'interface',
  },
]);

/** `cpu.percent:1` → `{ kind: 'cpu.percent', instance: '1' }`. */
export function splitMetric(metric: string): { kind: string; instance?: string } {
  const colon = metric.indexOf(':');
  return colon < 0
    ? { kind: metric }
    : { kind: metric.slice(0, colon), instance: metric.slice(colon + 1) };
}

/** The kind of `metric`, if it names one (with an instance exactly when the kind has them). */
export function kindOf(metric: string): MetricKind | undefined {
  const { kind, instance } = splitMetric(metric);
  return METRIC_KINDS.find(
    (k) => k.name === kind && (instance === undefined) === (k.instance === undefined),
  );
}

/**
 * How many instances of each kind are kept: every series costs its full ring buffers, so a
 * 256-core machine or a host with hundreds of container interfaces must not take the memory
 * budget with it. The first ones seen are kept; the rest are counted as dropped.
 */
export const MAX_INSTANCES: Readonly<Record<NonNullable<MetricKind['instance']>, number>> = {
  core: 64,
  mount: 16,
  interface: 16,
};
