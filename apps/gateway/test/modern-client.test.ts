/**
 * A 2026-07-28 client in front of the gateway, 2025-era backends behind it: discovery, calls,
 * the subscription that replaces list_changed, and a backend that samples mid-call — which a
 * modern client can only answer through input_required rounds (the backend call is replayed on
 * the retry and this time gets its answer).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { META } from '@mcpkit/protocol';
import { connectRaw, type RawPeer } from '@mcpkit/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

const EVERYTHING = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'),
  'packages',
  'protocol',
  'dist',
  'fixtures',
  'everything.js',
);

const modern = (params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'modern-client', version: '1' },
  },
});

let gateway: Gateway;
let peer: RawPeer;

beforeAll(async () => {
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        every: { command: process.execPath, args: [EVERYTHING, '--log-level', 'warn'] },
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
    expect(discover.supportedVersions).toEqual(['2026-07-28']);
    expect(discover.capabilities).toMatchObject({ tools: { listChanged: true } });
    const sum = await peer.result(
      'tools/call',
      modern({ name: 'every__add', arguments: { a: 2, b: 5 } }),
    );
    expect(sum).toMatchObject({ structuredContent: { sum: 7 }, resultType: 'complete' });
  });

  it('answers a backend that samples mid-call through input_required, then completes on the retry', async () => {
    const caps = { sampling: {} };
    const params = { name: 'every__test_sampling', arguments: { prompt: 'ping' } };
    const first = await peer.result<{
      resultType: string;
      inputRequests: Record<string, { method: string; params: { messages: unknown[] } }>;
      requestState: string;
    }>('tools/call', modern(params, caps));
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests['sampling-1']?.method).toBe('sampling/createMessage');
    expect(JSON.stringify(first.inputRequests['sampling-1']?.params.messages)).toContain('ping');
    const done = await peer.result('tools/call', {
      ...modern(params, caps),
      inputResponses: {
        'sampling-1': {
          role: 'assistant',
          model: 'm',
          content: { type: 'text', text: 'pong' },
        },
      },
      requestState: first.requestState,
    });
    expect(done).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'LLM response: pong' }],
    });
  });
});
