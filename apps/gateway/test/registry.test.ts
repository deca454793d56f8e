// @module-tag process
/**
 * The gateway as an MCP Registry and as a registry's client, both halves at once: gateway A (the
 * CLI over HTTP, behind a token) serves `/v0.1/servers` describing its backends and virtual
 * servers — every answer checked against the registry's OpenAPI document (vendored in the test
 * kit) — and gateway B installs backends by registry name from A: a virtual server as an HTTP
 * backend (its token an input), a package A installed from a local server.json as an npm stdio
 * backend (`npx -y`). A deleted entry, an unknown one, a missing input, a refused lookup and a
 * registry that is down each end the backend with the reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  type HttpProcess,
  registryResponseProblems,
  removeTempDirs,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';
import {
  everythingBackend,
  type InProcessGateway,
  spawnHttpGateway,
  startInProcess,
  textOf,
} from './helpers.js';

const TOKEN = 'registry-test-token-0123456789';
const NS = 'io.github.acme';
/** server-everything, a devDependency here: `npx -y` finds it without the network. */
const EVERYTHING_VERSION = '2026.8.31';
let a: HttpProcess;
let b: InProcessGateway;
let closedPort: number;

const get = async (path: string, token: string | null = TOKEN) => {
  const res = await fetch(`${a.url}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Reply };
};
interface Meta {
  status?: string;
  kind?: string;
  state?: string;
  tools?: number;
}
interface Entry {
  server: { name: string; version: string };
  _meta: Record<string, Meta>;
}
/** What the registry endpoints answer: a list, one entry, or an error. */
interface Reply extends Entry {
  servers: Entry[];
  metadata: { count: number; nextCursor?: string };
  error?: string;
}
/** A backend's `registry` in gateway_status. */
const registryOf = (status: { backends: Record<string, unknown> }, name: string) =>
  (status.backends[name] as { registry?: Record<string, string> } | undefined)?.registry;

beforeAll(async () => {
  const dir = tempDir('gw-registry-');
  const serverJson = join(dir, 'everything.server.json');
  writeFileSync(
    serverJson,
    JSON.stringify({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.modelcontextprotocol/server-everything',
      description: 'Every MCP feature, for testing clients',
      version: EVERYTHING_VERSION,
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-everything',
          version: EVERYTHING_VERSION,
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'positional', valueHint: 'transport', value: 'stdio' }],
        },
      ],
    }),
  );
  a = await spawnHttpGateway(
    {
      gateway: {
        name: 'team',
        registry: { namespace: NS, deprecated: ['servers.old'], deleted: ['servers.gone'] },
        servers: {
          main: { title: 'The team tools', tools: ['fx/*'] },
          old: { tools: ['fx/test_simple_text'] },
          gone: { tools: ['fx/test_simple_text'] },
        },
      },
      mcpServers: { fx: everythingBackend(), pkg: { server_json: serverJson } },
    },
    { args: ['--token', TOKEN], dir },
  );
  closedPort = await freePort();
  const from = { registry_url: a.url, registry_token: TOKEN };
  b = await startInProcess({
    mcpServers: {
      remote: { registry: `${NS}/servers.main@${VERSION}`, ...from, inputs: { token: TOKEN } },
      old: { registry: `${NS}/servers.old`, ...from, inputs: { token: TOKEN } },
      pkg: { registry: `${NS}/pkg@${EVERYTHING_VERSION}`, ...from },
      gone: { registry: `${NS}/servers.gone@${VERSION}`, ...from, inputs: { token: TOKEN } },
      unknown: { registry: `${NS}/nope`, ...from },
      noinput: { registry: `${NS}/servers.main@${VERSION}`, ...from },
      refused: { registry: `${NS}/servers.main`, registry_url: a.url },
      down: {
        registry: `${NS}/servers.main`,
        registry_url: `http://127.0.0.1:${closedPort}`,
        // Retried with the restart backoff: long enough to be seen waiting.
        restart: { initialDelayMs: 600_000, maxDelayMs: 600_000 },
      },
    },
  });
}, 120_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  removeTempDirs();
});

