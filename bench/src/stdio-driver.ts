// Raw frames on purpose: pre-serialized requests measure the server alone, with no client cost.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export type Child = ChildProcessByStdio<Writable, Readable, null>;

/** Measures one pipelined run: write `count` requests at once, wait for `count` reply lines. */
export async function pipelinedRun(command: string[], count: number): Promise<number> {
  const [bin, ...args] = command as [string, ...string[]];
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const requests: string[] = [];
  for (let i = 1; i <= count; i++)
    requests.push(`{"jsonrpc":"2.0","id":${i},"method":"add","params":[${i},2]}\n`);
  const payload = requests.join('');
  // Servers are long-lived: load the child and let the JIT warm up on a first pipelined burst
  // before the clock starts, so what is measured is steady-state throughput, not start-up.
  await burst(child, payload, count);
  const start = performance.now();
  child.stdin.write(payload);
  const end = await burst(child, undefined, count);
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  return count / ((end - start) / 1000);
}

/** Optionally write `payload`, then resolve with the time at which `count` reply lines arrived. */
export function burst(child: Child, payload: string | undefined, count: number): Promise<number> {
  const done = new Promise<number>((resolve, reject) => {
    let lines = 0;
    const timer = setTimeout(
      () => reject(new Error(`timed out with ${lines}/${count} replies`)),
      60_000,
    );
    const onData = (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (lines >= count) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(performance.now());
      }
    };
    child.stdout.on('data', onData);
  });
  if (payload !== undefined) child.stdin.write(payload);
  return done;
}
