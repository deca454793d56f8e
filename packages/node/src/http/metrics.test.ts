import { McpMetrics } from '@mcpkit/observability';
import { defineTool, McpServer, ToolError } from '@mcpkit/protocol';
import { parsePrometheusText, postJson, sampleValue } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

let open: ServedHttp[] = [];
afterEach(async () => {
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close()));
});

const TOKEN = 'app-token-123456';
const SCRAPER = 'scraper-token-123456';

function server(): McpServer {
  return new McpServer({ name: 'm', version: '1' }).addTool(
    defineTool({
      name: 'add',
      description: 'adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => String(a + b),
    }),
    defineTool({
      name: 'fail',
      description: 'fails as a tool',
      inputSchema: z.object({}),
      handler: () => {
        throw new ToolError('no');
      },
    }),
  );
}

async function start(options: McpHttpOptions = {}) {
  const mcp = server();
  const metrics = new McpMetrics({ processMetrics: false });
  metrics.observe(mcp);
  const served = await serveHttp(mcp, { plainPaths: ['/rpc'], metrics, ...options });
  open.push(served);
  return { served, metrics, rpc: `${served.url}/rpc` };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function scrape(url: string, token?: string) {
  const res = await fetch(
    `${url}/metrics`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text };
}

describe('McpMetrics at /metrics', () => {
  it('counts requests by method, tool, era and status, and the text parses', async () => {
    const { served, rpc } = await start();
    const before = parsePrometheusText((await scrape(served.url)).text);
    expect(sampleValue(before, 'mcp_requests_total')).toBe(0);

    await postJson(rpc, call(1, 'add', { a: 1, b: 2 }));
    await postJson(rpc, call(2, 'add', { a: 2, b: 2 }));
    await postJson(rpc, call(3, 'fail'));
    await postJson(rpc, call(4, 'made-up-tool-name'));
    await postJson(rpc, { jsonrpc: '2.0', id: 5, method: 'made/up', params: {} });
    await postJson(
      rpc,
      {
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } },
    );

    const { status, type, text } = await scrape(served.url);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parsePrometheusText(text);
    expect(m.get('mcp_requests_total')?.type).toBe('counter');
    expect(m.get('mcp_request_duration_seconds')?.type).toBe('histogram');
    const legacy = { era: 'legacy', method: 'tools/call' };
    expect(sampleValue(m, 'mcp_requests_total', { ...legacy, tool: 'add', status: 'ok' })).toBe(2);
    expect(
      sampleValue(m, 'mcp_requests_total', { ...legacy, tool: 'fail', status: 'tool_error' }),
    ).toBe(1);
    // An unknown tool is one label value, whatever its name: clients cannot mint series.
    expect(
      sampleValue(m, 'mcp_requests_total', { ...legacy, tool: '(unknown)', status: '-32602' }),
    ).toBe(1);
    expect(text).not.toContain('made-up-tool-name');
    expect(sampleValue(m, 'mcp_requests_total', { method: 'other', status: '-32601' })).toBe(1);
    expect(text).not.toContain('made/up');
    expect(
      sampleValue(m, 'mcp_requests_total', { method: 'tools/list', era: 'modern', status: 'ok' }),
    ).toBe(1);
    expect(sampleValue(m, 'mcp_request_duration_seconds_count', { tool: 'add' })).toBe(2);
    expect(sampleValue(m, 'mcp_requests_in_flight')).toBe(0);
  });

  it('counts calls in flight and sessions', async () => {
    const mcp = new McpServer({ name: 'm', version: '1' });
    let release: () => void = () => {};
    mcp.addTool(
      defineTool({
        name: 'wait',
        description: 'waits',
        inputSchema: z.object({}),
        handler: () => new Promise<string>((resolve) => (release = () => resolve('done'))),
      }),
    );
    const metrics = new McpMetrics({ processMetrics: false });
    metrics.observe(mcp);
    const served = await serveHttp(mcp, { plainPaths: ['/rpc'], metrics });
    open.push(served);
    const client = await served.connect();
    const pending = postJson(`${served.url}/rpc`, call(1, 'wait'));
    await expect
      .poll(async () =>
        sampleValue(parsePrometheusText((await scrape(served.url)).text), 'mcp_requests_in_flight'),
      )
      .toBe(1);
    const m = parsePrometheusText((await scrape(served.url)).text);
    expect(sampleValue(m, 'mcp_sessions')).toBeGreaterThanOrEqual(1);
    release();
    await pending;
    expect(
      sampleValue(parsePrometheusText((await scrape(served.url)).text), 'mcp_requests_in_flight'),
    ).toBe(0);
    await client.close();
  });

  it('is behind the app token, or a metrics token that opens nothing else', async () => {
    const { served, rpc } = await start({
      auth: { tokens: [{ token: TOKEN }] },
      metricsToken: SCRAPER,
    });
    expect((await scrape(served.url)).status).toBe(401);
    expect((await scrape(served.url, 'wrong-token-0000')).status).toBe(401);
    expect((await scrape(served.url, TOKEN)).status).toBe(200);
    expect((await scrape(served.url, SCRAPER)).status).toBe(200);
    // The scraper's token reads metrics, not MCP.
    expect((await postJson(rpc, call(1, 'add', { a: 1, b: 1 }), { token: SCRAPER })).status).toBe(
      401,
    );
    const m = parsePrometheusText((await scrape(served.url, SCRAPER)).text);
    expect(sampleValue(m, 'mcp_http_rejections_total', { reason: 'auth' })).toBeGreaterThanOrEqual(
      3,
    );
  });

  it('counts each refusal of an MCP request once, where it is sent', async () => {
    const { served, rpc } = await start({
      auth: { tokens: [{ token: TOKEN }] },
      rateLimit: { points: 2, durationSec: 60 },
    });
    const rejections = async (reason: string) =>
      sampleValue(
        parsePrometheusText((await scrape(served.url, TOKEN)).text),
        'mcp_http_rejections_total',
        { reason },
      );
    expect((await postJson(rpc, call(1, 'add', { a: 1, b: 1 }))).status).toBe(401);
    expect((await postJson(rpc, call(2, 'add', { a: 1, b: 1 }), { token: 'nope' })).status).toBe(
      401,
    );
    expect(await rejections('auth')).toBe(2);
    expect((await postJson(rpc, call(3, 'add', { a: 1, b: 1 }), { token: TOKEN })).status).toBe(
      200,
    );
    // A batch of three costs three points: one is left, so it is refused (the batch charge).
    const batch = [4, 5, 6].map((id) => call(id, 'add', { a: 1, b: 1 }));
    expect((await postJson(rpc, batch, { token: TOKEN })).status).toBe(429);
    expect((await postJson(rpc, call(7, 'add', { a: 1, b: 1 }), { token: TOKEN })).status).toBe(
      429,
    );
    expect(await rejections('rate_limit')).toBe(2);
    expect(await rejections('auth')).toBe(2);
  });

  it('counts rate-limit rejections, refuses other methods and foreign hosts', async () => {
    const { served, rpc } = await start({ rateLimit: { points: 1, durationSec: 60 } });
    expect((await postJson(rpc, call(1, 'add', { a: 1, b: 1 }))).status).toBe(200);
    expect((await postJson(rpc, call(2, 'add', { a: 1, b: 1 }))).status).toBe(429);
    const m = parsePrometheusText((await scrape(served.url)).text);
    expect(sampleValue(m, 'mcp_http_rejections_total', { reason: 'rate_limit' })).toBe(1);
    expect((await fetch(`${served.url}/metrics`, { method: 'POST', body: '' })).status).toBe(405);
    const foreign = await fetch(`${served.url}/metrics`, {
      headers: { origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('is absent without metrics, and an observer that throws does not break calls', async () => {
    const mcp = server();
    mcp.observe({
      begin: () => {
        throw new Error('observer bug');
      },
      end: () => {},
    });
    const served = await serveHttp(mcp, { plainPaths: ['/rpc'] });
    open.push(served);
    expect((await fetch(`${served.url}/metrics`)).status).toBe(404);
    const reply = await postJson<{ result: { content: { text: string }[] } }>(
      `${served.url}/rpc`,
      call(1, 'add', { a: 2, b: 3 }),
    );
    expect(reply.body?.result.content[0]?.text).toBe('5');
  });
});

describe('McpMetrics and late tools', () => {
  it('labels a call with a tool registered while the call waited (held lists)', async () => {
    const mcp = new McpServer({ name: 'late', version: '1' });
    let release: () => void = () => {};
    mcp.holdLists(new Promise<void>((resolve) => (release = resolve)));
    const metrics = new McpMetrics({ processMetrics: false });
    metrics.observe(mcp);
    const served = await serveHttp(mcp, { plainPaths: ['/rpc'], metrics });
    open.push(served);
    const reply = postJson<{ result: { content: { text: string }[] } }>(
      `${served.url}/rpc`,
      call(1, 'late', {}),
    );
    // The call is in, waiting for the held lists: seen, not given 100 ms to get there.
    await expect
      .poll(async () =>
        sampleValue(parsePrometheusText(await metrics.text()), 'mcp_requests_in_flight'),
      )
      .toBe(1);
    mcp.addTool(
      defineTool({
        name: 'late',
        description: 'came late',
        inputSchema: z.object({}),
        handler: () => 'here',
      }),
    );
    release();
    expect((await reply).body?.result.content[0]?.text).toBe('here');
    const m = parsePrometheusText(await metrics.text());
    expect(sampleValue(m, 'mcp_requests_total', { tool: 'late', status: 'ok' })).toBe(1);
    expect(sampleValue(m, 'mcp_requests_total', { tool: '(unknown)' })).toBe(0);
  });
});

describe('parsePrometheusText', () => {
  it('refuses what Prometheus would refuse', () => {
    expect(() => parsePrometheusText('x 1')).toThrow(/newline/);
    // Go's ParseFloat (Prometheus) reads NaN and Inf in any case: prom-client writes `Nan`.
    expect(parsePrometheusText('# TYPE x gauge\nx Nan\n').get('x')?.samples[0]?.value).toBeNaN();
    expect(() => parsePrometheusText('# TYPE x gauge\nx nope\n')).toThrow(/bad value/);
    expect(() => parsePrometheusText('x 1\n')).toThrow(/undeclared/);
    expect(() => parsePrometheusText('# TYPE x counter\nx{a="1} 1\n')).toThrow(/label/);
    expect(() => parsePrometheusText('# TYPE x counter\nx -1\n')).toThrow(/below zero/);
    expect(() => parsePrometheusText('# TYPE x counter\nx 1\nx 2\n')).toThrow(/duplicate/);
    expect(() =>
      parsePrometheusText(
        '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n',
      ),
    ).toThrow(/cumulative/);
    expect(() =>
      parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1\n'),
    ).toThrow(/Inf/);
    expect(
      parsePrometheusText('# HELP x a\n# TYPE x gauge\nx{a="q\\"b"} 1.5\n').get('x')?.samples[0],
    ).toEqual({
      name: 'x',
      labels: { a: 'q"b' },
      value: 1.5,
    });
  });
});
