// @module-tag process
/**
 * Two gateway instances of one fleet (a shared store and requestState key, each with its own
 * backend process, as a fleet runs them): a 2026-07-28 client's call parked for input on one
 * instance is finished by a retry that lands on the other — every round, wherever it lands —
 * and the backend call is made once, on the instance that holds it. The same path runs through
 * HAProxy and Redis in e2e/test/fleet.test.ts.
 */
import { MemoryStateStore, type StateStore, StoreUnavailableError } from '@mcpkit/fleet';
import { META } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { everythingBackend } from './helpers.js';

type InputRequired = {
  resultType: string;
  inputRequests: Record<string, { method: string; params: { message?: string } }>;
  requestState: string;
};

const caps = { elicitation: {}, sampling: {} };
const modern = (params: Record<string, unknown>, capabilities: Record<string, unknown> = caps) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'fleet-client', version: '1' },
  },
});
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

const store = new MemoryStateStore();
/** B's way to the store: its publishes fail while `cutOff` is set (Redis unreachable from B). */
let cutOff = false;
const storeOfB: StateStore = new Proxy(store, {
  get(target, key, receiver) {
    if (key === 'publish' && cutOff) {
      return () => Promise.reject(new StoreUnavailableError('Redis: connection refused'));
    }
    const value = Reflect.get(target, key, receiver);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
const gateways: Gateway[] = [];
const peers: RawPeer[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const gateway = new Gateway(
      parseConfig({
        mcpServers: { old: everythingBackend('legacy') },
        gateway: { bridge: { park_ttl_ms: 5_000 } },
      }),
      {
        events: EventLog.open(':memory:'),
        requestState: { key: 'fleet-bridge-test-key-of-32-bytes!' },
        state: i === 1 ? storeOfB : store,
      },
    );
    await gateway.start();
    gateways.push(gateway);
    peers.push(connectRaw(gateway.server));
  }
});

afterAll(async () => {
  for (const peer of peers) await peer.close();
  for (const gateway of gateways) await gateway.stop();
  await store.close();
});

/** The one ask of an input_required answer: its key and what it asks. */
function onlyAsk(round: InputRequired): [string, { method: string; params: { message?: string } }] {
  expect(round.resultType).toBe('input_required');
  const entries = Object.entries(round.inputRequests);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, { method: string; params: { message?: string } }];
}

