/**
 * A 2026-07-28 client in front of the gateway, backends of both eras behind it: discovery, calls,
 * the subscription that replaces list_changed, and backends that sample mid-call — which a
 * modern client can only answer through input_required rounds: the backend call waits, parked,
 * for the retry that brings the answer (bounded in time and number).
 */
import { META, SUPPORTED_PROTOCOL_VERSIONS } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { everythingBackend } from './helpers.js';

const modern = (params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'modern-client', version: '1' },
  },
});

type InputRequired = {
  resultType: string;
  inputRequests: Record<string, { method: string; params: { messages: unknown[] } }>;
  requestState: string;
};
const caps = { sampling: {} };
const pong = { role: 'assistant', model: 'm', content: { type: 'text', text: 'pong' } };

let gateway: Gateway;
let peer: RawPeer;

beforeAll(async () => {
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        every: everythingBackend(),
        old: everythingBackend('legacy'),
        new: everythingBackend('2026-07-28'),
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  peer = connectRaw(gateway.server);
});

afterAll(async () => {
  await peer?.close();
  await gateway?.stop();
});

describe('a 2026-07-28 client in front of the gateway', () => {
  it('discovers the gateway and calls a backend tool without initialize', async () => {
    const discover = await peer.result<{ supportedVersions: string[]; capabilities: object }>(
      'server/discover',
      modern({}),
    );
    // A dual-era server: the 2025 revisions are served through initialize.
    expect(discover.supportedVersions).toEqual(['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS]);
    expect(discover.capabilities).toMatchObject({ tools: { listChanged: true } });
    const sum = await peer.result(
      'tools/call',
      modern({ name: 'every__add', arguments: { a: 2, b: 5 } }),
    );
    expect(sum).toMatchObject({ structuredContent: { sum: 7 }, resultType: 'complete' });
  });

  it.each(['old', 'new'])(
    'answers a %s-era backend that samples mid-call through input_required; the backend call waits for the retry and is made once',
    async (backend) => {
      const params = { name: `${backend}__test_sampling`, arguments: { prompt: 'ping' } };
      const callsBefore = gateway.backends.get(backend)?.calls ?? 0;
      const first = await peer.result<InputRequired>('tools/call', modern(params, caps));
      expect(first.resultType).toBe('input_required');
      const keys = Object.keys(first.inputRequests);
      expect(keys).toHaveLength(1);
      const key = keys[0] as string;
      expect(first.inputRequests[key]?.method).toBe('sampling/createMessage');
      expect(JSON.stringify(first.inputRequests[key]?.params.messages)).toContain('ping');
      expect(gateway.parkedCalls).toBe(1);
      const done = await peer.result('tools/call', {
        ...modern(params, caps),
        inputResponses: { [key]: pong },
        requestState: first.requestState,
      });
      expect(done).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'LLM response: pong' }],
      });
      expect(gateway.parkedCalls).toBe(0);
      // Parked, not replayed: one call reached the backend for both rounds.
      expect(gateway.backends.get(backend)?.calls).toBe(callsBefore + 1);
    },
  );

  it('shows the era each backend link speaks in gateway_status', async () => {
    const status = await peer.result<{ content: { text: string }[] }>(
      'tools/call',
      modern({ name: 'gateway_status' }),
    );
    const backends = JSON.parse(status.content[0]?.text ?? '{}').backends;
    expect(backends.every.protocol).toEqual({
      setting: 'auto',
      era: 'modern',
      version: '2026-07-28',
    });
    expect(backends.old.protocol).toEqual({
      setting: 'legacy',
      era: 'legacy',
      version: '2025-11-25',
    });
    expect(backends.new.protocol).toEqual({
      setting: '2026-07-28',
      era: 'modern',
      version: '2026-07-28',
    });
  });

  it("a call parked on a 2025 backend does not block another call's ask on it", async () => {
    const ask = (prompt: string) => ({ name: 'old__test_sampling', arguments: { prompt } });
    const first = await peer.result<InputRequired>('tools/call', modern(ask('first'), caps));
    expect(first.resultType).toBe('input_required');
    // The backend waits on the first call's ask: the second call's ask is the second call's.
    const second = await peer.result<InputRequired>('tools/call', modern(ask('second'), caps));
    expect(second.resultType).toBe('input_required');
    const [key2, request2] = Object.entries(second.inputRequests)[0] ?? [];
    expect(JSON.stringify(request2?.params.messages)).toContain('second');
    expect(gateway.parkedCalls).toBe(2);
    const answer = async (round: InputRequired, key: string, text: string, prompt: string) =>
      await peer.result('tools/call', {
        ...modern(ask(prompt), caps),
        inputResponses: { [key]: { ...pong, content: { type: 'text', text } } },
        requestState: round.requestState,
      });
    await expect(answer(second, key2 as string, 'two', 'second')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'LLM response: two' }],
    });
    const key1 = Object.keys(first.inputRequests)[0] as string;
    await expect(answer(first, key1, 'one', 'first')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'LLM response: one' }],
    });
    expect(gateway.parkedCalls).toBe(0);
  });

  it('refuses a retry whose parked call is gone, and a requestState used twice', async () => {
    const params = { name: 'old__test_sampling', arguments: { prompt: 'twice' } };
    const first = await peer.result<InputRequired>('tools/call', modern(params, caps));
    const key = Object.keys(first.inputRequests)[0] as string;
    const retry = {
      ...modern(params, caps),
      inputResponses: { [key]: pong },
      requestState: first.requestState,
    };
    await expect(peer.result('tools/call', retry)).resolves.toMatchObject({
      resultType: 'complete',
    });
    const again = await peer.request('tools/call', retry);
    expect(again.error).toMatchObject({ code: -32602 });
  });

  it('a client that asks without the capability: the backend hears why, nothing is parked', async () => {
    const params = { name: 'new__test_sampling', arguments: { prompt: 'no caps' } };
    const reply = await peer.request('tools/call', modern(params, {}));
    expect(reply.error).toMatchObject({ code: -32021 });
    expect(gateway.parkedCalls).toBe(0);
  });
});

