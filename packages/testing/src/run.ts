import { killGroup } from './processes.js';
import { type ProcessOptions, start } from './spawn.js';

/** How {@link runProcess} runs a command: its input, its deadline, when to stop it. */
export interface RunOptions extends ProcessOptions {
  /** Written to stdin, which is then closed. Default: nothing (stdin closed at once). */
  input?: string;
  /**
   * Killed (its group too when `detached`) after this long; the result then says `timedOut`.
   * Default 15 000 ms.
   */
  timeoutMs?: number;
  /**
   * For a command that runs until stopped: stdin stays open, and once stderr matches, the
   * process gets SIGTERM (e.g. stop a server once it logged that it is serving).
   */
  stopWhen?: RegExp;
}

/** How a command run by {@link runProcess} ended, and all it wrote. */
export interface RunResult {
  /** The exit code; null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** Everything it wrote to stdout. */
  stdout: string;
  /** Everything it wrote to stderr. */
  stderr: string;
  /** It ran past `timeoutMs` and was killed. */
  timedOut: boolean;
  /** Wall time from spawn to close. */
  ms: number;
}

/**
 * Run a command to its end, bounded, and collect its output. Never rejects for a non-zero exit
 * (the test asserts on `code`); rejects only when it could not be started.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runProcess(process.execPath, [CLI, '--help']);
 * expect(code).toBe(0);
 * ```
 */
export function runProcess(
  command: string,
  args: readonly string[] = [],
  options: RunOptions = {},
): Promise<RunResult> {
  const { input, timeoutMs = 15_000, stopWhen, ...processOptions } = options;
  const began = Date.now();
  const started = start(command, args, processOptions);
  const { child } = started;
  const detached = processOptions.detached ?? false;
  let stdout = '';
  let timedOut = false;
  let stopped = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
  });
  if (stopWhen) {
    const off = started.onChange(() => {
      if (stopped || !stopWhen.test(started.stderr())) return;
      stopped = true;
      off();
      child.kill('SIGTERM');
    });
  } else {
    child.stdin.end(input ?? '');
  }
  const timer = setTimeout(() => {
    timedOut = true;
    if (detached) killGroup(child.pid);
    else child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever it left behind in its group goes too.
      if (detached) killGroup(child.pid);
      resolve({
        code,
        signal,
        stdout,
        stderr: started.stderr(),
        timedOut,
        ms: Date.now() - began,
      });
    });
  });
}