describe('a call parked for input on one gateway instance', () => {
  it('is finished by retries that land on the other, round after round; the backend call is made once, where it is held', async () => {
    const [a, b] = peers as [RawPeer, RawPeer];
    const [gwA, gwB] = gateways as [Gateway, Gateway];
    const params = { name: 'old__test_input_required_result_multi_round', arguments: {} };
    const callsA = gwA.backends.get('old')?.calls ?? 0;
    const callsB = gwB.backends.get('old')?.calls ?? 0;

    const first = await a.result<InputRequired>('tools/call', modern(params));
    const [key1, ask1] = onlyAsk(first);
    expect(ask1.params.message).toContain('Step 1');
    expect(gwA.parkedCalls).toBe(1);

    // The retry lands on B: A gets the answer, its backend asks step 2, B puts it to the client.
    const second = await b.result<InputRequired>('tools/call', {
      ...modern(params),
      inputResponses: { [key1]: accept({ name: 'Grace' }) },
      requestState: first.requestState,
    });
    const [key2, ask2] = onlyAsk(second);
    expect(ask2.params.message).toContain('Step 2');
    expect(gwA.parkedCalls).toBe(1);
    expect(gwB.parkedCalls).toBe(0);

    // And again on B: the call ends on A, its result comes back through B.
    const done = await b.result('tools/call', {
      ...modern(params),
      inputResponses: { [key2]: accept({ color: 'teal' }) },
      requestState: second.requestState,
    });
    expect(done).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Grace likes teal' }],
    });
    expect(gwA.parkedCalls).toBe(0);
    expect(gwA.backends.get('old')?.calls).toBe(callsA + 1);
    expect(gwB.backends.get('old')?.calls).toBe(callsB);
  });

  it('a retry whose call is gone is refused -32602 on the other instance too, and a second use of a state is refused', async () => {
    const [a, b] = peers as [RawPeer, RawPeer];
    const params = { name: 'old__test_sampling', arguments: { prompt: 'once' } };
    const first = await a.result<InputRequired>('tools/call', modern(params));
    const [key] = onlyAsk(first);
    const retry = {
      ...modern(params),
      inputResponses: {
        [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'yes' } },
      },
      requestState: first.requestState,
    };
    await expect(b.result('tools/call', retry)).resolves.toMatchObject({
      content: [{ type: 'text', text: 'LLM response: yes' }],
    });
    // Spent on B, and the call ended on A: both instances refuse the same retry.
    for (const peer of [a, b]) {
      const again = await peer.request('tools/call', retry);
      expect(again.error).toMatchObject({ code: -32602 });
    }
  });

  it('a held call that expired is refused -32602 wherever its retry lands', async () => {
    const [a, b] = peers as [RawPeer, RawPeer];
    const [gwA] = gateways as [Gateway, Gateway];
    const params = { name: 'old__test_input_required_result_multi_round', arguments: {} };
    const first = await a.result<InputRequired>('tools/call', modern(params));
    const [key1] = onlyAsk(first);
    const second = await b.result<InputRequired>('tools/call', {
      ...modern(params),
      inputResponses: { [key1]: accept({ name: 'Ada' }) },
      requestState: first.requestState,
    });
    const [key2] = onlyAsk(second);
    expect(gwA.parkedCalls).toBe(1);
    // The parked call expires on A after the TTL (5 s here): a retry on B then hears -32602.
    await waitFor('the held call expired', () => gwA.parkedCalls === 0 || undefined, 30_000);
    const late = await b.request('tools/call', {
      ...modern(params),
      inputResponses: { [key2]: accept({ color: 'red' }) },
      requestState: second.requestState,
    });
    expect(late.error).toMatchObject({ code: -32602, data: { bridge: 'expired' } });
  });

  it('a retry the instance cannot hand over (the store unreachable from it) is refused; the held call waits out its TTL', async () => {
    const [a, b, c] = peers as [RawPeer, RawPeer, RawPeer];
    const [gwA] = gateways as [Gateway, Gateway, Gateway];
    const params = { name: 'old__test_sampling', arguments: { prompt: 'cut' } };
    const first = await a.result<InputRequired>('tools/call', modern(params));
    const [key] = onlyAsk(first);
    const retry = {
      ...modern(params),
      inputResponses: {
        [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'later' } },
      },
      requestState: first.requestState,
    };
    cutOff = true;
    try {
      const refused = await b.request('tools/call', retry);
      // The gateway's own -32000, as a 2026-07-28 client hears it (-32603, the code in data).
      expect(refused.error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(/cannot reach the gateway instance/),
        data: { legacyCode: -32000 },
      });
    } finally {
      cutOff = false;
    }
    expect(gwA.parkedCalls).toBe(1);
    // The state was spent on B, so the client calls again; the held call then expires on A.
    await waitFor('the held call expired', () => gwA.parkedCalls === 0 || undefined, 30_000);
    await expect(c.result('tools/call', modern(params))).resolves.toMatchObject({
      resultType: 'input_required',
    });
  });

  it('a retry whose holder is gone (its instance stopped) is refused -32602 once nothing answers', async () => {
    const [a, , c] = peers as [RawPeer, RawPeer, RawPeer];
    const [gwA] = gateways as [Gateway, Gateway, Gateway];
    const params = { name: 'old__test_sampling', arguments: { prompt: 'gone' } };
    const first = await a.result<InputRequired>('tools/call', modern(params));
    const [key] = onlyAsk(first);
    await gwA.stop();
    const late = await c.request('tools/call', {
      ...modern(params),
      inputResponses: {
        [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'late' } },
      },
      requestState: first.requestState,
    });
    expect(late.error).toMatchObject({ code: -32602, data: { bridge: 'expired' } });
  });
});
