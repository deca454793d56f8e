/**
 * Token builds off the event loop: a worker thread (./build-worker.ts) runs Style Dictionary, so
 * a large document's build — seconds of CPU for 10,000 tokens — never delays another caller's
 * request. The worker builds one document at a time, and callers take turns: each caller's builds
 * wait in a queue of their own and the next build is the next caller's (round robin), so one
 * caller's stream of builds holds another's back by one build at most. At most
 * {@link MAX_QUEUED_PER_CALLER} builds of one caller and {@link MAX_QUEUED} in all wait; one more is
 * refused at once ({@link TokenBuildError}), never queued without bound. A build of the same
 * document for the same platform while one is under way or kept is not made twice (the last
 * {@link CACHED} results are kept, keyed by the caller's key, e.g. project and version).
 *
 * The worker starts with the first build and does not keep the process alive while idle; if it
 * dies (out of memory: its heap is capped), the builds waiting fail and the next build starts a
 * new one.
 */
import { Worker } from 'node:worker_threads';
import { type BuildOptions, type BuiltFile, type Platform, TokenBuildError } from './build.js';

/** Builds kept. */
export const CACHED = 64;
/** Builds that may wait for the worker, in all. */
export const MAX_QUEUED = 32;
/** Builds of one caller that may wait for the worker. */
export const MAX_QUEUED_PER_CALLER = 4;
/** The worker's heap, in MB: a build of the largest document needs a fraction of it. */
const HEAP_MB = 512;

/** A message to the worker. */
export interface BuildRequest {
  id: number;
  doc: Record<string, unknown>;
  platform: Platform;
  options: BuildOptions;
}

/** The worker's answer to one {@link BuildRequest}. */
export type BuildReply =
  | { id: number; ok: true; files: BuiltFile[] }
  | { id: number; ok: false; message: string; path?: string };

/**
 * The worker's compiled file. Under vitest this module runs from `src/` as TypeScript, which a
 * worker thread cannot load; the package is built before its tests run (turbo's `test` depends
 * on `build`), so the worker comes from `dist/` then.
 */
