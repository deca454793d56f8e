import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import si from 'systeminformation';

/**
 * What the history reads every second: counters turned into rates and percentages. `null` where
 * the machine cannot tell (no PSI, the first read of a counter, a counter that went backwards).
 */
export interface FastReading {
  cpu: { total: number; user: number; system: number; iowait: number; cores: number[] } | null;
  load: [number, number, number];
  memory: {
    totalBytes: number;
    availableBytes: number;
    swapTotalBytes: number;
    swapFreeBytes: number;
  } | null;
  /** Linux PSI: % of the last 10 s some task stalled on memory (`/proc/pressure/memory`). */
  memoryPressure: number | null;
  /** Pages swapped in plus out per second. */
  swapPagesPerSec: number | null;
  disk: { readBytesPerSec: number; writeBytesPerSec: number } | null;
  /** Per interface, loopback excluded. */
  net: Map<string, { rxBytesPerSec: number; txBytesPerSec: number }>;
}

/** Where the history's per-second readings come from. */
export interface FastSource {
  /** Which implementation: printed by the bench and the README. */
  readonly kind: 'procfs' | 'systeminformation';
  read(): Promise<FastReading>;
}

/** Remembers each counter's last value and time, and turns the next into a per-second rate. */
export class Rates {
  readonly #last = new Map<string, { t: number; v: number }>();

  /** Per-second rate of counter `key` now at `value`; null on its first read or after a reset. */
  rate(key: string, t: number, value: number): number | null {
    const prev = this.#last.get(key);
    this.#last.set(key, { t, v: value });
    if (!prev || t <= prev.t || value < prev.v) return null;
    return ((value - prev.v) * 1000) / (t - prev.t);
  }

  /** Forget counters not seen since `keep` was built (interfaces that went away). */
  retain(keep: ReadonlySet<string>): void {
    for (const key of this.#last.keys()) if (!keep.has(key)) this.#last.delete(key);
  }
}

/** `/proc/stat`'s `cpu…` lines → their fields (the first line is all CPUs together). */
export function parseProcStat(text: string): { name: string; fields: number[] }[] {
  const out: { name: string; fields: number[] }[] = [];
  // The cpu lines come first; the rest (interrupt counts, thousands of numbers) is not read.
  for (let at = 0; text.startsWith('cpu', at); ) {
    const end = text.indexOf('\n', at);
    const [name, ...rest] = text
      .slice(at, end < 0 ? undefined : end)
      .trim()
      .split(/\s+/);
    out.push({ name: name as string, fields: rest.map(Number) });
    if (end < 0) break;
    at = end + 1;
  }
  return out;
}

/**
 * The values of `keys` in `Key:   123 kB` lines (meminfo) or `key 123` lines (vmstat); a key the
 * text lacks is left out. Each key is looked up, not every line parsed: vmstat has ~180 lines
 * of which two are wanted.
 */
export function parseKeyValues(text: string, keys: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const key of keys) {
    let re = KEY_PATTERNS.get(key);
    if (!re) {
      // A key at the start of a line, then `:` (meminfo) or blanks (vmstat), then the number.
      re = new RegExp(`^${key}:?[ \\t]+(\\d+)`, 'm');
      KEY_PATTERNS.set(key, re);
    }
    const m = re.exec(text);
    if (m) out.set(key, Number(m[1]));
  }
  return out;
}
const KEY_PATTERNS = new Map<string, RegExp>();

/** `/proc/pressure/memory` → the `some avg10` percentage. */
export function parsePressure(text: string): number | null {
  const m = /^some avg10=([\d.]+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * Whole disks in `/proc/diskstats` — what iostat and Netdata sum for a machine's disk I/O:
 * partitions (sda1, nvme0n1p1) would count the same bytes twice, loop, ram and device-mapper
 * devices are layers over the disks below them.
 */
const WHOLE_DISK = /^(?:sd[a-z]+|vd[a-z]+|xvd[a-z]+|hd[a-z]+|nvme\d+n\d+|mmcblk\d+)$/;

/** `/proc/diskstats` → bytes read and written by whole disks (sectors are 512 bytes there). */
export function parseDiskstats(text: string): { read: number; written: number } {
  let read = 0;
  let written = 0;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !WHOLE_DISK.test(f[2] as string)) continue;
    read += Number(f[5]) * 512;
    written += Number(f[9]) * 512;
  }
  return { read, written };
}

