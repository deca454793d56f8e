import { Worker } from 'node:worker_threads';
import type { GatewayEvent } from '../event-types.js';
import type { EventFilter, EventRow, EventSink } from './sink.js';
import { openDatabase } from './sqlite-store.js';

/** What the worker is started with. */
export interface WorkerSetup {
  path: string;
  retentionMs: number;
  maxEvents: number;
}

/** A message to the worker; each is answered by one {@link WorkerReply} with the same id. */
export type WorkerRequest = { id: number } & (
  | { op: 'append'; rows: EventRow[]; now: number }
  | { op: 'query' | 'explain'; filter: EventFilter }
  | { op: 'count' }
  | { op: 'prune'; now: number }
  | { op: 'close'; rows: EventRow[]; now: number; done?: SharedArrayBuffer }
);

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string };

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The worker's compiled file. Under vitest this module runs from `src/` as TypeScript, which a
 * worker thread cannot load; the package is built before its tests run (turbo's `test` depends
 * on `build`), so the worker comes from `dist/` then.
 */
function workerUrl(): URL {
  const url = new URL('./sqlite-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return url;
  return new URL(
    url.href.replace(/\/src\/events\/sqlite-worker\.js$/, '/dist/events/sqlite-worker.js'),
  );
}

/**
 * The SQLite sink: a file (or `:memory:`) owned by a worker thread. Every call is a message; the
 * event loop never waits for SQLite, only `closeSync` (at process exit) blocks, bounded.
 */
export class SqliteSink implements EventSink {
  readonly location: string;
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #dead: Error | undefined;

  /**
   * Checks `path` here, synchronously — a directory that cannot be created or written, a file that
   * is not an event log throw now, with the path and the reason — then starts the worker.
   */
  static open(path: string, retentionMs: number, maxEvents: number): SqliteSink {
    // ':memory:' is private to a connection: the worker's own is the only one.
    if (path !== ':memory:') openDatabase(path).close();
    return new SqliteSink(path, { path, retentionMs, maxEvents });
  }

  private constructor(path: string, setup: WorkerSetup) {
    this.location = path;
    this.#worker = new Worker(workerUrl(), {
      workerData: setup,
      name: 'mcpkit-event-log',
      // None of the process's Node flags: a worker refuses per-process ones (`node
      // --max-old-space-size=… cli.js` would not start), and `--input-type` (a gateway started
      // from `node -e`) makes a worker that loads a file fail at once. It needs none.
      execArgv: [],
    });
    // An idle log must not keep the process alive; one with calls waiting does (see #post).
    this.#worker.unref();
    this.#worker.on('message', (reply: WorkerReply) => {
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      this.#dead ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#dead);
      this.#waiting.clear();
    };
    this.#worker.on('error', (err) =>
      fail(new Error(`the event log worker failed: ${err.message}`)),
    );
    this.#worker.on('exit', () => fail(new Error(`the event log ${path} is closed`)));
  }

  append(rows: EventRow[], now: number): Promise<void> {
    return this.#post({ id: 0, op: 'append', rows, now }) as Promise<void>;
  }

  query(filter: EventFilter): Promise<GatewayEvent[]> {
    return this.#post({ id: 0, op: 'query', filter }) as Promise<GatewayEvent[]>;
  }

  explain(filter: EventFilter): Promise<string[]> {
    return this.#post({ id: 0, op: 'explain', filter }) as Promise<string[]>;
  }

  count(): Promise<number> {
    return this.#post({ id: 0, op: 'count' }) as Promise<number>;
  }

  prune(now: number): Promise<number> {
    return this.#post({ id: 0, op: 'prune', now }) as Promise<number>;
  }

  close(rows: EventRow[], now: number): Promise<void> {
    return this.#post({ id: 0, op: 'close', rows, now }) as Promise<void>;
  }

  closeSync(rows: EventRow[], now: number, timeoutMs: number): boolean {
    if (this.#dead) return false;
    const done = new SharedArrayBuffer(4);
    this.#worker.postMessage({ id: this.#nextId++, op: 'close', rows, now, done });
    const flag = new Int32Array(done);
    Atomics.wait(flag, 0, 0, timeoutMs);
    return Atomics.load(flag, 0) === 1;
  }

  #post(message: WorkerRequest): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    message.id = id;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      if (this.#waiting.size === 1) this.#worker.ref();
      this.#worker.postMessage(message);
    });
  }
}
