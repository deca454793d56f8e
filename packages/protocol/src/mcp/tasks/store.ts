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
  /** The JSON-RPC error code. */
  code: number;
  /** What went wrong. */
  message: string;
  /** Details, if any. */
  data?: unknown;
}

/** One task as the store keeps it. */
export interface TaskRecord {
  /** Unguessable (128 random bits, base64url). */
  readonly taskId: string;
  /** The identity that created it ('' for a caller without one); nobody else may see it. */
  readonly owner: string;
  /** Where it is in its life. */
  status: TaskStatus;
  /** What it is doing now, for people (a tool's progress message). */
  statusMessage?: string;
  /** ms since the epoch. */
  readonly createdAt: number;
  /** When it last changed, ms since the epoch. */
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
  /**
   * Answers `tasks/update` delivered, by the key they answer, for the process running the task
   * to take (it may be another instance of a fleet). Kept until the task ends: keys are never
   * asked twice in one task.
   */
  inputResponses?: Record<string, unknown>;
  /** The process running it (a fleet's member id), to fail it when that process is gone. */
  readonly runner?: string;
}

/** What a task is created with. */
export interface NewTask {
  /** Whose it is (see {@link TaskRecord.owner}). */
  owner: string;
  /** See {@link TaskRecord.ttlMs}. */
  ttlMs: number | null;
  /** See {@link TaskRecord.pollIntervalMs}. */
  pollIntervalMs?: number;
  /** See {@link TaskRecord.runner}. */
  runner?: string;
  /** Its first status message. */
  statusMessage?: string;
}

/**
 * A change to a task that is not terminal (a terminal one refuses every change). What it waits
 * for changes only through {@link TaskStore.ask} and {@link TaskStore.answer}, each one step:
 * the asking process and the answering one may be different instances.
 */
export type TaskChange = Partial<Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error'>>;

// A registry-wide brand instead of `instanceof`: a store from a second copy of this package
// (another version in the same node_modules tree) still throws one the server recognises.
const LIMIT_BRAND = Symbol.for('mcpkit.TaskLimitError');

/** The store's refusal of more tasks for one identity. */
export class TaskLimitError extends Error {
  /** Marks a TaskLimitError from any copy of this package (see {@link TaskLimitError.is}). */
  readonly [LIMIT_BRAND] = true;

  constructor(
    /** Unfinished tasks one identity may have. */
    readonly limit: number,
  ) {
    super(`at most ${limit} tasks per caller`);
    this.name = 'TaskLimitError';
  }

  /** Whether `value` is a TaskLimitError from any copy of this package. */
  static is(value: unknown): value is TaskLimitError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [LIMIT_BRAND]?: unknown })[LIMIT_BRAND] === true
    );
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
  /**
   * The running task waits for `request` under `key`: added to its input requests, status
   * `input_required`. Undefined when the task is terminal or gone.
   */
  ask(
    taskId: string,
    key: string,
    request: Record<string, unknown>,
  ): Promise<TaskRecord | undefined>;
  /**
   * `tasks/update` of `owner`: each response whose key the task waits for moves from its input
   * requests to its input responses (others are ignored); with none left it is `working` again.
   * Undefined when the task does not exist for `owner`; a terminal task is returned unchanged.
   */
  answer(
    taskId: string,
    owner: string,
    responses: Record<string, unknown>,
  ): Promise<TaskRecord | undefined>;
  /** Call `listener` after every change of any task (a fleet's: of any instance's). */
  watch(listener: (task: TaskRecord) => void): () => void;
  /** Forget expired tasks now (they are forgotten lazily otherwise). */
  sweep(): Promise<number>;
}