/** `/proc/net/dev` → bytes received and sent per interface, loopback excluded. */
export function parseNetDev(text: string): Map<string, { rx: number; tx: number }> {
  const out = new Map<string, { rx: number; tx: number }>();
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    if (name === 'lo') continue;
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    out.set(name, { rx: f[0] ?? 0, tx: f[8] ?? 0 });
  }
  return out;
}

/**
 * A /proc file, or null where the kernel has none. Synchronous on purpose: procfs files are made
 * in memory by the kernel and never wait on a disk, and six async reads a second cost more in
 * thread-pool round trips than the reads themselves (bench/system-info measures it).
 */
function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return null;
  }
}

const MEMINFO_KEYS = ['MemTotal', 'MemFree', 'MemAvailable', 'SwapTotal', 'SwapFree'];

/**
 * Linux: the kernel's own counters, read from `/proc` directly. systeminformation's calls cost
 * 1–4 ms of CPU each here and several spawn a shell; once a second for every metric that would
 * spend most of the sampler's 1 % budget (see bench/system-info), where six file reads cost
 * a few hundred µs. Tools still answer through systeminformation.
 */
export class ProcfsSource implements FastSource {
  readonly kind = 'procfs';
  readonly #root: string;
  readonly #now: () => number;
  readonly #rates = new Rates();
  #cpu: { busy: number; total: number; user: number; system: number; iowait: number }[] = [];

  /** `root` is where proc is mounted (tests point it at a fixture tree). */
  constructor(root = '/proc', now: () => number = Date.now) {
    this.#root = root;
    this.#now = now;
  }

  async read(): Promise<FastReading> {
    const [stat, meminfo, vmstat, pressure, diskstats, netdev] = [
      'stat',
      'meminfo',
      'vmstat',
      'pressure/memory',
      'diskstats',
      'net/dev',
    ].map((f) => readOrNull(`${this.#root}/${f}`));
    const t = this.#now();
    const rates = this.#rates;
    const mem = meminfo ? parseKeyValues(meminfo, MEMINFO_KEYS) : undefined;
    const vm = vmstat ? parseKeyValues(vmstat, ['pswpin', 'pswpout']) : undefined;
    const swapIn = vm?.get('pswpin');
    const swapOut = vm?.get('pswpout');
    const swapIo =
      swapIn !== undefined && swapOut !== undefined
        ? rates.rate('swap', t, swapIn + swapOut)
        : null;
    const disk = diskstats ? parseDiskstats(diskstats) : undefined;
    const diskRead = disk ? rates.rate('disk.read', t, disk.read) : null;
    const diskWrite = disk ? rates.rate('disk.write', t, disk.written) : null;
    const net = new Map<string, { rxBytesPerSec: number; txBytesPerSec: number }>();
    const seen = new Set(['swap', 'disk.read', 'disk.write']);
    for (const [name, c] of netdev ? parseNetDev(netdev) : []) {
      seen.add(`rx:${name}`).add(`tx:${name}`);
      const rx = rates.rate(`rx:${name}`, t, c.rx);
      const tx = rates.rate(`tx:${name}`, t, c.tx);
      if (rx !== null && tx !== null) net.set(name, { rxBytesPerSec: rx, txBytesPerSec: tx });
    }
    rates.retain(seen);
    const [one, five, fifteen] = loadavg();
    return {
      cpu: stat ? this.#cpuPercents(parseProcStat(stat)) : null,
      load: [one ?? 0, five ?? 0, fifteen ?? 0],
      memory: mem?.has('MemTotal')
        ? {
            totalBytes: (mem.get('MemTotal') ?? 0) * 1024,
            availableBytes: (mem.get('MemAvailable') ?? mem.get('MemFree') ?? 0) * 1024,
            swapTotalBytes: (mem.get('SwapTotal') ?? 0) * 1024,
            swapFreeBytes: (mem.get('SwapFree') ?? 0) * 1024,
          }
        : null,
      memoryPressure: pressure ? parsePressure(pressure) : null,
      swapPagesPerSec: swapIo,
      disk:
        diskRead !== null && diskWrite !== null
          ? { readBytesPerSec: diskRead, writeBytesPerSec: diskWrite }
          : null,
      net,
    };
  }

