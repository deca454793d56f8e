import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ProcfsSource,
  parseDiskstats,
  parseKeyValues,
  parseNetDev,
  parsePressure,
  parseProcStat,
  Rates,
  SystemInformationSource,
} from './sources.js';

afterAll(() => removeTempDirs());

const STAT = (user: number, idle: number, iowait = 0) =>
  [
    `cpu  ${user * 2} 0 0 ${idle * 2} ${iowait * 2} 0 0 0 0 0`,
    `cpu0 ${user} 0 0 ${idle} ${iowait} 0 0 0 0 0`,
    `cpu1 ${user} 0 0 ${idle} ${iowait} 0 0 0 0 0`,
    'intr 1 2 3',
  ].join('\n');
const MEMINFO =
  'MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    4000000 kB\nSwapTotal:       2000000 kB\nSwapFree:        1500000 kB\n';
const VMSTAT = (swapped: number) => `nr_free_pages 1\npswpin ${swapped}\npswpout ${swapped}\n`;
const DISKSTATS = (sectors: number) =>
  [
    `   8       0 sda 100 0 ${sectors} 0 100 0 ${sectors * 2} 0 0 0 0`,
    `   8       1 sda1 100 0 ${sectors} 0 100 0 ${sectors * 2} 0 0 0 0`,
    `   7       0 loop0 1 0 999 0 1 0 999 0 0 0 0`,
    ` 259       0 nvme0n1 1 0 ${sectors} 0 1 0 0 0 0 0 0`,
  ].join('\n');
const NETDEV = (rx: number) =>
  `Inter-|   Receive |  Transmit\n face |bytes packets|bytes\n    lo: 999 1 0 0 0 0 0 0 999 1 0 0 0 0 0 0\n  eth0: ${rx} 10 0 0 0 0 0 0 ${rx / 2} 5 0 0 0 0 0 0\n`;

function procTree(files: Record<string, string>): string {
  const root = tempDir('sysinfo-proc-');
  mkdirSync(join(root, 'pressure'));
  mkdirSync(join(root, 'net'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

describe('procfs parsers', () => {
  it('reads /proc/stat cpu lines, meminfo and vmstat keys, PSI, whole disks and interfaces', () => {
    expect(parseProcStat(STAT(5, 10)).map((c) => c.name)).toEqual(['cpu', 'cpu0', 'cpu1']);
    const mem = parseKeyValues(MEMINFO, ['MemAvailable', 'SwapFree', 'Missing']);
    expect([...mem]).toEqual([
      ['MemAvailable', 4_000_000],
      ['SwapFree', 1_500_000],
    ]);
    expect(parseKeyValues(VMSTAT(7), ['pswpout']).get('pswpout')).toBe(7);
    // A key is matched whole, at the start of a line: pswpin is not nr_pswpin_x.
    expect(parseKeyValues('nr_pswpin 5\npswpin 6\n', ['pswpin']).get('pswpin')).toBe(6);
    expect(parsePressure('some avg10=12.50 avg60=1 avg300=0 total=5\nfull avg10=1.00')).toBe(12.5);
    expect(parsePressure('')).toBeNull();
    // sda and nvme0n1 count; sda1 (a partition of sda) and loop0 do not.
    expect(parseDiskstats(DISKSTATS(10))).toEqual({ read: 20 * 512, written: 20 * 512 });
    expect([...parseNetDev(NETDEV(1000))]).toEqual([['eth0', { rx: 1000, tx: 500 }]]);
  });

  it('turns counters into per-second rates, null on the first read and after a reset', () => {
    const r = new Rates();
    expect(r.rate('x', 1000, 100)).toBeNull();
    expect(r.rate('x', 3000, 300)).toBe(100);
    expect(r.rate('x', 4000, 50)).toBeNull();
    expect(r.rate('x', 5000, 150)).toBe(100);
  });
});

describe('ProcfsSource', () => {
  it('gives percentages and rates from two reads of the kernel counters', async () => {
    let now = 10_000;
    const root = procTree({
      stat: STAT(10, 90),
      meminfo: MEMINFO,
      vmstat: VMSTAT(0),
      'pressure/memory': 'some avg10=3.00 avg60=0 avg300=0 total=0\n',
      diskstats: DISKSTATS(0),
      'net/dev': NETDEV(0),
    });
    const source = new ProcfsSource(root, () => now);
    const first = await source.read();
    expect(first.cpu).toBeNull();
    expect(first.disk).toBeNull();
    expect(first.net.size).toBe(0);
    expect(first.memory).toEqual({
      totalBytes: 16_000_000 * 1024,
      availableBytes: 4_000_000 * 1024,
      swapTotalBytes: 2_000_000 * 1024,
      swapFreeBytes: 1_500_000 * 1024,
    });
    expect(first.memoryPressure).toBe(3);

    now += 2000;
    writeFileSync(join(root, 'stat'), STAT(40, 100, 10)); // +30 busy, +10 idle, +10 iowait per core
    writeFileSync(join(root, 'vmstat'), VMSTAT(500));
    writeFileSync(join(root, 'diskstats'), DISKSTATS(4000));
    writeFileSync(join(root, 'net/dev'), NETDEV(8000));
    const second = await source.read();
    expect(second.cpu).toEqual({ total: 60, user: 60, system: 0, iowait: 20, cores: [60, 60] });
    expect(second.swapPagesPerSec).toBe(500); // 1000 pages over 2 s
    // sda 4000 + nvme0n1 4000 sectors read, sda 8000 written, over 2 s.
    expect(second.disk).toEqual({
      readBytesPerSec: (8000 * 512) / 2,
      writeBytesPerSec: (8000 * 512) / 2,
    });
    expect(second.net.get('eth0')).toEqual({ rxBytesPerSec: 4000, txBytesPerSec: 2000 });
  });

  it('leaves out what a kernel does not have (no PSI, no vmstat, no diskstats)', async () => {
    const root = procTree({ stat: STAT(1, 1), meminfo: MEMINFO });
    const r = await new ProcfsSource(root).read();
    expect(r.memoryPressure).toBeNull();
    expect(r.swapPagesPerSec).toBeNull();
    expect(r.disk).toBeNull();
    expect(r.memory).not.toBeNull();
  });

  it('reads this machine: the same shape as systeminformation gives', async () => {
    const proc = new ProcfsSource();
    const si = new SystemInformationSource();
    await Promise.all([proc.read(), si.read()]);
    await new Promise((r) => setTimeout(r, 200));
    const [a, b] = await Promise.all([proc.read(), si.read()]);
    for (const r of [a, b]) {
      expect(r.cpu?.total).toBeGreaterThanOrEqual(0);
      expect(r.cpu?.total).toBeLessThanOrEqual(100);
      expect(r.cpu?.cores.length).toBe(a.cpu?.cores.length);
      expect(r.memory?.totalBytes).toBeGreaterThan(0);
    }
    // Both read the same kernel: the same total memory.
    expect(a.memory?.totalBytes).toBe(b.memory?.totalBytes);
  });
});
