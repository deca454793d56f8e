/**
 * McpClient and the Streamable HTTP transport with tools that mirror arguments into headers
 * (MCP 2026-07-28 `basic/transports/streamable-http` §Custom Headers from Tool Parameters,
 * `server/tools` §x-mcp-header): the declarations of the last `listTools` give every modern
 * `tools/call` its `Mcp-Param-*` headers (`callTool` and `request` alike), tools with invalid
 * declarations are left out of the list, a call refused for its headers is sent again after the
 * tools are listed anew, and listed schemas stay exactly as the server sent them.
 */
import type { ServerResponse } from 'node:http';
import {
  createLinkedTransports,
  McpClient,
  McpServer,
  RpcError,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import {
  answerJson,
  MINIMAL_DISCOVER_RESULT,
  type ScriptedHandler,
  type ScriptedRequest,
  scriptHttp,
  stopScriptedHttp,
} from '@mcpkit/protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { customHeaderTool } from '../fixtures/header-tools.js';
import { serveHttp } from './serve.js';

afterEach(stopScriptedHttp);

/** A modern server listing `tools()`; `tools/call` answered by `call` (default: an empty result). */
function modern(
  tools: () => unknown[],
  call: (res: ServerResponse, seen: ScriptedRequest) => void = (res, s) =>
    answerJson(res, 200, { jsonrpc: '2.0', id: s.body?.id, result: { content: [] } }),
): ScriptedHandler {
  return (req, res, s) => {
    const body = s.body;
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    if (body?.id === undefined) return void res.writeHead(202).end();
    if (body.method === 'server/discover') {
      return answerJson(res, 200, { jsonrpc: '2.0', id: body.id, result: MINIMAL_DISCOVER_RESULT });
    }
    if (body.method === 'tools/list') {
      return answerJson(res, 200, { jsonrpc: '2.0', id: body.id, result: { tools: tools() } });
    }
    call(res, s);
  };
}

/** The `Mcp-Param-*` headers of a request the server saw, by lower-case name. */
const paramHeaders = (s: ScriptedRequest | undefined) =>
  Object.fromEntries(
    Object.entries(s?.headers ?? {}).filter(([name]) => name.startsWith('mcp-param-')),
  );

const connect = (url: string, logger?: { warn: (obj: object, msg?: string) => void }) =>
  McpClient.connect(new StreamableHttpClientTransport({ url }), {
    protocol: '2026-07-28',
    ...(logger ? { logger: { error: () => {}, debug: () => {}, ...logger } } : {}),
  });

const DEPLOY = {
  name: 'deploy',
  description: 'Deploys',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: ['boolean', 'null'], 'x-mcp-header': 'Verbose' },
      greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
      target: {
        type: 'object',
        properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } },
      },
      score: { type: 'number' },
      query: { type: 'string' },
    },
    required: ['region'],
  },
};

