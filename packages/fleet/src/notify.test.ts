/** shareNotifications: resource changes to the subscribers of every instance, and its failures. */
import { randomUUID } from 'node:crypto';
import { defineResource, McpServer } from '@mcpkit/protocol';
import { connectRaw, type RawPeer } from '@mcpkit/protocol/testing';
import { waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { shareNotifications } from './notify.js';
import { clearRedisPrefix, createRedisStateStore } from './redis.js';
import { MemoryStateStore, type StateStore } from './store.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  cleanups = [];
});

/** A server with one resource, and a client subscribed to it acting as `userId`. */
async function subscriber(userId: string): Promise<{ server: McpServer; peer: RawPeer }> {
  const server = new McpServer({ name: 'n', version: '1' }).addResource(
    defineResource({ uri: 'app://items', name: 'items', read: () => 'x' }),
  );
  const peer = connectRaw(server, {
    auth: { subject: userId, scopes: new Set(), data: { userId } },
  });
  cleanups.push(() => peer.close());
  await peer.initialize();
  await peer.request('resources/subscribe', { uri: 'app://items' });
  return { server, peer };
}

const updates = (peer: RawPeer) =>
  peer.notifications.filter((n) => n.method === 'notifications/resources/updated');

describe('shareNotifications', () => {
  it('tells the matching subscribers of every instance, once each', async () => {
    const state = new MemoryStateStore();
    const a = await subscriber('u1');
    const b = await subscriber('u1');
    const other = await subscriber('u2');
    const notifiers = await Promise.all(
      [a, b, other].map((s) => shareNotifications(s.server, state)),
    );
    cleanups.push(() => Promise.all(notifiers.map((n) => n.close())));
    await notifiers[0]?.resourceUpdated('app://items', { userId: 'u1' });
    await waitFor(
      'both u1 subscribers told',
      () => updates(a.peer).length + updates(b.peer).length === 2,
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(updates(a.peer)).toHaveLength(1);
    expect(updates(b.peer)).toHaveLength(1);
    expect(updates(other.peer)).toHaveLength(0);
  });

  it('without a store, tells this server’s subscribers at once', async () => {
    const a = await subscriber('u1');
    const notifier = await shareNotifications(a.server, undefined);
    await notifier.resourceUpdated('app://items');
    await a.peer.settle();
    expect(updates(a.peer)).toHaveLength(1);
  });

  it('drops a message it cannot read, and goes on', async () => {
    const state: StateStore = new MemoryStateStore();
    const a = await subscriber('u1');
    const notifier = await shareNotifications(a.server, state, { channel: 'c' });
    cleanups.push(() => notifier.close());
    await state.publish('c', '{not json');
    await state.publish('c', JSON.stringify({ uri: 42 }));
    await notifier.resourceUpdated('app://items');
    await waitFor('the good one', () => updates(a.peer).length === 1);
  });

  it('still tells its own subscribers when Redis cannot publish', { tags: ['redis'] }, async () => {
    const prefix = `test:${randomUUID()}:`;
    cleanups.push(() => clearRedisPrefix(REDIS_URL, prefix));
    const state = await createRedisStateStore(REDIS_URL, { prefix });
    const a = await subscriber('u1');
    const warnings: unknown[] = [];
    const notifier = await shareNotifications(a.server, state, {
      logger: { error: () => {}, debug: () => {}, warn: (obj) => warnings.push(obj) },
    });
    await state.close();
    await notifier.resourceUpdated('app://items');
    await a.peer.settle();
    expect(updates(a.peer)).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });
});
