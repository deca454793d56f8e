/**
 * api/openapi.yaml against the real server: the document passes scripts/lint-openapi.mjs, every
 * request example is replayed over HTTP and its answer validated against the schema the document
 * declares for it, and every documented HTTP status really happens.
 */
import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { type McpHttpOptions, type ServedHttp, type StaticToken, serveHttp } from '@mcpkit/node';
import { type PostReply, postJson } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Collectors, systemCollectors } from '../src/sampler/collectors.js';
import { createSystemInfoServer } from '../src/server.js';

vi.setConfig({ testTimeout: 10_000, hookTimeout: 10_000 });

type Json = Record<string, unknown>;

interface Example {
  summary?: string;
  value?: unknown;
  'x-raw-body'?: string;
  'x-token-scopes'?: string[];
  'x-compare'?: 'exact';
}

interface Pair {
  name: string;
  path: string;
  method: string;
  mediaType: string;
  request: Example;
  status: string;
  response?: { mediaType: string; schemaPointer: string; example?: Example };
}

interface ServerTools {
  tools: Json[];
  requiredScopes: Record<string, string[]>;
}

/** What scripts/lint-openapi.mjs exports (a plain .mjs: typed here). */
interface LintModule {
  OPENAPI_FILE: string;
  loadDocument(file?: string): Promise<Json>;
  checkOpenApi(
    doc: Json,
    server?: ServerTools,
  ): Promise<{ problems: string[]; stats: { examples: number; pairs: number; tools: number } }>;
  createSchemaValidator(doc: Json): { validate(pointer: string, value: unknown): string[] };
  pairedExamples(doc: Json): { pairs: Pair[]; problems: string[] };
  documentedTools(
    doc: Json,
  ): Map<string, { argumentsName?: string; resultName?: string; requiredScopes?: string[] }>;
  atPointer(doc: Json, pointer: string): unknown;
}

const LINT_SCRIPT = '../scripts/lint-openapi.mjs';
const lint = (await import(LINT_SCRIPT)) as LintModule;
const doc = await lint.loadDocument();
const schemas = lint.createSchemaValidator(doc);
const { pairs } = lint.pairedExamples(doc);
const documented = lint.documentedTools(doc);

const at = <T>(pointer: string): T => lint.atPointer(doc, pointer) as T;
const RESPONSES = '/paths/~1/post/responses';
const responseSchema = (status: string) =>
  `${RESPONSES}/${status}/content/application~1json/schema`;
const responseExample = (status: string, name: string) =>
  at<Example | undefined>(`${RESPONSES}/${status}/content/application~1json/examples/${name}`);
const resultSchema = (tool: string) => {
  const name = documented.get(tool)?.resultName;
  if (!name) throw new Error(`the document has no result schema for ${tool}`);
  return `/components/schemas/${name}`;
};

/** The messages of a request example (a batch is several). */
function messagesOf(example: Example): Json[] {
  let value = example.value;
  if (value === undefined && example['x-raw-body'] !== undefined) {
    try {
      value = JSON.parse(example['x-raw-body']);
    } catch {
      return [];
    }
  }
  return [value].flat().filter((m): m is Json => typeof m === 'object' && m !== null);
}

const calledTool = (message: Json): string | undefined =>
  message.method === 'tools/call'
    ? ((message.params as Json | undefined)?.name as string)
    : undefined;

/** The scopes a token needs for an example: x-token-scopes, else what the called tools need. */
function scopesFor(example: Example): string[] {
  if (example['x-token-scopes']) return [...example['x-token-scopes']].sort();
  const needed = new Set<string>();
  for (const message of messagesOf(example)) {
    const tool = calledTool(message);
    for (const scope of (tool && documented.get(tool)?.requiredScopes) || []) needed.add(scope);
  }
  return [...needed].sort();
}

