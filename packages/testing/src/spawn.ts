import { type ChildProcessWithoutNullStreams, type SpawnOptions, spawn } from 'node:child_process';
import type { ProcessExit } from '@mcpkit/protocol';
import { killGroup, register } from './processes.js';

/** How a kit function starts a process. */
export interface ProcessOptions {
  /** Variables on top of this process's environment (or instead of it: `inheritEnv: false`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Start from this process's whole environment. Default true. */
  inheritEnv?: boolean;
  /** The working directory. Default: this process's. */
  cwd?: string;
  /**
   * Lead a process group of its own, so stopping it stops whatever it started too (a gateway's
   * backends). Default false.
   */
  detached?: boolean;
}

/** A started child with its stdio as pipes, its stderr collected, and its exit as a promise. */
export interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<ProcessExit>;
  /** How it exited, once it has and its output is read (set before the listeners hear of it). */
  readonly exit: ProcessExit | undefined;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Listen for news: output on stdout or stderr, or the exit. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Tell the listeners there is news (a reader of stdout calls it for each chunk). */
  changed(): void;
}

/** `spawn` with the kit's environment rules; the child is registered for `killSpawned`. */
export function start(command: string, args: readonly string[], options: ProcessOptions): Started {
  const env: NodeJS.ProcessEnv = {
    ...(options.inheritEnv === false ? {} : process.env),
    ...options.env,
  };
  const spawnOptions: SpawnOptions = {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  const child = register(
    spawn(command, [...args], spawnOptions) as ChildProcessWithoutNullStreams,
    options.detached ?? false,
  );
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
    changed();
  });
  // EPIPE when the child is gone: its exit is what the test sees.
  child.stdin.on('error', () => {});
  let exit: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    const ended = (how: ProcessExit) => {
      if (exit) return;
      exit = how;
      resolve(how);
      changed();
    };
    child.once('error', (error) => ended({ code: null, signal: null, error: error.message }));
    // 'close' comes once stdout and stderr are read to their end, so nothing written is missed;
    // a grandchild holding the pipes open must not hold the test up, though.
    child.once('exit', (code, signal) => {
      setTimeout(() => ended({ code, signal }), 1000).unref();
    });
    child.once('close', (code, signal) => ended({ code, signal }));
  });
  return {
    child,
    exited,
    get exit() {
      return exit;
    },
    stderr: () => err,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changed,
  };
}

/**
 * Resolves with `check()`'s first defined answer, checked now and again on every change of the
 * process; rejects when `check` throws, or after `timeoutMs` naming `what`, with the end of
 * stderr.
 */
export function until<T>(
  started: Started,
  what: string,
  check: () => T | undefined,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let off: (() => void) | undefined;
    const attempt = (): boolean => {
      try {
        const value = check();
        if (value === undefined) return false;
        resolve(value);
      } catch (err) {
        reject(err);
      }
      clearTimeout(timer);
      off?.();
      return true;
    };
    if (attempt()) return;
    off = started.onChange(attempt);
    timer = setTimeout(() => {
      off?.();
      reject(
        new Error(
          `no ${what} within ${timeoutMs} ms${started.exit ? ' (the process exited)' : ''}; stderr: ${started.stderr().slice(-1500)}`,
        ),
      );
    }, timeoutMs);
  });
}

/**
 * Stop a started child: `first` (stdin EOF, or a signal), then SIGKILL if it has not exited
 * after `graceMs`. With `group`, whatever is left of its process group is killed at the end too
 * (grandchildren that outlived it).
 */
export async function stop(
  started: Started,
  first: 'eof' | NodeJS.Signals,
  graceMs: number,
  group: boolean,
): Promise<ProcessExit> {
  const { child } = started;
  const kill = () => (group ? killGroup(child.pid) : child.kill('SIGKILL'));
  if (child.exitCode === null && child.signalCode === null) {
    if (first === 'eof') child.stdin.end();
    else child.kill(first);
  }
  const timer = setTimeout(kill, graceMs);
  const exit = await started.exited;
  clearTimeout(timer);
  if (group) killGroup(child.pid);
  return exit;
}
