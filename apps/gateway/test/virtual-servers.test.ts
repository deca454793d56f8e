/**
 * Virtual servers (`gateway.servers`) over the wire: each at `/servers/<name>/mcp` lists the
 * backend tools, prompts and resources its definition chooses — renamed and annotated as it
 * says — and calls go through the gateway's rules (with the server's name) and quotas; a
 * person named in `default_for` gets theirs at `/mcp`; a changed definition is a `list_changed`
 * to the server's clients; `--server` serves one over stdio. Both eras.
 */
import { writeFileSync } from 'node:fs';
import { type McpClient, RpcError } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  postJson,
  removeTempDirs,
  runProcess,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, CLI, handshake, spawnHttpGateway, startGateway } from './helpers.js';

const ALICE = 'alice-token-for-virtual-servers';
const BOB = 'bob-token-for-virtual-servers-0';
const OPS = {
  tools: [
    'rich/echo',
    {
      tool: 'rich/who',
      name: 'whoami',
      title: 'Which process',
      description: 'The backend process id',
      annotations: { readOnlyHint: true },
    },
    'other/s*',
  ],
  prompts: ['rich/greet'],
  resources: ['rich/fixture://*'],
};
const config = (ops: Record<string, unknown> = OPS) => ({
  gateway: {
    tokens: [
      { token: ALICE, subject: 'alice', scopes: [] },
      { token: BOB, subject: 'bob', scopes: [] },
    ],
    servers: {
      ops,
      tiny: { tools: ['*/echo'], default_for: { subjects: ['bob'] } },
    },
    rules: [
      {
        name: 'no-secrets-on-tiny',
        effect: 'deny',
        when: "server == 'tiny' && args.text == 'secret'",
      },
    ],
    quotas: [{ name: 'tiny-calls', tools: ['*'], server: 'tiny', limit: 3, window_sec: 3600 }],
  },
  mcpServers: {
    rich: backend('rich'),
    other: backend('rich', {}, ['--name', 'other']),
  },
});

