/**
 * The Redis state store: what several instances behind a load balancer share. ioredis is loaded
 * only when a Redis URL is given, so a server-free setup never touches it.
 */
import { randomBytes } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  type AppendOptions,
  rateLimiterFlexible,
  type SessionRecord,
  type StateStore,
  type StoredEvents,
  type StoreRateLimitOptions,
  StoreUnavailableError,
} from './store.js';

/** Options of {@link createRedisStateStore}. */
export interface RedisStateStoreOptions {
  /**
   * Prefix of every key and channel, so several apps (or tests) share one Redis without meeting.
   * Default `mcpkit:`.
   */
  prefix?: string;
  /** A command unanswered this long fails (StoreUnavailableError) instead of hanging. Default 2000 ms. */
  commandTimeoutMs?: number;
  /** How long the first connection may take before the store gives up. Default 5000 ms. */
  connectTimeoutMs?: number;
}

// One round trip: the message, the bound, the expiry, the event number and the followers told.
const APPEND = `local n = redis.call('hincrby', KEYS[2], 'n', 1)
redis.call('rpush', KEYS[1], ARGV[1])
redis.call('ltrim', KEYS[1], -tonumber(ARGV[2]), -1)
if ARGV[4] == '1' then redis.call('hset', KEYS[2], 'done', '1') end
redis.call('pexpire', KEYS[1], ARGV[3])
redis.call('pexpire', KEYS[2], ARGV[3])
redis.call('publish', ARGV[5], cjson.encode({n = n, json = ARGV[1], done = ARGV[4] == '1'}))
return n`;

type RedisWithAppend = RedisClient & {
  mcpkitAppend(
    list: string,
    meta: string,
    json: string,
    max: number,
    ttlMs: number,
    done: string,
    channel: string,
  ): Promise<number>;
};

/**
 * Connect to Redis at `url` (`redis://host:port/db`, `rediss://` for TLS); rejects with
 * {@link StoreUnavailableError} naming the URL (without its password) when it cannot be reached.
 */
export async function createRedisStateStore(
  url: string,
  options: RedisStateStoreOptions = {},
): Promise<RedisStateStore> {
  checkRedisUrl(url);
  const { Redis } = await import('ioredis');
  const connectTimeout = options.connectTimeoutMs ?? 5000;
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    // A command fails at once while Redis is away (503 to the caller), never queued for ever.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  const client = new Redis(url, redisOptions);
  const subscriber = new Redis(url, { ...redisOptions, maxRetriesPerRequest: null });
  // Errors surface through the commands that fail; the event only needs a listener.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw new StoreUnavailableError(
      `cannot reach Redis at ${redact(url)}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  client.defineCommand('mcpkitAppend', { numberOfKeys: 2, lua: APPEND });
  return new RedisStateStore(client as RedisWithAppend, subscriber, options.prefix ?? 'mcpkit:');
}

/** `redis://user:secret@host` → `redis://user:***@host`: URLs are logged. */
/** Throws {@link StoreUnavailableError} unless `url` is a `redis://` or `rediss://` URL. */
function checkRedisUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUnavailableError(`invalid Redis URL '${redact(url)}'`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new StoreUnavailableError(
      `invalid Redis URL '${redact(url)}': expected redis:// or rediss://`,
    );
  }
}

function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** Shared state in Redis. Made by {@link createRedisStateStore}. */
export class RedisStateStore implements StateStore {
  /** {@inheritDoc StateStore.kind} */
  readonly kind = 'redis';
  readonly #redis: RedisWithAppend;
  readonly #sub: RedisClient;
  readonly #prefix: string;
  readonly #listeners = new Map<string, Set<(message: string) => void>>();
  /** Commands and pipelines sent: one network round trip each (for `pnpm bench`). */
  roundTrips = 0;

  constructor(client: RedisWithAppend, subscriber: RedisClient, prefix: string) {
    this.#redis = client;
    this.#sub = subscriber;
    this.#prefix = prefix;
    subscriber.on('message', (channel: string, message: string) => {
      const set = this.#listeners.get(channel);
      if (!set) return;
      for (const listener of [...set]) {
        // A listener's failure is its own: thrown here it would be ioredis's, and the process's.
        try {
          listener(message);
        } catch {}
      }
    });
  }

