// @module-tag process
import { request } from 'node:http';
import type { McpClient } from '@mcpkit/protocol';
import {
  type HttpProcess,
  isAlive,
  killSpawned,
  parsePrometheusText,
  postJson,
  removeTempDirs,
  sampleValue,
  waitFor,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, spawnHttpGateway } from './helpers.js';

const TOKEN = 'observability-token-01';
const METRICS_TOKEN = 'scraper-token-0000001';

async function startGateway(extra: string[] = []): Promise<HttpProcess> {
  const gw = await spawnHttpGateway(
    {
      mcpServers: {
        chora: backend('chora', { restart: { policy: 'never' } }),
        rich: backend('rich'),
      },
    },
    { args: extra },
  );
  // The gateway serves at once; its backends come up a moment later.
  const token = extra.includes('--token') ? extra[extra.indexOf('--token') + 1] : undefined;
  await waitFor('backends running', async () => {
    const res = await get(
      `${gw.url}/status/api/state`,
      token ? { Authorization: `Bearer ${token}` } : {},
    );
    const state = JSON.parse(res.text) as { backends: { state: string }[] };
    return state.backends.every((b) => b.state === 'running');
  });
  return gw;
}

afterAll(() => {
  killSpawned();
  removeTempDirs();
});

/** GET with headers; the status, headers and body text. */
async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Read an SSE stream until `done` says so (or `ms` pass); the events seen. */
function readStream(
  url: string,
  headers: Record<string, string>,
  done: (events: { event: string; data: string }[]) => boolean,
  ms = 10_000,
): Promise<{ event: string; data: string }[]> {
  return new Promise((resolve, reject) => {
    const events: { event: string; data: string }[] = [];
    const req = request(url, { headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
          events.push({ event, data });
          end = buffer.indexOf('\n\n');
        }
        if (done(events)) {
          req.destroy();
          resolve(events);
        }
      });
    });
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve(events);
    }, ms).unref();
  });
}