// One token per scope set the examples need, plus one holding every scope.
const ALL_SCOPES = ['core', 'sensitive'];
const tokenSets = new Map<string, string[]>([[ALL_SCOPES.join('+'), ALL_SCOPES]]);
for (const pair of pairs) tokenSets.set(scopesFor(pair.request).join('+'), scopesFor(pair.request));
const tokens: StaticToken[] = [...tokenSets].map(([key, scopes]) => ({
  token: `test-token-${key || 'no-scopes'}`,
  subject: key || 'no-scopes',
  scopes,
}));
const tokenFor = (scopes: readonly string[]) =>
  `test-token-${[...scopes].sort().join('+') || 'no-scopes'}`;
const ALL_TOKEN = tokenFor(ALL_SCOPES);

/** Every status the document declares for POST /, and those the tests below saw. */
const documentedStatuses = Object.keys(at<Json>(RESPONSES)).sort();
const observed = new Set<string>();

type Reply = Pick<PostReply, 'status' | 'headers' | 'text'>;

const open: ServedHttp[] = [];
async function start(options: McpHttpOptions = {}, collectors?: Collectors) {
  const { server, history } = createSystemInfoServer({
    scopes: ['core', 'sensitive'],
    ...(collectors ? { collectors, warm: false } : {}),
  });
  const served = await serveHttp(server, {
    host: '127.0.0.1',
    plainPaths: ['/'],
    auth: { tokens },
    ...options,
  });
  open.push(served);
  return { server, history, url: served.url, port: served.port };
}

async function send(
  url: string,
  init: { method?: string; body?: string; token?: string; contentType?: string },
): Promise<Reply> {
  const reply = await postJson(`${url}/`, init.body, init);
  observed.add(String(reply.status));
  return reply;
}

/** The body validates against the schema the document declares for its status. */
function expectDocumented(reply: Reply): unknown {
  const status = String(reply.status);
  expect(documentedStatuses).toContain(status);
  const response = at<Json>(`${RESPONSES}/${status}`);
  for (const [name, ref] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const pointer = (ref.$ref as string).slice(1);
    const header = at<Json>(pointer);
    const value = reply.headers.get(name);
    if (header.required) expect(value, `header ${name}`).not.toBeNull();
    if (value !== null) {
      const schema = header.schema as Json;
      const typed = schema.type === 'integer' ? Number(value) : value;
      expect(schemas.validate(`${pointer}/schema`, typed), `header ${name}: ${value}`).toEqual([]);
    }
  }
  if (!response.content) {
    expect(reply.text).toBe('');
    return undefined;
  }
  expect(reply.headers.get('content-type')).toBe('application/json');
  const body: unknown = JSON.parse(reply.text);
  expect(schemas.validate(responseSchema(status), body)).toEqual([]);
  return body;
}

let main: {
  url: string;
  port: number;
  server: ReturnType<typeof createSystemInfoServer>['server'];
  history: ReturnType<typeof createSystemInfoServer>['history'];
};

beforeAll(async () => {
  main = await start();
  // get_metric_history of cpu.percent answers isError until the history holds that series: a
  // rate, it is recorded from the second reading on (1 s after the start).
  await vi.waitFor(
    () => {
      if (!main.history.series('cpu.percent')) throw new Error('no cpu.percent history yet');
    },
    { timeout: 5_000, interval: 100 },
  );
});

afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

