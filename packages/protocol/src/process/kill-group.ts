/**
 * Send `signal` to the process group `pid` leads, or to the process alone when it leads none.
 * Never throws: a process that is gone already is what the caller wanted. Children we spawn lead
 * their own group (`detached: true`), so this reaches whatever they started too.
 */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}
