/**
 * The tasks of the MCP tasks extension in Redis (`io.modelcontextprotocol/tasks`): what a fleet's
 * instances share, so a task created through one is read, answered and cancelled through any,
 * and fails — rather than stays `working` for ever — once the instance running it is known gone.
 *
 * A task is a hash (its scalar fields; the result and error as JSON text) with two more hashes
 * beside it, its open asks and its answers, each value JSON text Redis never parses: every change
 * is one Lua script, so two instances changing one task cannot lose each other's change, and
 * nothing of a tool's result passes through Lua's JSON (which cannot tell `[]` from `{}`).
 * A change is published on the store's `tasks` channel, without the result (watchers need the
 * status, the asks and the answers; the result may be large).
 */
import {
  type NewTask,
  newTaskRecord,
  type TaskChange,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '@mcpkit/protocol';
import type { Redis as RedisClient } from 'ioredis';
import type { RedisStateStore } from './redis.js';
import { RUNNER_GONE, StoreUnavailableError } from './store.js';

const TERMINAL = `local terminal = { completed = true, failed = true, cancelled = true }`;

/** The hash, the asks and the answers of a task, as one reply. */
const READ = `local function read(task, asks, answers)
  return { redis.call('hgetall', task), redis.call('hgetall', asks), redis.call('hgetall', answers) }
end`;

/** A finished task leaves the sets of unfinished ones: its owner's and its runner's. */
const FINISH = `local function finish(task, asks, answers, prefix, id)
  redis.call('del', asks, answers)
  local owner = redis.call('hget', task, 'owner')
  local runner = redis.call('hget', task, 'runner')
  redis.call('zrem', prefix .. 'task-active:' .. owner, id)
  if runner then redis.call('srem', prefix .. 'task-runner:' .. runner, id) end
end`;

// KEYS: task, active (owner's), runner set, runners, kept (owner's); ARGV: now, max, id,
// ttl ('' none), max kept, pairs…
const CREATE = `redis.call('zremrangebyscore', KEYS[2], '-inf', ARGV[1])
redis.call('zremrangebyscore', KEYS[5], '-inf', ARGV[1])
if redis.call('zcard', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
if redis.call('zcard', KEYS[5]) >= tonumber(ARGV[5]) then return 2 end
redis.call('hset', KEYS[1], unpack(ARGV, 6))
local expiry = '+inf'
if ARGV[4] ~= '' then
  local ttl = tonumber(ARGV[4])
  redis.call('pexpire', KEYS[1], ttl)
  expiry = tonumber(ARGV[1]) + ttl
  for _, set in ipairs({ KEYS[2], KEYS[5] }) do
    if redis.call('pttl', set) < ttl then redis.call('pexpire', set, ttl) end
  end
else
  redis.call('persist', KEYS[2])
  redis.call('persist', KEYS[5])
end
redis.call('zadd', KEYS[2], expiry, ARGV[3])
redis.call('zadd', KEYS[5], expiry, ARGV[3])
if KEYS[3] ~= '' then
  redis.call('sadd', KEYS[3], ARGV[3])
  redis.call('sadd', KEYS[4], redis.call('hget', KEYS[1], 'runner'))
end
return 1`;

// KEYS: task, asks, answers; ARGV: prefix, id, now, field, value …
const UPDATE = `${TERMINAL}
${READ}
${FINISH}
local status = redis.call('hget', KEYS[1], 'status')
if not status or terminal[status] then return nil end
for i = 4, #ARGV - 1, 2 do redis.call('hset', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('hset', KEYS[1], 'lastUpdatedAt', ARGV[3])
if terminal[redis.call('hget', KEYS[1], 'status')] then finish(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2]) end
return read(KEYS[1], KEYS[2], KEYS[3])`;

// KEYS: task, asks, answers; ARGV: now, key, request JSON
const ASK = `${TERMINAL}
${READ}
local status = redis.call('hget', KEYS[1], 'status')
if not status or terminal[status] then return nil end
redis.call('hset', KEYS[2], ARGV[2], ARGV[3])
local ttl = redis.call('pttl', KEYS[1])
if ttl > 0 then redis.call('pexpire', KEYS[2], ttl) end
redis.call('hset', KEYS[1], 'status', 'input_required', 'lastUpdatedAt', ARGV[1])
return read(KEYS[1], KEYS[2], KEYS[3])`;

// KEYS: task, asks, answers; ARGV: owner, now, key, value, key, value …
const ANSWER = `${TERMINAL}
${READ}
local status = redis.call('hget', KEYS[1], 'status')
if not status or redis.call('hget', KEYS[1], 'owner') ~= ARGV[1] then return nil end
local taken = 0
if not terminal[status] then
  for i = 3, #ARGV, 2 do
    if redis.call('hdel', KEYS[2], ARGV[i]) == 1 then
      redis.call('hset', KEYS[3], ARGV[i], ARGV[i + 1])
      taken = 1
    end
  end
end
if taken == 1 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[3], ttl) end
  if redis.call('hlen', KEYS[2]) == 0 then redis.call('hset', KEYS[1], 'status', 'working') end
  redis.call('hset', KEYS[1], 'lastUpdatedAt', ARGV[2])
end
return { taken, read(KEYS[1], KEYS[2], KEYS[3]) }`;

type Reply = [string[], string[], string[]];

type RedisWithTasks = RedisClient & {
  mcpkitTaskCreate(...args: (string | number)[]): Promise<number>;
  mcpkitTaskUpdate(...args: string[]): Promise<Reply | null>;
  mcpkitTaskAsk(...args: string[]): Promise<Reply | null>;
  mcpkitTaskAnswer(...args: string[]): Promise<[number, Reply] | null>;
};

/** Options of {@link createRedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** Unfinished tasks one identity may have at once, across the fleet. Default 100. */
  maxActivePerOwner?: number;
  /**
   * Tasks one identity may have kept at once, finished ones included (each until its `ttlMs`):
   * what bounds the memory one caller's quick tasks take in Redis. Default 1000.
   */
  maxStoredPerOwner?: number;
}

