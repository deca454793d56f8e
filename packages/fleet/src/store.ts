/**
 * The state a fleet of instances shares: 2025-era Streamable HTTP sessions, resumable-stream
 * replay, pub/sub between instances and rate-limit buckets. One instance alone uses
 * {@link MemoryStateStore} (nothing to run); several behind a load balancer use
 * `RedisStateStore` (`createRedisStateStore`), so any instance serves any session.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  type ClientCapabilities,
  hasBrand,
  type Implementation,
  type LoggingLevel,
} from '@mcpkit/protocol';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);
/**
 * rate-limiter-flexible, loaded by the first limiter rather than with the package: importing it
 * costs a stdio server ~50 ms of its start, and only HTTP rate limits use it. Exported to the
 * Redis store, not from the package.
 */
export const rateLimiterFlexible = (): typeof import('rate-limiter-flexible') =>
  require('rate-limiter-flexible');

/**
 * A rate limiter of this process alone (rate-limiter-flexible's memory limiter): `points` per key
 * per `durationSec`. What {@link MemoryStateStore.rateLimiter} hands out, and what an HTTP server
 * counts per-address failures with (they are never shared).
 */
export function memoryRateLimiter(options: StoreRateLimitOptions): RateLimiterAbstract {
  return new (rateLimiterFlexible().RateLimiterMemory)({
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSec,
  });
}

/**
 * The error of a task whose runner (a fleet member) stopped beating before the task ended: what
 * the task stores' `failOrphans` records, so no task stays `working` for ever.
 */
export const RUNNER_GONE = {
  code: -32603,
  message: 'The server instance running this task stopped before it finished',
} as const;

/** What a 2025-era session is between requests: enough for any instance to serve it. */
export interface SessionRecord {
  /** The token subject that opened it; a session is refused to anyone else. */
  subject?: string;
  /** Whose session it counts as for per-caller caps. */
  identity: string;
  /** The version initialize settled on. */
  protocolVersion: string;
  /** The client's `clientInfo` from initialize. */
  clientInfo?: Implementation;
  /** What the client said it can do in initialize. */
  clientCapabilities: ClientCapabilities;
  /** The client sent `notifications/initialized`. */
  initialized: boolean;
  /** The level of `logging/setLevel`, if the client set one. */
  logLevel?: LoggingLevel;
  /** Resource URIs the client subscribed to. */
  subscriptions: string[];
  /** The caller of the latest `resources/subscribe` (for audience checks); scopes as a list. */
  subscriber?: {
    subject: string;
    scopes: string[];
    allScopes?: boolean;
    data?: Record<string, unknown>;
  };
}

/** The stored events of one resumable stream after a given event. */
export interface StoredEvents {
  /** Event number of `events[0]` (events before it were dropped: the log is bounded). */
  first: number;
  /** The messages (JSON-RPC text) in order; '' marks an end without a message of its own. */
  events: string[];
  /** The stream's last message (the response) is among them: nothing more will come. */
  done: boolean;
}

/** Options of {@link StateStore.rateLimiter}. */
export interface StoreRateLimitOptions {
  /** Keeps this limiter's buckets apart from others in the same store. */
  keyPrefix: string;
  /** Requests allowed per key per window. */
  points: number;
  /** The window, in seconds. */
  durationSec: number;
}

/**
 * Shared state of a fleet of instances. Every method may reject with {@link StoreUnavailableError}
 * when the backend cannot be reached; the HTTP layer answers 503 then, never 500 or a hang.
 */
