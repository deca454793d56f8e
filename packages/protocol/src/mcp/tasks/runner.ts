/**
 * Runs the work of tasks in this process and keeps their records in a {@link TaskStore}: the
 * outcome once the work settles, the status messages and input asks while it runs. What other
 * processes do to a task through the store — `tasks/cancel`, the answers of `tasks/update` — reaches
 * the work through the store's watch, so a fleet's instances may each serve any task request.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { MemoryTaskStore, type TaskError, type TaskRecord, type TaskStore } from './store.js';

/** How often expired tasks are swept from the store. */
const SWEEP_MS = 60_000;

/** The running work's view of its task (what `McpContext` uses once a call is a task). */
export interface RunningTask {
  /** The task's id. */
  readonly taskId: string;
  /** Aborted when the task is cancelled, expires, or this process stops running tasks. */
  readonly signal: AbortSignal;
  /** Set the task's `statusMessage`. */
  status(message: string): void;
  /**
   * Wait for input: the task becomes `input_required` with `request` under `key` until a
   * `tasks/update` answers it (on any instance); resolves with the answer.
   */
  ask(key: string, request: Record<string, unknown>): Promise<unknown>;
}

/** What a {@link TaskRunner} is made with (`McpServerOptions.tasks`). */
export interface TaskRunnerOptions {
  /** Where tasks are kept. Default: a {@link MemoryTaskStore} of this process. */
  store?: TaskStore;
  /**
   * How long a task is kept after its creation, ms: its `ttlMs` (null: as long as the store
   * keeps it). Its work is stopped when it expires. Default one hour.
   */
  ttlMs?: number | null;
  /** The poll interval suggested to clients, ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * This process's name among the instances sharing the store (a fleet member's id): the task
   * records which instance runs it, to fail it once that instance is known gone. Default random.
   */
  runner?: string;
  /** Where failures of the store are logged. */
  logger?: { warn(obj: object, msg: string): void };
}

interface Running {
  readonly abort: AbortController;
  readonly asks: Map<string, { resolve(value: unknown): void; reject(reason: unknown): void }>;
  timer: NodeJS.Timeout | undefined;
}

/** The error of a task whose work failed without a JSON-RPC error of its own. */
function errorOf(err: unknown): TaskError {
  if (RpcError.is(err)) {
    const json = err.toJSON();
    return json.data === undefined
      ? { code: json.code, message: json.message }
      : { code: json.code, message: json.message, data: json.data };
  }
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}