describe('api/openapi.yaml', () => {
  const liveTools = async (): Promise<ServerTools> => {
    const reply = await send(main.url, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      token: ALL_TOKEN,
    });
    const tools = ((JSON.parse(reply.text) as Json).result as Json).tools as Json[];
    const requiredScopes = Object.fromEntries(
      main.server.listTools().map((t) => [t.name, [...t.requiredScopes]]),
    );
    return { tools, requiredScopes };
  };

  it('passes the lint: OpenAPI 3.1, examples valid, examples paired, tools as listed', async () => {
    const { problems, stats } = await lint.checkOpenApi(doc, await liveTools());
    expect(problems).toEqual([]);
    expect(stats.tools).toBe(main.server.listTools().length);
    expect(stats.pairs).toBe(pairs.length);
    expect(stats.examples).toBeGreaterThan(pairs.length);
  });

  it('lint reports an example that breaks its schema, a wrong scope and an undocumented tool', async () => {
    const broken = structuredClone(doc);
    const cpu = lint.atPointer(
      broken,
      `${RESPONSES}/200/content/application~1json/examples/tools_call_get_cpu_info_per_cpu/value/result/structuredContent`,
    ) as Json;
    cpu.cpu_percent = 'high';
    (lint.atPointer(broken, '/components/schemas/GetAuthLogsArguments') as Json)[
      'x-required-scopes'
    ] = ['core'];
    const server = await liveTools();
    server.tools.push({ name: 'get_weather', description: 'x', inputSchema: { type: 'object' } });
    const { problems } = await lint.checkOpenApi(broken, server);
    const text = problems.join('\n');
    expect(text).toMatch(/tools_call_get_cpu_info_per_cpu.*\/cpu_percent must be number,null/);
    expect(text).toMatch(/x-required-scopes is \["core"\], but 'get_auth_logs' requires/);
    expect(text).toMatch(/tool 'get_weather' \(tools\/list\) has no schema/);
  });

  it("documents the examples of MCP System Info's JSON-RPC API, initialize and the error cases the brief names", () => {
    const names = pairs.map((p) => p.name);
    for (const name of [
      'tools_list',
      'tools_call_get_cpu_info_per_cpu',
      'tools_call_get_processes',
      'tools_call_get_uptime',
      'batch_cpu_and_memory',
      'scope_error_get_auth_logs',
      'initialize',
      'unknown_method',
      'unknown_tool',
      'parse_error',
    ]) {
      expect(names).toContain(name);
    }
    expect(documentedStatuses).toEqual(['200', '202', '401', '403', '405', '413', '415', '429']);
  });
});

