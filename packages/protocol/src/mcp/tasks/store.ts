/**
 * Where the tasks of the MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) live
 * while they run and until they expire: one record per task, bound to the identity that created
 * it (anyone else is told it does not exist), with its status, its outcome once terminal, and the
 * input it waits for. Memory here; a fleet's stores (Redis, PostgreSQL) keep the same contract.
 *
 * The status machine (SEP-2663): `working` ⇄ `input_required`, then exactly one of `completed`
 * (a result — a tool error too, with `isError`), `failed` (a protocol error) or `cancelled`; a
 * terminal task never changes again.
 */
import { randomBytes } from 'node:crypto';

/** A task's status on the wire. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
]);

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task as the store keeps it. */
export interface TaskRecord {
  /** Unguessable (128 random bits, base64url). */
  readonly taskId: string;
  /** The identity that created it ('' for a caller without one); nobody else may see it. */
  readonly owner: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ms since the epoch. */
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** How long after its creation it may be forgotten; null: as long as the store keeps it. */
  readonly ttlMs: number | null;
  /** How often a client should poll, ms. */
  readonly pollIntervalMs?: number;
  /** The tool's result (`completed`). */
  result?: Record<string, unknown>;
  /** Why it failed (`failed`). */
  error?: TaskError;
  /** What it waits for (`input_required`): requests by the server's opaque keys. */
  inputRequests?: Record<string, Record<string, unknown>>;
  /** The process running it (a fleet's member id), to fail it when that process is gone. */
  readonly runner?: string;
}

/** What a task is created with. */
export interface NewTask {
  owner: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  runner?: string;
  statusMessage?: string;
}

/** A change to a task that is not terminal (a terminal one refuses every change). */
export type TaskChange = Partial<
  Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests'>
>;

/** The store's refusal of more tasks for one identity. */
export class TaskLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} unfinished tasks per caller`);
    this.name = 'TaskLimitError';
  }
}

/** Where tasks are kept. Every method resolves once the change is durable. */
export interface TaskStore {
  /** Make a task (`working`); refused with TaskLimitError past the per-identity bound. */
  create(task: NewTask): Promise<TaskRecord>;
  /** The task, if it exists, has not expired, and belongs to `owner`. */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;
  /**
   * Apply `change` unless the task is terminal (or gone): the record after it, or undefined
   * when nothing changed.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Call `listener` after every change of any task (a fleet's: of any instance's). */
  watch(listener: (task: TaskRecord) => void): () => void;
  /** Forget expired tasks now (they are forgotten lazily otherwise). */
  sweep(): Promise<number>;
}

/** What a {@link MemoryTaskStore} is made with. */
export interface MemoryTaskStoreOptions {
  /** Unfinished tasks one identity may have at once. Default 100. */
  maxActivePerOwner?: number;
  /** The clock, ms since the epoch (tests). Default `Date.now`. */
  now?: () => number;
}

/** A new task id: 128 random bits. */
export function newTaskId(): string {
  return randomBytes(16).toString('base64url');
}

/** The tasks of one process, in memory. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  /** Unfinished tasks per owner. */
  readonly #active = new Map<string, number>();
  readonly #listeners = new Set<(task: TaskRecord) => void>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxActivePerOwner ?? 100;
    this.#now = options.now ?? Date.now;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    const active = this.#active.get(task.owner) ?? 0;
    if (active >= this.#max) throw new TaskLimitError(this.#max);
    const now = this.#now();
    const record: TaskRecord = {
      taskId: newTaskId(),
      owner: task.owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: task.ttlMs,
      ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
      ...(task.runner !== undefined ? { runner: task.runner } : {}),
      ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    };
    this.#tasks.set(record.taskId, record);
    this.#active.set(task.owner, active + 1);
    this.#tell(record);
    return { ...record };
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    return task && task.owner === owner ? { ...task } : undefined;
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    if (!task || TERMINAL_STATUSES.has(task.status)) return undefined;
    Object.assign(task, change);
    if (change.status !== 'input_required' && change.status !== undefined) {
      delete task.inputRequests;
    }
    task.lastUpdatedAt = this.#now();
    if (TERMINAL_STATUSES.has(task.status)) this.#finished(task.owner);
    this.#tell(task);
    return { ...task };
  }

  watch(listener: (task: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async sweep(): Promise<number> {
    let forgotten = 0;
    for (const id of [...this.#tasks.keys()]) if (!this.#live(id)) forgotten++;
    return forgotten;
  }

  /** The task unless it has expired (then it is forgotten now). */
  #live(taskId: string): TaskRecord | undefined {
    const task = this.#tasks.get(taskId);
    if (!task) return undefined;
    if (task.ttlMs !== null && this.#now() >= task.createdAt + task.ttlMs) {
      this.#tasks.delete(taskId);
      if (!TERMINAL_STATUSES.has(task.status)) this.#finished(task.owner);
      return undefined;
    }
    return task;
  }

  #finished(owner: string): void {
    const left = (this.#active.get(owner) ?? 1) - 1;
    if (left > 0) this.#active.set(owner, left);
    else this.#active.delete(owner);
  }

  #tell(task: TaskRecord): void {
    for (const listener of this.#listeners) {
      try {
        listener({ ...task });
      } catch {
        // A watcher's failure is its own: the change stands.
      }
    }
  }
}
