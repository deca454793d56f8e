/**
 * One contract, both stores: the memory store every app uses alone and the Redis store of a
 * fleet (Redis on 127.0.0.1:6379, as CI runs it; each test under its own key prefix).
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@mcpkit/testing';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { clearRedisPrefix, createRedisStateStore } from './redis.js';
import { joinFleet } from './registry.js';
import {
  MemoryStateStore,
  type SessionRecord,
  type StateStore,
  StoreUnavailableError,
} from './store.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const opened: StateStore[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await Promise.all(prefixes.map((p) => clearRedisPrefix(REDIS_URL, p)));
});

/** A key prefix of this test's own, dropped after the file. */
function prefix(): string {
  const p = `test:${randomUUID()}:`;
  prefixes.push(p);
  return p;
}

const record: SessionRecord = {
  subject: 'alice',
  identity: 'subject:alice',
  protocolVersion: '2025-11-25',
  clientCapabilities: {},
  initialized: true,
  subscriptions: ['test://a'],
};

const stores: [string, () => Promise<StateStore>][] = [
  ['memory', async () => new MemoryStateStore()],
  [
    'redis',
    async () => {
      const store = await createRedisStateStore(REDIS_URL, { prefix: prefix() });
      opened.push(store);
      return store;
    },
  ],
];

for (const [kind, make] of stores)
  describe(`${kind} state store`, { tags: kind === 'redis' ? ['redis'] : [] }, () => {
    it('keeps a session until it is deleted or expires; a touch extends it', async () => {
      const store = await make();
      await store.putSession('s1', record, 10_000);
      expect(await store.getSession('s1')).toEqual(record);
      expect(await store.getSession('nope')).toBeUndefined();
      await store.deleteSession('s1');
      expect(await store.getSession('s1')).toBeUndefined();
      await store.putSession('s2', record, 150);
      await store.touchSession('s2', 10_000);
      await new Promise((r) => setTimeout(r, 250));
      expect(await store.getSession('s2')).toEqual(record);
      await store.putSession('s3', record, 50);
      await new Promise((r) => setTimeout(r, 150));
      expect(await store.getSession('s3')).toBeUndefined();
    });

    it('keeps a bounded replay log, numbered from 1, and tells its followers', async () => {
      const store = await make();
      const heard: string[] = [];
      const off = await store.subscribe('stream:x', (m) => heard.push(m));
      expect(await store.readEvents('x', 0)).toBeUndefined();
      for (let i = 1; i <= 5; i++) {
        expect(
          await store.appendEvent('x', `{"i":${i}}`, { max: 3, ttlMs: 10_000, done: i === 5 }),
        ).toBe(i);
      }
      // Only the last three are kept; asking from before them gives what is left.
      expect(await store.readEvents('x', 0)).toEqual({
        first: 3,
        events: ['{"i":3}', '{"i":4}', '{"i":5}'],
        done: true,
      });
      expect(await store.readEvents('x', 4)).toEqual({ first: 5, events: ['{"i":5}'], done: true });
      await waitFor('five deliveries', () => heard.length === 5);
      expect(JSON.parse(heard[4] as string)).toEqual({ n: 5, json: '{"i":5}', done: true });
      await off();
    });

    it('publishes to every subscriber of a channel, and to none after unsubscribing', async () => {
      const store = await make();
      const a: string[] = [];
      const b: string[] = [];
      const offA = await store.subscribe('news', (m) => a.push(m));
      const offB = await store.subscribe('news', (m) => b.push(m));
      await store.publish('news', 'one');
      await waitFor('both heard one', () => a.length === 1 && b.length === 1);
      await offA();
      await store.publish('news', 'two');
      await waitFor('b heard two', () => b.length === 2);
      expect(a).toEqual(['one']);
      await offB();
    });

    it('keeps a listener that throws to itself: the others still hear, the process goes on', async () => {
      const store = await make();
      const heard: string[] = [];
      const offBad = await store.subscribe('loud', () => {
        throw new Error('listener bug');
      });
      const offGood = await store.subscribe('loud', (m) => heard.push(m));
      await store.publish('loud', 'x');
      await store.publish('loud', 'y');
      await waitFor('the good listener heard both', () => heard.length === 2);
      await offBad();
      await offGood();
    });

    it('limits a key to exactly its points per window', async () => {
      const store = await make();
      const limiter = store.rateLimiter({ keyPrefix: 'k', points: 3, durationSec: 60 });
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () => limiter.consume('caller')),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused).toHaveLength(2);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(RateLimiterRes);
    });

    it('keeps one shared secret per name, made by the first to ask', async () => {
      const store = await make();
      const a = await store.sharedSecret('one');
      expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await store.sharedSecret('one')).toBe(a);
      expect(await store.sharedSecret('two')).not.toBe(a);
    });

    it('grants a claim once until it expires, whoever asks', async () => {
      const store = await make();
      expect(await store.claimOnce('state-1', 150)).toBe(true);
      expect(await store.claimOnce('state-1', 150)).toBe(false);
      expect(await store.claimOnce('state-2', 150)).toBe(true);
      await waitFor(
        'the claim expired',
        async () => (await store.claimOnce('state-1', 150)) || undefined,
      );
    });

    it('lists the members of a fleet that beat, drops the silent and those that leave', async () => {
      const store = await make();
      const one = await joinFleet(store, 'g', { intervalMs: 50, info: () => ({ role: 'one' }) });
      const two = await joinFleet(store, 'g', { intervalMs: 50 });
      // A member that said it was alive once, for 100 ms, and then died.
      await store.heartbeat('g', 'dead', JSON.stringify({ id: 'dead', startedAt: 0 }), 100);
      // Oldest first: 'dead' started at 0; one and two start about the same millisecond.
      const pair = [one.id, two.id].sort();
      const listed = (await one.members()).map((m) => m.id);
      expect(listed[0]).toBe('dead');
      expect(listed.slice(1).sort()).toEqual(pair);
      expect((await two.members()).find((m) => m.id === one.id)).toMatchObject({
        pid: process.pid,
        info: { role: 'one' },
      });
      await new Promise((r) => setTimeout(r, 200));
      expect((await two.members()).map((m) => m.id).sort()).toEqual(pair);
      await one.leave();
      expect((await two.members()).map((m) => m.id)).toEqual([two.id]);
      await two.leave();
      expect(await store.members('g')).toEqual([]);
    });

    it('answers ping while open and refuses with StoreUnavailableError once closed', async () => {
      const store = await make();
      await store.ping();
      await store.close();
      const err = await store.ping().catch((e: unknown) => e);
      expect(StoreUnavailableError.is(err)).toBe(true);
    });
  });

