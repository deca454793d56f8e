import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type RegistryBackendConfig } from '../config.js';
import { parseRegistryRef, resolveRegistryBackend } from './install.js';
import { RegistryEntryError } from './server-json.js';

const ENTRY = {
  name: 'io.github.acme/weather',
  description: 'Weather',
  version: '1.2.3',
  packages: [
    {
      registryType: 'npm',
      identifier: '@acme/weather',
      version: '1.2.3',
      transport: { type: 'stdio' },
    },
  ],
};

/** A registry that answers each path as the test scripted it (status and body). */
const answers = new Map<string, { status: number; body: string; chunked?: boolean }>();
let registry: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = tempDir('gw-install-');
  registry = createServer((req, res) => {
    const a = answers.get(req.url ?? '') ?? { status: 404, body: '{"error":"Server not found"}' };
    res.writeHead(a.status, { 'content-type': 'application/json' });
    if (!a.chunked) {
      res.end(a.body);
      return;
    }
    // Without a Content-Length: the size shows only as it is read.
    for (let i = 0; i < a.body.length; i += 64 * 1024) res.write(a.body.slice(i, i + 64 * 1024));
    res.end();
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => registry.close(resolve));
  removeTempDirs();
});

const declared = (backend: Record<string, unknown>) =>
  parseConfig({ mcpServers: { w: backend } }).mcpServers.w as RegistryBackendConfig;
const resolveIt = (backend: Record<string, unknown>) =>
  resolveRegistryBackend(declared(backend), { configDir: dir, timeoutMs: 5000 });
const path = (version: string) =>
  `/v0.1/servers/${encodeURIComponent(ENTRY.name)}/versions/${version}`;

/** What a resolution throws: its message, and whether an operator must act (permanent). */
async function refused(
  backend: Record<string, unknown>,
): Promise<{ message: string; permanent: boolean }> {
  try {
    await resolveIt(backend);
  } catch (err) {
    return { message: (err as Error).message, permanent: RegistryEntryError.is(err) };
  }
  throw new Error('resolved');
}

