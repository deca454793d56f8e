/**
 * gateway_status latency figures: percentiles over the last 512 calls of each backend, the
 * oldest forgotten as new ones come.
 */
import { createMcpHttpServer } from '@mcpkit/node';
import { connectRaw, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog, type GatewayEvent } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { statusPage } from '../src/status/page.js';
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
    if (!rich) throw new Error('no backend rich');
    expect(rich.latencyPercentiles()).toBeNull();
    // Latencies are read off performance.now, faked here (only it: the backend is a real
    // process): a call takes exactly as long as the test lets it, however busy the machine.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      // Six calls of 600 ms (over 1 % of the window, so p99 shows them while they are in it):
      // each in flight (counted) while the clock moves on, then cancelled.
      for (let i = 0; i < 6; i++) {
        const before = rich.calls;
        const errors = rich.errors;
        void peer.send({
          jsonrpc: '2.0',
          id: `slow-${i}`,
          method: 'tools/call',
          params: { name: 'rich__sleep', arguments: { ms: 600_000 } },
        });
        // (The kit's waitFor: Vitest's would move the faked clock on at every check.)
        await waitFor('the slow call in flight', () => rich.calls === before + 1);
        vi.advanceTimersByTime(600);
        await peer.notify('notifications/cancelled', { requestId: `slow-${i}` });
        await waitFor('the slow call ended', () => rich.errors === errors + 1);
      }
      for (let i = 0; i < 20; i++) await call('rich__echo', { text: 'x' });
      expect(rich.latencyPercentiles()).toEqual({ p50: 0, p95: 600, p99: 600 });
      // 512 more calls push the slow ones out of the window.
      for (let i = 0; i < 32; i++) {
        await Promise.all(Array.from({ length: 16 }, () => call('rich__echo', { text: 'y' })));
      }
      expect(rich.latencyPercentiles()).toEqual({ p50: 0, p95: 0, p99: 0 });
    } finally {
      vi.useRealTimers();
    }
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

describe('the status page and the instances of a shared event log', () => {
  it('names this instance in its state and filters the events by instance', async () => {
    // Another gateway's event in the same log (a fleet's PostgreSQL, the default file).
    const other = 'other-host:4242:abcdef';
    gateway.events.record({
      event_type: 'backend.started',
      status: 'success',
      source: 'elsewhere',
      backend: 'rich',
      instance: other,
    });
    await call('rich__echo', { text: 'mine' });
    const page = statusPage(gateway);
    const http = createMcpHttpServer(gateway.server, { pages: [page] });
    const { url } = await http.listen();
    try {
      const get = async <T>(path: string) => {
        const res = await fetch(`${url}${path}`);
        expect(res.status, path).toBe(200);
        return (await res.json()) as T;
      };
      const state = await get<{ gateway: { instance: string } }>('/status/api/state');
      expect(state.gateway.instance).toBe(gateway.events.instance);
      type Events = { events: GatewayEvent[] };
      const instances = async (query: string) =>
        new Set((await get<Events>(`/status/api/events?${query}`)).events.map((e) => e.instance));
      const self = encodeURIComponent(gateway.events.instance);
      // Unfiltered, both gateways' events; each filter keeps one gateway's.
      expect(await instances('limit=1000')).toEqual(new Set([gateway.events.instance, other]));
      expect(await instances(`instance=${self}`)).toEqual(new Set([gateway.events.instance]));
      const theirs = await get<Events>(`/status/api/events?instance=${encodeURIComponent(other)}`);
      expect(theirs.events.map((e) => [e.instance, e.source])).toEqual([[other, 'elsewhere']]);
      // The page itself has the control.
      const html = await (await fetch(`${url}/`, { headers: { accept: 'text/html' } })).text();
      expect(html).toMatch(/<select name="instance"/);
    } finally {
      page.close();
      await http.close();
    }
  });
});

describe("the status page's restart of a backend", () => {
  it('restarts for an operator with gateway:admin, and refuses everyone and everything else', async () => {
    const page = statusPage(gateway);
    const http = createMcpHttpServer(gateway.server, {
      pages: [page],
      auth: {
        tokens: [
          { token: 'admin-token-0123456789', subject: 'ops', scopes: ['gateway:admin'] },
          { token: 'guest-token-0123456789', subject: 'guest', scopes: [] },
        ],
      },
    });
    const { url } = await http.listen();
    const rich = gateway.backends.get('rich');
    try {
      const post = (path: string, token?: string, type = 'application/json') =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: {
            'content-type': type,
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: type === 'application/json' ? '{}' : 'x=1',
        });
      const path = '/status/api/backends/rich/restart';
      const restartsBefore = rich?.restarts ?? 0;
      const pidBefore = rich?.pid;
      expect((await post(path)).status).toBe(401);
      const guest = await post(path, 'guest-token-0123456789');
      expect(guest.status).toBe(403);
      expect(await guest.json()).toEqual({
        error: 'restarting a backend needs the gateway:admin scope',
      });
      // A form (what another site could make a browser send) is not a restart.
      expect((await post(path, 'admin-token-0123456789', 'text/plain')).status).toBe(415);
      expect(
        (await post('/status/api/backends/nope/restart', 'admin-token-0123456789')).status,
      ).toBe(404);
      expect(
        (await post('/status/api/backends/%E0%A4%A/restart', 'admin-token-0123456789')).status,
      ).toBe(400);
      const get = await fetch(`${url}${path}`, {
        headers: { authorization: 'Bearer admin-token-0123456789' },
      });
      expect(get.status).toBe(405);
      expect(rich?.restarts).toBe(restartsBefore);

      const ok = await post(path, 'admin-token-0123456789');
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({
        backend: 'rich',
        state: 'running',
        restarts: restartsBefore + 1,
        last_error: null,
      });
      expect(rich?.pid).not.toBe(pidBefore);
      // The page has the button (one per backend, drawn by the script).
      const js = await (await fetch(`${url}/status/app.js`)).text();
      expect(js).toContain("'data-restart': b.name");
    } finally {
      page.close();
      await http.close();
    }
  });
});