describe('every request example, replayed against the server', () => {
  it.each(pairs.map((pair) => [`${pair.name} → ${pair.status}`, pair] as const))(
    '%s',
    async (_, pair) => {
      const token = tokenFor(scopesFor(pair.request));
      const body = pair.request['x-raw-body'] ?? JSON.stringify(pair.request.value);
      const reply = await send(main.url, { body, token });
      expect(reply.status).toBe(Number(pair.status));
      const live = expectDocumented(reply);
      const example = pair.response?.example;
      if (!pair.response) return;
      expect(example, `response example '${pair.name}'`).toBeDefined();
      if (!example) return;
      expect(schemas.validate(pair.response.schemaPointer, live)).toEqual([]);
      if (example['x-compare'] === 'exact') {
        expect(live).toEqual(example.value);
        return;
      }
      // Values vary (CPU %, timestamps): same shape, and each tool's result valid for that tool.
      expect(Array.isArray(live)).toBe(Array.isArray(example.value));
      const liveReplies = [live].flat() as Json[];
      const exampleReplies = [example.value].flat() as Json[];
      expect(liveReplies.map((r) => r.id).sort()).toEqual(exampleReplies.map((r) => r.id).sort());
      const requests = messagesOf(pair.request);
      for (const expected of exampleReplies) {
        const got = liveReplies.find((r) => r.id === expected.id) as Json;
        if ('error' in expected) {
          const want = expected.error as Json;
          const error = got.error as Json;
          expect({ code: error.code, message: error.message }).toEqual({
            code: want.code,
            message: want.message,
          });
          expect(Object.keys((error.data ?? {}) as Json).sort()).toEqual(
            Object.keys((want.data ?? {}) as Json).sort(),
          );
          continue;
        }
        const tool = calledTool(requests.find((m) => m.id === expected.id) ?? {});
        expect(tool, `example reply ${String(expected.id)} answers a tools/call`).toBeDefined();
        const want = expected.result as Json;
        const result = got.result as Json;
        expect(result.isError).toBe(want.isError);
        const structured = result.structuredContent as Json;
        expect(schemas.validate(resultSchema(tool as string), structured)).toEqual([]);
        // Optional members (per_cpu …) are there exactly when the example has them.
        expect(Object.keys(structured).sort()).toEqual(
          Object.keys(want.structuredContent as Json).sort(),
        );
        // The text block holds what the example's does: the whole result, or one member of it.
        const wantText = JSON.parse(
          ((want.content as Json[])[0] as Json).text as string,
        ) as unknown;
        const liveText = JSON.parse(
          ((result.content as Json[])[0] as Json).text as string,
        ) as unknown;
        const wantStructured = want.structuredContent as Json;
        const whole = isDeepStrictEqual(wantText, wantStructured);
        const member = whole
          ? undefined
          : Object.keys(wantStructured).find((k) => isDeepStrictEqual(wantStructured[k], wantText));
        expect(whole || member !== undefined, 'the example text mirrors structuredContent').toBe(
          true,
        );
        expect(liveText).toEqual(member === undefined ? structured : structured[member]);
      }
    },
  );

  it('MCP System Info example: get_processes {top: 10, sort_by: "cpu"} answers at most 10 processes, busiest first', async () => {
    const pair = pairs.find((p) => p.name === 'tools_call_get_processes') as Pair;
    const reply = await send(main.url, {
      body: JSON.stringify(pair.request.value),
      token: ALL_TOKEN,
    });
    const result = ((JSON.parse(reply.text) as Json).result as Json).structuredContent as {
      processes: { cpu_percent: number }[];
      sort_by: string;
    };
    expect(result.sort_by).toBe('cpu');
    expect(result.processes.length).toBeGreaterThan(0);
    expect(result.processes.length).toBeLessThanOrEqual(10);
    const cpu = result.processes.map((p) => p.cpu_percent);
    expect(cpu).toEqual([...cpu].sort((a, b) => b - a));
  });

  it("MCP System Info example: the tools/list entry of get_cpu_info holds the API's example", async () => {
    const reply = await send(main.url, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      token: ALL_TOKEN,
    });
    expect(JSON.parse(reply.text)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: expect.arrayContaining([
          expect.objectContaining({
            name: 'get_cpu_info',
            description: 'Returns CPU usage, frequency, load average, and core information.',
            inputSchema: expect.objectContaining({
              type: 'object',
              properties: {
                per_cpu: { type: 'boolean', description: 'Include per-CPU breakdown' },
              },
            }),
          }),
        ]),
      },
    });
  });
});

describe('every tool the server lists', () => {
  const names = createSystemInfoServer({ warm: false })
    .server.listTools()
    .map((t) => t.name);

  // The tools that need arguments: the shortest call each takes.
  const ARGUMENTS: Record<string, Json> = {
    measure_system: { metric: 'cpu', window_seconds: 2, interval_seconds: 2 },
    get_metric_history: { metric: 'cpu.percent' },
    find_process_by_port: { port: 5432 },
  };

  it.each(names)('%s answers with a result valid against its documented schema', async (name) => {
    const args = ARGUMENTS[name];
    const reply = await send(main.url, {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: args ? { name, arguments: args } : { name },
      }),
      token: ALL_TOKEN,
    });
    const body = expectDocumented(reply) as Json;
    expect(body.error, JSON.stringify(body.error)).toBeUndefined();
    const result = body.result as Json;
    expect(result.isError).toBe(false);
    expect(schemas.validate('/components/schemas/CallToolResult', result)).toEqual([]);
    expect(schemas.validate(resultSchema(name), result.structuredContent)).toEqual([]);
  });
});