export interface StateStore {
  /** `memory` (one process) or `redis` (shared). */
  readonly kind: string;
  /** A session by id; undefined when unknown or expired. */
  getSession(id: string): Promise<SessionRecord | undefined>;
  /** Write a session; it expires after `ttlMs` without a write or a touch. */
  putSession(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** Push a session's expiry `ttlMs` into the future. */
  touchSession(id: string, ttlMs: number): Promise<void>;
  /** Forget a session (DELETE, or ended by a cap). */
  deleteSession(id: string): Promise<void>;
  /**
   * Append one message to a resumable stream's log (at most `max` kept, the oldest dropped) and
   * tell the stream's followers; resolves with its event number (1, 2 …). `done`: it is the
   * stream's last message.
   */
  appendEvent(stream: string, json: string, options: AppendOptions): Promise<number>;
  /**
   * Start a resumable stream's log, empty (its priming event went out: a client may resume
   * from it before the stream has said anything).
   */
  openStream(stream: string, ttlMs: number): Promise<void>;
  /** The stream's stored messages after event `after`; undefined for a stream never logged. */
  readEvents(stream: string, after: number): Promise<StoredEvents | undefined>;
  /** Deliver `message` to every subscriber of `channel`, on every instance (this one too). */
  publish(channel: string, message: string): Promise<void>;
  /** Hear every message published on `channel`; resolves once subscribed, with the way out. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** A `rate-limiter-flexible` limiter whose buckets live in this store (exact across a fleet). */
  rateLimiter(options: StoreRateLimitOptions): RateLimiterAbstract;
  /**
   * A random secret (32 bytes, base64url) every user of the store gets the same of, made by the
   * first to ask: what instances sign shared tokens with (the 2026-07-28 `requestState`).
   */
  sharedSecret(name: string): Promise<string>;
  /**
   * True for the first to claim `key` within `ttlMs`, on every instance; false for everyone
   * after it until the claim expires: what makes a token single-use across a fleet (the
   * 2026-07-28 `requestState`, which any instance verifies).
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Say that `member` of `group` is alive, with what it says of itself, for `ttlMs`. */
  heartbeat(group: string, member: string, json: string, ttlMs: number): Promise<void>;
  /** What the members of `group` heard from within their TTL said, in no order. */
  members(group: string): Promise<string[]>;
  /** Take `member` out of `group` now. */
  leave(group: string, member: string): Promise<void>;
  /** Resolves when the backend answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Close connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Options of {@link StateStore.appendEvent}. */
export interface AppendOptions {
  /** Most messages kept for replay. */
  max: number;
  /** The log expires this long after its latest message. */
  ttlMs: number;
  /** This is the stream's last message. */
  done?: boolean;
}

const UNAVAILABLE_BRAND = Symbol.for('mcpkit.StoreUnavailableError');

/** The state store's backend (Redis) could not be reached or failed. */
export class StoreUnavailableError extends Error {
  /** Marks a StoreUnavailableError from any copy of this package. */
  readonly [UNAVAILABLE_BRAND] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }

  /** Whether `value` is a StoreUnavailableError, from this copy of the package or another. */
  static is(value: unknown): value is StoreUnavailableError {
    return hasBrand(value, UNAVAILABLE_BRAND);
  }
}

interface MemoryLog {
  first: number;
  events: string[];
  done: boolean;
  expires: number;
}

/**
 * The store of one process: what every app uses unless told of Redis. Pub/sub reaches this
 * process's subscribers only; expiry is checked on read.
 */
export class MemoryStateStore implements StateStore {
  /** {@inheritDoc StateStore.kind} */
  readonly kind = 'memory';
  readonly #sessions = new Map<string, { json: string; expires: number }>();
  readonly #logs = new Map<string, MemoryLog>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #limiters = new Map<string, RateLimiterAbstract>();
  readonly #secrets = new Map<string, string>();
  /** Claimed keys and when each claim expires (see claimOnce). */
  readonly #claims = new Map<string, number>();
  readonly #groups = new Map<string, Map<string, { json: string; expires: number }>>();
  #swept = 0;
  #closed = false;

  /** {@inheritDoc StateStore.getSession} */
  async getSession(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return JSON.parse(entry.json) as SessionRecord;
  }

  /** {@inheritDoc StateStore.putSession} */
  async putSession(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.#sweep();
    this.#sessions.set(id, { json: JSON.stringify(record), expires: Date.now() + ttlMs });
  }

  /** {@inheritDoc StateStore.touchSession} */
  async touchSession(id: string, ttlMs: number): Promise<void> {
    const entry = this.#sessions.get(id);
    if (entry) entry.expires = Date.now() + ttlMs;
  }

  /** {@inheritDoc StateStore.deleteSession} */
  async deleteSession(id: string): Promise<void> {
    this.#sessions.delete(id);
  }

  /** {@inheritDoc StateStore.openStream} */
  async openStream(stream: string, ttlMs: number): Promise<void> {
    this.#sweep();
    if (!this.#logs.has(stream)) {
      this.#logs.set(stream, { first: 1, events: [], done: false, expires: Date.now() + ttlMs });
    }
  }

  /** {@inheritDoc StateStore.appendEvent} */
  async appendEvent(stream: string, json: string, options: AppendOptions): Promise<number> {
    this.#sweep();
    let log = this.#logs.get(stream);
    if (!log) {
      log = { first: 1, events: [], done: false, expires: 0 };
      this.#logs.set(stream, log);
    }
    log.events.push(json);
    if (log.events.length > options.max) {
      const cut = log.events.length - options.max;
      log.events.splice(0, cut);
      log.first += cut;
    }
    log.expires = Date.now() + options.ttlMs;
    if (options.done) log.done = true;
    const n = log.first + log.events.length - 1;
    this.#deliver(`stream:${stream}`, JSON.stringify({ n, json, done: options.done === true }));
    return n;
  }