describe('gateway /metrics', () => {
  let gw: HttpProcess;
  let client: McpClient;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const scrape = async (token = TOKEN) => {
    const res = await get(`${gw.url}/metrics`, { Authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    return parsePrometheusText(res.text);
  };

  beforeAll(async () => {
    gw = await startGateway(['--token', TOKEN, '--metrics-token', METRICS_TOKEN]);
    client = await gw.connect({ headers: auth });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('is behind the gateway token or the metrics token, which opens nothing else', async () => {
    expect((await get(`${gw.url}/metrics`)).status).toBe(401);
    expect(
      (await get(`${gw.url}/metrics`, { Authorization: 'Bearer wrong-token-000' })).status,
    ).toBe(401);
    await scrape(TOKEN);
    await scrape(METRICS_TOKEN);
    const mcp = await postJson(
      `${gw.url}/messages/`,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { token: METRICS_TOKEN },
    );
    expect(mcp.status).toBe(401);
    expect(
      (await get(`${gw.url}/status/api/state`, { Authorization: `Bearer ${METRICS_TOKEN}` }))
        .status,
    ).toBe(401);
  });

  it('shows every backend up, and moves with the calls made through the gateway', async () => {
    const before = await scrape();
    for (const name of ['chora', 'rich']) {
      expect(sampleValue(before, 'mcp_gateway_backend_up', { backend: name })).toBe(1);
      expect(
        sampleValue(before, 'mcp_gateway_backend_state', { backend: name, state: 'running' }),
      ).toBe(1);
      expect(sampleValue(before, 'mcp_gateway_backend_state', { backend: name })).toBe(1);
      expect(sampleValue(before, 'mcp_gateway_backend_restarts_total', { backend: name })).toBe(0);
    }
    const calls = (m: Map<string, unknown>, status: string) =>
      sampleValue(m as never, 'mcp_gateway_backend_calls_total', { backend: 'rich', status });
    for (let i = 0; i < 3; i++) await client.callTool('rich__echo', { text: 'x' });
    await client.callTool('rich__fails', {});
    await expect(client.callTool('no_such__tool', {})).rejects.toThrow();
    const after = await scrape();
    expect(calls(after, 'ok') - calls(before, 'ok')).toBe(3);
    expect(calls(after, 'tool_error') - calls(before, 'tool_error')).toBe(1);
    expect(
      sampleValue(after, 'mcp_gateway_backend_call_duration_seconds_count', { backend: 'rich' }) -
        sampleValue(before, 'mcp_gateway_backend_call_duration_seconds_count', { backend: 'rich' }),
    ).toBe(4);
    expect(sampleValue(after, 'mcp_gateway_backend_queue_depth', { backend: 'rich' })).toBe(0);
    expect(
      sampleValue(after, 'mcp_requests_total', {
        method: 'tools/call',
        tool: 'rich__echo',
        status: 'ok',
      }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sampleValue(after, 'mcp_requests_total', { method: 'tools/call', tool: '(unknown)' }),
    ).toBe(1);
    expect([...after.keys()].join()).not.toContain('no_such');
    expect(after.has('process_resident_memory_bytes')).toBe(true);
  });

  it('counts the calls waiting on a backend', async () => {
    const slow = client.callTool('rich__sleep', { ms: 1500 });
    await expect
      .poll(async () =>
        sampleValue(await scrape(), 'mcp_gateway_backend_queue_depth', { backend: 'rich' }),
      )
      .toBe(1);
    await slow;
    expect(
      sampleValue(await scrape(), 'mcp_gateway_backend_queue_depth', { backend: 'rich' }),
    ).toBe(0);
  });

  it('shows a killed backend down', async () => {
    const state = JSON.parse((await get(`${gw.url}/status/api/state`, auth)).text) as {
      backends: { name: string; pid: number }[];
    };
    const pid = state.backends.find((b) => b.name === 'chora')?.pid as number;
    expect(isAlive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await expect
      .poll(async () => sampleValue(await scrape(), 'mcp_gateway_backend_up', { backend: 'chora' }))
      .toBe(0);
    const m = await scrape();
    expect(sampleValue(m, 'mcp_gateway_backend_state', { backend: 'chora', state: 'failed' })).toBe(
      1,
    );
    expect(sampleValue(m, 'mcp_gateway_backend_up', { backend: 'rich' })).toBe(1);
  });
});

describe('status page over HTTP', () => {
  let gw: HttpProcess;
  beforeAll(async () => {
    gw = await startGateway(['--token', TOKEN]);
  });
  /** POST a form to the page (login, logout) with these headers; the redirect is not followed. */
  const postForm = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      redirect: 'manual',
    });
  afterAll(async () => {
    await gw?.stop();
  });

  it('asks a browser to log in, then serves it by session cookie', async () => {
    const page = await get(`${gw.url}/`, { Accept: 'text/html' });
    expect(page.status).toBe(401);
    expect(page.text).toContain('action="/status/login"');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await get(`${gw.url}/status/api/state`)).status).toBe(401);

    // A browser's form POST from the page: its own Origin, as every browser sends on a POST.
    const login = (body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${gw.url}/status/login`, {
        method: 'POST',
        body,
        headers: { 'content-type': type, origin: new URL(gw.url).origin },
        redirect: 'manual',
      });
    const wrong = await login('token=nope-nope-nope');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('not valid');
    expect((await login(`token=${TOKEN}`, 'application/json')).status).toBe(415);
    expect((await login(`token=${'x'.repeat(5000)}`)).status).toBe(413);
    const ok = await login(`token=${encodeURIComponent(TOKEN)}`);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/');
    const setCookie = ok.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^mcpkit_status=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\//);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0] as string;
    const home = await get(`${gw.url}/`, { Accept: 'text/html', Cookie: cookie });
    expect(home.status).toBe(200);
    expect(home.text).toContain('<h2 id="backends-title">Backends</h2>');
    const state = JSON.parse((await get(`${gw.url}/status/api/state`, { Cookie: cookie })).text);
    expect(state.backends.map((b: { name: string }) => b.name)).toEqual(['chora', 'rich']);
    expect(state.backends[1]).toMatchObject({ state: 'running', restarts: 0, era: 'modern' });
    // A forged or expired cookie is no login; logging out ends this one.
    expect(
      (await get(`${gw.url}/status/api/state`, { Cookie: 'mcpkit_status=forged' })).status,
    ).toBe(401);
    const out = await postForm('/status/logout', '', {
      Cookie: cookie,
      Origin: new URL(gw.url).origin,
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/status/login');
    expect(out.headers.get('set-cookie')).toMatch(/^mcpkit_status=; .*Max-Age=0/);
    expect((await get(`${gw.url}/status/api/state`, { Cookie: cookie })).status).toBe(401);
    // The page's own files are public (the login form is styled); its data is not.
    expect((await get(`${gw.url}/status/app.js`)).status).toBe(200);
    expect((await get(`${gw.url}/status/app.css`)).headers.get('content-type')).toContain(
      'text/css',
    );
  });

  it('takes a login or a logout only from the page itself (no login CSRF from another local port)', async () => {
    const own = new URL(gw.url).origin;
    // A page on another port of this machine (a dev server, anything a browser has open): the
    // server lets loopback origins call MCP, but this form would log the browser in as the
    // attacker's token.
    const elsewhere = 'http://localhost:5173';
    const form = `token=${encodeURIComponent(TOKEN)}`;
    const refused: Record<string, string>[] = [
      { Origin: elsewhere },
      { Origin: elsewhere, 'Sec-Fetch-Site': 'same-site' },
      // Fetch Metadata says where it came from, whatever the Origin.
      { Origin: own, 'Sec-Fetch-Site': 'same-site' },
      // Every browser sends Origin on a POST: a form without one is no browser's login.
      {},
    ];
    for (const headers of refused) {
      const res = await postForm('/status/login', form, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('set-cookie'), JSON.stringify(headers)).toBeNull();
      expect(await res.text()).toContain('not sent from this page');
    }
    const ok = await postForm('/status/login', form, {
      Origin: own,
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(ok.status).toBe(303);
    const setCookie = ok.headers.get('set-cookie') ?? '';
    // Plain http: neither Secure nor __Host- (a browser would not keep them).
    expect(setCookie).toMatch(/^mcpkit_status=[\w-]{40,}; HttpOnly;/);
    const cookie = setCookie.split(';')[0] as string;
    const state = async () => (await get(`${gw.url}/status/api/state`, { Cookie: cookie })).status;
    expect(await state()).toBe(200);
    // Logging out is a POST from the page too: a link, or another local page, ends nothing.
    const link = await get(`${gw.url}/status/logout`, { Cookie: cookie });
    expect(link.status).toBe(405);
    expect(link.headers.get('allow')).toBe('POST');
    expect(
      (await postForm('/status/logout', '', { Cookie: cookie, Origin: elsewhere })).status,
    ).toBe(403);
    expect((await postForm('/status/logout', '', { Cookie: cookie })).status).toBe(403);
    expect(await state()).toBe(200);
    expect((await postForm('/status/logout', '', { Cookie: cookie, Origin: own })).status).toBe(
      303,
    );
    expect(await state()).toBe(401);
  });

  it('makes the cookie Secure, with the __Host- prefix, when the page is served over https', async () => {
    // The page's own origin, over https (a TLS proxy in front that keeps Host).
    const origin = `https://${new URL(gw.url).host}`;
    const res = await postForm('/status/login', `token=${encodeURIComponent(TOKEN)}`, {
      Origin: origin,
    });
    expect(res.status).toBe(303);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^__Host-mcpkit_status=[\w-]{40,}; Secure; HttpOnly; SameSite=Strict; Path=\/;/,
    );
    expect(setCookie).not.toMatch(/Domain=/i);
    const sid = (setCookie.split(';')[0] as string).slice('__Host-mcpkit_status='.length);
    const state = async (cookie: string) =>
      (await get(`${gw.url}/status/api/state`, { Cookie: cookie })).status;
    expect(await state(`__Host-mcpkit_status=${sid}`)).toBe(200);
    // The id of a TLS login does not work under the plain name (one plain http could set).
    expect(await state(`mcpkit_status=${sid}`)).toBe(401);
    const out = await postForm('/status/logout', '', {
      Cookie: `__Host-mcpkit_status=${sid}`,
      Origin: origin,
    });
    expect(out.status).toBe(303);
    // Only a Secure cookie replaces a __Host- one.
    expect(out.headers.get('set-cookie')).toContain('__Host-mcpkit_status=; Secure;');
    expect(await state(`__Host-mcpkit_status=${sid}`)).toBe(401);
  });

  it('refuses foreign origins and other methods; `/` for non-browsers stays MCP', async () => {
    const foreign = await get(`${gw.url}/status/api/state`, {
      Origin: 'http://evil.example',
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(foreign.status).toBe(403);
    const post = await fetch(`${gw.url}/status/api/state`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(405);
    expect((await get(`${gw.url}/`, { Authorization: `Bearer ${TOKEN}` })).status).toBe(404);
    const ping = await postJson<{ result: unknown }>(
      `${gw.url}/messages/`,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { token: TOKEN },
    );
    expect(ping.body?.result).toEqual({});
    expect(
      (await get(`${gw.url}/status/nothing`, { Authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(404);
  });

  it('answers bad event filters with 400 and the reason', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const bad = async (query: string) => {
      const res = await get(`${gw.url}/status/api/events?${query}`, auth);
      expect(res.status, query).toBe(400);
      return JSON.parse(res.text).error as string;
    };
    expect(await bad('status=broken')).toMatch(/status must be one of/);
    expect(await bad('since=yesterday')).toMatch(/since must be/);
    expect(await bad('limit=0')).toMatch(/limit/);
    expect(await bad('limit=abc')).toMatch(/limit/);
    const ok = JSON.parse(
      (await get(`${gw.url}/status/api/events?event_type=gateway.started&since=1h`, auth)).text,
    );
    expect(ok.events.map((e: { event_type: string }) => e.event_type)).toEqual(['gateway.started']);
  });

  it('streams the state at once and every new event', async () => {
    const client = await gw.connect({ headers: { Authorization: `Bearer ${TOKEN}` } });
    let opened: () => void = () => {};
    const streaming = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const seen = readStream(
      `${gw.url}/status/stream`,
      { Authorization: `Bearer ${TOKEN}` },
      (events) => {
        if (events.length > 0) opened();
        return events.some((e) => e.event === 'gateway-event' && e.data.includes('rich__echo'));
      },
      30_000,
    );
    // The stream is open — its first event (the state) came — before the call: waited for,
    // not given 300 ms.
    await streaming;
    await client.callTool('rich__echo', { text: 'live' });
    const events = await seen;
    expect(events[0]?.event).toBe('state');
    expect(JSON.parse(events[0]?.data ?? '{}').backends).toHaveLength(2);
    const call = events.find((e) => e.event === 'gateway-event' && e.data.includes('rich__echo'));
    expect(JSON.parse(call?.data ?? '{}')).toMatchObject({
      event_type: 'gateway.tool_call',
      tool: 'rich__echo',
      backend: 'rich',
    });
  });

  it('throttles an address that keeps guessing, and still lets the right token in', async () => {
    let status = 0;
    for (let i = 0; i < 25 && status !== 429; i++) {
      const res = await postForm('/status/login', `token=guess-${i}-0000000`, {
        Origin: new URL(gw.url).origin,
      });
      status = res.status;
    }
    expect(status).toBe(429);
    // Its wrong tokens are refused with 429; the right one is let in (behind a proxy every
    // browser shares the address: one guessing must not lock the operators out).
    const right = await postForm('/status/login', `token=${TOKEN}`, {
      Origin: new URL(gw.url).origin,
    });
    expect(right.status).toBe(303);
  });
});

describe('status page without tokens (loopback)', () => {
  it('is open like the MCP endpoints, and /metrics can be switched off', async () => {
    const gw = await startGateway(['--metrics', 'off']);
    try {
      const page = await get(`${gw.url}/`, { Accept: 'text/html,application/xhtml+xml' });
      expect(page.status).toBe(200);
      expect(page.text).toContain('<title>Gateway status</title>');
      expect((await get(`${gw.url}/status/api/state`)).status).toBe(200);
      expect((await get(`${gw.url}/metrics`)).status).toBe(404);
    } finally {
      await gw.stop();
    }
  });
});
