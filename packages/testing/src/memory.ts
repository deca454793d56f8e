/**
 * A child process's memory as the system sees it (Linux `/proc`), and after a full GC: what the
 * memory benchmarks and the attack tests measure a server by.
 */
import { readFileSync } from 'node:fs';
import { sleep } from './wait.js';

/**
 * Node flags for a child whose memory is measured: SIGUSR2 runs a full GC in it (nothing else
 * changes). Put them before the script: `spawn(process.execPath, [...GC_ON_SIGNAL, cli])`.
 */
export const GC_ON_SIGNAL: readonly string[] = [
  '--expose-gc',
  '--import',
  'data:text/javascript,process.on("SIGUSR2",()=>globalThis.gc())',
];

/** A field of a process's `/proc/<pid>/status` in MB: its resident set now, or its peak. */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no ${field} for process ${pid}`);
  return kb / 1024;
}

/**
 * The RSS in MB of a child started with {@link GC_ON_SIGNAL}, once it has settled (`settleMs`
 * idle), run a full GC and settled again.
 */
export async function rssAfterGc(pid: number, settleMs = 300): Promise<number> {
  await sleep(settleMs);
  process.kill(pid, 'SIGUSR2');
  await sleep(settleMs);
  return procMemoryMb(pid);
}
