import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcfsProcesses, parsePasswd, parsePidStat } from './procfs-processes.js';

afterAll(() => removeTempDirs());

/** A /proc/<pid>/stat line: utime, stime, starttime and rss where the kernel puts them. */
const stat = (pid: number, name: string, ticks: number, start: number, rss: number) =>
  `${pid} (${name}) S 1 ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${ticks} 0 0 0 20 0 1 0 ${start} 1000000 ${rss} 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0`;

describe('procfs process parsers', () => {
  it('reads name, CPU ticks, start and resident pages, names with spaces and parentheses too', () => {
    expect(parsePidStat(stat(42, 'node', 250, 9000, 300))).toEqual({
      name: 'node',
      ticks: 250,
      starttime: 9000,
      rssPages: 300,
    });
    expect(parsePidStat(stat(43, 'Web Content (x))', 1, 2, 3))?.name).toBe('Web Content (x))');
    expect(parsePidStat('garbage')).toBeUndefined();
    expect(parsePidStat('1 (x) S')).toBeUndefined();
  });

  it('reads user names by uid from /etc/passwd', () => {
    const users = parsePasswd(
      'root:x:0:0:root:/root:/bin/bash\napp:x:1000:1000::/home/app:/bin/sh\nbroken\n',
    );
    expect([...users]).toEqual([
      [0, 'root'],
      [1000, 'app'],
    ]);
  });
});

describe('ProcfsProcesses', () => {
  it('gives CPU % from the ticks used since the last list, 0 for a process seen the first time', () => {
    const root = tempDir('sysinfo-procs-');
    writeFileSync(join(root, 'stat'), 'cpu 1 2 3\nbtime 1767225600\n');
    const proc = (pid: number, text: string, cmdline = '') => {
      mkdirSync(join(root, String(pid)), { recursive: true });
      writeFileSync(join(root, String(pid), 'stat'), text);
      writeFileSync(join(root, String(pid), 'cmdline'), cmdline);
    };
    proc(10, stat(10, 'worker', 100, 500, 10), 'worker\0--fast\0');
    proc(11, stat(11, 'kthread', 0, 1, 0));
    mkdirSync(join(root, 'self'));
    let now = 1_000_000;
    const lister = new ProcfsProcesses(root, () => now);
    const first = lister.list();
    expect(first.map((p) => [p.pid, p.cpu_percent, p.command])).toEqual([
      [10, 0, 'worker --fast'],
      [11, 0, '[kthread]'],
    ]);
    // btime + 500 ticks = 5 s after boot.
    expect(first[0]?.started).toBe(new Date((1767225600 + 5) * 1000).toISOString());
    now += 10_000;
    proc(10, stat(10, 'worker', 600, 500, 10)); // 500 ticks = 5 s of CPU in 10 s
    proc(12, stat(12, 'new', 50, 9000, 1));
    const second = lister.list();
    expect(second.map((p) => [p.pid, p.cpu_percent])).toEqual([
      [10, 50],
      [11, 0],
      [12, 0],
    ]);
    // A reused pid (another start time) is another process: no rate across it.
    now += 10_000;
    proc(10, stat(10, 'other', 9999, 777, 10));
    expect(lister.list().find((p) => p.pid === 10)).toMatchObject({
      name: 'other',
      cpu_percent: 0,
    });
  });

  it('lists this machine’s processes, itself among them', () => {
    const mine = new ProcfsProcesses().list().find((p) => p.pid === process.pid);
    expect(mine).toMatchObject({ pid: process.pid, cpu_percent: 0 });
    expect(mine?.memory_rss_bytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(mine?.command).toContain(process.argv0.split('/').pop() ?? 'node');
    expect(mine?.user.length).toBeGreaterThan(0);
  });

  it('answers an empty list where /proc cannot be read', () => {
    expect(new ProcfsProcesses('/nonexistent-proc').list()).toEqual([]);
  });
});
