/**
 * MCP 2026-07-28 over HTTP (spec `basic/transports/streamable-http`), beside the 2025 era: every
 * refusal cell (status, code, id echoed, data) on the Streamable endpoint and a plain POST path,
 * header/body mismatches that never run the body, the Base64 sentinel, request-scoped SSE,
 * cancellation by disconnect, and the SDK v2 client pinned to 2026-07-28.
 */

import {
  decodeHeaderValue,
  definePrompt,
  defineResource,
  defineTool,
  encodeHeaderValue,
  McpServer,
  META,
  MethodNotFoundError,
  SERVED_PROTOCOL_VERSIONS,
} from '@mcpkit/protocol';
import { type PostReply, postJson } from '@mcpkit/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../fixtures/everything.js';
import { type ServedHttp, serveHttp } from './serve.js';

type Json = Record<string, unknown>;
interface Reply {
  jsonrpc: '2.0';
  id: unknown;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

const VERSION = '2026-07-28';
const ENVELOPE = {
  [META.protocolVersion]: VERSION,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 'modern-http-test', version: '1.0.0' },
};
const GREETING = 'grüßen 世界';
const URI = 'mem://one';

let served: ServedHttp[] = [];
afterEach(async () => {
  const open = served;
  served = [];
  await Promise.all(open.map((s) => s.close()));
});

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

/** `Promise.withResolvers` (Node 22+; the package supports 20). */
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** What the tools did, so a refused request can be shown never to have run. */
interface Effects {
  bumps: number;
  started: Deferred<void>;
  aborted: Deferred<unknown>;
}

function dualServer(effects: Effects): McpServer {
  return new McpServer({ name: 'dual-http', version: '1.0.0' })
    .addTool(
      defineTool({
        name: 'bump',
        description: 'Counts its calls (a side effect a refused request must not have)',
        handler: () => {
          effects.bumps++;
          return String(effects.bumps);
        },
      }),
      defineTool({
        name: 'not_here',
        description: 'Throws -32601 from inside its handler',
        handler: () => {
          throw new MethodNotFoundError('elsewhere');
        },
      }),
      defineTool({
        name: 'steps',
        description: 'Reports progress twice',
        handler: async (_args, ctx) => {
          ctx.progress(1, 2, 'first');
          await new Promise((resolve) => setTimeout(resolve, 20));
          ctx.progress(2, 2, 'second');
          return 'stepped';
        },
      }),
      defineTool({
        name: 'hang',
        description: 'Runs until cancelled',
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              effects.aborted.resolve(ctx.signal.reason);
              resolve('stopped');
            });
            effects.started.resolve();
          }),
      }),
    )
    .addResource(defineResource({ uri: URI, name: 'one', read: () => 'the one' }))
    .addPrompt(
      definePrompt({ name: 'hello', description: 'Says hello', get: () => 'Hello.' }),
      // Prompt names are only SHOULD-constrained: one that no header can carry as it is.
      definePrompt({ name: GREETING, description: 'Says hallo', get: () => 'hallo' }),
      definePrompt({
        name: 'ask',
        description: 'Needs elicitation, which the request may not declare',
        get: async (_args, ctx) => JSON.stringify(await ctx.elicit({ message: 'Name?' })),
      }),
    );
}

function newEffects(): Effects {
  return { bumps: 0, started: deferred(), aborted: deferred() };
}

async function start(effects = newEffects()) {
  const s = await serveHttp(dualServer(effects), { plainPaths: ['/messages/'] });
  served.push(s);
  return { s, effects, endpoints: { streamable: s.mcpUrl, plain: `${s.url}/messages/` } };
}

const ACCEPT = 'application/json, text/event-stream';

/** The headers a conforming client sends for `method` (and `name`, mirrored into Mcp-Name). */
function standardHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    accept: ACCEPT,
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

const modern = (id: number | string, method: string, params: Json = {}, meta: Json = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...ENVELOPE, ...meta } },
});

const call = (id: number | string, name: string, args: Json = {}) =>
  modern(id, 'tools/call', { name, arguments: args });

function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<PostReply<Reply>> {
  return postJson<Reply>(url, body, { headers });
}

