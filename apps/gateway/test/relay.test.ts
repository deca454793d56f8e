// @module-tag process
/**
 * A backend's result reaches the client as the backend wrote it: the gateway relays the result's
 * text (spacing, `1.0`, `\u00e9` and all) instead of serializing what it decoded — a 2025
 * backend's whole, a 2026-07-28 backend's without the envelope of its own hop.
 */
import { META } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, type RawProcess, spawnRaw } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backend, fixture } from './helpers.js';

const MODERN_META = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 'modern-client', version: '1' },
};

/** The result text of a reply line: what follows `"result":` up to the closing brace. */
const resultOf = (line: string): string => {
  const at = line.indexOf('"result":');
  expect(at).toBeGreaterThan(0);
  return line.slice(at + '"result":'.length, -1);
};

let gateway: Gateway;
let legacyClient: RawPeer;
let modernClient: RawPeer;
/** What each backend writes for the call, read straight from a copy of it. */
const direct = new Map<string, string>();

beforeAll(async () => {
  for (const [name, args] of [
    ['old', []],
    ['new', ['--modern']],
  ] as const) {
    const raw: RawProcess = spawnRaw(process.execPath, [fixture('verbatim'), ...args]);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verbatim' } });
    direct.set(name, resultOf(await raw.next(10_000)));
    await raw.end();
  }
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        old: backend('verbatim', { protocol: 'legacy' }),
        new: backend('verbatim', { protocol: '2026-07-28' }, ['--modern']),
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  legacyClient = connectRaw(gateway.server);
  await legacyClient.result('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'legacy-client', version: '1' },
  });
  await legacyClient.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  modernClient = connectRaw(gateway.server);
});

afterAll(async () => {
  await legacyClient?.close();
  await modernClient?.close();
  await gateway?.stop();
});

describe('results relayed as the backend wrote them', () => {
  it("gives a 2025 client a 2025 backend's result byte for byte", async () => {
    const sent = direct.get('old') as string;
    expect(sent).toContain('"n": 1.0, "e": 1E3');
    const reply = await legacyClient.send({
      jsonrpc: '2.0',
      id: 'a-1',
      method: 'tools/call',
      params: { name: 'old__verbatim', arguments: {} },
    });
    expect(reply).toBe(`{"jsonrpc":"2.0","id":"a-1","result":${sent}}`);
  });

  it("takes a modern backend's envelope out and leaves every other member as it came", async () => {
    const sent = direct.get('new') as string;
    expect(sent).toContain('"resultType":"complete"');
    const reply = (await legacyClient.send({
      jsonrpc: '2.0',
      id: 'a-2',
      method: 'tools/call',
      params: { name: 'new__verbatim', arguments: {} },
    })) as string;
    const result = resultOf(reply);
    const content = sent.slice(sent.indexOf('"content"'), sent.indexOf(',\t'));
    expect(result).toBe(
      `{${content},"structuredContent": {"n": 1.0, "e": 1E3},"_meta":{"keep":"me"}}`,
    );
    const { resultType: _t, _meta: _m, ...rest } = JSON.parse(sent);
    expect(JSON.parse(result)).toEqual({ ...rest, _meta: { keep: 'me' } });
  });

  it("gives a modern client the backend's members as written, with the gateway's envelope", async () => {
    for (const name of ['old', 'new']) {
      const reply = (await modernClient.send({
        jsonrpc: '2.0',
        id: `m-${name}`,
        method: 'tools/call',
        params: { name: `${name}__verbatim`, arguments: {}, _meta: MODERN_META },
      })) as string;
      expect(reply).toContain('"structuredContent": {"n": 1.0, "e": 1E3}');
      const result = JSON.parse(reply).result;
      expect(result.resultType).toBe('complete');
      expect(result._meta?.[META.serverInfo]?.name).not.toBe('verbatim');
      expect(result.content[0].text).toMatch(/^café x+$/);
    }
  });
});