  /** The prefix of every key and channel of this store. */
  get prefix(): string {
    return this.#prefix;
  }

  /** The ioredis client (for an app's own keys under its own prefix). */
  get client(): RedisClient {
    return this.#redis;
  }

  /** {@inheritDoc StateStore.getSession} */
  async getSession(id: string): Promise<SessionRecord | undefined> {
    const json = await this.#run(() => this.#redis.get(this.#key('session', id)));
    return json === null ? undefined : (JSON.parse(json) as SessionRecord);
  }

  /** {@inheritDoc StateStore.putSession} */
  async putSession(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.#run(() =>
      this.#redis.set(this.#key('session', id), JSON.stringify(record), 'PX', ttlMs),
    );
  }

  /** {@inheritDoc StateStore.touchSession} */
  async touchSession(id: string, ttlMs: number): Promise<void> {
    await this.#run(() => this.#redis.pexpire(this.#key('session', id), ttlMs));
  }

  /** {@inheritDoc StateStore.deleteSession} */
  async deleteSession(id: string): Promise<void> {
    await this.#run(() => this.#redis.del(this.#key('session', id)));
  }

  /** {@inheritDoc StateStore.appendEvent} */
  async appendEvent(stream: string, json: string, options: AppendOptions): Promise<number> {
    return this.#run(() =>
      this.#redis.mcpkitAppend(
        this.#key('stream', stream),
        this.#key('stream-meta', stream),
        json,
        options.max,
        options.ttlMs,
        options.done ? '1' : '0',
        `${this.#prefix}stream:${stream}`,
      ),
    );
  }

  /** {@inheritDoc StateStore.openStream} */
  async openStream(stream: string, ttlMs: number): Promise<void> {
    const meta = this.#key('stream-meta', stream);
    await this.#run(() => this.#redis.multi().hsetnx(meta, 'n', '0').pexpire(meta, ttlMs).exec());
  }

  /** {@inheritDoc StateStore.readEvents} */
  async readEvents(stream: string, after: number): Promise<StoredEvents | undefined> {
    const replies = await this.#run(() =>
      this.#redis
        .multi()
        .hgetall(this.#key('stream-meta', stream))
        .lrange(this.#key('stream', stream), 0, -1)
        .exec(),
    );
    const meta = (replies?.[0]?.[1] ?? {}) as Record<string, string>;
    const events = (replies?.[1]?.[1] ?? []) as string[];
    if (meta.n === undefined) return undefined;
    const last = Number(meta.n);
    const first = last - events.length + 1;
    const from = Math.max(after + 1, first);
    return { first: from, events: events.slice(from - first), done: meta.done === '1' };
  }

  /** {@inheritDoc StateStore.publish} */
  async publish(channel: string, message: string): Promise<void> {
    await this.#run(() => this.#redis.publish(this.#prefix + channel, message));
  }

  /** {@inheritDoc StateStore.subscribe} */
  async subscribe(
    channel: string,
    listener: (message: string) => void,
  ): Promise<() => Promise<void>> {
    const name = this.#prefix + channel;
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
      try {
        await this.#run(() => this.#sub.subscribe(name));
      } catch (err) {
        this.#listeners.delete(name);
        throw err;
      }
    }
    const own = (message: string) => listener(message);
    set.add(own);
    return async () => {
      set.delete(own);
      if (set.size > 0 || this.#listeners.get(name) !== set) return;
      this.#listeners.delete(name);
      await this.#run(() => this.#sub.unsubscribe(name)).catch(() => undefined);
    };
  }

  /** {@inheritDoc StateStore.rateLimiter} */
  rateLimiter(options: StoreRateLimitOptions): RateLimiterAbstract {
    return new (rateLimiterFlexible().RateLimiterRedis)({
      storeClient: this.#redis,
      keyPrefix: `${this.#prefix}rl:${options.keyPrefix}`,
      points: options.points,
      duration: options.durationSec,
      // Fail fast while Redis is away (the caller answers 503), never queue.
      rejectIfRedisNotReady: true,
    });
  }

  /** {@inheritDoc StateStore.sharedSecret} */
  async sharedSecret(name: string): Promise<string> {
    const key = this.#key('secret', name);
    // The first instance's secret wins; every later one reads it (no expiry: tokens outlive it).
    const replies = await this.#run(() =>
      this.#redis.multi().set(key, randomBytes(32).toString('base64url'), 'NX').get(key).exec(),
    );
    const secret = replies?.[1]?.[1];
    if (typeof secret !== 'string') throw new StoreUnavailableError(`Redis: no secret '${name}'`);
    return secret;
  }

  /** {@inheritDoc StateStore.claimOnce} */
  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    // SET NX PX: one atomic command, so two instances claiming at once cannot both win.
    const reply = await this.#run(() =>
      this.#redis.set(this.#key('claim', key), '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX'),
    );
    return reply === 'OK';
  }

  /** {@inheritDoc StateStore.heartbeat} */
  async heartbeat(group: string, member: string, json: string, ttlMs: number): Promise<void> {
    // A sorted set of expiry times beside a hash of what members said: one round trip.
    await this.#run(() =>
      this.#redis
        .multi()
        .zadd(this.#key('group-expiry', group), Date.now() + ttlMs, member)
        .hset(this.#key('group', group), member, json)
        .exec(),
    );
  }

  /** {@inheritDoc StateStore.members} */
  async members(group: string): Promise<string[]> {
    const expiry = this.#key('group-expiry', group);
    const data = this.#key('group', group);
    const now = Date.now();
    const replies = await this.#run(() =>
      this.#redis.multi().zrangebyscore(expiry, now, '+inf').zrangebyscore(expiry, 0, now).exec(),
    );
    const alive = (replies?.[0]?.[1] ?? []) as string[];
    const gone = (replies?.[1]?.[1] ?? []) as string[];
    if (gone.length > 0) {
      // The dead are swept by whoever lists: no timer in Redis, no member left behind.
      await this.#run(() =>
        this.#redis
          .multi()
          .zrem(expiry, ...gone)
          .hdel(data, ...gone)
          .exec(),
      );
    }
    if (alive.length === 0) return [];
    const said = await this.#run(() => this.#redis.hmget(data, ...alive));
    return said.filter((json): json is string => typeof json === 'string');
  }

  /** {@inheritDoc StateStore.leave} */
  async leave(group: string, member: string): Promise<void> {
    await this.#run(() =>
      this.#redis
        .multi()
        .zrem(this.#key('group-expiry', group), member)
        .hdel(this.#key('group', group), member)
        .exec(),
    );
  }

  /** {@inheritDoc StateStore.ping} */
  async ping(): Promise<void> {
    await this.#run(() => this.#redis.ping());
  }

  /** {@inheritDoc StateStore.close} */
  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.allSettled([this.#redis.quit(), this.#sub.quit()]);
    this.#redis.disconnect();
    this.#sub.disconnect();
  }

  #key(kind: string, id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    this.roundTrips++;
    try {
      return await command();
    } catch (err) {
      throw new StoreUnavailableError(`Redis: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * Delete every key under `prefix` in the Redis at `url` — what a fleet leaves behind when it is
 * retired, or a test run in a shared Redis. Sessions and event logs expire by themselves; shared
 * secrets, fleet groups and members' records do not. Scans in batches of 500 (never `KEYS`, which
 * blocks the server). The prefix is matched literally (`*`, `?`, `[` in it match only
 * themselves); an empty one is refused with a TypeError rather than taken as "every key". Rejects
 * with {@link StoreUnavailableError} for a URL that is not Redis's or a Redis that cannot be
 * reached.
 */
export async function clearRedisPrefix(url: string, prefix: string): Promise<void> {
  if (prefix === '') throw new TypeError('clearRedisPrefix: an empty prefix would clear every key');
  checkRedisUrl(url);
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Errors surface through the commands that fail; the event only needs a listener.
  redis.on('error', () => {});
  try {
    try {
      await redis.connect();
    } catch (err) {
      throw new StoreUnavailableError(
        `cannot reach Redis at ${redact(url)}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
