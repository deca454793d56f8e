/**
 * Several instances sharing one state store, in one process: what a fleet behind a round-robin
 * load balancer needs from the Streamable HTTP handler. Each case runs with a shared memory store
 * and with Redis (127.0.0.1:6379, a key prefix of its own per test).
 */
import { randomUUID } from 'node:crypto';
import {
  clearRedisPrefix,
  createRedisStateStore,
  MemoryStateStore,
  type RedisStateStore,
  type StateStore,
  shareNotifications,
} from '@mcpkit/fleet';
import type { McpServer } from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../fixtures/everything.js';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

type Json = Record<string, unknown>;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACCEPT_BOTH = 'application/json, text/event-stream';

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  const todo = cleanups.reverse();
  cleanups = [];
  for (const fn of todo) await fn().catch(() => undefined);
});

/** `n` stores of one fleet: one shared memory store, or n Redis connections on one prefix. */
async function fleetStores(kind: 'memory' | 'redis', n: number): Promise<StateStore[]> {
  if (kind === 'memory') {
    const shared = new MemoryStateStore();
    return Array.from({ length: n }, () => shared);
  }
  const prefix = `test:${randomUUID()}:`;
  // Runs last (cleanups run in reverse): after the stores closed, nothing of the test is left.
  cleanups.push(() => clearRedisPrefix(REDIS_URL, prefix));
  const stores: RedisStateStore[] = [];
  for (let i = 0; i < n; i++) {
    const store = await createRedisStateStore(REDIS_URL, { prefix });
    cleanups.push(() => store.close());
    stores.push(store);
  }
  return stores;
}

async function fleet(
  kind: 'memory' | 'redis',
  n: number,
  options: McpHttpOptions = {},
  shareRequestState = false,
) {
  const stores = await fleetStores(kind, n);
  // What runCli hands the app in fleet mode, for its server.
  const requestState = shareRequestState
    ? { key: await (stores[0] as StateStore).sharedSecret('rs') }
    : undefined;
  const instances: { served: ServedHttp; endpoint: string; state: StateStore; mcp: McpServer }[] =
    [];
  for (const state of stores) {
    const mcp = createEverythingServer(requestState);
    const served = await serveHttp(mcp, { ...options, state });
    cleanups.push(() => served.close());
    instances.push({ served, endpoint: served.mcpUrl, state, mcp });
  }
  return instances;
}

function post(endpoint: string, body: unknown, session?: string, headers: Json = {}) {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      ...(session ? { 'mcp-session-id': session } : {}),
      ...(headers as Record<string, string>),
    },
    body: JSON.stringify(body),
  });
}

const call = (id: number, method: string, params?: Json) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

async function openSession(endpoint: string, version = '2025-06-18', headers: Json = {}) {
  const res = await post(
    endpoint,
    call(1, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'fleet-test', version: '1.0.0' },
    }),
    undefined,
    headers,
  );
  expect(res.status).toBe(200);
  await res.json();
  return res.headers.get('mcp-session-id') as string;
}

/** The JSON-RPC messages of an SSE response, as they arrive. */
function follow(res: Response): { messages: Json[]; ids: string[] } {
  const seen = { messages: [] as Json[], ids: [] as string[] };
  void (async () => {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const chunk = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let data = '';
        for (const line of chunk.split('\n')) {
          if (line.startsWith('data:')) data += line.slice(5).trim();
          if (line.startsWith('id:')) seen.ids.push(line.slice(3).trim());
        }
        if (data) seen.messages.push(JSON.parse(data) as Json);
      }
    }
  })();
  return seen;
}