describe('documented HTTP status codes', () => {
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  it('401 without a token: WWW-Authenticate: Bearer and error -32001', async () => {
    const reply = await send(main.url, { body: ping });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    expect(expectDocumented(reply)).toEqual(responseExample('401', 'missing_token')?.value);
  });

  it('401 with an unknown token: WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const reply = await send(main.url, { body: ping, token: 'not-a-known-token' });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(expectDocumented(reply)).toEqual(responseExample('401', 'invalid_token')?.value);
  });

  it('405 on GET, with Allow: POST and no body', async () => {
    const reply = await send(main.url, { method: 'GET', token: ALL_TOKEN, contentType: '' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    expect(expectDocumented(reply)).toBeUndefined();
  });

  it('415 on Content-Type: text/plain', async () => {
    const reply = await send(main.url, { body: ping, token: ALL_TOKEN, contentType: 'text/plain' });
    expect(reply.status).toBe(415);
    expect(expectDocumented(reply)).toEqual(responseExample('415', 'not_json')?.value);
  });

  it('202 without body for a notification and for a batch of notifications', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
      ],
    ]) {
      const reply = await send(main.url, { body: JSON.stringify(body), token: ALL_TOKEN });
      expect(reply.status).toBe(202);
      expect(expectDocumented(reply)).toBeUndefined();
    }
  });

  it('413 for a body over 4 MiB', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } });
    const padded = body.replace('"pad":""', `"pad":"${'x'.repeat(4 * 1024 * 1024)}"`);
    const reply = await send(main.url, { body: padded, token: ALL_TOKEN });
    expect(reply.status).toBe(413);
    expect(expectDocumented(reply)).toEqual(responseExample('413', 'too_large')?.value);
  });

  it('403 for a Host that is not this server', async () => {
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: main.port,
          method: 'POST',
          path: '/',
          agent: false,
          headers: {
            host: 'evil.example',
            'content-type': 'application/json',
            authorization: `Bearer ${ALL_TOKEN}`,
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (typeof v === 'string') headers.set(k, v);
            }
            resolve({
              status: res.statusCode ?? 0,
              headers,
              text: Buffer.concat(parts).toString('utf8'),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(ping);
    });
    observed.add(String(reply.status));
    expect(reply.status).toBe(403);
    expect(expectDocumented(reply)).toEqual(responseExample('403', 'host_not_allowed')?.value);
  });

  it('429 with Retry-After once a configured rate limit is spent', async () => {
    const limited = await start({ rateLimit: { points: 1, durationSec: 60 } });
    const first = await send(limited.url, { body: ping, token: ALL_TOKEN });
    expect(first.status).toBe(200);
    const reply = await send(limited.url, { body: ping, token: ALL_TOKEN });
    expect(reply.status).toBe(429);
    const body = expectDocumented(reply) as { error: Json };
    const example = responseExample('429', 'rate_limited')?.value as { error: Json };
    expect(body.error.code).toBe(example.error.code);
    expect(body.error.message).toBe(example.error.message);
    expect((body.error.data as Json).retryAfter).toBe(Number(reply.headers.get('retry-after')));
  });

  it('200 with the documented -32000 when a collector fails', async () => {
    const example = responseExample('200', 'query_execution_error') as Example;
    const expected = example.value as { id: number; error: { message: string } };
    const reason = expected.error.message.replace(/^Query execution error: /, '');
    // A real collector cannot be made to fail on demand: this one does.
    const failing: Collectors = {
      ...systemCollectors,
      time: async () => {
        throw new Error(reason);
      },
    };
    const broken = await start({}, failing);
    const reply = await send(broken.url, {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: expected.id,
        method: 'tools/call',
        params: { name: 'get_uptime' },
      }),
      token: ALL_TOKEN,
    });
    expect(reply.status).toBe(200);
    expect(expectDocumented(reply)).toEqual(example.value);
  });

  it('every documented status code was seen live (runs last)', () => {
    expect([...observed].sort()).toEqual(documentedStatuses);
  });
});
