/**
 * The Streamable HTTP client transport in the modern era (MCP 2026-07-28,
 * `basic/transports/streamable-http`) against a hand-driven node:http server: the per-request
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, Base64 sentinel values), no session,
 * no GET stream, no DELETE, cancellation by aborting the POST; and the `'auto'` probe's verdicts
 * on what an HTTP server answers.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestTimeoutError } from '../jsonrpc/client.js';
import { RpcError } from '../jsonrpc/errors.js';
import { META } from '../mcp/era.js';
import {
  answerJson,
  type ScriptedHandler,
  scriptHttp,
  stopScriptedHttp,
  watchAbortListeners,
} from '../testing/scripted-http.js';
import { McpClient } from './client.js';
import { TransportError, UnsupportedVersionError } from './errors.js';
import { encodeHeaderValue, requestHeaders } from './headers.js';
import { StreamableHttpClientTransport } from './streamable-http.js';

afterEach(stopScriptedHttp);

const MINIMAL_DISCOVER_RESULT = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {}, resources: {}, prompts: {} },
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { [META.serverInfo]: { name: 'scripted-modern', version: '2' } },
};

/** A modern server: discover, and `{ echo: method }` for the rest; `hang` never answers. */
const modernServer: ScriptedHandler = (req, res, seen) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const body = seen.body;
  if (body?.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  if (body.params?.name === 'hang') return; // held open until the client aborts
  const result =
    body.method === 'server/discover' ? MINIMAL_DISCOVER_RESULT : { echo: body.method };
  if (body.params?.name === 'streamed') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`);
    return;
  }
  answerJson(res, 200, { jsonrpc: '2.0', id: body.id, result });
};

describe('StreamableHttpClientTransport, modern era', () => {
  it('leaves no abort listener behind on the transport’s signal, however many requests', async () => {
    const { url } = await scriptHttp(modernServer);
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: '2026-07-28',
    });
    // fetch keeps a listener on the signal it is given until the request is collected: those of
    // the per-request signals are left out; any other signal must not gain one per request.
    const given = new Set<AbortSignal>();
    const real = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      if (init?.signal) given.add(init.signal);
      return real(input, init);
    });
    const watch = watchAbortListeners();
    try {
      for (let i = 0; i < 30; i++) await client.ping();
      await Promise.all(Array.from({ length: 20 }, () => client.ping()));
    } finally {
      watch.stop();
      spy.mockRestore();
    }
    expect(given.size).toBeGreaterThanOrEqual(50);
    expect(watch.most(given)).toBeLessThan(3);
    await client.close();
  });

  it('sends MCP-Protocol-Version, Mcp-Method and Mcp-Name on every POST, and no session', async () => {
    const { url, seen } = await scriptHttp(modernServer);
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: '2026-07-28',
    });
    expect(client.serverInfo).toEqual({ name: 'scripted-modern', version: '2' });
    await client.callTool('get_weather', { city: 'Oslo' });
    await client.callTool('streamed');
    await client.readResource('file:///projects/app/config.json');
    await client.getPrompt('résumé');
    await client.listTools();
    await client.ping();
    await client.close();
    const posts = seen.map((s) => ({
      http: s.method,
      version: s.headers['mcp-protocol-version'],
      method: s.headers['mcp-method'],
      name: s.headers['mcp-name'],
      session: s.headers['mcp-session-id'],
      envelope: (s.body?.params?._meta as Record<string, unknown> | undefined)?.[
        META.protocolVersion
      ],
    }));
    const modern = { http: 'POST', version: '2026-07-28', session: undefined };
    expect(posts).toEqual([
      { ...modern, method: 'server/discover', name: undefined, envelope: '2026-07-28' },
      { ...modern, method: 'tools/call', name: 'get_weather', envelope: '2026-07-28' },
      { ...modern, method: 'tools/call', name: 'streamed', envelope: '2026-07-28' },
      {
        ...modern,
        method: 'resources/read',
        name: 'file:///projects/app/config.json',
        envelope: '2026-07-28',
      },
      {
        ...modern,
        method: 'prompts/get',
        name: `=?base64?${Buffer.from('résumé').toString('base64')}?=`,
        envelope: '2026-07-28',
      },
      { ...modern, method: 'tools/list', name: undefined, envelope: '2026-07-28' },
      { ...modern, method: 'server/discover', name: undefined, envelope: '2026-07-28' },
    ]);
    // Nothing else: no notifications/initialized, no GET stream, no DELETE on close.
    expect(seen.map((s) => s.method)).toEqual(Array(7).fill('POST'));
  });

  it('cancels a request by aborting its POST, and POSTs no notifications/cancelled', async () => {
    let closed!: () => void;
    const aborted = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const { url, seen } = await scriptHttp((req, res, s) => {
      if (s.body?.params?.name === 'hang') res.on('close', closed);
      modernServer(req, res, s);
    });
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: '2026-07-28',
    });
    const controller = new AbortController();
    const pending = client.callTool('hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    await aborted; // the server saw the request's connection close
    await expect(client.callTool('after')).resolves.toMatchObject({ echo: 'tools/call' });
    await client.close();
    expect(seen.map((s) => s.body?.method)).toEqual([
      'server/discover',
      'tools/call',
      'tools/call',
    ]);
  });

  it("'auto' stays modern on a 400 with -32022 naming nothing we speak: UnsupportedVersionError", async () => {
    const { url, seen } = await scriptHttp((_req, res, s) =>
      unsupported(res, s.body?.id, ['2099-01-01']),
    );
    const err = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: 'auto',
    }).catch((e: unknown) => e);
    expect(UnsupportedVersionError.is(err)).toBe(true);
    expect(seen.map((s) => s.body?.method)).toEqual(['server/discover']);
  });

  it('-32022 naming the very version it refused: retried once with it, and modern', async () => {
    let refused = false;
    const { url, seen } = await scriptHttp((req, res, s) => {
      if (refused) return modernServer(req, res, s);
      refused = true;
      unsupported(res, s.body?.id, ['2026-07-28']);
    });
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: 'auto',
    });
    expect(client.era).toBe('modern');
    await client.close();
    expect(
      seen.map((s) => [
        s.body?.method,
        s.headers['mcp-protocol-version'],
        (s.body?.params?._meta as Record<string, unknown> | undefined)?.[META.protocolVersion],
      ]),
    ).toEqual([
      ['server/discover', '2026-07-28', '2026-07-28'],
      ['server/discover', '2026-07-28', '2026-07-28'],
    ]);
  });

  it("'auto' falls back to a 2025 session on a 400 without a modern error", async () => {
    const { url, seen } = await scriptHttp((req, res, s) => {
      const body = s.body;
      if (req.method === 'DELETE') {
        res.writeHead(200).end();
      } else if (body?.method === 'server/discover') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request: no session');
      } else if (body?.method === 'initialize') {
        answerJson(
          res,
          200,
          {
            jsonrpc: '2.0',
            id: body.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'legacy-http', version: '1' },
            },
          },
          { 'mcp-session-id': 'sess-9' },
        );
      } else if (body?.id === undefined) {
        res.writeHead(202).end();
      } else {
        answerJson(res, 200, { jsonrpc: '2.0', id: body.id, result: { tools: [] } });
      }
    });
    const client = await McpClient.connect(
      new StreamableHttpClientTransport({ url, openStream: false }),
      { protocol: 'auto' },
    );
    expect(client.era).toBe('legacy');
    await client.listTools();
    await client.close();
    expect(
      seen.map((s) => [
        s.method,
        s.body?.method,
        s.headers['mcp-method'],
        s.headers['mcp-session-id'],
        s.headers['mcp-protocol-version'],
      ]),
    ).toEqual([
      ['POST', 'server/discover', 'server/discover', undefined, '2026-07-28'],
      ['POST', 'initialize', 'initialize', undefined, undefined],
      ['POST', 'notifications/initialized', 'notifications/initialized', 'sess-9', '2025-11-25'],
      ['POST', 'tools/list', 'tools/list', 'sess-9', '2025-11-25'],
      ['DELETE', undefined, undefined, 'sess-9', '2025-11-25'],
    ]);
  });

  it("'auto' waits for a slow discover answer over HTTP: modern, not legacy (no probe timeout)", async () => {
    const probeTimeoutMs = 20;
    const { url, seen } = await scriptHttp((req, res, s) => {
      if (s.body?.method === 'server/discover') {
        // Held until the client's probe timer, armed before this POST was sent with the same
        // delay, has fired: on stdio that silence would mean a 2025 server.
        setTimeout(() => modernServer(req, res, s), probeTimeoutMs);
      } else if (s.body?.method === 'initialize') {
        // What a modern server makes of an initialize without the modern headers.
        answerJson(res, 400, {
          jsonrpc: '2.0',
          id: s.body.id,
          error: { code: -32020, message: 'Header mismatch' },
        });
      } else {
        modernServer(req, res, s);
      }
    });
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: 'auto',
      probeTimeoutMs,
    });
    expect(client.era).toBe('modern');
    expect(client.serverInfo).toEqual({ name: 'scripted-modern', version: '2' });
    await expect(client.callTool('after')).resolves.toMatchObject({ echo: 'tools/call' });
    await client.close();
    expect(seen.map((s) => s.body?.method)).toEqual(['server/discover', 'tools/call']);
  });

  it("'auto' over HTTP: a discover never answered fails connect at its deadline, no fallback", async () => {
    const { url, seen } = await scriptHttp((req, res, s) => {
      if (s.body?.method === 'server/discover') return; // held open until the client gives up
      modernServer(req, res, s);
    });
    const err = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: 'auto',
      probeTimeoutMs: 1,
      initializeTimeoutMs: 100,
    }).catch((e: unknown) => e);
    expect(RequestTimeoutError.is(err) && err.method).toBe('server/discover');
    expect(seen.map((s) => s.body?.method)).toEqual(['server/discover']);
  });

  it("'auto' does not fall back on 401: the credentials are the problem", async () => {
    const { url } = await scriptHttp((_req, res) => res.writeHead(401).end());
    const err = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: 'auto',
    }).catch((e: unknown) => e);
    expect(TransportError.is(err) && err.status).toBe(401);
  });

  it('a -32601 answered with 404 reaches the caller as the RpcError', async () => {
    const { url } = await scriptHttp((req, res, s) => {
      if (s.body?.method === 'resources/templates/list') {
        answerJson(res, 404, {
          jsonrpc: '2.0',
          id: s.body.id,
          error: { code: -32601, message: 'Method not found' },
        });
      } else {
        modernServer(req, res, s);
      }
    });
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }), {
      protocol: '2026-07-28',
    });
    const err = await client.listResourceTemplates().catch((e: unknown) => e);
    expect(RpcError.is(err) && err.code).toBe(-32601);
    await client.close();
  });
});

describe('modern header values', () => {
  it('encodes what is not plain visible ASCII, and what looks like the sentinel (spec table)', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('a b')).toBe('a b');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    expect(encodeHeaderValue('tab\there')).toMatch(/^=\?base64\?/);
  });

  it('names tools/call and prompts/get by name, resources/read by uri, nothing else', () => {
    expect(requestHeaders('tools/call', { name: 't' })).toEqual({
      'mcp-method': 'tools/call',
      'mcp-name': 't',
    });
    expect(requestHeaders('resources/read', { uri: 'x://y', name: 'n' })).toEqual({
      'mcp-method': 'resources/read',
      'mcp-name': 'x://y',
    });
    expect(requestHeaders('tools/list', { name: 'n' })).toEqual({
      'mcp-method': 'tools/list',
    });
  });
});

/** A 400 with -32022 naming `supported` (the modern refusal of an unsupported version). */
function unsupported(res: ServerResponse, id: unknown, supported: string[]): void {
  answerJson(res, 400, {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported, requested: '2026-07-28' },
    },
  });
}