/** Pairs of a flat Redis reply (`[k, v, k, v]`) as an object. */
function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

function parsedPairs(flat: string[]): Record<string, unknown> | undefined {
  if (flat.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, json] of Object.entries(pairs(flat))) out[key] = JSON.parse(json);
  return out;
}

/** A task as the scripts read it back. */
function recordOf(id: string, reply: Reply): TaskRecord | undefined {
  const [fields, asks, answers] = reply;
  const f = pairs(fields);
  if (f.status === undefined || f.owner === undefined) return undefined;
  const record: TaskRecord = {
    taskId: id,
    owner: f.owner,
    status: f.status as TaskStatus,
    createdAt: Number(f.createdAt),
    lastUpdatedAt: Number(f.lastUpdatedAt),
    ttlMs: f.ttlMs === undefined || f.ttlMs === '' ? null : Number(f.ttlMs),
  };
  const mutable = record as { -readonly [K in keyof TaskRecord]: TaskRecord[K] };
  if (f.pollIntervalMs !== undefined) mutable.pollIntervalMs = Number(f.pollIntervalMs);
  if (f.runner !== undefined) mutable.runner = f.runner;
  if (f.statusMessage !== undefined) mutable.statusMessage = f.statusMessage;
  if (f.result !== undefined) mutable.result = JSON.parse(f.result);
  if (f.error !== undefined) mutable.error = JSON.parse(f.error);
  const inputRequests = parsedPairs(asks);
  if (inputRequests)
    mutable.inputRequests = inputRequests as Record<string, Record<string, unknown>>;
  const inputResponses = parsedPairs(answers);
  if (inputResponses) mutable.inputResponses = inputResponses;
  return record;
}

