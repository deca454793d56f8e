import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { defineTool, McpServer, type McpServerOptions } from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEverythingServer } from '../fixtures/everything.js';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';
import { createMcpHttpServer } from './server.js';

type Json = Record<string, unknown>;

/** What afterEach closes: servers started, and built ones that never listened. */
let open: Pick<ServedHttp, 'close'>[] = [];

afterEach(async () => {
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close()));
});

/** Start an HTTP server with plain paths `/` and `/api/mcp`; returns its origin and port. */
async function start(options: McpHttpOptions = {}, mcp = createEverythingServer()) {
  const served = await serveHttp(mcp, { plainPaths: ['/', '/api/mcp'], ...options });
  open.push(served);
  return served;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const call = (id: number, name: string, args?: Json) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request through node:http, which (unlike fetch) lets us set Host and stream a body. */
function raw(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunks?: Buffer[];
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', reject);
        // The server may answer before the whole streamed body is sent; stop sending then.
        if (!req.writableEnded) req.end();
      },
    );
    req.on('error', reject);
    if (options.chunks) {
      const chunks = [...options.chunks];
      const next = () => {
        if (req.writableEnded || req.destroyed) return;
        const chunk = chunks.shift();
        if (chunk === undefined) {
          req.end();
          return;
        }
        req.write(chunk);
        setTimeout(next, 5);
      };
      next();
    } else {
      req.end(options.body);
    }
  });
}