  /**
   * Per-CPU busy share since the last read (`user nice system idle iowait irq softirq steal`:
   * idle and iowait are not busy, as top counts). Null on the first read, like every rate.
   */
  #cpuPercents(cpus: { name: string; fields: number[] }[]): FastReading['cpu'] {
    const now = cpus.map(({ fields: f }) => {
      const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0] = f;
      const steal = f[7] ?? 0;
      const total = user + nice + system + idle + iowait + irq + softirq + steal;
      return { busy: total - idle - iowait, total, user: user + nice, system, iowait };
    });
    const before = this.#cpu;
    this.#cpu = now;
    if (before.length !== now.length || now.length === 0) return null;
    const share = (i: number, key: 'busy' | 'user' | 'system' | 'iowait'): number => {
      const a = before[i] as (typeof now)[number];
      const b = now[i] as (typeof now)[number];
      const dt = b.total - a.total;
      return dt > 0 ? Math.min(100, Math.max(0, ((b[key] - a[key]) * 100) / dt)) : 0;
    };
    return {
      total: share(0, 'busy'),
      user: share(0, 'user'),
      system: share(0, 'system'),
      iowait: share(0, 'iowait'),
      cores: now.slice(1).map((_, i) => share(i + 1, 'busy')),
    };
  }
}

/**
 * Elsewhere (macOS, Windows, BSD): systeminformation, which computes its rates from the previous
 * call in this process. No PSI and no swap paging counters there: those metrics stay empty.
 */
export class SystemInformationSource implements FastSource {
  readonly kind = 'systeminformation';

  async read(): Promise<FastReading> {
    const [load, mem, disks, nets] = await Promise.all([
      si.currentLoad(),
      si.mem(),
      si.fsStats().catch(() => null),
      si.networkStats('*').catch(() => []),
    ]);
    const [one, five, fifteen] = loadavg();
    const fin = (v: unknown): number | null =>
      typeof v === 'number' && Number.isFinite(v) ? v : null;
    const net = new Map<string, { rxBytesPerSec: number; txBytesPerSec: number }>();
    for (const n of nets) {
      const rx = fin(n.rx_sec);
      const tx = fin(n.tx_sec);
      if (rx !== null && tx !== null && n.iface !== 'lo') {
        net.set(n.iface, { rxBytesPerSec: rx, txBytesPerSec: tx });
      }
    }
    const readRate = fin(disks?.rx_sec);
    const writeRate = fin(disks?.wx_sec);
    return {
      cpu: {
        total: load.currentLoad,
        user: load.currentLoadUser + load.currentLoadNice,
        system: load.currentLoadSystem,
        iowait: 0,
        cores: load.cpus.map((c) => c.load),
      },
      load: [one ?? 0, five ?? 0, fifteen ?? 0],
      memory: {
        totalBytes: mem.total,
        availableBytes: mem.available,
        swapTotalBytes: mem.swaptotal,
        swapFreeBytes: mem.swapfree,
      },
      memoryPressure: null,
      swapPagesPerSec: null,
      disk:
        readRate !== null && writeRate !== null
          ? { readBytesPerSec: readRate, writeBytesPerSec: writeRate }
          : null,
      net,
    };
  }
}