describe('resolveRegistryBackend', () => {
  it('keeps what every backend has (namespace, restart policy, scopes) and drops the registry fields', async () => {
    answers.set(path('1.2.3'), { status: 200, body: JSON.stringify({ server: ENTRY }) });
    const { config, origin } = await resolveIt({
      registry: `${ENTRY.name}@1.2.3`,
      registry_url: `${base}/`,
      namespace: 'wx',
      scopes: ['weather'],
      restart: { policy: 'never' },
    });
    expect(config).toEqual({
      command: 'npx',
      args: ['-y', '@acme/weather@1.2.3'],
      env: {},
      inheritEnv: false,
      namespace: 'wx',
      scopes: ['weather'],
      restart: expect.objectContaining({ policy: 'never' }),
      enabled: true,
      required: false,
      protocol: 'auto',
    });
    expect(origin).toMatchObject({
      name: ENTRY.name,
      version: '1.2.3',
      source: base,
      status: 'active',
      via: 'package',
    });
  });

  it('reads a local server.json relative to the config file', async () => {
    writeFileSync(join(dir, 'weather.json'), JSON.stringify(ENTRY));
    const { origin } = await resolveIt({ server_json: 'weather.json' });
    expect(origin.source).toBe(join(dir, 'weather.json'));
    writeFileSync(join(dir, 'broken.json'), '{ not json');
    writeFileSync(join(dir, 'nameless.json'), JSON.stringify({ ...ENTRY, name: 'no-slash' }));
    expect(await refused({ server_json: 'broken.json' })).toEqual({
      message: `server_json ${join(dir, 'broken.json')} is not JSON`,
      permanent: true,
    });
    expect((await refused({ server_json: 'nameless.json' })).message).toBe(
      `server_json ${join(dir, 'nameless.json')}: name: a reverse-DNS name with one /`,
    );
    expect((await refused({ server_json: 'missing.json' })).message).toMatch(
      /^cannot read server_json .*ENOENT/,
    );
  });

  it('refuses answers that are not the entry asked for, and retries a registry that fails', async () => {
    const at = { registry_url: base };
    answers.set(path('2.0.0'), { status: 200, body: 'not json' });
    expect(await refused({ registry: `${ENTRY.name}@2.0.0`, ...at })).toEqual({
      message: `registry ${base} answered ${ENTRY.name}@2.0.0 with something that is not JSON`,
      permanent: true,
    });
    answers.set(path('2.0.1'), { status: 200, body: JSON.stringify({ server: { name: 'x' } }) });
    expect((await refused({ registry: `${ENTRY.name}@2.0.1`, ...at })).message).toContain(
      'with an entry that is not a server.json: server.name',
    );
    answers.set(path('2.0.2'), { status: 200, body: JSON.stringify({ server: ENTRY }) });
    expect((await refused({ registry: `${ENTRY.name}@2.0.2`, ...at })).message).toBe(
      `registry ${base} answered ${ENTRY.name}@2.0.2 with ${ENTRY.name}@1.2.3`,
    );
    answers.set(path('2.0.3'), {
      status: 200,
      body: JSON.stringify({ server: ENTRY, pad: 'x'.repeat(1024 * 1024) }),
    });
    expect((await refused({ registry: `${ENTRY.name}@2.0.3`, ...at })).message).toContain(
      'is over 1 MiB',
    );
    answers.set(path('2.0.5'), {
      status: 200,
      body: JSON.stringify({ server: ENTRY, pad: 'x'.repeat(1024 * 1024) }),
      chunked: true,
    });
    expect(await refused({ registry: `${ENTRY.name}@2.0.5`, ...at })).toEqual({
      message: `registry ${base}: the entry ${ENTRY.name}@2.0.5 is over 1 MiB`,
      permanent: true,
    });
    answers.set(path('2.0.4'), { status: 503, body: '{}' });
    // A registry that fails may come back: not permanent (the backend's restart backoff retries).
    expect(await refused({ registry: `${ENTRY.name}@2.0.4`, ...at })).toEqual({
      message: `registry ${base} answered HTTP 503 for ${ENTRY.name}@2.0.4`,
      permanent: false,
    });
    expect(
      (
        await refused({
          registry: ENTRY.name,
          registry_url: 'http://10.0.0.1:9',
          registry_token: 't',
        })
      ).message,
    ).toBe(
      'registry http://10.0.0.1:9: registry_token is sent over https only (or to 127.0.0.1): use an https registry_url',
    );
    answers.set(path('latest'), {
      status: 200,
      body: JSON.stringify({
        server: ENTRY,
        _meta: { 'io.modelcontextprotocol.registry/official': { status: 'deprecated' } },
      }),
    });
    expect((await resolveIt({ registry: ENTRY.name, ...at })).origin.status).toBe('deprecated');
  });
});

describe('registry backends in the config', () => {
  const problem = (backend: Record<string, unknown>) => {
    try {
      parseConfig({ mcpServers: { w: backend } });
    } catch (err) {
      return (err as Error).message.split('\n')[1]?.trim();
    }
    return undefined;
  };

  it('takes a registry name or a server.json, not both, and nothing of a stdio or HTTP backend', () => {
    expect(problem({ registry: 'io.github.acme/weather@1.0.0' })).toBeUndefined();
    expect(problem({ registry: 'weather' })).toBe(
      'mcpServers.w.registry: a registry name, optionally @version: "io.github.owner/server@1.2.3"',
    );
    expect(problem({ registry: 'a.b/c', server_json: 'x.json' })).toBe(
      'mcpServers.w.registry: give `registry` (a name in a registry) or `server_json` (a local file), one of them',
    );
    expect(problem({ server_json: 'x.json', registry_url: 'https://r.example' })).toBe(
      'mcpServers.w.registry_url: `registry_url` is where `registry` is looked up: give `registry` too',
    );
    expect(problem({ registry: 'a.b/c', command: 'node' })).toBe(
      'mcpServers.w: a registry backend runs what its entry says: drop `command` / `url`',
    );
    expect(problem({ registry: 'a.b/c', credential: { type: 'env', variable: 'X' } })).toContain(
      'a registry backend takes no per-person credential',
    );
  });

  it('splits name@version', () => {
    expect(parseRegistryRef('io.github.a/b@1.0.0')).toEqual({
      name: 'io.github.a/b',
      version: '1.0.0',
    });
    expect(parseRegistryRef('io.github.a/b')).toEqual({
      name: 'io.github.a/b',
      version: undefined,
    });
  });
});