describe('plain JSON-RPC POST', () => {
  it('answers a single request with 200 application/json, on every plain path', async () => {
    const { url } = await start();
    for (const path of ['/', '/api/mcp']) {
      const res = await post(`${url}${path}`, { jsonrpc: '2.0', id: 7, method: 'ping' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    }
  });

  it('answers a batch with an array, per-element errors included', async () => {
    const { url } = await start();
    const res = await post(url, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { foo: 'bar' },
      { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
      call(4, 'add', { a: 1, b: 2 }),
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(4);
    const byId = (id: unknown) => body.find((r) => r.id === id);
    expect(byId(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(byId(null)).toMatchObject({ error: { code: -32600 } });
    expect(byId(3)).toMatchObject({ error: { code: -32601, data: { method: 'no/such/method' } } });
    expect(byId(4)).toMatchObject({ result: { structuredContent: { sum: 3 } } });
  });

  it('answers a body of notifications only with 202 and no body', async () => {
    const { url } = await start();
    const single = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(single.status).toBe(202);
    expect(await single.text()).toBe('');
    const batch = await post(url, [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } },
    ]);
    expect(batch.status).toBe(202);
    expect(await batch.text()).toBe('');
  });

  it('answers invalid JSON with 200 and a -32700 whose id is null', async () => {
    const { url } = await start();
    const res = await post(url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('answers an empty batch with one -32600, not an array', async () => {
    const { url } = await start();
    const res = await post(url, '[]');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Array.isArray(body)).toBe(false);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('answers a body that is not UTF-8 with -32700', async () => {
    const { url } = await start();
    const res = await fetch(url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: null,
      error: { code: -32700, data: { detail: expect.stringContaining('UTF-8') } },
    });
  });

  it('serves a body that starts with a UTF-8 byte-order mark, or arrives in pieces', async () => {
    const { url, port } = await start();
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const res = await fetch(url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    // A two-byte character split across chunks decodes as one.
    const echo = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'é', method: 'ping' }));
    const cut = echo.indexOf(0xc3) + 1;
    const pieces = await raw(port, {
      headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' },
      chunks: [echo.subarray(0, cut), echo.subarray(cut)],
    });
    expect(pieces.status).toBe(200);
    expect(JSON.parse(pieces.body)).toEqual({ jsonrpc: '2.0', id: 'é', result: {} });
  });
});

describe('plain tools/call (stateless, no initialize)', () => {
  it('calls a tool with an output schema: structuredContent and a text block', async () => {
    const { url } = await start();
    const res = await post(url, call(1, 'add', { a: 2, b: 40 }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Json };
    expect(body.result.isError).toBe(false);
    expect(body.result.structuredContent).toEqual({ sum: 42 });
    expect(body.result.content).toEqual([{ type: 'text', text: JSON.stringify({ sum: 42 }) }]);
  });

  it('calls a text tool', async () => {
    const { url } = await start();
    const res = await post(url, call(2, 'test_simple_text'));
    expect(await res.json()).toMatchObject({
      id: 2,
      result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] },
    });
  });

  it('cancels a call whose client goes away before the answer (its signal aborts)', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted!: (reason: unknown) => void;
    const reason = new Promise<unknown>((resolve) => {
      aborted = resolve;
    });
    const mcp = new McpServer({ name: 'hangs', version: '1' }).addTool(
      defineTool({
        name: 'hang',
        description: 'Runs until cancelled',
        handler: (_args, ctx) =>
          new Promise<string>((resolve) => {
            started();
            ctx.signal.addEventListener('abort', () => {
              aborted(ctx.signal.reason);
              resolve('cancelled');
            });
          }),
      }),
    );
    const { url } = await start({}, mcp);
    const controller = new AbortController();
    const pending = fetch(`${url}/api/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(call(1, 'hang')),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await running;
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect(String(await reason)).toContain('the client closed the request');
  });

  it('answers an unknown tool with -32602', async () => {
    const { url } = await start();
    const res = await post(url, call(3, 'no_such_tool'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: 3,
      error: { code: -32602, message: expect.stringContaining('no_such_tool') },
    });
  });

  it('answers invalid arguments with an isError result naming the field', async () => {
    const { url } = await start();
    const res = await post(url, call(4, 'add', { a: 'one', b: 2 }));
    const body = (await res.json()) as {
      result: { isError: boolean; content: { text: string }[] };
    };
    expect(body.result.isError).toBe(true);
    const text = body.result.content[0]?.text ?? '';
    expect(text).toContain('Invalid arguments for tool add');
    expect(text).toMatch(/\ba:/);
    expect(text).not.toMatch(/\bb:/);
  });
});

describe('HTTP methods, paths and media types', () => {
  it('answers GET, PUT and DELETE on a plain path with 405 Allow: POST', async () => {
    const { url } = await start();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await fetch(`${url}/api/mcp`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.arrayBuffer();
    }
  });

  it('answers an unknown path with 404', async () => {
    const { url } = await start();
    const res = await post(`${url}/nope`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: { message: expect.stringContaining('/nope') },
    });
  });

  it('answers Content-Type text/plain with 415', async () => {
    const { url } = await start();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('accepts application/json with a charset parameter', async () => {
    const { url } = await start();
    const res = await post(
      url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(res.status).toBe(200);
  });

  it('answers a body over maxBodyBytes with 413 (declared Content-Length)', async () => {
    const { port } = await start({ maxBodyBytes: 1024 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(2000) },
    });
    const res = await raw(port, {
      headers: { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(big)) },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: -32600, data: { maxBytes: 1024 } },
    });
  });

  it('answers a chunked body that grows over maxBodyBytes with 413', async () => {
    const { port } = await start({ maxBodyBytes: 1024 });
    const chunk = Buffer.from(' '.repeat(400));
    const res = await raw(port, {
      headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' },
      chunks: [
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"'),
        chunk,
        chunk,
        chunk,
        chunk,
        Buffer.from('}'),
      ],
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { data: { maxBytes: 1024 } } });
  });

  it('accepts a chunked body under maxBodyBytes', async () => {
    const { port } = await start({ maxBodyBytes: 1024 });
    const res = await raw(port, {
      headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' },
      chunks: [Buffer.from('{"jsonrpc":"2.0",'), Buffer.from('"id":1,"method":"ping"}')],
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('bearer auth', () => {
  const auth = { tokens: [{ token: 'secret-token-1', scopes: ['read'] }] };
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('refuses a request without Authorization: 401, WWW-Authenticate: Bearer, -32001', async () => {
    const { url } = await start({ auth });
    const res = await post(url, ping);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32001 } });
  });

  it('throttles an address guessing tokens: after failures.points wrong ones, 429 for its wrong ones — its right token is still served', async () => {
    const { url } = await start({ auth: { ...auth, failures: { points: 3, durationSec: 60 } } });
    for (let i = 0; i < 3; i++) {
      const res = await post(url, ping, bearer(`wrong-${i}`));
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    // Behind a balancer every client has this address: one guessing must not lock out the rest.
    const wrong = await post(url, ping, bearer('wrong-3'));
    expect(wrong.status).toBe(429);
    expect(Number(wrong.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await wrong.json()).toMatchObject({ error: { code: -32000 } });
    const right = await post(url, ping, bearer('secret-token-1'));
    expect(right.status).toBe(200);
    await right.arrayBuffer();
  });

  it('throttles one credential that keeps failing, without looking it up again', async () => {
    let lookups = 0;
    const { url } = await start({
      auth: {
        authenticate: (token) => {
          lookups++;
          return token === 'secret-token-1' ? { subject: 'alice', scopes: new Set() } : undefined;
        },
        // The address allows more failures than the credential: the credential is what stops.
        failures: { points: 3, durationSec: 60 },
      },
    });
    for (let i = 0; i < 3; i++) {
      const res = await post(url, ping, bearer('revoked-key-0001'));
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    const before = lookups;
    const again = await post(url, ping, bearer('revoked-key-0001'));
    expect(again.status).toBe(429);
    await again.arrayBuffer();
    // Refused on its record: the authenticator (a database, for API keys) was not asked.
    expect(lookups).toBe(before);
    const right = await post(url, ping, bearer('secret-token-1'));
    expect(right.status).toBe(200);
    await right.arrayBuffer();
  });

  it('does not count a missing token as a guess, nor a right one', async () => {
    const { url } = await start({ auth: { ...auth, failures: { points: 1, durationSec: 60 } } });
    for (let i = 0; i < 3; i++) {
      expect((await post(url, ping)).status).toBe(401);
      expect((await post(url, ping, bearer('secret-token-1'))).status).toBe(200);
    }
  });

  it('refuses a wrong token with invalid_token', async () => {
    const { url } = await start({ auth });
    const res = await post(url, ping, bearer('wrong-token-123'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await res.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('refuses a non-Bearer Authorization header', async () => {
    const { url } = await start({ auth });
    const res = await post(url, ping, { authorization: 'Basic c2VjcmV0LXRva2VuLTE=' });
    expect(res.status).toBe(401);
    await res.arrayBuffer();
  });

  it('serves the right token', async () => {
    const { url } = await start({ auth });
    const res = await post(url, ping, bearer('secret-token-1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('uses a custom auth.error for the 401 body', async () => {
    const { url } = await start({
      auth: {
        ...auth,
        error: (reason) => ({ code: -32042, message: 'Nope', data: { why: reason } }),
      },
    });
    const res = await post(url, ping);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: { code: -32042, message: 'Nope', data: { why: expect.any(String) } },
    });
  });
});

describe('required scopes', () => {
  const tokens = [
    { token: 'core-token-1', scopes: ['core'] },
    { token: 'sensitive-token-1', scopes: ['core', 'sensitive'] },
  ];

  function scopedServer(options: Partial<McpServerOptions> = {}) {
    return new McpServer({ name: 'scoped', version: '1.0.0', ...options }).addTool(
      defineTool({
        name: 'read_secret',
        description: 'Reads a secret',
        inputSchema: z.object({}),
        requiredScopes: ['sensitive'],
        handler: () => 'the secret',
      }),
      defineTool({
        name: 'public_info',
        description: 'Reads something public',
        handler: () => 'public',
      }),
    );
  }

  it('refuses a tool to a token without its scope (-32600 naming tool and scope)', async () => {
    const { url } = await start({ auth: { tokens } }, scopedServer());
    const res = await post(url, call(1, 'read_secret'), bearer('core-token-1'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('read_secret');
    expect(body.error.message).toContain('sensitive');
    const other = await post(url, call(2, 'public_info'), bearer('core-token-1'));
    expect(await other.json()).toMatchObject({ result: { content: [{ text: 'public' }] } });
  });

  it('serves the tool to a token holding the scope', async () => {
    const { url } = await start({ auth: { tokens } }, scopedServer());
    const res = await post(url, call(1, 'read_secret'), bearer('sensitive-token-1'));
    expect(await res.json()).toMatchObject({
      id: 1,
      result: { isError: false, content: [{ type: 'text', text: 'the secret' }] },
    });
  });

  it('never grants a token more scopes than the server enables', async () => {
    const { url } = await start({ auth: { tokens } }, scopedServer({ scopes: ['core'] }));
    const res = await post(url, call(1, 'read_secret'), bearer('sensitive-token-1'));
    expect(await res.json()).toMatchObject({
      id: 1,
      error: { code: -32600, data: { tool: 'read_secret', scope: 'sensitive' } },
    });
  });
});

describe('rate limit', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('answers the request over budget with 429, Retry-After and -32000', async () => {
    const { url } = await start({ rateLimit: { points: 2, durationSec: 60 } });
    expect((await post(url, ping)).status).toBe(200);
    expect((await post(url, ping)).status).toBe(200);
    const res = await post(url, ping);
    expect(res.status).toBe(429);
    const retryAfter = res.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(await res.json()).toMatchObject({
      id: null,
      error: { code: -32000, data: { retryAfter: Number(retryAfter) } },
    });
  });

  it('charges a batch one point per message: a batch over the budget is refused whole', async () => {
    const { url } = await start({ rateLimit: { points: 5, durationSec: 60 } });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ ...ping, id: i + 1 }));
    const first = await post(url, batch(4));
    expect(first.status).toBe(200);
    expect(await first.json()).toHaveLength(4);
    // One point left: a batch of three is over it.
    const over = await post(url, batch(3));
    expect(over.status).toBe(429);
    await over.arrayBuffer();
  });

  it('refuses a batch larger than maxBatchSize with one -32600 naming the limit', async () => {
    const { url } = await start({ maxBatchSize: 3 });
    const batch = Array.from({ length: 4 }, (_, i) => ({ ...ping, id: i + 1 }));
    const res = await post(url, batch);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: a batch holds at most 3 messages',
        data: { maxBatchSize: 3, size: 4 },
      },
    });
    const fits = await post(url, batch.slice(0, 3));
    expect(await fits.json()).toHaveLength(3);
  });

  it('keeps a separate budget per token', async () => {
    const { url } = await start({
      rateLimit: { points: 2, durationSec: 60 },
      auth: {
        tokens: [
          { token: 'token-alpha-1', subject: 'alpha' },
          { token: 'token-bravo-1', subject: 'bravo' },
        ],
      },
    });
    const a = bearer('token-alpha-1');
    const b = bearer('token-bravo-1');
    expect((await post(url, ping, a)).status).toBe(200);
    expect((await post(url, ping, a)).status).toBe(200);
    const third = await post(url, ping, a);
    expect(third.status).toBe(429);
    await third.arrayBuffer();
    expect((await post(url, ping, b)).status).toBe(200);
    expect((await post(url, ping, b)).status).toBe(200);
    expect((await post(url, ping, b)).status).toBe(429);
  });
});

describe('Host and Origin checks', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  it('refuses a foreign Host with 403', async () => {
    const { port } = await start();
    const res = await raw(port, {
      headers: { ...JSON_HEADERS, host: 'evil.example.com' },
      body,
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { message: expect.stringContaining('evil') },
    });
  });

  it('refuses a foreign Origin with 403', async () => {
    const { port } = await start();
    const res = await raw(port, {
      headers: { ...JSON_HEADERS, origin: 'http://evil.example.com' },
      body,
    });
    expect(res.status).toBe(403);
  });

  it('serves loopback Host and Origin', async () => {
    const { port } = await start();
    const cases: Record<string, string>[] = [
      { host: `127.0.0.1:${port}` },
      { host: `localhost:${port}` },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { origin: `http://127.0.0.1:${port}` },
    ];
    for (const headers of cases) {
      const res = await raw(port, { headers: { ...JSON_HEADERS, ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
  });
});

describe('behind a reverse proxy (publicUrls)', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  it("serves the public URL's Host and Origin besides loopback, and still refuses others", async () => {
    const { port } = await start({ publicUrls: ['https://mcp.example.com'] });
    const status = async (headers: Record<string, string>) =>
      (await raw(port, { headers: { ...JSON_HEADERS, ...headers }, body })).status;
    expect(await status({ host: 'mcp.example.com', origin: 'https://mcp.example.com' })).toBe(200);
    expect(await status({ host: `127.0.0.1:${port}` })).toBe(200);
    expect(await status({ host: 'evil.example.com' })).toBe(403);
    // The public name over plain http is another origin.
    expect(await status({ host: 'mcp.example.com', origin: 'http://mcp.example.com' })).toBe(403);
  });

  it('refuses a public URL that is not one when the server is made', () => {
    expect(() =>
      createMcpHttpServer(createEverythingServer(), { publicUrls: ['mcp.example.com'] }),
    ).toThrow("publicUrls: 'mcp.example.com' is not a URL");
  });
});

describe('binding', () => {
  it('refuses to serve on 0.0.0.0 without auth', () => {
    expect(() => createMcpHttpServer(createEverythingServer(), { host: '0.0.0.0' })).toThrow(
      /without auth/,
    );
  });

  it('allows 0.0.0.0 with auth tokens (constructing does not listen)', () => {
    const http = createMcpHttpServer(createEverythingServer(), {
      host: '0.0.0.0',
      auth: { tokens: [{ token: 'secret-token-1' }] },
    });
    open.push(http);
    expect(http.server.listening).toBe(false);
  });
});

describe('DNS rebinding with look-alike loopback names', () => {
  it('refuses Host and Origin names that merely start with 127.', async () => {
    const { port } = await start({ plainPaths: ['/'] }, new McpServer({ name: 't', version: '1' }));
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/',
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      });
    expect(await status({ host: '127.evil.example.com' })).toBe(403);
    expect(await status({ host: '127.0.0.1.nip.io' })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}`, origin: 'http://127.evil.example.com' })).toBe(
      403,
    );
    expect(await status({ host: `127.0.0.2:${port}` })).toBe(200);
    // Parsed strictly: what follows the name must be a port, nothing else.
    expect(await status({ host: '127.0.0.1:80@evil.example' })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}/path` })).toBe(403);
    expect(await status({ host: 'user@127.0.0.1' })).toBe(403);
    expect(await status({ host: `localhost:${port}` })).toBe(200);
    expect(await status({ host: `[::1]:${port}` })).toBe(200);
    expect(() =>
      createMcpHttpServer(new McpServer({ name: 't', version: '1' }), { host: '127.foo.example' }),
    ).toThrow(/without auth/);
  });
});

describe('duplicate Host headers', () => {
  it('refuses a request carrying two Host lines (403), whatever the first says', async () => {
    const { port } = await start({ plainPaths: ['/'] }, new McpServer({ name: 't', version: '1' }));
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const send = (hosts: string[]) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let reply = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          reply += chunk;
        });
        socket.on('end', () => resolve(reply.split('\r\n')[0] ?? ''));
        socket.on('error', reject);
        socket.end(
          [
            'POST / HTTP/1.1',
            ...hosts.map((h) => `Host: ${h}`),
            'Content-Type: application/json',
            `Content-Length: ${body.length}`,
            'Connection: close',
            '',
            body,
          ].join('\r\n'),
        );
      });
    expect(await send([`127.0.0.1:${port}`])).toBe('HTTP/1.1 200 OK');
    expect(await send([`127.0.0.1:${port}`, 'evil.example'])).toBe('HTTP/1.1 403 Forbidden');
  });
});

describe('a client that hangs up mid-body', () => {
  it('is logged once at debug without a stack, never at error', async () => {
    const logged: [string, Record<string, unknown>, string | undefined][] = [];
    const record = (level: string) => (o: object, m?: string) => {
      logged.push([level, o as Record<string, unknown>, m]);
    };
    const { port } = await start(
      {
        plainPaths: ['/'],
        logger: { error: record('error'), warn: record('warn'), debug: record('debug') },
      },
      new McpServer({ name: 't', version: '1' }),
    );
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            [
              'POST / HTTP/1.1',
              `Host: 127.0.0.1:${port}`,
              'Content-Type: application/json',
              'Content-Length: 1000',
              '',
              '{"jsonrpc":',
            ].join('\r\n'),
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
    }
    await waitFor(
      'three aborts logged',
      () => logged.filter(([, , m]) => m === 'client aborted').length === 3 || undefined,
    );
    expect(logged.filter(([level]) => level === 'error')).toEqual([]);
    for (const [level, fields] of logged) {
      expect(level).toBe('debug');
      expect(fields).not.toHaveProperty('err');
    }
  });
});