describe('Mcp-Param-* headers from x-mcp-header declarations', () => {
  it('mirrors each declared argument of a listed tool, for callTool and request alike', async () => {
    const { url, seen } = await scriptHttp(
      modern(() => [DEPLOY, { name: 'plain', inputSchema: {} }]),
    );
    const client = await connect(url);
    await client.listTools();
    await client.callTool('deploy', {
      region: 'us-west1',
      priority: 42,
      verbose: false,
      greeting: 'Hello, 世界',
      target: { zone: ' b ' },
      score: 3.5,
      query: 'SELECT 1',
    });
    // What a gateway forwards: the same headers, though it never called callTool.
    await client.request('tools/call', {
      name: 'deploy',
      arguments: { region: '=?base64?x?=', verbose: null, priority: -7 },
    });
    await client.callTool('plain', { region: 'us-west1' });
    await client.close();
    const calls = seen.filter((s) => s.body?.method === 'tools/call');
    expect(calls.map(paramHeaders)).toEqual([
      {
        'mcp-param-region': 'us-west1',
        'mcp-param-priority': '42',
        'mcp-param-verbose': 'false',
        'mcp-param-greeting': `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
        'mcp-param-zone': `=?base64?${Buffer.from(' b ').toString('base64')}?=`,
      },
      // null and absent arguments have no header; a value like the sentinel is encoded.
      {
        'mcp-param-region': `=?base64?${Buffer.from('=?base64?x?=').toString('base64')}?=`,
        'mcp-param-priority': '-7',
      },
      {},
    ]);
    expect(calls.map((s) => s.headers['mcp-name'])).toEqual(['deploy', 'deploy', 'plain']);
  });

  it('carries them to our own server, which refuses a call without them', async () => {
    const served = await serveHttp(
      new McpServer({ name: 'headers', version: '1' }).addTool(customHeaderTool),
    );
    try {
      const client = await served.connect({ protocol: '2026-07-28' });
      const [tool] = await client.listTools();
      expect(tool?.name).toBe('test_custom_headers_server');
      const result = await client.callTool('test_custom_headers_server', { region: 'Zürich ' });
      expect(result.content).toEqual([{ type: 'text', text: 'region: Zürich ' }]);
      const forwarded = await client.request<{ content: unknown }>('tools/call', {
        name: 'test_custom_headers_server',
        arguments: { region: 'eu-north-1', query: 'q' },
      });
      expect(forwarded.content).toEqual([{ type: 'text', text: 'region: eu-north-1' }]);
    } finally {
      await served.close();
    }
  });
});

describe('tools whose x-mcp-header declarations are invalid', () => {
  const invalid = (name: string, property: Record<string, unknown>) => ({
    name,
    inputSchema: { type: 'object', properties: { value: property } },
  });
  const TOOLS = [
    { name: 'valid', inputSchema: DEPLOY.inputSchema },
    invalid('empty', { type: 'string', 'x-mcp-header': '' }),
    invalid('number', { type: 'number', 'x-mcp-header': 'Score' }),
    invalid('object', { type: 'object', 'x-mcp-header': 'Data' }),
    invalid('space', { type: 'string', 'x-mcp-header': 'My Region' }),
    invalid('non_ascii', { type: 'string', 'x-mcp-header': 'Région' }),
    {
      name: 'duplicate',
      inputSchema: {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'MyField' },
          b: { type: 'string', 'x-mcp-header': 'myfield' },
        },
      },
    },
    {
      name: 'in_items',
      inputSchema: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        },
      },
    },
    { name: 'unannotated', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  ];

  it('are left out of listTools with a warning naming each; the valid ones stay', async () => {
    const { url } = await scriptHttp(modern(() => TOOLS));
    const warnings: { tool: unknown; reason: unknown }[] = [];
    const client = await connect(url, {
      warn: (obj) => warnings.push(obj as { tool: unknown; reason: unknown }),
    });
    const tools = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name)).toEqual(['valid', 'unannotated']);
    expect(warnings.map((w) => w.tool)).toEqual([
      'empty',
      'number',
      'object',
      'space',
      'non_ascii',
      'duplicate',
      'in_items',
    ]);
    expect(warnings[1]?.reason).toMatch(/string, integer or boolean/);
  });

  it('mean nothing on a 2025 session or over a transport without headers: nothing left out', async () => {
    const { url } = await scriptHttp((req, res, s) => {
      if (s.body?.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: s.body.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'legacy', version: '1' },
            },
          }),
        );
        return;
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      modern(() => TOOLS)(req, res, s);
    });
    const legacy = await McpClient.connect(
      new StreamableHttpClientTransport({ url, openStream: false }),
    );
    expect(await legacy.listTools()).toHaveLength(TOOLS.length);
    await legacy.close();

    const [clientSide, serverSide] = createLinkedTransports();
    serverSide.start({
      frame: (text) => {
        const m = JSON.parse(text) as { id?: number; method?: string };
        if (m.id === undefined) return;
        const result = m.method === 'server/discover' ? MINIMAL_DISCOVER_RESULT : { tools: TOOLS };
        serverSide.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      },
      rejected: () => {},
      end: () => {},
    });
    const inMemory = await McpClient.connect(clientSide, { protocol: '2026-07-28' });
    expect(await inMemory.listTools()).toHaveLength(TOOLS.length);
    await inMemory.close();
  });
});

describe('a tools/call refused for its headers (-32020)', () => {
  const mismatch = (res: ServerResponse, s: ScriptedRequest) =>
    answerJson(res, 400, {
      jsonrpc: '2.0',
      id: s.body?.id,
      error: {
        code: -32020,
        message: 'Header mismatch: Mcp-Param-Region header is missing',
        data: { header: 'Mcp-Param-Region' },
      },
    });
  const ok = (res: ServerResponse, s: ScriptedRequest) =>
    answerJson(res, 200, { jsonrpc: '2.0', id: s.body?.id, result: { content: [] } });

  it('lists the tools again and is sent once more when the declarations changed', async () => {
    const { url, seen } = await scriptHttp(
      modern(
        () => [DEPLOY],
        (res, s) => (s.headers['mcp-param-region'] === undefined ? mismatch(res, s) : ok(res, s)),
      ),
    );
    const client = await connect(url);
    // Never listed: the call goes out without headers, is refused, and succeeds once listed.
    await expect(client.callTool('deploy', { region: 'us-west1' })).resolves.toEqual({
      content: [],
    });
    await client.close();
    expect(seen.map((s) => [s.body?.method, s.headers['mcp-param-region']]).slice(1)).toEqual([
      ['tools/call', undefined],
      ['tools/list', undefined],
      ['tools/call', 'us-west1'],
    ]);
  });

  it('stands when listing again changes nothing: one tools/list, no retry', async () => {
    const { url, seen } = await scriptHttp(modern(() => [DEPLOY], mismatch));
    const client = await connect(url);
    await client.listTools();
    const err = await client.callTool('deploy', { region: 'us-west1' }).catch((e: unknown) => e);
    await client.close();
    expect(RpcError.is(err) && err.code).toBe(-32020);
    expect(seen.map((s) => s.body?.method).slice(1)).toEqual([
      'tools/list',
      'tools/call',
      'tools/list',
    ]);
  });
});

describe('listed schemas', () => {
  it('keep every JSON Schema 2020-12 keyword exactly as the server sent them', async () => {
    // As JSON text: a schema's `then` keyword is no property a literal should have.
    const schema: unknown = JSON.parse(`{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "$defs": {
        "address": {
          "$anchor": "addressDef",
          "type": "object",
          "properties": { "street": { "type": "string" } }
        }
      },
      "properties": {
        "name": { "type": "string", "x-mcp-header": "Name" },
        "address": { "$ref": "#/$defs/address" },
        "profile": { "$ref": "https://example.com/profile.json" },
        "contactMethod": { "type": "string", "enum": ["phone", "email"] },
        "phone": { "type": "string" }
      },
      "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["name"] }] }],
      "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
      "then": { "required": ["phone"] },
      "else": { "required": ["name"] },
      "additionalProperties": false,
      "unevaluatedProperties": false
    }`);
    const outputSchema = { type: 'object', properties: { n: { type: 'integer' } } };
    const listed = { name: 'rich', inputSchema: schema, outputSchema, _meta: { k: 1 } };
    const { url } = await scriptHttp(modern(() => [listed]));
    const client = await connect(url);
    const [tool] = await client.listTools();
    await client.close();
    expect(tool).toStrictEqual(listed);
  });
});
