import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CALCULATOR = fileURLToPath(
  new URL('../../dist/examples/calculator.js', import.meta.url),
);

/** A stdio JSON-RPC server in a real child process, read line by line. */
export interface ChildServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Write raw text to the child's stdin. */
  write(text: string | Buffer): void;
  /** Write one line (a newline is appended). */
  send(line: string): void;
  /** The next line the child writes on stdout. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
  /** Lines read but not yet taken by next(). */
  readonly buffered: string[];
  stderr(): string;
  /** Close stdin and wait for the exit code. */
  end(timeoutMs?: number): Promise<number | null>;
}

export function spawnServer(
  script = CALCULATOR,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
): ChildServer {
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`pnpm build\` first`);
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, LOG_LEVEL: 'debug', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let partial = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    buffered: lines,
    write: (text) => child.stdin.write(text),
    send: (line) => child.stdin.write(`${line}\n`),
    next(timeoutMs = 5000) {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no line within ${timeoutMs} ms; stderr: ${err.slice(-500)}`));
        }, timeoutMs);
        const waiter = (l: string) => {
          clearTimeout(timer);
          resolve(l);
        };
        waiters.push(waiter);
      });
    },
    stderr: () => err,
    async end(timeoutMs = 5000) {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