let gw: HttpProcess;
let dir: string;
beforeAll(async () => {
  dir = tempDir('gw-virtual-');
  gw = await spawnHttpGateway(config(), { dir });
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

const connect = (token: string, protocol: 'legacy' | 'auto', path = '/mcp') =>
  gw.connect({ headers: { Authorization: `Bearer ${token}` }, protocol, path });
/** A JSON-RPC ping POSTed to `path` (with `token`), answered whole. */
const ping = (path: string, token?: string) =>
  postJson<{ error?: { code: number } }>(
    `${gw.url}${path}`,
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { ...(token ? { token } : {}), headers: { accept: 'application/json, text/event-stream' } },
  );
const names = async (client: McpClient) => (await client.listTools()).map((t) => t.name).sort();
const outcome = (client: McpClient, name: string, args: Record<string, unknown> = {}) =>
  client.callTool(name, args).then(
    (r) => (r.isError ? 'tool-error' : 'ok'),
    (err: unknown) => (RpcError.is(err) ? `${err.code} ${err.message}` : String(err)),
  );

describe.each(['legacy', 'auto'] as const)('virtual servers over HTTP (%s)', (protocol) => {
  it('lists what the definition chooses, renamed and annotated, and calls through', async () => {
    const ops = await connect(ALICE, protocol, '/servers/ops/mcp');
    try {
      expect(await names(ops)).toEqual([
        'other__sleep',
        'other__slow_progress',
        'rich__echo',
        'whoami',
      ]);
      const whoami = (await ops.listTools()).find((t) => t.name === 'whoami');
      expect(whoami).toMatchObject({
        title: 'Which process',
        description: 'The backend process id',
        annotations: { readOnlyHint: true },
      });
      const pid = await ops.callTool('whoami', {});
      expect(Number((pid.content[0] as { text: string }).text)).toBeGreaterThan(0);
      expect(await outcome(ops, 'rich__echo', { text: 'hi' })).toBe('ok');
      // Tools the gateway has but this server does not list cannot be called through it.
      // (2026-07-28 answers an unknown tool -32602 "Unknown tool", 2025 the gateway's -32601.)
      const unknown = protocol === 'auto' ? '-32602 Unknown tool' : '-32601 Tool not found';
      expect(await outcome(ops, 'rich__who')).toBe(`${unknown}: rich__who`);
      expect(await outcome(ops, 'gateway_status')).toBe(`${unknown}: gateway_status`);
      expect((await ops.listPrompts()).map((p) => p.name)).toEqual(['rich__greet']);
      expect((await ops.listResources()).map((r) => r.uri)).toEqual(['fixture://readme']);
      expect((await ops.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
        'fixture://items/{id}',
      ]);
      const read = await ops.readResource('fixture://readme');
      expect(read.contents.length).toBeGreaterThan(0);
    } finally {
      await ops.close();
    }
  });

  it('a default_for person gets their server at /mcp; everyone else every tool', async () => {
    const bob = await connect(BOB, protocol);
    const alice = await connect(ALICE, protocol);
    try {
      expect(await names(bob)).toEqual(['other__echo', 'rich__echo']);
      expect(await names(alice)).toContain('gateway_status');
      // gateway_status names the servers, and which one is the caller's at /mcp.
      const status = JSON.parse(
        ((await alice.callTool('gateway_status', {})).content[0] as { text: string }).text,
      ) as { servers: { name: string; path: string; tools: string[]; your_default: boolean }[] };
      expect(status.servers.map((v) => [v.name, v.path, v.your_default])).toEqual([
        ['ops', '/servers/ops/mcp', false],
        ['tiny', '/servers/tiny/mcp', false],
      ]);
      expect(status.servers[1]?.tools.sort()).toEqual(['other__echo', 'rich__echo']);
      expect((await names(alice)).length).toBeGreaterThan(20);
    } finally {
      await bob.close();
      await alice.close();
    }
  });
});

describe('virtual servers and the rules, quotas, endpoints', () => {
  it('rules see the server: a call refused on tiny is allowed at /mcp', async () => {
    const tiny = await connect(ALICE, 'legacy', '/servers/tiny/mcp');
    const all = await connect(ALICE, 'legacy');
    try {
      expect(await outcome(tiny, 'rich__echo', { text: 'secret' })).toBe(
        "-32600 Tool 'rich__echo' refused by rule 'no-secrets-on-tiny'",
      );
      expect(await outcome(all, 'rich__echo', { text: 'secret' })).toBe('ok');
    } finally {
      await tiny.close();
      await all.close();
    }
  });

  it("a quota on one server counts that server's calls only, per person", async () => {
    // bob's /mcp is tiny (default_for): three calls there, then refused; alice's tiny apart.
    const bob = await connect(BOB, 'legacy');
    const alice = await connect(ALICE, 'auto', '/servers/tiny/mcp');
    const aliceAll = await connect(ALICE, 'auto');
    try {
      const results: string[] = [];
      for (let i = 0; i < 4; i++) results.push(await outcome(bob, 'other__echo', { text: 'x' }));
      expect(results.slice(0, 3)).toEqual(['ok', 'ok', 'ok']);
      expect(results[3]).toMatch(/^-32000 Quota 'tiny-calls' exceeded/);
      for (let i = 0; i < 5; i++) {
        expect(await outcome(aliceAll, 'other__echo', { text: 'x' })).toBe('ok');
      }
      expect(await outcome(alice, 'other__echo', { text: 'x' })).toBe('ok');
    } finally {
      await bob.close();
      await alice.close();
      await aliceAll.close();
    }
  });

  it('an unknown server, or a path that is not an endpoint, is 404', async () => {
    const res = await ping('/servers/nope/mcp', ALICE);
    expect(res.status).toBe(404);
    expect(res.body?.error?.code).toBe(-32601);
    for (const path of ['/servers//mcp', '/servers/ops/x/mcp', '/servers/ops/mcp/']) {
      expect((await ping(path)).status, path).toBe(404);
    }
  });

  it('needs the same token as /mcp', async () => {
    const res = await ping('/servers/ops/mcp');
    expect(res.status).toBe(401);
  });
});

describe('virtual servers follow their definitions', () => {
  it('a changed definition is a list_changed to its clients; a removed server is 404', async () => {
    const ops = await connect(ALICE, 'legacy', '/servers/ops/mcp');
    try {
      let changed = 0;
      ops.on('notifications/tools/list_changed', () => changed++);
      expect(await names(ops)).toContain('other__sleep');
      writeFileSync(
        `${dir}/gateway.json`,
        JSON.stringify(config({ ...OPS, tools: ['rich/echo', 'rich/big'] })),
      );
      await expect
        .poll(async () => names(ops), { timeout: 15_000 })
        .toEqual(['rich__big', 'rich__echo']);
      expect(changed).toBeGreaterThan(0);
      // The server goes: its endpoint with it.
      const { ops: _ops, ...servers } = config().gateway.servers;
      writeFileSync(
        `${dir}/gateway.json`,
        JSON.stringify({ ...config(), gateway: { ...config().gateway, servers } }),
      );
      await expect
        .poll(async () => (await ping('/servers/ops/mcp', ALICE)).status, { timeout: 15_000 })
        .toBe(404);
    } finally {
      await ops.close();
      writeFileSync(`${dir}/gateway.json`, JSON.stringify(config()));
    }
  });
});

describe('--server over stdio', () => {
  it('serves one virtual server', async () => {
    const { quotas: _q, tokens: _t, ...gateway } = config().gateway;
    const child = startGateway({ ...config(), gateway }, { args: ['--server', 'ops'] });
    try {
      await handshake(child);
      const listed = await child.request('tools/list', {});
      const tools = (listed.result as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(tools.sort()).toEqual([
        'other__sleep',
        'other__slow_progress',
        'rich__echo',
        'whoami',
      ]);
      const called = await child.call('whoami', {});
      expect(called.result).toBeDefined();
    } finally {
      await child.end();
    }
  });

  it('refuses a server the config has not got, naming those it has', async () => {
    const file = `${tempDir('gw-virtual-')}/gateway.json`;
    const { quotas: _q, tokens: _t, ...gateway } = config().gateway;
    writeFileSync(file, JSON.stringify({ ...config(), gateway }));
    const run = await runProcess(process.execPath, [CLI, '--config', file, '--server', 'nope'], {
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--server nope: no such virtual server in gateway.servers (ops, tiny)',
    );
  });
});