function workerUrl(): URL {
  const url = new URL('./build-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return url;
  return new URL(
    url.href.replace(/\/src\/tokens\/build-worker\.js$/, '/dist/tokens/build-worker.js'),
  );
}

/** A build waiting for, or in, the worker. */
interface Job {
  request: BuildRequest;
  caller: string;
  resolve: (files: BuiltFile[]) => void;
  reject: (error: Error) => void;
}

/** Builds design tokens in a worker thread; see the module header. */
export class TokenBuilder {
  /** The worker, once a build started it; undefined again after it died. */
  #worker: Worker | undefined;
  /** Each caller's builds waiting for the worker, oldest first; callers in the order they are served. */
  readonly #queues = new Map<string, Job[]>();
  /** The build in the worker. */
  #running: Job | undefined;
  /** Whose build went to the worker last: the next one is someone else's if anyone else waits. */
  #lastServed: string | undefined;
  /** Builds waiting or running, in all and by caller. */
  #count = 0;
  readonly #counts = new Map<string, number>();
  #nextId = 1;
  /** Finished or running builds by key, oldest first (a Map keeps insertion order). */
  readonly #cache = new Map<string, Promise<BuiltFile[]>>();
  #closed = false;

  /**
   * The files of `doc` for `platform`. `key` names the document's version (e.g. project id and
   * version): a second build with the same key and platform is the first one's result. `caller`
   * (e.g. the user id) is whose turn it is (see the module header).
   */
  build(
    key: string,
    doc: Record<string, unknown>,
    platform: Platform,
    options: BuildOptions = {},
    caller = '',
  ): Promise<BuiltFile[]> {
    const cacheKey = `${key}\u0000${platform}\u0000${JSON.stringify(options)}`;
    const kept = this.#cache.get(cacheKey);
    if (kept) {
      this.#cache.delete(cacheKey);
      this.#cache.set(cacheKey, kept);
      return kept;
    }
    if (this.#closed) return Promise.reject(new TokenBuildError('the token builder is closed'));
    if (this.#count >= MAX_QUEUED) {
      return Promise.reject(
        new TokenBuildError(`${MAX_QUEUED} token builds are waiting already; try again shortly`),
      );
    }
    if ((this.#counts.get(caller) ?? 0) >= MAX_QUEUED_PER_CALLER) {
      return Promise.reject(
        new TokenBuildError(
          `${MAX_QUEUED_PER_CALLER} of your token builds are waiting already; try again when they are done`,
        ),
      );
    }
    const result = this.#enqueue(caller, { id: this.#nextId++, doc, platform, options });
    this.#cache.set(cacheKey, result);
    // A failed build is not kept: the next request tries again.
    result.catch(() => {
      if (this.#cache.get(cacheKey) === result) this.#cache.delete(cacheKey);
    });
    while (this.#cache.size > CACHED) {
      this.#cache.delete(this.#cache.keys().next().value as string);
    }
    return result;
  }

  /** Builds waiting for the worker or running. */
  get pending(): number {
    return this.#count;
  }

  /** Stops the worker; builds waiting fail, later builds are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#failAll(new TokenBuildError('the token builder is closed'));
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #enqueue(caller: string, request: BuildRequest): Promise<BuiltFile[]> {
    return new Promise<BuiltFile[]>((resolve, reject) => {
      const queue = this.#queues.get(caller);
      const job = { request, caller, resolve, reject };
      if (queue) queue.push(job);
      else this.#queues.set(caller, [job]);
      this.#count++;
      this.#counts.set(caller, (this.#counts.get(caller) ?? 0) + 1);
      this.#pump();
    });
  }

  /** Sends the next caller's oldest build to the worker, if it is free. */
  #pump(): void {
    if (this.#running || this.#closed) return;
    if (this.#queues.size === 0) {
      this.#worker?.unref();
      return;
    }
    // The first caller in line other than the one served last, if any other waits.
    let caller = this.#queues.keys().next().value as string;
    if (caller === this.#lastServed && this.#queues.size > 1) {
      const callers = this.#queues.keys();
      callers.next();
      caller = callers.next().value as string;
    }
    const queue = this.#queues.get(caller) as Job[];
    const job = queue.shift() as Job;
    this.#lastServed = caller;
    // The caller goes to the back of the line, or out of it.
    this.#queues.delete(caller);
    if (queue.length > 0) this.#queues.set(caller, queue);
    this.#running = job;
    const worker = this.#start();
    worker.ref();
    worker.postMessage(job.request);
  }

  /** A job is done (answered or failed): counted out. */
  #done(job: Job): void {
    this.#count--;
    const left = (this.#counts.get(job.caller) ?? 1) - 1;
    if (left > 0) this.#counts.set(job.caller, left);
    else this.#counts.delete(job.caller);
  }

  #failAll(error: Error): void {
    const jobs = [...(this.#running ? [this.#running] : []), ...[...this.#queues.values()].flat()];
    this.#running = undefined;
    this.#queues.clear();
    for (const job of jobs) {
      this.#done(job);
      job.reject(error);
    }
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(workerUrl(), {
      name: 'mcpkit-token-builds',
      // None of the process's Node flags: a worker refuses per-process ones.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    this.#worker = worker;
    worker.on('message', (reply: BuildReply) => {
      const job = this.#running;
      if (!job || job.request.id !== reply.id) return;
      this.#running = undefined;
      this.#done(job);
      if (reply.ok) job.resolve(reply.files);
      else job.reject(new TokenBuildError(reply.message));
      this.#pump();
    });
    const fail = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#failAll(error);
    };
    worker.on('error', (err) =>
      fail(new TokenBuildError(`the token build stopped: ${err.message}`)),
    );
    worker.on('exit', () => fail(new TokenBuildError('the token build stopped')));
    return worker;
  }
}
