/**
 * Seed 002's examples, verbatim, against the real server process: over stdio, and over HTTP
 * (`POST /` with a bearer token), including the batch and the scope error.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

type Json = Record<string, unknown>;

const SEED = {
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

describe('seed 002 over stdio', () => {
  let child: ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  beforeAll(() => {
    child = spawn(process.execPath, [CLI, '--log-level', 'warn'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) (waiters.shift() ?? ((x: string) => lines.push(x)))(l);
    });
  });
  afterAll(async () => {
    child.stdin.end();
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
  });
  const send = (line: string): Promise<Json> => {
    child.stdin.write(`${line}\n`);
    const next = lines.shift();
    const got =
      next !== undefined ? Promise.resolve(next) : new Promise<string>((r) => waiters.push(r));
    return got.then((l) => JSON.parse(l) as Json);
  };

  it('tools/list', async () => checkToolsList(await send(SEED.toolsList)));
  it('tools/call get_cpu_info with per_cpu', async () => checkCpu(await send(SEED.cpu)));
  it('tools/call get_processes top 10 by cpu', async () =>
    checkProcesses(await send(SEED.processes)));
  it('tools/call get_uptime without arguments', async () => {
    expect(
      (textOf(await send(SEED.uptime)) as { uptime_seconds: number }).uptime_seconds,
    ).toBeGreaterThan(0);
  });
  it('the batch', async () => {
    const reply = (await send(SEED.batch)) as unknown as Json[];
    expect(reply.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(reply.every((r) => 'result' in r)).toBe(true);
  });
  it('the scope error, exactly', async () => {
    expect(await send(SEED.authLogs)).toEqual(SCOPE_ERROR);
  });
});

describe('seed 002 over HTTP with tokens of different scopes', () => {
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  const CORE_TOKEN = 'core-token-0123456789';
  const OPS_TOKEN = 'ops-token-0123456789ab';
  const MAIN_TOKEN = 'your-token-0123456789';

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sysinfo-'));
    const file = join(dir, 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { name: 'reader', token: CORE_TOKEN, scopes: ['core'] },
          { name: 'ops', token: OPS_TOKEN, scopes: ['core', 'sensitive'] },
        ],
      }),
    );
    child = spawn(
      process.execPath,
      [CLI, '--transport', 'http', '--port', '0', '--enable-sensitive', '--tokens-file', file],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MCP_SYSINFO_TOKEN: MAIN_TOKEN } },
    );
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c;
        const m = /"url":"([^"]+)"/.exec(err);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });

  const post = async (body: string, token?: string) => {
    const res = await fetch(`${url}/`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };

  it("the seed's curl: get_uptime with a bearer token", async () => {
    const { status, body } = await post(SEED.uptime, MAIN_TOKEN);
    expect(status).toBe(200);
    expect((textOf(body) as { uptime_seconds: number }).uptime_seconds).toBeGreaterThan(0);
  });

  it('tools/list, tools/call and the batch', async () => {
    checkToolsList((await post(SEED.toolsList, CORE_TOKEN)).body);
    checkCpu((await post(SEED.cpu, CORE_TOKEN)).body);
    checkProcesses((await post(SEED.processes, CORE_TOKEN)).body);
    const batch = (await post(SEED.batch, CORE_TOKEN)).body as unknown as Json[];
    expect(batch.map((r) => r.id).sort()).toEqual([1, 2]);
  });

  it('a token holds only its own scopes, never more', async () => {
    expect((await post(SEED.authLogs, CORE_TOKEN)).body).toEqual(SCOPE_ERROR);
    const ops = await post(SEED.authLogs, OPS_TOKEN);
    expect(ops.status).toBe(200);
    expect(ops.body).toMatchObject({ result: { isError: false } });
    // --token gets the server's enabled scopes (here core + sensitive).
    expect((await post(SEED.authLogs, MAIN_TOKEN)).body).toMatchObject({
      result: { isError: false },
    });
  });

  it('401 with WWW-Authenticate without a valid token, and the JSON-RPC error body', async () => {
    const missing = await post(SEED.uptime);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body).toMatchObject({ error: { code: -32001 } });
    expect((await post(SEED.uptime, 'wrong-token-0000000000')).status).toBe(401);
  });
});