describe('the gateway as a registry (GET /v0.1/servers)', () => {
  it('lists the whole gateway, each virtual server and each backend, as the OpenAPI says', async () => {
    const { status, body } = await get('/v0.1/servers');
    expect(status).toBe(200);
    expect(registryResponseProblems('ServerList', body)).toEqual([]);
    const names = (body.servers as Entry[]).map((e) => e.server.name);
    // The deleted one is left out unless asked for.
    expect(names).toEqual([
      `${NS}/fx`,
      `${NS}/gateway.all`,
      `${NS}/pkg`,
      `${NS}/servers.main`,
      `${NS}/servers.old`,
    ]);
    const main = (body.servers as Entry[]).find((e) => e.server.name === `${NS}/servers.main`);
    expect(main?.server).toMatchObject({
      title: 'The team tools',
      remotes: [{ type: 'streamable-http', url: `${a.url}/servers/main/mcp` }],
    });
    // Health and counts under the gateway's own key; the status under the registry's.
    const fx = (body.servers as Entry[]).find((e) => e.server.name === `${NS}/fx`);
    expect(fx?._meta['io.github.mcpkit/gateway']).toMatchObject({
      kind: 'backend',
      state: 'running',
    });
    expect(fx?._meta['io.github.mcpkit/gateway']?.tools).toBeGreaterThan(5);
    const old = (body.servers as Entry[]).find((e) => e.server.name === `${NS}/servers.old`);
    expect(old?._meta['io.modelcontextprotocol.registry/official']?.status).toBe('deprecated');
    // A package it installed from a server.json is listed as that package.
    const pkg = (body.servers as Entry[]).find((e) => e.server.name === `${NS}/pkg`);
    expect(pkg?.server).toMatchObject({
      version: EVERYTHING_VERSION,
      packages: [{ registryType: 'npm', identifier: '@modelcontextprotocol/server-everything' }],
    });
  });

  it('pages with an opaque cursor, filters, and lists deleted entries when asked', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const { body } = await get(`/v0.1/servers?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(registryResponseProblems('ServerList', body)).toEqual([]);
      seen.push(...(body.servers as Entry[]).map((e) => e.server.name));
      cursor = body.metadata.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const all = await get('/v0.1/servers?include_deleted=true&search=SERVERS.');
    expect((all.body.servers as Entry[]).map((e) => e.server.name)).toEqual([
      `${NS}/servers.gone`,
      `${NS}/servers.main`,
      `${NS}/servers.old`,
    ]);
    const none = await get(`/v0.1/servers?version=0.0.0-none`);
    expect(none.body).toEqual({ servers: [], metadata: { count: 0 } });
  });

  it('answers one entry by name and version (latest too), URL-encoded or not', async () => {
    const name = encodeURIComponent(`${NS}/servers.main`);
    const versions = await get(`/v0.1/servers/${name}/versions`);
    expect(versions.status).toBe(200);
    expect(registryResponseProblems('ServerList', versions.body)).toEqual([]);
    for (const path of [
      `/v0.1/servers/${name}/versions/${VERSION}`,
      `/v0.1/servers/${name}/versions/latest`,
      `/v0.1/servers/${NS}/servers.main/versions/latest`,
    ]) {
      const one = await get(path);
      expect(one.status, path).toBe(200);
      expect(registryResponseProblems('ServerResponse', one.body)).toEqual([]);
      expect(one.body.server.name).toBe(`${NS}/servers.main`);
    }
    // A deleted entry is answered by version, so that an installer can say why it refuses it.
    const gone = await get(
      `/v0.1/servers/${encodeURIComponent(`${NS}/servers.gone`)}/versions/latest`,
    );
    expect(gone.body._meta['io.modelcontextprotocol.registry/official']?.status).toBe('deleted');
  });

  it('refuses what is not a registry request: 404, 400, 405, and 401 without the token', async () => {
    expect((await get(`/v0.1/servers/${encodeURIComponent(`${NS}/nope`)}/versions`)).status).toBe(
      404,
    );
    expect(
      (await get(`/v0.1/servers/${encodeURIComponent(`${NS}/fx`)}/versions/9.9.9`)).body,
    ).toEqual({ error: 'Server version not found' });
    expect((await get('/v0.1/servers?limit=0')).status).toBe(400);
    expect((await get('/v0.1/servers?limit=abc')).status).toBe(400);
    expect((await get('/v0.1/servers?updated_since=yesterday')).status).toBe(400);
    expect((await get('/v0.1/servers/%E0%A4%A/versions')).status).toBe(400);
    expect((await get('/v0.1/servers', null)).status).toBe(401);
    expect((await get('/v0.1/servers', 'wrong-token-0123456789')).status).toBe(401);
    const post = await fetch(`${a.url}/v0.1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
  it('answers any path and query under /v0.1/servers with JSON and a 2xx or 4xx, never a 5xx', async () => {
    // Seeded: the same 200 requests every run (bounded in count).
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const pieces = [
      'versions',
      'latest',
      '%2F',
      '%',
      '..',
      '',
      'x'.repeat(300),
      '%E0%A4%A',
      NS,
      '🙂',
    ];
    const params = ['limit', 'cursor', 'search', 'version', 'updated_since', 'include_deleted'];
    const values = ['0', '-1', '1e9', 'abc', '', '%ZZ', 'ÿÿÿ', '2026-01-01T00:00:00Z', 'true'];
    for (let i = 0; i < 200; i++) {
      const segments = Array.from({ length: next() % 5 }, () => pieces[next() % pieces.length]);
      const query = Array.from(
        { length: next() % 3 },
        () => `${params[next() % params.length]}=${values[next() % values.length]}`,
      ).join('&');
      const path = `/v0.1/servers${segments.length ? `/${segments.join('/')}` : ''}?${query}`;
      const res = await fetch(`${a.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get('content-type'), path).toBe('application/json');
      await res.json();
    }
  });
});

describe('a gateway installing from a registry (the other gateway)', () => {
  it('runs a virtual server of the other gateway as an HTTP backend, its token an input', async () => {
    const status = await b.status();
    expect(status.backends.remote).toMatchObject({ status: 'running' });
    expect(registryOf(status, 'remote')).toEqual({
      entry: `${NS}/servers.main@${VERSION}`,
      source: a.url,
      via: 'remote',
      status: 'active',
    });
    const tools = await b.toolNames();
    expect(tools).toContain('remote__fx__test_simple_text');
    const reply = await b.client.call('remote__fx__test_simple_text');
    expect(textOf(reply)).toContain('This is a simple text response for testing.');
  });

  it('runs a package the other gateway lists as an npm stdio backend (npx -y)', async () => {
    const status = await b.status();
    expect(status.backends.pkg).toMatchObject({ status: 'running' });
    expect(registryOf(status, 'pkg')).toMatchObject({ via: 'package' });
    expect(b.gateway.backends.get('pkg')?.runnable).toMatchObject({
      command: 'npx',
      args: ['-y', `@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}`, 'stdio'],
    });
    const reply = await b.client.call('pkg__echo', { message: 'from the registry' });
    expect(textOf(reply)).toContain('from the registry');
  });

  it('installs a deprecated entry and says so', async () => {
    const status = await b.status();
    expect(registryOf(status, 'old')).toMatchObject({ status: 'deprecated' });
    expect(status.backends.old?.status).toBe('running');
  });

  it('refuses a deleted entry, an unknown one, a missing input and a refused lookup, once each', async () => {
    const status = await b.status();
    const failed = (name: string) => status.backends[name];
    expect(failed('gone')).toMatchObject({ status: 'failed', restarts: 0 });
    expect(failed('gone')?.last_error).toBe(
      `${NS}/servers.gone@${VERSION} is deleted in the registry at ${a.url}: refused (its publisher withdrew it); pick another version or remove the backend`,
    );
    expect(failed('unknown')?.last_error).toBe(
      `${NS}/nope@latest is not in the registry at ${a.url}`,
    );
    expect(failed('noinput')?.last_error).toMatch(
      new RegExp(`^${NS}/servers.main@${VERSION} needs the input 'token' \\(The bearer token\\)`),
    );
    expect(failed('refused')?.last_error).toContain(
      '(HTTP 401): give the backend a registry_token',
    );
    for (const name of ['gone', 'unknown', 'noinput', 'refused']) {
      expect(failed(name)?.status, name).toBe('failed');
    }
  });

  it('waits to try again when the registry does not answer', async () => {
    const down = b.gateway.backends.get('down');
    expect(down?.state).toBe('backoff');
    expect(down?.lastError).toContain(`registry http://127.0.0.1:${closedPort} did not answer`);
  });
});
