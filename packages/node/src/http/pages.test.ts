import { McpMetrics } from '@mcpkit/observability';
import { McpServer } from '@mcpkit/protocol';
import { parsePrometheusText, postJson, sampleValue } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHttpOptions } from './options.js';
import type { HttpPage } from './pages.js';
import { type ServedHttp, serveHttp } from './serve.js';

let open: ServedHttp[] = [];
afterEach(async () => {
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close()));
});

const TOKEN = 'page-token-12345678';

/** A page at /hello that says who asked, checking the token in `?token=`. */
const hello: HttpPage = {
  matches: (path) => path === '/hello' || path === '/boom',
  async handle(req, res, path, auth) {
    if (path === '/boom') throw new Error('page bug');
    const token = new URL(req.url ?? '/', 'http://x').searchParams.get('token') ?? '';
    const who = auth.required ? await auth.check(token, req) : { subject: 'anyone' };
    const body = who === 'locked' ? 'locked' : who ? `hello ${who.subject}` : 'no';
    res.writeHead(who === 'locked' ? 429 : who ? 200 : 401, { 'content-type': 'text/plain' });
    res.end(body);
  },
};

async function start(
  options: McpHttpOptions = {},
  mcp = new McpServer({ name: 'p', version: '1' }),
) {
  const served = await serveHttp(mcp, {
    plainPaths: ['/rpc'],
    pages: [hello],
    ...options,
  });
  open.push(served);
  return served;
}

describe('HttpPage', () => {
  it('lets any web origin call the paths it names public (anyOrigin), and only those', async () => {
    const open: HttpPage = {
      anyOrigin: (path) => path === '/public',
      matches: (path) => path === '/public' || path === '/private',
      handle: (_req, res) => void res.writeHead(200).end('ok'),
    };
    const { url } = await start({ pages: [open] });
    const from = { origin: 'https://client.example' };
    expect((await fetch(`${url}/public`, { headers: from })).status).toBe(200);
    expect((await fetch(`${url}/private`, { headers: from })).status).toBe(403);
    // The Host check still applies (fetch cannot send another Host: node:http can).
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`${url}/public`, { headers: { ...from, host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });

  it('serves its paths beside MCP, which answer as before', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/hello`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello anyone');
    const ping = await postJson<{ result: unknown }>(`${url}/rpc`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(ping.body?.result).toEqual({});
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
  });

  it("checks tokens with the server's authenticator and its throttle of wrong ones", async () => {
    const metrics = new McpMetrics({ processMetrics: false });
    const { url } = await start({
      auth: {
        tokens: [{ token: TOKEN, subject: 'alice' }],
        failures: { points: 3, durationSec: 60 },
      },
      metrics,
    });
    expect(await (await fetch(`${url}/hello?token=${TOKEN}`)).text()).toBe('hello alice');
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${url}/hello?token=wrong-${i}-0000`)).status).toBe(401);
    // Throttled, for wrong tokens only (the same throttle as the MCP paths): the right token is
    // served on the page and on MCP alike.
    expect((await fetch(`${url}/hello?token=wrong-3-0000`)).status).toBe(429);
    expect(
      (
        await postJson(
          `${url}/rpc`,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { token: 'wrong-4-0000' },
        )
      ).status,
    ).toBe(429);
    expect(await (await fetch(`${url}/hello?token=${TOKEN}`)).text()).toBe('hello alice');
    expect(
      (await postJson(`${url}/rpc`, { jsonrpc: '2.0', id: 1, method: 'ping' }, { token: TOKEN }))
        .status,
    ).toBe(200);
    const m = parsePrometheusText(await metrics.text());
    expect(sampleValue(m, 'mcp_http_rejections_total', { reason: 'auth' })).toBe(3);
    expect(sampleValue(m, 'mcp_http_rejections_total', { reason: 'rate_limit' })).toBe(2);
  });

  it('refuses foreign origins, accepts its own (the Host check still applies)', async () => {
    const { url, port } = await start({ allowedOrigins: ['http://only.example'] });
    expect(
      (await fetch(`${url}/hello`, { headers: { origin: 'http://evil.example' } })).status,
    ).toBe(403);
    // Not in allowedOrigins, but the request's own scheme and Host: a page's own form.
    expect(
      (await fetch(`${url}/hello`, { headers: { origin: `http://127.0.0.1:${port}` } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${url}/hello`, { headers: { origin: `http://127.0.0.1:${port + 1}` } })).status,
    ).toBe(403);
  });

  it('answers a page that throws with a 500, and goes on', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    expect((await fetch(`${url}/hello`)).status).toBe(200);
  });
});

describe('metrics label bounds', () => {
  it('keeps one series for any number of made-up methods', async () => {
    const metrics = new McpMetrics({ processMetrics: false });
    const mcp = new McpServer({ name: 'p', version: '1' });
    metrics.observe(mcp);
    const { url } = await start({ metrics }, mcp);
    for (let round = 0; round < 5; round++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: `made/up/${round}/${i}`,
      }));
      await postJson(`${url}/rpc`, batch);
    }
    const text = await metrics.text();
    expect(text).not.toContain('made/up');
    expect(sampleValue(parsePrometheusText(text), 'mcp_requests_total', { method: 'other' })).toBe(
      500,
    );
  });
});
