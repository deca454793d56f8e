/**
 * gateway_status latency figures: percentiles over the last 512 calls of each backend, the
 * oldest forgotten as new ones come.
 */
import { connectRaw } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backend } from './helpers.js';

let gateway: Gateway;
let peer: ReturnType<typeof connectRaw>;

beforeAll(async () => {
  gateway = new Gateway(parseConfig({ mcpServers: { rich: backend('rich') } }), {
    events: EventLog.open(':memory:'),
  });
  await gateway.start();
  peer = connectRaw(gateway.server);
  await peer.initialize();
});

afterAll(async () => {
  await peer?.close();
  await gateway?.stop();
});

const call = (name: string, args: Record<string, unknown>) =>
  peer.request('tools/call', { name, arguments: args });

describe('backend latency in gateway_status', () => {
  it('is null before the first call, then p50/p95/p99 over the last 512 calls', async () => {
    const rich = gateway.backends.get('rich');
    expect(rich?.latencyPercentiles()).toBeNull();
    await call('rich__sleep', { ms: 600 });
    for (let i = 0; i < 20; i++) await call('rich__echo', { text: 'x' });
    const early = rich?.latencyPercentiles();
    expect(early?.p50).toBeLessThan(600);
    expect(early?.p99).toBeGreaterThanOrEqual(600);
    // 512 more calls push the slow one out of the window.
    for (let i = 0; i < 32; i++) {
      await Promise.all(Array.from({ length: 16 }, () => call('rich__echo', { text: 'y' })));
    }
    const late = rich?.latencyPercentiles();
    expect(late?.p99).toBeLessThan(600);
  });
});

describe('the event log in gateway_status and get_events', () => {
  it('shows the instance id and how the log keeps up, and get_events filters by instance', async () => {
    await call('rich__echo', { text: 'logged' });
    const status = await peer.request<{
      structuredContent: { gateway: { instance: string; events: Record<string, unknown> } };
    }>('tools/call', { name: 'gateway_status', arguments: {} });
    const { instance, events } = status.result?.structuredContent.gateway ?? {
      instance: '',
      events: {},
    };
    expect(instance).toBe(gateway.events.instance);
    expect(events).toMatchObject({
      path: ':memory:',
      aggregated: 0,
      dropped: 0,
      failing: false,
    });
    expect(events.recorded).toBeGreaterThan(0);
    type Events = { structuredContent: { events: { instance: string }[] } };
    const mine = await peer.request<Events>('tools/call', {
      name: 'get_events',
      arguments: { instance, event_type: 'gateway.tool_call' },
    });
    const found = mine.result?.structuredContent.events ?? [];
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((e) => e.instance === instance)).toBe(true);
    const other = await peer.request<Events>('tools/call', {
      name: 'get_events',
      arguments: { instance: 'elsewhere:1:000000' },
    });
    expect(other.result?.structuredContent.events).toEqual([]);
  });
});