/** What a {@link MemoryTaskStore} is made with. */
export interface MemoryTaskStoreOptions {
  /** Unfinished tasks one identity may have at once. Default 100. */
  maxActivePerOwner?: number;
  /**
   * Tasks one identity may have kept at once, finished ones included (each is kept until its
   * `ttlMs`): what bounds the memory one caller's quick tasks take. Default 1000.
   */
  maxStoredPerOwner?: number;
  /** The clock, ms since the epoch (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * A change applied to a record (every store's one rule): a terminal status drops what the task
 * waited for and the answers it had not taken.
 */
export function applyChange(task: TaskRecord, change: TaskChange, now: number): void {
  Object.assign(task, change);
  if (TERMINAL_STATUSES.has(task.status)) {
    delete task.inputRequests;
    delete task.inputResponses;
  }
  task.lastUpdatedAt = now;
}

/** An ask applied to a record that is not terminal. */
export function applyAsk(
  task: TaskRecord,
  key: string,
  request: Record<string, unknown>,
  now: number,
): void {
  task.inputRequests = { ...task.inputRequests, [key]: request };
  task.status = 'input_required';
  task.lastUpdatedAt = now;
}

/**
 * Answers applied to a record: true when any was taken. Only keys the task waits for count
 * (the spec: responses for keys not outstanding are ignored); the rest stay asked.
 */
export function applyAnswer(
  task: TaskRecord,
  responses: Record<string, unknown>,
  now: number,
): boolean {
  const asked = task.inputRequests;
  if (!asked || TERMINAL_STATUSES.has(task.status)) return false;
  let taken = false;
  const left = { ...asked };
  const answers = { ...task.inputResponses };
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.hasOwn(left, key)) continue;
    delete left[key];
    answers[key] = value;
    taken = true;
  }
  if (!taken) return false;
  task.inputResponses = answers;
  if (Object.keys(left).length === 0) {
    delete task.inputRequests;
    task.status = 'working';
  } else task.inputRequests = left;
  task.lastUpdatedAt = now;
  return true;
}

/** A record's copy for a caller: its maps are its own too. */
function copy(task: TaskRecord): TaskRecord {
  const out = { ...task };
  if (task.inputRequests) out.inputRequests = { ...task.inputRequests };
  if (task.inputResponses) out.inputResponses = { ...task.inputResponses };
  return out;
}

/** The record of a task just made (every store's first row of it): `working`, a new id. */
export function newTaskRecord(task: NewTask, now: number): TaskRecord {
  return {
    taskId: newTaskId(),
    owner: task.owner,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: task.ttlMs === null ? null : Math.round(task.ttlMs),
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
    ...(task.runner !== undefined ? { runner: task.runner } : {}),
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
  };
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
  /** Kept tasks per owner, finished ones included. */
  readonly #stored = new Map<string, number>();
  readonly #listeners = new Set<(task: TaskRecord) => void>();
  readonly #max: number;
  readonly #maxStored: number;
  readonly #now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxActivePerOwner ?? 100;
    this.#maxStored = options.maxStoredPerOwner ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** See {@link TaskStore.create}. */
  async create(task: NewTask): Promise<TaskRecord> {
    const active = this.#active.get(task.owner) ?? 0;
    if (active >= this.#max) throw new TaskLimitError(this.#max);
    // At the bound of kept tasks, the expired ones go first; refused only if that frees none.
    if ((this.#stored.get(task.owner) ?? 0) >= this.#maxStored) await this.sweep();
    const stored = this.#stored.get(task.owner) ?? 0;
    if (stored >= this.#maxStored) throw new TaskLimitError(this.#maxStored);
    const record = newTaskRecord(task, this.#now());
    this.#tasks.set(record.taskId, record);
    this.#active.set(task.owner, active + 1);
    this.#stored.set(task.owner, stored + 1);
    this.#tell(record);
    return copy(record);
  }

  /** See {@link TaskStore.get}. */
  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    return task && task.owner === owner ? copy(task) : undefined;
  }

  /** See {@link TaskStore.update}. */
  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    if (!task || TERMINAL_STATUSES.has(task.status)) return undefined;
    applyChange(task, change, this.#now());
    if (TERMINAL_STATUSES.has(task.status)) this.#finished(task.owner);
    this.#tell(task);
    return copy(task);
  }

  /** See {@link TaskStore.ask}. */
  async ask(
    taskId: string,
    key: string,
    request: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    if (!task || TERMINAL_STATUSES.has(task.status)) return undefined;
    applyAsk(task, key, request, this.#now());
    this.#tell(task);
    return copy(task);
  }

  /** See {@link TaskStore.answer}. */
  async answer(
    taskId: string,
    owner: string,
    responses: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId);
    if (!task || task.owner !== owner) return undefined;
    if (applyAnswer(task, responses, this.#now())) this.#tell(task);
    return copy(task);
  }

  /** See {@link TaskStore.watch}. */
  watch(listener: (task: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** See {@link TaskStore.sweep}. */
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
      const left = (this.#stored.get(task.owner) ?? 1) - 1;
      if (left > 0) this.#stored.set(task.owner, left);
      else this.#stored.delete(task.owner);
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
        listener(copy(task));
      } catch {
        // A watcher's failure is its own: the change stands.
      }
    }
  }
}
