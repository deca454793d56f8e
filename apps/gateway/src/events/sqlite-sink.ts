import { Worker } from 'node:worker_threads';
import type { GatewayEvent } from '../event-types.js';
import type { EventFilter, EventRow, EventSink } from './sink.js';
import { openDatabase, SqliteEventStore } from './sqlite-store.js';

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

/** Options of {@link SqliteSink.open}. */
export interface SqliteSinkOptions {
  /**
   * Start the worker thread once this settles, not at once: until then appends and prunes are
   * kept in order, and anything that needs an answer (a query, a count, close) starts it at
   * once. The gateway's CLI passes its backends' start: booting the worker is ~50 ms of CPU
   * that would compete with the backends' own boot on a small machine.
   */
  startAfter?: Promise<unknown>;
}

/**
 * The SQLite sink: a file (or `:memory:`) owned by a worker thread. Every call is a message; the
 * event loop never waits for SQLite, only `closeSync` (at process exit) blocks, bounded.
 */
export class SqliteSink implements EventSink {
  readonly location: string;
  readonly #setup: WorkerSetup;
  #worker: Worker | undefined;
  /** Messages kept until the worker starts (see SqliteSinkOptions.startAfter), in order. */
  #held: WorkerRequest[] = [];
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #dead: Error | undefined;

  /**
   * Checks `path` here, synchronously — a directory that cannot be created or written, a file that
   * is not an event log throw now, with the path and the reason — then starts the worker (at once,
   * or as `options.startAfter` says).
   */
  static open(
    path: string,
    retentionMs: number,
    maxEvents: number,
    options: SqliteSinkOptions = {},
  ): SqliteSink {
    // ':memory:' is private to a connection: the worker's own is the only one.
    if (path !== ':memory:') openDatabase(path).close();
    const sink = new SqliteSink(path, { path, retentionMs, maxEvents });
    if (options.startAfter) {
      const start = () => {
        if (!sink.#dead) sink.#start();
      };
      options.startAfter.then(start, start);
    } else sink.#start();
    return sink;
  }

  private constructor(path: string, setup: WorkerSetup) {
    this.location = path;
    this.#setup = setup;
  }

  /** Starts the worker, if it has not started, and hands it what was kept meanwhile. */
  #start(): Worker {
    if (this.#worker) return this.#worker;
    const path = this.location;
    const worker = new Worker(workerUrl(), {
      workerData: this.#setup,
      name: 'mcpkit-event-log',
      // None of the process's Node flags: a worker refuses per-process ones (`node
      // --max-old-space-size=… cli.js` would not start), and `--input-type` (a gateway started
      // from `node -e`) makes a worker that loads a file fail at once. It needs none.
      execArgv: [],
      // Its own V8 heap: left to grow, the young generation of a thread that only decodes a
      // batch every 100 ms reached 8 MB at c=50 (14 MB heap); 2 MB keeps it at ~8 MB, the
      // scavenges it costs run on this thread, not the event loop's.
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
    });
    this.#worker = worker;
    // An idle log must not keep the process alive; one with calls waiting does (see #post).
    if (this.#waiting.size === 0) worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) worker.unref();
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      this.#dead ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#dead);
      this.#waiting.clear();
    };
    worker.on('error', (err) => fail(new Error(`the event log worker failed: ${err.message}`)));
    worker.on('exit', () => fail(new Error(`the event log ${path} is closed`)));
    for (const message of this.#held) worker.postMessage(message);
    this.#held = [];
    return worker;
  }

  append(rows: EventRow[], now: number): Promise<void> {
    return this.#post({ id: 0, op: 'append', rows, now }, true) as Promise<void>;
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
    return this.#post({ id: 0, op: 'prune', now }, true) as Promise<number>;
  }

  close(rows: EventRow[], now: number): Promise<void> {
    return this.#post({ id: 0, op: 'close', rows, now }) as Promise<void>;
  }

  closeSync(rows: EventRow[], now: number, timeoutMs: number): boolean {
    if (this.#dead) return false;
    if (!this.#worker) return this.#closeHere(rows, now);
    const done = new SharedArrayBuffer(4);
    this.#worker.postMessage({ id: this.#nextId++, op: 'close', rows, now, done });
    const flag = new Int32Array(done);
    Atomics.wait(flag, 0, 0, timeoutMs);
    return Atomics.load(flag, 0) === 1;
  }

  /**
   * An exit before the worker started: what it was to write (the appends kept, then `rows`) is
   * written from this thread, synchronously; the prune waits for the next start.
   */
  #closeHere(rows: EventRow[], now: number): boolean {
    const closed = new Error(`the event log ${this.location} is closed`);
    this.#dead = closed;
    const held = this.#held;
    this.#held = [];
    const all = held.flatMap((m) => (m.op === 'append' ? m.rows : [])).concat(rows);
    let stored = all.length === 0;
    if (!stored) {
      try {
        const { path, retentionMs, maxEvents } = this.#setup;
        const store = new SqliteEventStore(openDatabase(path), retentionMs, maxEvents);
        try {
          store.insert(all, now);
        } finally {
          store.close();
        }
        stored = true;
      } catch {
        stored = false;
      }
    }
    // The held appends are answered as what became of their rows; the prune is not run (0).
    for (const message of held) {
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (stored) waiting?.resolve(message.op === 'prune' ? 0 : undefined);
      else waiting?.reject(closed);
    }
    for (const waiting of this.#waiting.values()) waiting.reject(closed);
    this.#waiting.clear();
    return stored;
  }

  /** `later`: an append or prune, which may wait for a worker that has not started yet. */
  #post(message: WorkerRequest, later = false): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    message.id = id;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      const worker = this.#worker ?? (later ? undefined : this.#start());
      if (!worker) {
        this.#held.push(message);
        return;
      }
      if (this.#waiting.size === 1) worker.ref();
      worker.postMessage(message);
    });
  }
}