  /** {@inheritDoc StateStore.readEvents} */
  async readEvents(stream: string, after: number): Promise<StoredEvents | undefined> {
    const log = this.#logs.get(stream);
    if (!log || log.expires <= Date.now()) return undefined;
    const from = Math.max(after + 1, log.first);
    return { first: from, events: log.events.slice(from - log.first), done: log.done };
  }

  /** {@inheritDoc StateStore.publish} */
  async publish(channel: string, message: string): Promise<void> {
    this.#deliver(channel, message);
  }

  /** {@inheritDoc StateStore.subscribe} */
  async subscribe(
    channel: string,
    listener: (message: string) => void,
  ): Promise<() => Promise<void>> {
    let set = this.#channels.get(channel);
    if (!set) {
      set = new Set();
      this.#channels.set(channel, set);
    }
    // A wrapper per call: the same listener subscribed twice is two subscriptions.
    const own = (message: string) => listener(message);
    set.add(own);
    return async () => {
      set.delete(own);
      if (set.size === 0 && this.#channels.get(channel) === set) this.#channels.delete(channel);
    };
  }

  /** {@inheritDoc StateStore.rateLimiter} */
  rateLimiter(options: StoreRateLimitOptions): RateLimiterAbstract {
    // One bucket set per prefix, as Redis keys would be: every user of this store shares it.
    const key = `${options.keyPrefix}\0${options.points}\0${options.durationSec}`;
    let limiter = this.#limiters.get(key);
    if (!limiter) {
      limiter = memoryRateLimiter(options);
      this.#limiters.set(key, limiter);
    }
    return limiter;
  }

  /** {@inheritDoc StateStore.sharedSecret} */
  async sharedSecret(name: string): Promise<string> {
    let secret = this.#secrets.get(name);
    if (secret === undefined) {
      secret = randomBytes(32).toString('base64url');
      this.#secrets.set(name, secret);
    }
    return secret;
  }

  /** {@inheritDoc StateStore.claimOnce} */
  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const until = this.#claims.get(key);
    if (until !== undefined && until > now) return false;
    this.#claims.set(key, now + ttlMs);
    this.#sweep();
    return true;
  }

  /** {@inheritDoc StateStore.heartbeat} */
  async heartbeat(group: string, member: string, json: string, ttlMs: number): Promise<void> {
    let members = this.#groups.get(group);
    if (!members) {
      members = new Map();
      this.#groups.set(group, members);
    }
    members.set(member, { json, expires: Date.now() + ttlMs });
  }

  /** {@inheritDoc StateStore.members} */
  async members(group: string): Promise<string[]> {
    const members = this.#groups.get(group);
    if (!members) return [];
    const now = Date.now();
    for (const [member, entry] of members) if (entry.expires <= now) members.delete(member);
    return [...members.values()].map((entry) => entry.json);
  }

  /** {@inheritDoc StateStore.leave} */
  async leave(group: string, member: string): Promise<void> {
    this.#groups.get(group)?.delete(member);
  }

  /** {@inheritDoc StateStore.ping} */
  async ping(): Promise<void> {
    if (this.#closed) throw new StoreUnavailableError('memory store is closed');
  }

  /** {@inheritDoc StateStore.close} */
  async close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
  }

  #deliver(channel: string, message: string): void {
    const set = this.#channels.get(channel);
    if (!set) return;
    // Asynchronous, as Redis delivers: a publisher never runs its subscribers inline.
    for (const listener of [...set]) {
      queueMicrotask(() => {
        // A listener's failure is its own: it never becomes the process's (an uncaught throw).
        try {
          listener(message);
        } catch {}
      });
    }
  }

  #sweep(): void {
    // Amortised: expired sessions and logs go at most once a second, on a write, not on a timer.
    const now = Date.now();
    if (now - this.#swept < 1000) return;
    this.#swept = now;
    for (const [id, entry] of this.#sessions) if (entry.expires <= now) this.#sessions.delete(id);
    for (const [id, log] of this.#logs) if (log.expires <= now) this.#logs.delete(id);
    for (const [key, until] of this.#claims) if (until <= now) this.#claims.delete(key);
  }
}
