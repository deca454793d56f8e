import { McpMetrics } from '@mcpkit/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../fixtures/everything.js';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

let open: ServedHttp[] = [];

afterEach(async () => {
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close()));
});

async function start(options: McpHttpOptions = {}) {
  const served = await serveHttp(createEverythingServer(), {
    plainPaths: ['/messages/'],
    ...options,
  });
  open.push(served);
  return served;
}

const APP = 'https://app.example.com';
const TOKEN = 'cors-test-token-0123456789';

const preflight = (url: string, origin: string, method = 'POST') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
    },
  });

const initialize = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'page', version: '1' },
      },
    }),
  });

/** The response's `access-control-*` headers. */
function corsHeaders(res: Response): Record<string, string> {
  return Object.fromEntries(
    [...res.headers].filter(([name]) => name.startsWith('access-control-')),
  );
}

describe('CORS', () => {
  it('is off by default: OPTIONS is 405 and no response carries CORS headers', async () => {
    const served = await start();
    const res = await preflight(served.mcpUrl, 'http://localhost:5173');
    expect(res.status).toBe(405);
    expect(corsHeaders(res)).toEqual({});
    const init = await initialize(served.mcpUrl, { origin: 'http://localhost:5173' });
    expect(init.status).toBe(200);
    expect(corsHeaders(init)).toEqual({});
    // A foreign origin stays refused by the Origin check.
    expect((await initialize(served.mcpUrl, { origin: APP })).status).toBe(403);
  });

  it('answers the preflight of an allowed origin with 204 and the MCP headers, before auth', async () => {
    const served = await start({
      corsOrigins: [APP],
      auth: { tokens: [{ token: TOKEN, scopes: [] }] },
    });
    const res = await preflight(served.mcpUrl, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('access-control-allow-methods')?.split(', ').sort()).toEqual([
      'DELETE',
      'GET',
      'POST',
    ]);
    const allowed = res.headers.get('access-control-allow-headers')?.toLowerCase().split(', ');
    for (const header of [
      'authorization',
      'content-type',
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'last-event-id',
    ]) {
      expect(allowed).toContain(header);
    }
    // The plain path allows POST only.
    const plain = await preflight(`${served.url}/messages/`, APP);
    expect(plain.status).toBe(204);
    expect(plain.headers.get('access-control-allow-methods')).toBe('POST');
  });

  it('lets an allowed page read responses (refusals too) and their MCP headers', async () => {
    const served = await start({
      corsOrigins: [APP],
      auth: { tokens: [{ token: TOKEN, scopes: [] }] },
    });
    const init = await initialize(served.mcpUrl, { origin: APP, authorization: `Bearer ${TOKEN}` });
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBe(APP);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    const exposed = init.headers.get('access-control-expose-headers')?.toLowerCase().split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version']));
    await init.body?.cancel();
    // A 401 is readable by the page, WWW-Authenticate included.
    const denied = await initialize(served.mcpUrl, { origin: APP });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(APP);
    expect(exposed).toContain('www-authenticate');
  });

  it('gives an origin outside the list no CORS headers', async () => {
    const served = await start({ corsOrigins: [APP] });
    // Foreign: refused by the Origin check, without CORS headers.
    for (const origin of [
      'https://evil.example',
      `${APP}.evil.example`,
      'https://APP.example.com',
    ]) {
      const res = await preflight(served.mcpUrl, origin);
      expect(res.status, origin).toBe(403);
      expect(corsHeaders(res), origin).toEqual({});
    }
    // Loopback pages keep their same-machine access but get no CORS answer.
    const local = await preflight(served.mcpUrl, 'http://localhost:5173');
    expect(local.status).toBe(405);
    expect(corsHeaders(local)).toEqual({});
    const init = await initialize(served.mcpUrl, { origin: 'http://localhost:5173' });
    expect(init.status).toBe(200);
    expect(corsHeaders(init)).toEqual({});
    await init.body?.cancel();
  });

  it('lets the CORS origins in for MCP only, not for /metrics or the pages', async () => {
    const served = await start({ corsOrigins: [APP], metrics: new McpMetrics() });
    expect((await fetch(`${served.url}/metrics`)).status).toBe(200);
    const metrics = await fetch(`${served.url}/metrics`, { headers: { origin: APP } });
    expect(metrics.status).toBe(403);
    expect(corsHeaders(metrics)).toEqual({});
  });

  it('keeps an explicit allowedOrigins list and adds the CORS origins to it', async () => {
    const served = await start({
      corsOrigins: [APP],
      allowedOrigins: ['https://other.example.com'],
    });
    expect((await preflight(served.mcpUrl, APP)).status).toBe(204);
    const other = await initialize(served.mcpUrl, { origin: 'https://other.example.com' });
    expect(other.status).toBe(200);
    expect(corsHeaders(other)).toEqual({});
    await other.body?.cancel();
    expect((await initialize(served.mcpUrl, { origin: 'http://localhost:5173' })).status).toBe(403);
  });
});
