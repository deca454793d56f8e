/**
 * Token builds off the event loop: a worker thread (./build-worker.ts) runs Style Dictionary, so
 * a large document's build — seconds of CPU for 10,000 tokens — never delays another caller's
 * request. Builds queue in the worker one at a time; a build of the same document for the same
 * platform while one is under way or kept is not made twice (the last {@link CACHED} results are
 * kept, keyed by the caller's key, e.g. project and version). At most {@link MAX_QUEUED} builds
 * wait; one more is refused at once ({@link TokenBuildError}), never queued without bound.
 *
 * The worker starts with the first build and does not keep the process alive while idle; if it
 * dies (out of memory: its heap is capped), the builds waiting fail and the next build starts a
 * new one.
 */
import { Worker } from 'node:worker_threads';
import { type BuildOptions, type BuiltFile, type Platform, TokenBuildError } from './build.js';

/** Builds kept. */
export const CACHED = 64;
/** Builds that may wait for the worker. */
export const MAX_QUEUED = 32;
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

interface Waiting {
  resolve: (files: BuiltFile[]) => void;
  reject: (error: Error) => void;
}

/** Builds design tokens in a worker thread; see the module header. */
export class TokenBuilder {
  /** The worker, once a build started it; undefined again after it died. */
  #worker: Worker | undefined;
  /** Builds sent to the worker and not answered yet, by request id. */
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  /** Finished or running builds by key, oldest first (a Map keeps insertion order). */
  readonly #cache = new Map<string, Promise<BuiltFile[]>>();
  #closed = false;

  /**
   * The files of `doc` for `platform`. `key` names the document's version (e.g. project id and
   * version): a second build with the same key and platform is the first one's result.
   */
  build(
    key: string,
    doc: Record<string, unknown>,
    platform: Platform,
    options: BuildOptions = {},
  ): Promise<BuiltFile[]> {
    const cacheKey = `${key}\u0000${platform}\u0000${JSON.stringify(options)}`;
    const kept = this.#cache.get(cacheKey);
    if (kept) {
      this.#cache.delete(cacheKey);
      this.#cache.set(cacheKey, kept);
      return kept;
    }
    if (this.#closed) return Promise.reject(new TokenBuildError('the token builder is closed'));
    if (this.#waiting.size >= MAX_QUEUED) {
      return Promise.reject(
        new TokenBuildError(`${MAX_QUEUED} token builds are waiting already; try again shortly`),
      );
    }
    const result = this.#send(doc, platform, options);
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
    return this.#waiting.size;
  }

  /** Stops the worker; builds waiting fail, later builds are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #send(
    doc: Record<string, unknown>,
    platform: Platform,
    options: BuildOptions,
  ): Promise<BuiltFile[]> {
    const id = this.#nextId++;
    return new Promise<BuiltFile[]>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      const worker = this.#start();
      worker.ref();
      worker.postMessage({ id, doc, platform, options } satisfies BuildRequest);
    });
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
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) worker.unref();
      if (reply.ok) waiting.resolve(reply.files);
      else waiting.reject(new TokenBuildError(reply.message));
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', (err) =>
      fail(new TokenBuildError(`the token build stopped: ${err.message}`)),
    );
    worker.on('exit', () => fail(new TokenBuildError('the token build stopped')));
    return worker;
  }
}
