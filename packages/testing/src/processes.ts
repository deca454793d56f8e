import type { ChildProcess } from 'node:child_process';
import { killGroup } from '@mcpkit/protocol';

/** Children started by this kit that have not exited yet, for {@link killSpawned}. */
const spawned = new Set<ChildProcess>();
/** Those of them started `detached`: each leads a process group of its own. */
const groups = new WeakSet<ChildProcess>();

/**
 * Remember a child until it exits, so {@link killSpawned} can stop it (and, when it was started
 * `detached`, its whole process group). Called by every kit function that starts a process.
 */
export function register<T extends ChildProcess>(child: T, detached: boolean): T {
  if (detached) groups.add(child);
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  child.once('error', () => spawned.delete(child));
  return child;
}

/** Whether a process is still there (signal 0 only checks; EPERM means it exists). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export { killGroup };

/** Polls (bounded) until none of `pids` is alive; resolves with those still alive at the end. */
export async function waitGone(pids: readonly number[], timeoutMs = 8_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/**
 * SIGKILL every process this kit started (`spawnRaw`, `spawnHttpServer`, `runProcess`) that is
 * still running — with its process group when it was started `detached`. For `afterAll`, so a
 * failed test leaves no server behind.
 *
 * @example
 * ```ts
 * afterAll(killSpawned);
 * ```
 */
export function killSpawned(): void {
  for (const child of spawned) {
    if (groups.has(child)) killGroup(child.pid);
    else child.kill('SIGKILL');
  }
  spawned.clear();
}
