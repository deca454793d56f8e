import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { JsonRpcId, ProcessExit } from '@mcpkit/protocol';
import type { RawReply } from '@mcpkit/protocol/testing';
import { killGroup } from './processes.js';
import { type ProcessOptions, start, stop, until } from './spawn.js';

/**
 * A server in a child process, spoken to in raw newline-delimited JSON-RPC over its stdio:
 * frames go out exactly as written, stdout comes back line by line, unparsed until asked.
 */
export interface RawProcess {
  /** The child process, its stdio as pipes. */
  readonly child: ChildProcessWithoutNullStreams;
  /** Its process id. */
  readonly pid: number;
  /** Every line the child wrote on stdout so far, in order. */
  readonly lines: readonly string[];
  /** Lines `next()` has not taken yet. */
  readonly unread: string[];
  /** Write raw text to stdin (no newline added). */
  write(text: string | Buffer): void;
  /** Write one line: a string as is, anything else JSON-encoded; a newline is appended. */
  send(message: unknown): void;
  /** The next stdout line `next()` has not taken; rejects after `timeoutMs` (default 10 s). */
  next(timeoutMs?: number): Promise<string>;
  /** `send(message)`, then the next stdout line, parsed: for servers answering in order. */
  exchange<T = RawReply>(message: unknown, timeoutMs?: number): Promise<T>;
  /**
   * Send a request with the next free numeric id (from 1000 up, clear of the small ids written
   * by hand) and resolve with the response carrying it, wherever it is in stdout — lines before
   * and after stay readable through `next()`.
   */
  request<R = Record<string, unknown>>(
    method: string,
    params?: unknown,
    timeoutMs?: number,
  ): Promise<RawReply<R>>;
  /** Send a notification. */
  notify(method: string, params?: unknown): void;
  /** The response with this id, once it is on stdout. */
  response<R = Record<string, unknown>>(id: JsonRpcId, timeoutMs?: number): Promise<RawReply<R>>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the first match of `pattern` in stderr. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<ProcessExit>;
  /** Close stdin and wait for the exit; SIGKILL after `timeoutMs` (default 10 s). */
  end(timeoutMs?: number): Promise<ProcessExit>;
  /** Send a signal now (default SIGKILL) — to the whole group when started `detached`. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Start `command args` and speak raw JSON-RPC to it over stdio — for tests of what goes over
 * the pipe: verbatim frames, garbage, batches, the order of replies and notifications, exit
 * codes, stdout kept clean. A test of what a server does uses `spawnServer` (an McpClient).
 *
 * @example
 * ```ts
 * const server = spawnRaw(process.execPath, ['dist/cli.js'], { env: { LOG_LEVEL: 'debug' } });
 * expect(await server.exchange('{"jsonrpc":"2.0","id":1,"method":')).toMatchObject({
 *   id: null,
 *   error: { code: -32700 },
 * });
 * expect((await server.end()).code).toBe(0);
 * ```
 */
export function spawnRaw(
  command: string,
  args: readonly string[] = [],
  options: ProcessOptions = {},
): RawProcess {
  const started = start(command, args, options);
  const { child } = started;
  const lines: string[] = [];
  const parsed: (RawReply & { method?: unknown })[] = [];
  let cursor = 0;
  let partial = '';
  let nextId = 1000;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    started.changed();
  });
  const parse = (i: number) => {
    if (parsed[i] === undefined) {
      try {
        parsed[i] = JSON.parse(lines[i] ?? '') as RawReply;
      } catch {
        parsed[i] = { jsonrpc: '2.0', id: null, method: 'not JSON' };
      }
    }
    return parsed[i];
  };
  const send = (message: unknown) => {
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  };
  const next = (timeoutMs = 10_000) =>
    until(
      started,
      'stdout line',
      () => (cursor < lines.length ? (lines[cursor++] as string) : undefined),
      timeoutMs,
    );
  const response = <R>(id: JsonRpcId, timeoutMs = 10_000) =>
    until(
      started,
      `response to id ${JSON.stringify(id)}`,
      () => {
        for (let i = 0; i < lines.length; i++) {
          const m = parse(i);
          if (m && !Array.isArray(m) && m.id === id && m.method === undefined) {
            return m as RawReply<R>;
          }
        }
        return undefined;
      },
      timeoutMs,
    );
  const detached = options.detached ?? false;

  return {
    child,
    pid: child.pid as number,
    lines,
    get unread() {
      return lines.slice(cursor);
    },
    write: (text) => {
      child.stdin.write(text);
    },
    send,
    next,
    async exchange<T>(message: unknown, timeoutMs?: number) {
      send(message);
      return JSON.parse(await next(timeoutMs)) as T;
    },
    request(method, params, timeoutMs) {
      const id = nextId++;
      send(
        params === undefined
          ? { jsonrpc: '2.0', id, method }
          : { jsonrpc: '2.0', id, method, params },
      );
      return response(id, timeoutMs);
    },
    notify(method, params) {
      send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    },
    response,
    stderr: started.stderr,
    waitForStderr: (pattern, timeoutMs = 10_000) =>
      until(
        started,
        `stderr matching ${pattern}`,
        () => pattern.exec(started.stderr()) ?? undefined,
        timeoutMs,
      ),
    exited: started.exited,
    end: (timeoutMs = 10_000) => stop(started, 'eof', timeoutMs, detached),
    kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (detached) killGroup(child.pid, signal);
      else child.kill(signal);
    },
  };
}