/** The `data:` payloads of an SSE body, and whether any event carried an id. */
function sseMessages(text: string): { messages: Json[]; ids: boolean } {
  const messages: Json[] = [];
  let ids = false;
  for (const block of text.split(/\n\n/)) {
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) ids = true;
      if (line.startsWith('data: ') && line.length > 6)
        messages.push(JSON.parse(line.slice(6)) as Json);
    }
  }
  return { messages, ids };
}

describe.each(['streamable', 'plain'] as const)('MCP 2026-07-28 over HTTP (%s path)', (kind) => {
  it('serves a modern request without a session: 200 JSON, a complete result, no Mcp-Session-Id', async () => {
    const { endpoints } = await start();
    const res = await post(endpoints[kind], modern(7, 'tools/list'), {
      ...standardHeaders('tools/list'),
      // Ignored: a modern request has no session, whatever it names.
      'mcp-session-id': 'no-such-session',
      'last-event-id': 'x-1',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body?.id).toBe(7);
    expect(res.body?.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { [META.serverInfo]: { name: 'dual-http', version: '1.0.0' } },
    });
    const tools = res.body?.result?.tools as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('bump');
  });

  it('runs tools/call, resources/read and prompts/get with their Mcp-Name', async () => {
    const { endpoints, effects } = await start();
    const bumped = await post(
      endpoints[kind],
      call('a', 'bump'),
      standardHeaders('tools/call', 'bump'),
    );
    expect(bumped.status).toBe(200);
    expect(bumped.body).toMatchObject({
      id: 'a',
      result: { content: [{ type: 'text', text: '1' }], resultType: 'complete' },
    });
    expect(effects.bumps).toBe(1);
    const read = await post(
      endpoints[kind],
      modern(2, 'resources/read', { uri: URI }),
      standardHeaders('resources/read', URI),
    );
    expect(read.status).toBe(200);
    expect(read.body?.result).toMatchObject({ contents: [{ uri: URI, text: 'the one' }] });
    const prompt = await post(
      endpoints[kind],
      modern(3, 'prompts/get', { name: 'hello' }),
      standardHeaders('prompts/get', 'hello'),
    );
    expect(prompt.status).toBe(200);
    expect(prompt.body?.result).toMatchObject({ resultType: 'complete' });
  });

  // status, code, data of each refusal of the header ladder; the body (a side effect) never runs.
  const MISMATCHES: [string, Record<string, string | undefined>, Json][] = [
    [
      'MCP-Protocol-Version missing',
      { 'mcp-protocol-version': undefined },
      { header: 'MCP-Protocol-Version', headerValue: null, bodyValue: VERSION, problem: 'missing' },
    ],
    [
      'MCP-Protocol-Version naming another version',
      { 'mcp-protocol-version': '2025-11-25' },
      {
        header: 'MCP-Protocol-Version',
        headerValue: '2025-11-25',
        bodyValue: VERSION,
        problem: 'mismatch',
      },
    ],
    [
      'Mcp-Method missing',
      { 'mcp-method': undefined },
      { header: 'Mcp-Method', headerValue: null, bodyValue: 'tools/call', problem: 'missing' },
    ],
    [
      'Mcp-Method naming another method (the body must not run)',
      { 'mcp-method': 'tools/list' },
      {
        header: 'Mcp-Method',
        headerValue: 'tools/list',
        bodyValue: 'tools/call',
        problem: 'mismatch',
      },
    ],
    [
      'Mcp-Name missing',
      { 'mcp-name': undefined },
      { header: 'Mcp-Name', headerValue: null, bodyValue: 'bump', problem: 'missing' },
    ],
    [
      'Mcp-Name naming another tool',
      { 'mcp-name': 'hang' },
      { header: 'Mcp-Name', headerValue: 'hang', bodyValue: 'bump', problem: 'mismatch' },
    ],
    [
      'Mcp-Name naming another tool in the Base64 sentinel',
      { 'mcp-name': encodeHeaderValue('=?base64?hang?=') },
      {
        header: 'Mcp-Name',
        headerValue: '=?base64?hang?=',
        bodyValue: 'bump',
        problem: 'mismatch',
      },
    ],
    [
      'Mcp-Name with a broken Base64 sentinel',
      { 'mcp-name': '=?base64?not base64!?=' },
      {
        header: 'Mcp-Name',
        headerValue: '=?base64?not base64!?=',
        bodyValue: 'bump',
        problem: 'invalid',
      },
    ],
  ];
  it.each(MISMATCHES)('refuses %s with 400 and -32020, echoing the id', async (_, change, data) => {
    const { endpoints, effects } = await start();
    const headers = standardHeaders('tools/call', 'bump');
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) delete headers[key];
      else headers[key] = value;
    }
    const res = await post(endpoints[kind], call(41, 'bump'), headers);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 41,
      error: { code: -32020, message: expect.stringContaining('Header mismatch'), data },
    });
    expect(effects.bumps).toBe(0);
  });

  it('refuses an Mcp-Name that disagrees with resources/read params.uri', async () => {
    const { endpoints } = await start();
    const res = await post(
      endpoints[kind],
      modern(5, 'resources/read', { uri: URI }),
      standardHeaders('resources/read', 'mem://two'),
    );
    expect(res.status).toBe(400);
    expect(res.body?.error).toMatchObject({
      code: -32020,
      data: { header: 'Mcp-Name', headerValue: 'mem://two', bodyValue: URI },
    });
  });

  it('decodes a Base64 sentinel Mcp-Name before comparing it', async () => {
    const { endpoints } = await start();
    const encoded = encodeHeaderValue(GREETING);
    expect(encoded).toBe(`=?base64?${Buffer.from(GREETING).toString('base64')}?=`);
    const res = await post(endpoints[kind], modern(6, 'prompts/get', { name: GREETING }), {
      ...standardHeaders('prompts/get'),
      'mcp-name': encoded,
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body?.result)).toContain('hallo');
  });

  const ENVELOPE_CELLS: [string, Json, Record<string, string>, number, number, Json][] = [
    [
      'an envelope without clientCapabilities: 400, -32602 naming the key',
      { [META.clientCapabilities]: undefined },
      {},
      400,
      -32602,
      { envelope: { key: META.clientCapabilities, problem: 'is missing' } },
    ],
    [
      'a version this server does not speak: 400, -32022 with the supported ones',
      { [META.protocolVersion]: '1900-01-01' },
      { 'mcp-protocol-version': '1900-01-01' },
      400,
      -32022,
      { supported: [...SERVED_PROTOCOL_VERSIONS], requested: '1900-01-01' },
    ],
    [
      'an unknown version under a header naming another: the mismatch first (-32020)',
      { [META.protocolVersion]: 'v999' },
      {},
      400,
      -32020,
      { header: 'MCP-Protocol-Version', headerValue: VERSION, bodyValue: 'v999' },
    ],
  ];
  it.each(ENVELOPE_CELLS)('answers %s', async (_, meta, headers, status, code, data) => {
    const { endpoints, effects } = await start();
    // JSON drops the keys set to undefined: the envelope without them.
    const body = modern(8, 'tools/call', { name: 'bump' }, meta);
    const res = await post(endpoints[kind], body, {
      ...standardHeaders('tools/call', 'bump'),
      ...headers,
    });
    expect(res.status).toBe(status);
    expect(res.body?.id).toBe(8);
    expect(res.body?.error?.code).toBe(code);
    expect(res.body?.error?.data).toMatchObject(data);
    expect(effects.bumps).toBe(0);
  });

  it.each(['ping', 'initialize', 'logging/setLevel', 'resources/subscribe'])(
    'answers %s, which the modern era does not have, with 404 and -32601',
    async (method) => {
      const { endpoints } = await start();
      const res = await post(endpoints[kind], modern(9, method), standardHeaders(method));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32601, message: 'Method not found', data: { method } },
      });
    },
  );

  it("keeps a handler's errors in-band (200), -32601 included", async () => {
    const { endpoints } = await start();
    const thrown = await post(
      endpoints[kind],
      call(10, 'not_here'),
      standardHeaders('tools/call', 'not_here'),
    );
    expect(thrown.status).toBe(200);
    expect(thrown.body?.error).toMatchObject({ code: -32601, data: { method: 'elsewhere' } });
    const unknown = await post(
      endpoints[kind],
      call(11, 'nope'),
      standardHeaders('tools/call', 'nope'),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body?.error?.code).toBe(-32602);
  });

  it('answers a capability the request did not declare with 400 and -32021, from inside a handler too', async () => {
    const { endpoints } = await start();
    const res = await post(
      endpoints[kind],
      modern(17, 'prompts/get', { name: 'ask' }),
      standardHeaders('prompts/get', 'ask'),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      id: 17,
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
    // Declared: the ask becomes input_required (multi round-trip), a complete HTTP 200.
    const asked = await post(
      endpoints[kind],
      modern(
        18,
        'prompts/get',
        { name: 'ask' },
        { [META.clientCapabilities]: { elicitation: {} } },
      ),
      standardHeaders('prompts/get', 'ask'),
    );
    expect(asked.status).toBe(200);
    expect(asked.body?.result).toMatchObject({ resultType: 'input_required' });
  });

  it('accepts a modern notification with 202 and no body', async () => {
    const { endpoints } = await start();
    const res = await post(
      endpoints[kind],
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1, _meta: ENVELOPE },
      },
      { accept: ACCEPT },
    );
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('refuses 2025-era requests under a modern MCP-Protocol-Version header', async () => {
    const { endpoints, effects } = await start();
    const plain = { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'bump' } };
    const noEnvelope = await post(endpoints[kind], plain, standardHeaders('tools/call', 'bump'));
    expect(noEnvelope.status).toBe(400);
    expect(noEnvelope.body).toMatchObject({
      id: 12,
      error: {
        code: -32602,
        data: { envelope: { key: META.protocolVersion, problem: 'is missing' } },
      },
    });
    const init = await post(
      endpoints[kind],
      {
        jsonrpc: '2.0',
        id: 13,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        },
      },
      standardHeaders('initialize'),
    );
    expect(init.status).toBe(400);
    expect(init.body).toMatchObject({
      id: 13,
      error: { code: -32020, data: { header: 'MCP-Protocol-Version', headerValue: VERSION } },
    });
    expect(effects.bumps).toBe(0);
  });

  it('holds a 2025-era body to the Mcp-Method and Mcp-Name headers it carries', async () => {
    const { endpoints, effects } = await start();
    const plain = { jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 'bump' } };
    const legacyHeaders = (method: string, name: string) => ({
      accept: ACCEPT,
      'mcp-method': method,
      'mcp-name': encodeHeaderValue(name),
    });
    // An intermediary that authorizes on the headers would see another tool than the one run.
    const otherName = await post(endpoints[kind], plain, legacyHeaders('tools/call', 'get'));
    expect(otherName.status).toBe(400);
    expect(otherName.body).toMatchObject({
      id: 16,
      error: { code: -32020, data: { header: 'Mcp-Name', headerValue: 'get', bodyValue: 'bump' } },
    });
    const otherMethod = await post(endpoints[kind], plain, legacyHeaders('prompts/get', 'bump'));
    expect(otherMethod.status).toBe(400);
    expect(otherMethod.body).toMatchObject({
      error: { code: -32020, data: { header: 'Mcp-Method', headerValue: 'prompts/get' } },
    });
    expect(effects.bumps).toBe(0);
    if (kind === 'plain') {
      // Headers that agree (or none) leave a 2025-era request to its own path.
      const agreed = await post(endpoints[kind], plain, legacyHeaders('tools/call', 'bump'));
      expect(agreed.status).toBe(200);
      expect(effects.bumps).toBe(1);
    }
  });

  it('refuses a batch holding a modern request with 400 and -32600', async () => {
    const { endpoints, effects } = await start();
    const res = await post(
      endpoints[kind],
      [call(14, 'bump'), { jsonrpc: '2.0', id: 15, method: 'tools/list' }],
      standardHeaders('tools/call', 'bump'),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: null, error: { code: -32600 } });
    expect(effects.bumps).toBe(0);
  });

  it('cancels the call when the client goes away (its signal aborts)', async () => {
    const { endpoints, effects } = await start();
    const controller = new AbortController();
    const pending = fetch(endpoints[kind], {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...standardHeaders('tools/call', 'hang') },
      body: JSON.stringify(call(16, 'hang')),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await effects.started.promise;
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const reason = await effects.aborted.promise;
    expect(String(reason)).toContain('closed');
  });
});