/**
 * The tasks of a fleet in the Redis of its state store (`createRedisStateStore`), under the same
 * prefix. Resolves once it hears the other instances' changes.
 */
export async function createRedisTaskStore(
  state: RedisStateStore,
  options: RedisTaskStoreOptions = {},
): Promise<RedisTaskStore> {
  const store = new RedisTaskStore(state, options);
  await store.listen();
  return store;
}

/** Tasks in Redis, shared by a fleet. Made by {@link createRedisTaskStore}. */
export class RedisTaskStore implements TaskStore {
  readonly #state: RedisStateStore;
  readonly #redis: RedisWithTasks;
  readonly #prefix: string;
  readonly #max: number;
  readonly #maxStored: number;
  readonly #listeners = new Set<(task: TaskRecord) => void>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(state: RedisStateStore, options: RedisTaskStoreOptions = {}) {
    this.#state = state;
    this.#prefix = state.prefix;
    this.#max = options.maxActivePerOwner ?? 100;
    this.#maxStored = options.maxStoredPerOwner ?? 1000;
    const redis = state.client as RedisWithTasks;
    if (typeof redis.mcpkitTaskCreate !== 'function') {
      redis.defineCommand('mcpkitTaskCreate', { numberOfKeys: 5, lua: CREATE });
      redis.defineCommand('mcpkitTaskUpdate', { numberOfKeys: 3, lua: UPDATE });
      redis.defineCommand('mcpkitTaskAsk', { numberOfKeys: 3, lua: ASK });
      redis.defineCommand('mcpkitTaskAnswer', { numberOfKeys: 3, lua: ANSWER });
    }
    this.#redis = redis;
  }

  /** Subscribe to the fleet's task changes (once). */
  async listen(): Promise<void> {
    this.#unsubscribe ??= await this.#state.subscribe('tasks', (message) => {
      let task: TaskRecord;
      try {
        task = JSON.parse(message) as TaskRecord;
      } catch {
        return;
      }
      for (const listener of this.#listeners) {
        try {
          listener(task);
        } catch {
          // A watcher's failure is its own: the change stands.
        }
      }
    });
  }

  /** See `TaskStore.create`. */
  async create(task: NewTask): Promise<TaskRecord> {
    const now = Date.now();
    const record = newTaskRecord(task, now);
    const fields: string[] = [
      'owner',
      record.owner,
      'status',
      'working',
      'createdAt',
      String(now),
      'lastUpdatedAt',
      String(now),
      'ttlMs',
      record.ttlMs === null ? '' : String(Math.round(record.ttlMs)),
    ];
    if (record.runner !== undefined) fields.push('runner', record.runner);
    if (record.pollIntervalMs !== undefined)
      fields.push('pollIntervalMs', String(record.pollIntervalMs));
    if (record.statusMessage !== undefined) fields.push('statusMessage', record.statusMessage);
    const id = record.taskId;
    const made = await this.#run(() =>
      this.#redis.mcpkitTaskCreate(
        this.#key('task', id),
        this.#key('task-active', record.owner),
        record.runner === undefined ? '' : this.#key('task-runner', record.runner),
        `${this.#prefix}task-runners`,
        this.#key('task-kept', record.owner),
        now,
        this.#max,
        id,
        record.ttlMs === null ? '' : String(Math.round(record.ttlMs)),
        this.#maxStored,
        ...fields,
      ),
    );
    if (made === 0) throw new TaskLimitError(this.#max);
    if (made === 2) throw new TaskLimitError(this.#maxStored);
    this.#tell(record);
    return record;
  }

  /** See `TaskStore.get`. */
  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const replies = await this.#run(() =>
      this.#redis
        .multi()
        .hgetall(this.#key('task', taskId))
        .hgetall(this.#key('task-asks', taskId))
        .hgetall(this.#key('task-answers', taskId))
        .exec(),
    );
    const flat = (replies ?? []).map(([, value]) =>
      Object.entries((value ?? {}) as Record<string, string>).flat(),
    ) as Reply;
    const task = recordOf(taskId, flat);
    return task && task.owner === owner ? task : undefined;
  }

  /** See `TaskStore.update`. */
  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const fields: string[] = [];
    if (change.status !== undefined) fields.push('status', change.status);
    if (change.statusMessage !== undefined) fields.push('statusMessage', change.statusMessage);
    if (change.result !== undefined) fields.push('result', JSON.stringify(change.result));
    if (change.error !== undefined) fields.push('error', JSON.stringify(change.error));
    const reply = await this.#run(() =>
      this.#redis.mcpkitTaskUpdate(
        ...this.#keys(taskId),
        this.#prefix,
        taskId,
        String(Date.now()),
        ...fields,
      ),
    );
    return this.#changed(taskId, reply);
  }

  /** See `TaskStore.ask`. */
  async ask(
    taskId: string,
    key: string,
    request: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    const reply = await this.#run(() =>
      this.#redis.mcpkitTaskAsk(
        ...this.#keys(taskId),
        String(Date.now()),
        key,
        JSON.stringify(request),
      ),
    );
    return this.#changed(taskId, reply);
  }

  /** See `TaskStore.answer`. */
  async answer(
    taskId: string,
    owner: string,
    responses: Record<string, unknown>,
  ): Promise<TaskRecord | undefined> {
    const args: string[] = [];
    for (const [key, value] of Object.entries(responses))
      args.push(key, JSON.stringify(value ?? null));
    const reply = await this.#run(() =>
      this.#redis.mcpkitTaskAnswer(...this.#keys(taskId), owner, String(Date.now()), ...args),
    );
    if (!reply) return undefined;
    const [taken, read] = reply;
    return taken === 1 ? this.#changed(taskId, read) : recordOf(taskId, read);
  }

  /** See `TaskStore.watch`: the fleet's changes, each without its result. */
  watch(listener: (task: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** See `TaskStore.sweep`: Redis forgets expired tasks by itself. */
  async sweep(): Promise<number> {
    return 0;
  }

  /**
   * Fail every unfinished task of a runner not in `alive` (a fleet member that stopped beating):
   * `failed`, with an error that says why. Resolves with how many.
   */
  async failOrphans(alive: ReadonlySet<string>): Promise<number> {
    const runners = await this.#run(() => this.#redis.smembers(`${this.#prefix}task-runners`));
    let failed = 0;
    for (const runner of runners) {
      if (alive.has(runner)) continue;
      const set = this.#key('task-runner', runner);
      const ids = await this.#run(() => this.#redis.smembers(set));
      for (const id of ids) {
        const task = await this.update(id, { status: 'failed', error: RUNNER_GONE });
        if (task) failed++;
      }
      await this.#run(() =>
        this.#redis.multi().del(set).srem(`${this.#prefix}task-runners`, runner).exec(),
      );
    }
    return failed;
  }

  /** Stop hearing the fleet's changes (the state store's connections stay its own). */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #changed(taskId: string, reply: Reply | null): TaskRecord | undefined {
    if (!reply) return undefined;
    const task = recordOf(taskId, reply);
    if (task) this.#tell(task);
    return task;
  }

  /** Publish a change to every instance's watchers (this one's too, through Redis). */
  #tell(task: TaskRecord): void {
    const { result: _, ...news } = task;
    this.#state.publish('tasks', JSON.stringify(news)).catch(() => {
      // Watchers miss this change; the record itself is written. A runner's next ask or the
      // client's next tasks/get still see it.
    });
  }

  #keys(taskId: string): [string, string, string] {
    return [
      this.#key('task', taskId),
      this.#key('task-asks', taskId),
      this.#key('task-answers', taskId),
    ];
  }

  #key(kind: string, id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      if (StoreUnavailableError.is(err)) throw err;
      throw new StoreUnavailableError(`Redis: ${(err as Error).message}`, { cause: err });
    }
  }
}