describe('the input bridge is bounded', () => {
  let bounded: Gateway;
  let client: RawPeer;
  beforeAll(async () => {
    bounded = new Gateway(
      parseConfig({
        gateway: { bridge: { park_ttl_ms: 300, max_parked: 1 } },
        mcpServers: {
          old: everythingBackend('legacy'),
          new: everythingBackend('2026-07-28'),
        },
      }),
      { events: EventLog.open(':memory:') },
    );
    await bounded.start();
    client = connectRaw(bounded.server);
  });
  afterAll(async () => {
    await client?.close();
    await bounded?.stop();
  });

  it('parks at most max_parked calls and cancels one whose retry does not come within park_ttl_ms', async () => {
    const first = await client.result<InputRequired>(
      'tools/call',
      modern({ name: 'old__test_sampling', arguments: { prompt: 'one' } }, caps),
    );
    expect(first.resultType).toBe('input_required');
    expect(bounded.parkedCalls).toBe(1);
    // A second would exceed max_parked: the backend's ask fails, and so does its call.
    const second = await client.request(
      'tools/call',
      modern({ name: 'new__test_sampling', arguments: { prompt: 'two' } }, caps),
    );
    expect(second.error?.message).toContain('bridge.max_parked');
    expect(bounded.parkedCalls).toBe(1);
    await waitFor('the parked call expired', () => bounded.parkedCalls === 0 || undefined);
    // … and the backend call was given up (cancelled), not left to run.
    await waitFor('the expired call recorded as failed', async () =>
      (await bounded.events.query({ event_type: 'gateway.tool_call', status: 'failure' })).some(
        (e) =>
          e.tool === 'old__test_sampling' &&
          JSON.stringify(e.data).includes('No retry within 300 ms'),
      )
        ? true
        : undefined,
    );
    const key = Object.keys(first.inputRequests)[0] as string;
    const late = await client.request('tools/call', {
      ...modern({ name: 'old__test_sampling', arguments: { prompt: 'one' } }, caps),
      inputResponses: { [key]: pong },
      requestState: first.requestState,
    });
    expect(late.error).toMatchObject({ code: -32602 });
    expect(late.error?.message).toContain('no longer waiting');
  });
});
