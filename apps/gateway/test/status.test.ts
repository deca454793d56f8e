/**
 * gateway_status latency figures: percentiles over the last 512 calls of each backend, the
 * oldest forgotten as new ones come.
 */
import { type ClientRequest, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHttpServer, type PageAuth } from '@mcpkit/node';
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

/** Tokens of three callers for the status page's caps (each its own subject). */
const CALLERS = {
  mallory: 'mallory-token-0123456789',
  ops: 'ops-token-0123456789abcd',
  carol: 'carol-token-0123456789ab',
} as const;

/** The status page behind the three callers' tokens, on a free port. */
async function pageWithTokens(
  options: Parameters<typeof statusPage>[1],
  server: { allowedOrigins?: string[] } = {},
) {
  const page = statusPage(gateway, options);
  const http = createMcpHttpServer(gateway.server, {
    ...server,
    pages: [page],
    auth: {
      tokens: Object.entries(CALLERS).map(([subject, token]) => ({ token, subject, scopes: [] })),
    },
  });
  const { url } = await http.listen();
  return {
    url,
    /**
     * Log in through the form, from the page's own origin (or `origin`): the session cookie, or
     * the status.
     */
    async login(token: string, origin = new URL(url).origin): Promise<string | number> {
      const res = await fetch(`${url}/status/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: `token=${token}`,
        redirect: 'manual',
      });
      await res.body?.cancel();
      if (res.status !== 303) return res.status;
      return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    },
    /** The status of the page's data for this session cookie. */
    async state(cookie: string): Promise<number> {
      const res = await fetch(`${url}/status/api/state`, { headers: { cookie } });
      await res.body?.cancel();
      return res.status;
    },
    async close() {
      page.close();
      await http.close();
    },
  };
}

describe("the status page's logins", () => {
  it("are bounded per caller: one token holder's logins never log another operator out", async () => {
    const page = await pageWithTokens({});
    try {
      const ops = await page.login(CALLERS.ops);
      expect(ops).toMatch(/^mcpkit_status=/);
      // More logins than the page keeps in all (1024): before the bound per caller, the oldest of
      // all was pushed out, the other operator's with them.
      const mallory: (string | number)[] = [];
      for (let i = 0; i < 1100; i++) mallory.push(await page.login(CALLERS.mallory));
      expect(mallory.every((c) => typeof c === 'string')).toBe(true);
      expect(await page.state(ops as string)).toBe(200);
      // The caller keeps its 16 latest; its 17th latest was ended by the next.
      const latest = mallory.slice(-17) as string[];
      expect(await page.state(latest[0] as string)).toBe(401);
      for (const cookie of latest.slice(1)) expect(await page.state(cookie)).toBe(200);
    } finally {
      await page.close();
    }
  });

  it('refuses a login beyond the global cap rather than end anyone else’s', async () => {
    const page = await pageWithTokens({ maxSessions: 4, maxSessionsPerCaller: 2 });
    try {
      const mallory = [await page.login(CALLERS.mallory), await page.login(CALLERS.mallory)];
      const ops = [await page.login(CALLERS.ops), await page.login(CALLERS.ops)];
      expect(await page.login(CALLERS.carol)).toBe(429);
      for (const cookie of [...mallory, ...ops])
        expect(await page.state(cookie as string)).toBe(200);
      // A caller at its own bound still logs in: in place of its own oldest.
      const again = await page.login(CALLERS.mallory);
      expect(await page.state(again as string)).toBe(200);
      expect(await page.state(mallory[0] as string)).toBe(401);
      for (const cookie of ops) expect(await page.state(cookie as string)).toBe(200);
    } finally {
      await page.close();
    }
  });
});

describe("the status page's live streams", () => {
  it('are bounded per caller under the global cap: another caller still gets one', async () => {
    const page = await pageWithTokens({ maxStreams: 6 });
    const open: ClientRequest[] = [];
    /** Open `/status/stream` as this token's holder: the status, the stream kept open on 200. */
    const stream = (token: string) =>
      new Promise<{ status: number; body: Promise<string> }>((resolve, reject) => {
        const req = request(
          `${page.url}/status/stream`,
          { headers: { authorization: `Bearer ${token}` } },
          (res) => {
            if (res.statusCode === 200) {
              open.push(req);
              resolve({ status: 200, body: Promise.resolve('') });
              return;
            }
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            resolve({
              status: res.statusCode ?? 0,
              body: new Promise((done) => res.on('end', () => done(text))),
            });
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      // One caller opens as many as it is let: its share (4), not every stream there is.
      let held = 0;
      let refused: { status: number; body: Promise<string> } | undefined;
      for (let i = 0; i < 10 && !refused; i++) {
        const res = await stream(CALLERS.mallory);
        if (res.status === 200) held++;
        else refused = res;
      }
      expect(held).toBe(4);
      expect(refused?.status).toBe(503);
      expect(await refused?.body).toMatch(/you have 4 status pages open/);
      // While it holds them, another operator watches.
      expect((await stream(CALLERS.ops)).status).toBe(200);
      expect((await stream(CALLERS.ops)).status).toBe(200);
      // The global cap (6) still bounds them all.
      const full = await stream(CALLERS.carol);
      expect(full.status).toBe(503);
      expect(await full.body).toBe('too many status pages open\n');
      // A stream that ends gives its caller's place back.
      open[0]?.destroy();
      await waitFor('a place again', async () => (await stream(CALLERS.mallory)).status === 200);
    } finally {
      for (const req of open) req.destroy();
      await page.close();
    }
  });
});

describe("the status page's login from a listed origin", () => {
  it('is taken from an origin in allowedOrigins (a proxy that rewrites Host), Secure for https', async () => {
    // A TLS proxy at status.example.com that passes Host as the gateway's own loopback address:
    // the browser's Origin is the proxy's, which the operator lists.
    const proxied = 'https://status.example.com';
    const page = await pageWithTokens({}, { allowedOrigins: [proxied] });
    try {
      const cookie = await page.login(CALLERS.ops, proxied);
      expect(cookie).toMatch(/^__Host-mcpkit_status=/);
      expect(await page.state(cookie as string)).toBe(200);
      // The page's own origin still logs in; an unlisted one does not get this far.
      expect(await page.login(CALLERS.ops)).toMatch(/^mcpkit_status=/);
      expect(await page.login(CALLERS.ops, 'https://other.example.com')).toBe(403);
    } finally {
      await page.close();
    }
  });
});

describe("the status page's cookie over TLS", () => {
  it('is Secure with the __Host- prefix when the request came over TLS', async () => {
    const page = statusPage(gateway);
    const auth: PageAuth = {
      required: true,
      check: async (token) =>
        token === CALLERS.ops ? { subject: 'ops', scopes: new Set<string>() } : undefined,
    };
    // The socket is what a TLS server's would say (no certificate needed for what is tested).
    const server = createServer((req, res) => {
      Object.defineProperty(req.socket, 'encrypted', { value: true, configurable: true });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      void page.handle(req, res, path, auth);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${url}/status/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: `token=${CALLERS.ops}`,
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
      const setCookie = res.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(
        /^__Host-mcpkit_status=[\w-]{40,}; Secure; HttpOnly; SameSite=Strict; Path=\/;/,
      );
      expect(setCookie).not.toMatch(/Domain=/i);
      const state = await fetch(`${url}/status/api/state`, {
        headers: { cookie: setCookie.split(';')[0] as string },
      });
      expect(state.status).toBe(200);
    } finally {
      page.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