/** The tasks this process runs, and the store they are kept in. */
export class TaskRunner {
  /** Where the tasks are kept. */
  readonly store: TaskStore;
  /** This process's name in the task records. */
  readonly runner: string;
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #running = new Map<string, Running>();
  readonly #logger: TaskRunnerOptions['logger'];
  readonly #unwatch: () => void;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: TaskRunnerOptions = {}) {
    this.store = options.store ?? new MemoryTaskStore();
    this.runner = options.runner ?? randomBytes(8).toString('base64url');
    this.#ttlMs = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#logger = options.logger;
    this.#unwatch = this.store.watch((task) => this.#changed(task));
    // Expired tasks go at least this often, read or not (a store forgets them lazily otherwise).
    this.#sweeper = setInterval(() => {
      this.store.sweep().catch((err: unknown) => this.#logger?.warn({ err }, 'task sweep failed'));
    }, SWEEP_MS);
    this.#sweeper.unref();
  }

  /** Tasks whose work runs in this process now. */
  get running(): number {
    return this.#running.size;
  }

  /**
   * Make a task for `owner` and run `work` in it; resolves with the new record once the store
   * holds it (a `tasks/get` for it resolves from then on). `work` is called after that, with the
   * task's handle; what it resolves with is the task's result (`completed`), what it rejects with
   * its error (`failed`). Rejects with the store's refusal (TaskLimitError, unavailable).
   */
  async start(
    owner: string,
    work: (task: RunningTask) => PromiseLike<object>,
    statusMessage?: string,
  ): Promise<TaskRecord> {
    const record = await this.store.create({
      owner,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      runner: this.runner,
      ...(statusMessage === undefined ? {} : { statusMessage }),
    });
    const { taskId } = record;
    const running: Running = { abort: new AbortController(), asks: new Map(), timer: undefined };
    this.#running.set(taskId, running);
    if (record.ttlMs !== null) {
      // Expired: forgotten by the store, so its work has nobody left to tell.
      running.timer = setTimeout(
        () => this.#stop(taskId, new RpcError(ErrorCode.InternalError, 'task expired')),
        record.ttlMs,
      );
      running.timer.unref();
    }
    const handle: RunningTask = {
      taskId,
      signal: running.abort.signal,
      status: (message) => {
        this.#write(this.store.update(taskId, { statusMessage: message }), taskId);
      },
      ask: (key, request) => this.#ask(taskId, running, key, request),
    };
    let outcome: PromiseLike<object>;
    try {
      outcome = work(handle);
    } catch (err) {
      outcome = Promise.reject(err);
    }
    Promise.resolve(outcome).then(
      (result) =>
        this.#settle(taskId, { status: 'completed', result: result as Record<string, unknown> }),
      (err: unknown) => this.#settle(taskId, { status: 'failed', error: errorOf(err) }),
    );
    return record;
  }

  /** Stop every task this process runs (its work is aborted; records stay as they are). */
  close(): void {
    this.#unwatch();
    clearInterval(this.#sweeper);
    for (const taskId of [...this.#running.keys()]) {
      this.#stop(taskId, new RpcError(ErrorCode.InternalError, 'server shutting down'));
    }
  }

  #ask(
    taskId: string,
    running: Running,
    key: string,
    request: Record<string, unknown>,
  ): Promise<unknown> {
    if (running.abort.signal.aborted) return Promise.reject(running.abort.signal.reason);
    return new Promise((resolve, reject) => {
      // Waiting before asking: an answer on another instance may arrive before the ask resolves.
      running.asks.set(key, { resolve, reject });
      this.store.ask(taskId, key, request).then(
        (task) => {
          if (!task) return;
          // Answered already (a retry of the same key): take it.
          if (task.inputResponses && Object.hasOwn(task.inputResponses, key)) {
            running.asks.delete(key);
            resolve(task.inputResponses[key]);
          }
        },
        (err: unknown) => {
          running.asks.delete(key);
          reject(err);
        },
      );
    });
  }

  /** A change of any task: a cancel stops its work here, answers go to the asks waiting. */
  #changed(task: TaskRecord): void {
    const running = this.#running.get(task.taskId);
    if (!running) return;
    if (task.status === 'cancelled') {
      this.#stop(task.taskId, new RpcError(ErrorCode.InternalError, 'task cancelled'));
      return;
    }
    const answers = task.inputResponses;
    if (!answers) return;
    for (const [key, ask] of running.asks) {
      if (!Object.hasOwn(answers, key)) continue;
      running.asks.delete(key);
      ask.resolve(answers[key]);
    }
  }

  #settle(taskId: string, change: { status: 'completed' | 'failed' } & Record<string, unknown>) {
    const running = this.#running.get(taskId);
    if (running?.timer) clearTimeout(running.timer);
    this.#running.delete(taskId);
    // A task cancelled (or expired) meanwhile keeps its status: the store refuses the change.
    this.#write(this.store.update(taskId, change), taskId);
  }

  #stop(taskId: string, reason: RpcError): void {
    const running = this.#running.get(taskId);
    if (!running) return;
    this.#running.delete(taskId);
    if (running.timer) clearTimeout(running.timer);
    for (const ask of running.asks.values()) ask.reject(reason);
    running.asks.clear();
    running.abort.abort(reason);
  }

  #write(change: Promise<unknown>, taskId: string): void {
    change.catch((err: unknown) => {
      this.#logger?.warn({ err, taskId }, 'task store write failed');
    });
  }
}