describe('Redis state store', () => {
  it('shares sessions and rate limits between two connections (two instances)', {
    tags: ['redis'],
  }, async () => {
    const shared = prefix();
    const one = await createRedisStateStore(REDIS_URL, { prefix: shared });
    const two = await createRedisStateStore(REDIS_URL, { prefix: shared });
    opened.push(one, two);
    expect(await two.sharedSecret('k')).toBe(await one.sharedSecret('k'));
    // A claim made through one connection holds for the other.
    const claims = await Promise.all([one.claimOnce('rs', 10_000), two.claimOnce('rs', 10_000)]);
    expect(claims.sort()).toEqual([false, true]);
    await one.putSession('shared', record, 10_000);
    expect(await two.getSession('shared')).toEqual(record);
    const heard: string[] = [];
    await two.subscribe('fleet', (m) => heard.push(m));
    await one.publish('fleet', 'hello');
    await waitFor('two heard one', () => heard.length === 1);
    const l1 = one.rateLimiter({ keyPrefix: 'x', points: 4, durationSec: 60 });
    const l2 = two.rateLimiter({ keyPrefix: 'x', points: 4, durationSec: 60 });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? l1 : l2).consume('k')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
  });

  it('refuses a bad URL and an unreachable server with StoreUnavailableError, no hang', async () => {
    for (const url of ['not a url', 'http://127.0.0.1:6379', 'redis://127.0.0.1:1']) {
      const err = await createRedisStateStore(url, { connectTimeoutMs: 500 }).catch(
        (e: unknown) => e,
      );
      expect(StoreUnavailableError.is(err), url).toBe(true);
    }
    const err = await createRedisStateStore('redis://user:hunter2@127.0.0.1:1', {
      connectTimeoutMs: 500,
    }).catch((e: unknown) => e);
    expect((err as Error).message).not.toContain('hunter2');
  });
});

describe('clearRedisPrefix', () => {
  it('deletes the keys under its prefix, matched literally, and nothing else', {
    tags: ['redis'],
  }, async () => {
    const base = prefix();
    const store = await createRedisStateStore(REDIS_URL, { prefix: base });
    opened.push(store);
    // A prefix with glob characters: `*` and `?` must not widen it.
    await store.client.set(`${base}a*?[x]:1`, '1');
    await store.client.set(`${base}a*?[x]:2`, '2');
    await store.client.set(`${base}ab:kept`, '3');
    await clearRedisPrefix(REDIS_URL, `${base}a*?[x]:`);
    expect(await store.client.keys(`${base}*`)).toEqual([`${base}ab:kept`]);
  });

  it('refuses an empty prefix, a URL that is not Redis, and an unreachable Redis, saying which', async () => {
    await expect(clearRedisPrefix(REDIS_URL, '')).rejects.toThrow(TypeError);
    await expect(clearRedisPrefix('http://x', 'p:')).rejects.toSatisfy(
      (err) => StoreUnavailableError.is(err) && /expected redis:\/\//.test((err as Error).message),
    );
    await expect(clearRedisPrefix('redis://127.0.0.1:1', 'p:')).rejects.toSatisfy(
      (err) =>
        StoreUnavailableError.is(err) &&
        (err as Error).message.startsWith('cannot reach Redis at redis://127.0.0.1:1'),
    );
  });
});
