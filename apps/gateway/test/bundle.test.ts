// @module-tag process
/**
 * What only the bundled CLI (dist/bundle, which the bin runs over stdio; scripts/bundle-cli.mjs)
 * could get wrong: what loads before the early spawn, and what its modules load at run time from
 * their unbundled places — pino-pretty through `createRequire`, ioredis through @mcpkit/fleet's
 * late import, the version from package.json. The rest of the suite runs the bin too.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRedisStateStore } from '@mcpkit/fleet';
import { removeTempDirs, runProcess } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLED_CLI,
  backend,
  CLI,
  GATEWAY_DIR,
  handshake,
  killAllGateways,
  spawnHttpGateway,
  startGateway,
  textOf,
} from './helpers.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUNDLE = join(GATEWAY_DIR, 'dist', 'bundle');

afterAll(async () => {
  await killAllGateways();
  removeTempDirs();
});

/** The bundle's files a start loads before its first `await import()`: cli.js and its static imports. */
function loadedFirst(): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    const source = readFileSync(file, 'utf8');
    files.set(file, source);
    for (const [, path] of source.matchAll(/^(?:import|export)\b[^;'"]*?\bfrom\s*"(\.[^"]+)"/gm)) {
      visit(join(dirname(file), path as string));
    }
    for (const [, path] of source.matchAll(/^import\s*"(\.[^"]+)"/gm)) {
      visit(join(dirname(file), path as string));
    }
  };
  visit(join(BUNDLE, 'cli.js'));
  return files;
}

/** Every key under `prefix`. */
async function keysOf(
  store: Awaited<ReturnType<typeof createRedisStateStore>>,
  prefix: string,
): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await store.client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('the bundled gateway CLI (the bin)', () => {
  it('spawns before it loads the engine: nothing of zod is in what loads first', () => {
    const first = loadedFirst();
    const all = [...first.values()].join('\n');
    // The early spawn's own code is there (esbuild writes a class as `var Name = class`) …
    expect(all).toMatch(/\bStdioClientTransport = class\b/);
    expect(all).toContain('function prestartBackends');
    // … and the engine is not: @mcpkit/protocol's main entry point would bring zod with it.
    expect(all).not.toContain('ZodError');
    expect(all).not.toMatch(/\bMcpServer = class\b/);
  });

  it("carries zod's English messages alone, not its ~50 other locales", () => {
    const all = readdirSync(BUNDLE, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(BUNDLE, file), 'utf8'))
      .join('\n');
    // esbuild heads each module it bundles with a comment naming its path.
    const locales = [...all.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map(([, name]) => name);
    expect(new Set(locales)).toEqual(new Set(['en']));
  });

  it('prints the version of its package.json', async () => {
    const run = await runProcess(process.execPath, [CLI, '--version']);
    expect(run.code, run.stderr).toBe(0);
    const { version } = JSON.parse(readFileSync(join(GATEWAY_DIR, 'package.json'), 'utf8'));
    expect(run.stdout.trim()).toBe(version);
  });

  it('writes pretty logs with pino-pretty, required from @mcpkit/node', async () => {
    const gw = startGateway(
      { mcpServers: { rich: backend('rich') } },
      { logLevel: 'info', args: ['--log-format', 'pretty'] },
    );
    await handshake(gw);
    expect(textOf(await gw.call('rich__echo', { text: 'pretty' }))).toBe('pretty');
    const line = gw
      .stderr()
      .split('\n')
      .find((l) => l.includes('serving MCP on stdio'));
    expect(line).toMatch(/\bINFO\b.*serving MCP on stdio/);
    expect(line?.trimStart().startsWith('{')).toBe(false);
    expect(await gw.end()).toStrictEqual({ code: 0, signal: null });
  }, 30_000);

  it('keeps fleet state in Redis through ioredis, imported from @mcpkit/fleet', async () => {
    const prefix = `mcpkit:gw-bundle:${process.pid}:${randomBytes(4).toString('hex')}:`;
    const gateway = await spawnHttpGateway(
      { mcpServers: { rich: backend('rich') } },
      {
        // The bundle itself: over HTTP the bin runs the unbundled CLI.
        cli: BUNDLED_CLI,
        args: ['--redis-url', REDIS_URL, '--redis-prefix', prefix, '--log-level', 'info'],
      },
    );
    const store = await createRedisStateStore(REDIS_URL, { prefix });
    try {
      expect(gateway.stderr()).toContain('fleet mode: shared state in Redis');
      const client = await gateway.connect();
      const result = await client.callTool('rich__echo', { text: 'fleet' });
      expect(result.content[0]).toStrictEqual({ type: 'text', text: 'fleet' });
      expect((await keysOf(store, prefix)).length).toBeGreaterThan(0);
    } finally {
      await gateway.stop();
      const keys = await keysOf(store, prefix);
      if (keys.length > 0) await store.client.del(...keys);
      await store.close();
    }
  }, 60_000);
});
