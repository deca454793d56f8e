/**
 * What every HTTP benchmark server does as a child of the driver: tell it the port on the first
 * stdout line, and exit when the driver closes stdin (or dies), so no server outlives a run.
 */
export function announce(port: number, close: () => unknown): void {
  process.stdout.write(`${port}\n`);
  process.stdin.once('end', () => {
    void Promise.resolve(close()).finally(() => process.exit(0));
  });
  process.stdin.resume();
}