describe('MCP 2026-07-28 over Streamable HTTP: request-scoped streams', () => {
  it('answers a call that sends progress with an SSE stream: progress, then the result, no event ids', async () => {
    const { endpoints } = await start();
    const res = await post(
      endpoints.streamable,
      modern(20, 'tools/call', { name: 'steps' }, { progressToken: 'p1' }),
      standardHeaders('tools/call', 'steps'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const { messages, ids } = sseMessages(res.text);
    expect(ids).toBe(false);
    expect(messages.map((m) => m.method ?? `result:${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'result:20',
    ]);
    expect(messages[0]).toMatchObject({ params: { progressToken: 'p1', progress: 1, total: 2 } });
    expect(messages[2]).toMatchObject({ result: { content: [{ text: 'stepped' }] } });
  });

  it('answers the same call as JSON on a plain path (no stream there)', async () => {
    const { endpoints } = await start();
    const res = await post(
      endpoints.plain,
      modern(21, 'tools/call', { name: 'steps' }, { progressToken: 'p1' }),
      standardHeaders('tools/call', 'steps'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toMatchObject({ id: 21, result: { content: [{ text: 'stepped' }] } });
  });

  it('streams log messages only when the envelope asks for a level', async () => {
    const s = await serveHttp(createEverythingServer());
    served.push(s);
    const quiet = await post(
      s.mcpUrl,
      modern(22, 'tools/call', { name: 'test_tool_with_logging' }),
      standardHeaders('tools/call', 'test_tool_with_logging'),
    );
    expect(quiet.headers.get('content-type')).toBe('application/json');
    const loud = await post(
      s.mcpUrl,
      modern(23, 'tools/call', { name: 'test_tool_with_logging' }, { [META.logLevel]: 'debug' }),
      standardHeaders('tools/call', 'test_tool_with_logging'),
    );
    expect(loud.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { messages } = sseMessages(loud.text);
    expect(messages.some((m) => m.method === 'notifications/message')).toBe(true);
    expect(messages.at(-1)).toMatchObject({ id: 23, result: { resultType: 'complete' } });
  });

  it('answers GET and DELETE without Mcp-Session-Id with 405 Allow: POST', async () => {
    const { endpoints } = await start();
    for (const method of ['GET', 'DELETE']) {
      const res = await postJson(endpoints.streamable, undefined, {
        method,
        headers: { accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('POST');
    }
  });

  it('serves a 2025 session beside modern requests on the same endpoint', async () => {
    const { s } = await start();
    const legacy = await s.connect();
    const modernReply = await post(
      s.mcpUrl,
      modern(24, 'server/discover'),
      standardHeaders('server/discover'),
    );
    expect(modernReply.status).toBe(200);
    expect(modernReply.body?.result).toMatchObject({
      supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
    });
    expect((await legacy.listTools()).map((t) => t.name)).toContain('bump');
    expect(s.http.streamable?.sessionCount).toBe(1);
  });
});

describe('header value codec (spec Value Encoding)', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    // A tab is a control character: encoded, although a received one is accepted as is.
    ['tab\there', '=?base64?dGFiCWhlcmU=?='],
    ['', ''],
  ])('%j travels as %s and back', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('refuses sentinels around non-canonical Base64 or bytes that are not UTF-8', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(
      decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`),
    ).toBeUndefined();
    expect(decodeHeaderValue('caf\u00e9')).toBeUndefined();
  });
});

describe('SDK v2 client (@modelcontextprotocol/client 2.4.0) over Streamable HTTP', () => {
  it.each([
    ['pinned to 2026-07-28', { pin: VERSION }],
    ['auto', 'auto'],
  ] as const)('%s: stays modern and lists, calls, reads and gets', async (_, mode) => {
    const s = await serveHttp(createEverythingServer());
    served.push(s);
    const client = new Client(
      { name: 'mcpkit-modern-http', version: '0.0.0' },
      { versionNegotiation: { mode } },
    );
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl)));
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(VERSION);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('add');
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(sum.isError ?? false).toBe(false);
      expect(JSON.stringify(sum.content)).toContain('5');
      const progress: number[] = [];
      await client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(progress).toEqual([0, 50, 100]);
      const read = await client.readResource({ uri: 'test://static-text' });
      expect(read.contents[0]).toMatchObject({ uri: 'test://static-text' });
      const prompt = await client.getPrompt({
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'a', arg2: 'b' },
      });
      expect(JSON.stringify(prompt.messages)).toContain("arg1='a'");
      // Nothing stateful was left behind: no 2025 session was opened.
      expect(s.http.streamable?.sessionCount).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe.each(['streamable', 'plain'] as const)(
  'Mcp-Param-* headers from x-mcp-header (%s path)',
  (kind) => {
    async function startRegion() {
      const runs: Json[] = [];
      const server = new McpServer({ name: 'headers', version: '1.0.0' }).addTool(
        defineTool({
          name: 'execute_sql',
          description: 'Runs a query in a region',
          inputJsonSchema: {
            type: 'object',
            properties: {
              region: { type: 'string', 'x-mcp-header': 'Region' },
              shard: { type: 'integer', 'x-mcp-header': 'Shard' },
              opts: {
                type: 'object',
                properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } },
              },
              query: { type: 'string' },
            },
            required: ['query'],
          },
          handler: (args) => {
            runs.push(args);
            return 'ran';
          },
        }),
      );
      const s = await serveHttp(server, { plainPaths: ['/messages/'] });
      served.push(s);
      return { runs, url: kind === 'streamable' ? s.mcpUrl : `${s.url}/messages/` };
    }
    const sql = (args: Json) => call(1, 'execute_sql', args);
    const headers = (extra: Record<string, string>) => ({
      ...standardHeaders('tools/call', 'execute_sql'),
      ...extra,
    });

    it('runs the tool when every declared header matches the body (decoded, integers numerically)', async () => {
      const { runs, url } = await startRegion();
      const args = { region: 'Zürich ', shard: 42, opts: { dry: true }, query: 'SELECT 1' };
      const ok = await post(
        url,
        sql(args),
        headers({
          'mcp-param-region': encodeHeaderValue('Zürich '),
          'Mcp-Param-Shard': '42.0',
          'mcp-param-dry-run': 'true',
        }),
      );
      expect(ok.status).toBe(200);
      expect(ok.body?.result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
      // An argument the call leaves out (or sends as null) needs no header.
      const bare = await post(url, sql({ query: 'q', region: null }), headers({}));
      expect(bare.status).toBe(200);
      expect(runs).toHaveLength(2);
    });

    it.each([
      ['missing', { query: 'q', region: 'us-west1' }, {}, 'Mcp-Param-Region', 'missing'],
      [
        'mismatching',
        { query: 'q', region: 'us-west1' },
        { 'mcp-param-region': 'eu-west1' },
        'Mcp-Param-Region',
        'mismatch',
      ],
      [
        'a different integer',
        { query: 'q', shard: 42 },
        { 'mcp-param-shard': '43' },
        'Mcp-Param-Shard',
        'mismatch',
      ],
      [
        'a nested boolean missing',
        { query: 'q', opts: { dry: false } },
        {},
        'Mcp-Param-Dry-Run',
        'missing',
      ],
      [
        'an undecodable sentinel',
        { query: 'q', region: 'x' },
        { 'mcp-param-region': '=?base64?***?=' },
        'Mcp-Param-Region',
        'invalid',
      ],
      [
        'a header for an argument the body lacks',
        { query: 'q' },
        { 'mcp-param-region': 'us-west1' },
        'Mcp-Param-Region',
        'mismatch',
      ],
    ])(
      'refuses a %s header with 400 -32020 before the tool runs',
      async (_label, args, extra, header, problem) => {
        const { runs, url } = await startRegion();
        const res = await post(url, sql(args), headers(extra as Record<string, string>));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          id: 1,
          error: { code: -32020, data: { header, problem } },
        });
        expect(runs).toEqual([]);
      },
    );
  },
);