for (const kind of ['memory', 'redis'] as const)
  describe(`a fleet on a ${kind} store`, { tags: kind === 'redis' ? ['redis'] : [] }, () => {
    it('serves a session opened on A from B and C, and forgets it everywhere after DELETE on B', async () => {
      const [a, b, c] = await fleet(kind, 3);
      if (!a || !b || !c) throw new Error('three instances');
      const session = await openSession(a.endpoint);
      expect(
        (await post(b.endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, session))
          .status,
      ).toBe(202);
      const onB = await post(
        b.endpoint,
        call(2, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
        session,
      );
      expect(onB.status).toBe(200);
      expect(await onB.json()).toMatchObject({ id: 2, result: { structuredContent: { sum: 5 } } });
      const onC = await post(c.endpoint, call(3, 'ping'), session);
      expect(await onC.json()).toMatchObject({ id: 3, result: {} });

      const deleted = await fetch(b.endpoint, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session },
      });
      expect(deleted.status).toBe(204);
      // A and C held copies: the news of the end reaches them.
      await waitFor('A and C forgot the session', async () => {
        const [ra, rc] = await Promise.all([
          post(a.endpoint, call(4, 'ping'), session),
          post(c.endpoint, call(5, 'ping'), session),
        ]);
        return ra.status === 404 && rc.status === 404;
      });
    });

    it('keeps the stored session of a client listening on its GET stream alive past the idle time', async () => {
      const [a, b] = await fleet(kind, 2, { streamable: { sessionIdleMs: 400 } });
      if (!a || !b) throw new Error('two instances');
      const session = await openSession(a.endpoint);
      const controller = new AbortController();
      cleanups.push(async () => controller.abort());
      const stream = await fetch(a.endpoint, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': session },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      // Three idle times without a POST: only the GET stream keeps it.
      await new Promise((r) => setTimeout(r, 1200));
      const onB = await post(b.endpoint, call(2, 'ping'), session);
      expect(onB.status).toBe(200);
      // Without the stream it goes: some idle times after it closed (and nothing sent since), it
      // is gone everywhere.
      controller.abort();
      await new Promise((r) => setTimeout(r, 1500));
      expect((await post(b.endpoint, call(3, 'ping'), session)).status).toBe(404);
    });

    it('refuses a session to another caller on every instance (404)', async () => {
      const tokens = [
        { token: 'alice-token', scopes: [], subject: 'alice' },
        { token: 'bob-token', scopes: [], subject: 'bob' },
      ];
      const [a, b] = await fleet(kind, 2, { auth: { tokens } });
      if (!a || !b) throw new Error('two instances');
      const alice = { authorization: 'Bearer alice-token' };
      const session = await openSession(a.endpoint, '2025-06-18', alice);
      const asBob = await post(b.endpoint, call(2, 'ping'), session, {
        authorization: 'Bearer bob-token',
      });
      expect(asBob.status).toBe(404);
      expect(await asBob.json()).toMatchObject({ error: { code: -32001 } });
      const asAlice = await post(b.endpoint, call(3, 'ping'), session, alice);
      expect(asAlice.status).toBe(200);
    });

    it('delivers a change made through A to the GET stream of a subscriber on C', async () => {
      const [a, b, c] = await fleet(kind, 3);
      if (!a || !b || !c) throw new Error('three instances');
      const notifiers = await Promise.all([a, b, c].map((i) => shareNotifications(i.mcp, i.state)));
      cleanups.push(() => Promise.all(notifiers.map((n) => n.close())));
      const session = await openSession(a.endpoint);
      await post(b.endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      const subscribed = await post(
        b.endpoint,
        call(2, 'resources/subscribe', { uri: 'test://watched-resource' }),
        session,
      );
      expect(await subscribed.json()).toMatchObject({ id: 2, result: {} });
      const controller = new AbortController();
      cleanups.push(async () => controller.abort());
      const stream = await fetch(c.endpoint, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': session },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      const heard = follow(stream);
      await (notifiers[0] as Awaited<ReturnType<typeof shareNotifications>>).resourceUpdated(
        'test://watched-resource',
      );
      await waitFor('the update on C', () => heard.messages.length > 0);
      expect(heard.messages).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: 'test://watched-resource' },
        },
      ]);
      // An unsubscribe through A reaches C's copy: the next change is not delivered there.
      await post(
        a.endpoint,
        call(3, 'resources/unsubscribe', { uri: 'test://watched-resource' }),
        session,
      );
      await (notifiers[1] as Awaited<ReturnType<typeof shareNotifications>>).resourceUpdated(
        'test://watched-resource',
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(heard.messages).toHaveLength(1);
    });

    it('replays on B the result of a stream A closed mid-call (Last-Event-ID)', async () => {
      const [a, b] = await fleet(kind, 2);
      if (!a || !b) throw new Error('two instances');
      const session = await openSession(a.endpoint, '2025-11-25');
      const res = await post(
        a.endpoint,
        call(7, 'tools/call', { name: 'test_reconnection', arguments: {} }),
        session,
        { 'mcp-protocol-version': '2025-11-25' },
      );
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const primed = follow(res);
      await waitFor('the priming id', () => primed.ids.length === 1);
      const primingId = primed.ids[0] as string;
      const resumed = await fetch(b.endpoint, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'last-event-id': primingId,
        },
      });
      expect(resumed.status).toBe(200);
      const text = await resumed.text();
      expect(text).toContain(`id: ${primingId.replace(/-0$/, '-1')}`);
      expect(text).toContain('Reconnection test completed');
      // A stream nobody logged is unknown on every instance.
      const unknown = await fetch(b.endpoint, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'last-event-id': 'zz-1',
        },
      });
      expect(unknown.status).toBe(404);
    });

    it('takes the answer to a sampling request A sent from a POST that reached B', async () => {
      const [a, b] = await fleet(kind, 2);
      if (!a || !b) throw new Error('two instances');
      const init = await post(
        a.endpoint,
        call(1, 'initialize', {
          protocolVersion: '2025-06-18',
          capabilities: { sampling: {} },
          clientInfo: { name: 'fleet-test', version: '1.0.0' },
        }),
      );
      await init.json();
      const session = init.headers.get('mcp-session-id') as string;
      await post(b.endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      const res = await post(
        a.endpoint,
        call(2, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } }),
        session,
      );
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const stream = follow(res);
      await waitFor('the sampling request', () =>
        stream.messages.some((m) => m.method === 'sampling/createMessage'),
      );
      const asked = stream.messages.find((m) => m.method === 'sampling/createMessage') as Json;
      const answered = await post(
        b.endpoint,
        {
          jsonrpc: '2.0',
          id: asked.id,
          result: { role: 'assistant', content: { type: 'text', text: 'from B' }, model: 'm' },
        },
        session,
      );
      expect(answered.status).toBe(202);
      await waitFor('the tool result on A', () => stream.messages.some((m) => m.id === 2));
      expect(stream.messages.find((m) => m.id === 2)).toMatchObject({
        result: { content: [{ type: 'text', text: 'LLM response: from B' }] },
      });
    });

    it('finishes on B a 2026-07-28 input round A opened (requestState signed with the fleet key)', async () => {
      const [a, b] = await fleet(kind, 2, {}, true);
      if (!a || !b) throw new Error('two instances');
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      };
      const headers = {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'test_input_required_result_elicitation',
      };
      const params = { name: 'test_input_required_result_elicitation', arguments: {}, _meta: meta };
      const first = (await (
        await post(a.endpoint, call(1, 'tools/call', params), undefined, headers)
      ).json()) as {
        result: { resultType: string; requestState: string };
      };
      expect(first.result.resultType).toBe('input_required');
      const retry = await post(
        b.endpoint,
        call(2, 'tools/call', {
          ...params,
          inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
          requestState: first.result.requestState,
        }),
        undefined,
        headers,
      );
      expect(await retry.json()).toMatchObject({
        id: 2,
        result: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
      });
    });

    it('holds a rate limit of N per caller exactly across three instances', async () => {
      const instances = await fleet(kind, 3, {
        plainPaths: ['/rpc'],
        rateLimit: { points: 5, durationSec: 60 },
      });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const instance = instances[i % 3] as (typeof instances)[number];
        const res = await fetch(`${instance.served.url}/rpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(call(i, 'ping')),
        });
        statuses.push(res.status);
        await res.text();
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    });
  });

describe('a fleet hearing junk on its channels', { tags: ['redis'] }, () => {
  it('drops what it cannot read and goes on serving', async () => {
    const [a, b] = await fleet('redis', 2);
    if (!a || !b) throw new Error('two instances');
    const session = await openSession(a.endpoint);
    await post(b.endpoint, call(2, 'ping'), session); // B holds a copy now
    for (const channel of ['sessions', 'responses']) {
      await a.state.publish(channel, '{not json');
      await a.state.publish(channel, JSON.stringify({ id: session, origin: 'x', record: 7 }));
    }
    await new Promise((r) => setTimeout(r, 50));
    const reply = await post(b.endpoint, call(3, 'ping'), session);
    expect(await reply.json()).toMatchObject({ id: 3, result: {} });
  });
});

describe('a fleet whose Redis is gone', { tags: ['redis'] }, () => {
  it('refuses an initialize it cannot share (503, no session id), keeping nothing', async () => {
    const [a] = await fleet('redis', 1);
    if (!a) throw new Error('one instance');
    await a.state.close();
    const res = await post(
      a.endpoint,
      call(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fleet-test', version: '1.0.0' },
      }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ error: { code: -32000 } });
    expect(a.served.http.streamable?.sessionCount).toBe(0);
  });

  it('answers 503 with Retry-After (a clear JSON-RPC error), never a 500 or a hang', async () => {
    const [a, b] = await fleet('redis', 2, {
      plainPaths: ['/rpc'],
      rateLimit: { points: 100, durationSec: 60 },
    });
    if (!a || !b) throw new Error('two instances');
    const session = await openSession(a.endpoint);
    await b.state.close();
    // B must read the session from the store: it cannot.
    const lookup = await post(b.endpoint, call(2, 'ping'), session);
    expect(lookup.status).toBe(503);
    expect(lookup.headers.get('retry-after')).toBe('1');
    expect(await lookup.json()).toMatchObject({ error: { code: -32000 } });
    const limited = await fetch(`${b.served.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call(3, 'ping')),
    });
    expect(limited.status).toBe(503);
    // Readiness says so too.
    const ready = await fetch(`${b.served.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { state: { ok: false } } });
  });
});
