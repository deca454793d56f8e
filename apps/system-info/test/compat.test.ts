// @module-tag process
/**
 * The examples of MCP System Info's JSON-RPC API, verbatim, against the real server process: over
 * stdio, and over HTTP (`POST /` with a bearer token), including the batch and the scope error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type HttpProcess,
  killSpawned,
  postJson,
  type RawProcess,
  removeTempDirs,
  spawnHttpServer,
  spawnRaw,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

type Json = Record<string, unknown>;

afterAll(() => {
  killSpawned();
  removeTempDirs();
});

/** The requests of MCP System Info's JSON-RPC API, as its documentation writes them. */
const API = {
  toolsList: '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
  cpu: '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_cpu_info", "arguments": {"per_cpu": true}}}',
  processes:
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_processes", "arguments": {"top": 10, "sort_by": "cpu"}}}',
  uptime: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_uptime"}}',
  batch:
    '[{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_cpu_info"}}, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_memory_info"}}]',
  authLogs:
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_auth_logs"}}',
};

function checkToolsList(reply: Json): void {
  const tools = (reply.result as { tools: Json[] }).tools;
  expect(tools.find((t) => t.name === 'get_cpu_info')).toMatchObject({
    name: 'get_cpu_info',
    description: 'Returns CPU usage, frequency, load average, and core information.',
    inputSchema: {
      type: 'object',
      properties: { per_cpu: { type: 'boolean', description: 'Include per-CPU breakdown' } },
    },
  });
  expect(tools.map((t) => t.name)).toEqual(
    expect.arrayContaining(['get_memory_info', 'get_processes', 'get_uptime']),
  );
}

function textOf(reply: Json): unknown {
  const result = reply.result as { content: { type: string; text: string }[] };
  expect(result.content[0]?.type).toBe('text');
  return JSON.parse(result.content[0]?.text ?? '');
}

function checkCpu(reply: Json): void {
  expect(reply).toMatchObject({ jsonrpc: '2.0', id: 1 });
  const cpu = textOf(reply) as { cpu_percent: number; per_cpu: unknown[] };
  expect(typeof cpu.cpu_percent).toBe('number');
  expect(cpu.per_cpu.length).toBeGreaterThan(0);
}

function checkProcesses(reply: Json): void {
  const list = textOf(reply) as { pid: number; name: string; cpu_percent: number }[];
  expect(Array.isArray(list)).toBe(true);
  expect(list.length).toBeGreaterThan(0);
  expect(list.length).toBeLessThanOrEqual(10);
  expect(typeof list[0]?.pid).toBe('number');
  expect(typeof list[0]?.name).toBe('string');
  const cpus = list.map((p) => p.cpu_percent);
  expect(cpus).toEqual([...cpus].sort((a, b) => b - a));
}

const SCOPE_ERROR = {
  jsonrpc: '2.0',
  id: 1,
  error: {
    code: -32600,
    message: "Query 'get_auth_logs' requires scope 'sensitive' which is not enabled",
  },
};

describe("MCP System Info's JSON-RPC API over stdio", () => {
  let child: RawProcess;
  beforeAll(() => {
    child = spawnRaw(process.execPath, [CLI, '--log-level', 'warn']);
  });
  afterAll(async () => {
    expect((await child.end()).code).toBe(0);
  });
  const send = (line: string) => child.exchange<Json>(line);

  it('tools/list', async () => checkToolsList(await send(API.toolsList)));
  it('tools/call get_cpu_info with per_cpu', async () => checkCpu(await send(API.cpu)));
  it('tools/call get_processes top 10 by cpu', async () =>
    checkProcesses(await send(API.processes)));
  it('tools/call get_uptime without arguments', async () => {
    expect(
      (textOf(await send(API.uptime)) as { uptime_seconds: number }).uptime_seconds,
    ).toBeGreaterThan(0);
  });
  it('the batch', async () => {
    const reply = (await send(API.batch)) as unknown as Json[];
    expect(reply.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(reply.every((r) => 'result' in r)).toBe(true);
  });
  it('the scope error, exactly', async () => {
    expect(await send(API.authLogs)).toEqual(SCOPE_ERROR);
  });
});

describe("MCP System Info's JSON-RPC API over HTTP with tokens of different scopes", () => {
  let app: HttpProcess;
  const CORE_TOKEN = 'core-token-0123456789';
  const OPS_TOKEN = 'ops-token-0123456789ab';
  const MAIN_TOKEN = 'your-token-0123456789';

  beforeAll(async () => {
    const file = join(tempDir('sysinfo-'), 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { name: 'reader', token: CORE_TOKEN, scopes: ['core'] },
          { name: 'ops', token: OPS_TOKEN, scopes: ['core', 'sensitive'] },
        ],
      }),
    );
    app = await spawnHttpServer(
      process.execPath,
      [CLI, '--transport', 'http', '--port', '0', '--enable-sensitive', '--tokens-file', file],
      { env: { MCP_SYSINFO_TOKEN: MAIN_TOKEN } },
    );
  });
  afterAll(async () => {
    await app.stop();
  });

  const post = async (body: string, token?: string) => {
    const reply = await postJson<Json>(`${app.url}/`, body, token ? { token } : {});
    return { status: reply.status, headers: reply.headers, body: reply.body as Json };
  };

  it("the API documentation's curl: get_uptime with a bearer token", async () => {
    const { status, body } = await post(API.uptime, MAIN_TOKEN);
    expect(status).toBe(200);
    expect((textOf(body) as { uptime_seconds: number }).uptime_seconds).toBeGreaterThan(0);
  });

  it('tools/list, tools/call and the batch', async () => {
    checkToolsList((await post(API.toolsList, CORE_TOKEN)).body);
    checkCpu((await post(API.cpu, CORE_TOKEN)).body);
    checkProcesses((await post(API.processes, CORE_TOKEN)).body);
    const batch = (await post(API.batch, CORE_TOKEN)).body as unknown as Json[];
    expect(batch.map((r) => r.id).sort()).toEqual([1, 2]);
  });

  it('a token holds only its own scopes, never more', async () => {
    // The server enables `sensitive`; only the token lacks it, and the error says so (MCP System
    // Info's "which is not enabled" is for a server without the scope, as over stdio above).
    expect((await post(API.authLogs, CORE_TOKEN)).body).toEqual({
      ...SCOPE_ERROR,
      error: {
        code: -32600,
        message:
          "Query 'get_auth_logs' requires scope 'sensitive' which is not granted to this token",
      },
    });
    const ops = await post(API.authLogs, OPS_TOKEN);
    expect(ops.status).toBe(200);
    expect(ops.body).toMatchObject({ result: { isError: false } });
    // --token gets the server's enabled scopes (here core + sensitive).
    expect((await post(API.authLogs, MAIN_TOKEN)).body).toMatchObject({
      result: { isError: false },
    });
  });

  it('401 with WWW-Authenticate without a valid token, and the JSON-RPC error body', async () => {
    const missing = await post(API.uptime);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body).toMatchObject({ error: { code: -32001 } });
    expect((await post(API.uptime, 'wrong-token-0000000000')).status).toBe(401);
  });
});
