import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { ProcessSample } from './processes.js';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux ABI). */
const USER_HZ = 100;

interface Seen {
  ticks: number;
  t: number;
  starttime: number;
  user: string;
  command: string;
}

/** Reads a /proc file, or undefined when it is gone (a process that exited meanwhile). */
function read(path: string): string | undefined {
  try {
    // Synchronous on purpose: procfs files are generated in memory by the kernel, never wait on
    // a disk, and a few hundred async reads would cost more in thread-pool round trips than the
    // reads themselves (bench/system-info measures the sampler's CPU).
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/** `/etc/passwd` → user names by uid. */
export function parsePasswd(text: string): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (name && uid !== undefined && /^\d+$/.test(uid)) users.set(Number(uid), name);
  }
  return users;
}

/**
 * `/proc/<pid>/stat` → name, CPU ticks used, start time (ticks after boot) and resident pages.
 * The name sits in parentheses and may hold spaces and parentheses itself: it runs from the
 * first `(` to the last `)`.
 */
export function parsePidStat(
  text: string,
): { name: string; ticks: number; starttime: number; rssPages: number } | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // After ") ": state(3) ppid(4) … utime(14) stime(15) … starttime(22) vsize(23) rss(24).
  const f = text.slice(close + 2).split(' ');
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  const starttime = Number(f[19]);
  const rssPages = Number(f[21]);
  if (![utime, stime, starttime, rssPages].every(Number.isFinite)) return undefined;
  return { name: text.slice(open + 1, close), ticks: utime + stime, starttime, rssPages };
}

/**
 * Every process from `/proc` for the history's top-process snapshots: CPU % (of one core, as top
 * counts) from the CPU time used since the previous list, resident memory, owner and command
 * line. systeminformation's process list runs `ps` and costs ~200 ms of CPU here (bench); once
 * every 10 s that alone would be twice the history's 1 % budget, where this costs a few ms.
 * A process seen for the first time has no earlier CPU time to compare with and counts 0.
 */
export class ProcfsProcesses {
  readonly #root: string;
  readonly #now: () => number;
  #seen = new Map<number, Seen>();
  #users: Map<number, string> | undefined;
  #pageSize: number | undefined;
  #bootMs: number | undefined;

  constructor(root = '/proc', now: () => number = Date.now) {
    this.#root = root;
    this.#now = now;
  }

  list(): ProcessSample[] {
    const t = this.#now();
    const next = new Map<number, Seen>();
    const out: ProcessSample[] = [];
    const pageSize = this.#pageSizeBytes();
    const bootMs = this.#boot();
    let names: string[];
    try {
      names = readdirSync(this.#root);
    } catch {
      return [];
    }
    for (const dir of names) {
      if (!/^\d+$/.test(dir)) continue;
      const pid = Number(dir);
      const text = read(`${this.#root}/${dir}/stat`);
      const stat = text === undefined ? undefined : parsePidStat(text);
      if (!stat) continue;
      const before = this.#seen.get(pid);
      const same = before !== undefined && before.starttime === stat.starttime;
      const seen: Seen = same
        ? { ...before, ticks: stat.ticks, t }
        : {
            ticks: stat.ticks,
            t,
            starttime: stat.starttime,
            user: this.#owner(dir),
            command: (read(`${this.#root}/${dir}/cmdline`) ?? '')
              .replaceAll('\0', ' ')
              .trim()
              .slice(0, 4096),
          };
      next.set(pid, seen);
      const dt = same ? (t - before.t) / 1000 : 0;
      out.push({
        pid,
        name: stat.name,
        user: seen.user,
        started:
          bootMs === undefined
            ? null
            : new Date(bootMs + (stat.starttime * 1000) / USER_HZ).toISOString(),
        command: seen.command || `[${stat.name}]`,
        cpu_percent: dt > 0 && before ? ((stat.ticks - before.ticks) / USER_HZ / dt) * 100 : 0,
        memory_rss_bytes: stat.rssPages * pageSize,
      });
    }
    this.#seen = next;
    return out;
  }

  #owner(dir: string): string {
    let uid: number;
    try {
      uid = statSync(`${this.#root}/${dir}`).uid;
    } catch {
      return '';
    }
    this.#users ??= parsePasswd(read('/etc/passwd') ?? '');
    return this.#users.get(uid) ?? String(uid);
  }

  /** The boot time, epoch ms: `btime` of /proc/stat. */
  #boot(): number | undefined {
    if (this.#bootMs === undefined) {
      const m = /^btime (\d+)$/m.exec(read(`${this.#root}/stat`) ?? '');
      if (m) this.#bootMs = Number(m[1]) * 1000;
    }
    return this.#bootMs;
  }

  /**
   * The page size, which /proc's `rss` counts in: this process's resident pages (stat) against
   * its VmRSS in kB (status), rounded to a power of two — 4 KiB on x86, 4–64 KiB on arm64.
   */
  #pageSizeBytes(): number {
    if (this.#pageSize === undefined) {
      const stat = parsePidStat(read('/proc/self/stat') ?? '');
      const kb = /^VmRSS:\s+(\d+) kB/m.exec(read('/proc/self/status') ?? '');
      const ratio = stat && kb ? (Number(kb[1]) * 1024) / stat.rssPages : 4096;
      this.#pageSize =
        2 ** Math.round(Math.log2(Number.isFinite(ratio) && ratio > 0 ? ratio : 4096));
    }
    return this.#pageSize;
  }
}
