/**
 * What a 2026-07-28 client hears where a 2025 backend (or the gateway itself) answers with a code
 * that revision forbids or discourages: the legacy range (-32000…-32019) as -32603 with the
 * code it replaced in `data.legacyCode`, a URL elicitation (-32042) as URL-mode input requests
 * whose retry calls the backend again. A 2025 session hears every code as it was.
 */
import { META } from '@mcpkit/protocol';
import { connectRaw, type RawPeer } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backend } from './helpers.js';

const URL_CAPS = { elicitation: { url: {} } };
const modern = (
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = URL_CAPS,
) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'modern-client', version: '1' },
  },
});

let gateway: Gateway;
let peer: RawPeer;

/** The rich fixture as two 2025 backends, and one that exits mid-call (never restarted). */
async function start(): Promise<Gateway> {
  const g = new Gateway(
    parseConfig({
      mcpServers: {
        old: backend('rich', { protocol: 'legacy' }),
        other: backend('rich', { protocol: 'legacy' }),
        crashy: backend('crash-mid-call', { protocol: 'legacy', restart: { maxRestarts: 0 } }),
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await g.start();
  return g;
}

beforeAll(async () => {
  gateway = await start();
  peer = connectRaw(gateway.server);
});

afterAll(async () => {
  await peer?.close();
  await gateway?.stop();
});

describe('legacy codes for a 2026-07-28 client', () => {
  it("answers a 2025 backend's own legacy-range code as -32603, the code kept in data", async () => {
    const error = await peer.error('tools/call', modern({ name: 'old__legacy_code' }));
    expect(error).toEqual({
      code: -32603,
      message: 'Quota exceeded',
      data: { quota: 3, legacyCode: -32005 },
    });
  });

  it("answers the gateway's own -32000 (a backend that exited during the call) as -32603", async () => {
    const error = await peer.error('tools/call', modern({ name: 'crashy__crash' }));
    expect(error).toMatchObject({
      code: -32603,
      message: "Backend 'crashy' exited during the call",
      data: { backend: 'crashy', legacyCode: -32000 },
    });
  });

  it('keeps every code for a 2025 session', async () => {
    const legacy = connectRaw(gateway.server);
    try {
      await legacy.initialize();
      await expect(legacy.error('tools/call', { name: 'old__legacy_code' })).resolves.toEqual({
        code: -32005,
        message: 'Quota exceeded',
        data: { quota: 3 },
      });
    } finally {
      await legacy.close();
    }
  });
});

describe("a 2025 backend's URL elicitation (-32042) for a 2026-07-28 client", () => {
  type InputRequired = {
    resultType: string;
    inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
    requestState: string;
  };

  it('asks for the URL in an input_required round; the retry calls the backend again', async () => {
    const first = await peer.result<InputRequired>(
      'tools/call',
      modern({ name: 'old__needs_url' }),
    );
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({
      'gateway.url.connect-1': {
        method: 'elicitation/create',
        params: {
          mode: 'url',
          elicitationId: 'connect-1',
          url: 'https://example.com/connect?state=1',
          message: 'Connect your account',
        },
      },
    });
    const second = await peer.result<{ resultType: string; content: unknown }>(
      'tools/call',
      modern({
        name: 'old__needs_url',
        inputResponses: { 'gateway.url.connect-1': { action: 'accept' } },
        requestState: first.requestState,
      }),
    );
    expect(second).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'connected' }],
    });
  });
});

describe('a URL the user refused', () => {
  it('ends the call as a tool error without calling the backend again', async () => {
    const first = await peer.result<{ requestState: string; inputRequests: object }>(
      'tools/call',
      modern({ name: 'other__needs_url' }),
    );
    expect(Object.keys(first.inputRequests)).toEqual(['gateway.url.connect-1']);
    const calls = gateway.backends.get('other')?.calls ?? 0;
    const declined = await peer.result<{ isError: boolean; content: { text: string }[] }>(
      'tools/call',
      modern({
        name: 'other__needs_url',
        inputResponses: { 'gateway.url.connect-1': { action: 'decline' } },
        requestState: first.requestState,
      }),
    );
    expect(declined.isError).toBe(true);
    expect(declined.content[0]?.text).toMatch(/did not complete the URL interaction.*connect-1/);
    expect(gateway.backends.get('other')?.calls).toBe(calls);
  });

  it("gives a client that cannot open URLs the backend's error as -32603", async () => {
    const fresh = await start();
    const p = connectRaw(fresh.server);
    try {
      const error = await p.error('tools/call', modern({ name: 'old__needs_url' }, {}));
      expect(error).toMatchObject({
        code: -32603,
        message: 'This request requires more information.',
        data: { legacyCode: -32042, elicitations: [{ elicitationId: 'connect-1' }] },
      });
    } finally {
      await p.close();
      await fresh.stop();
    }
  });
});
