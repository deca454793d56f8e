// @module-tag process
/**
 * Several hosts behind one gateway: two system-info instances over HTTP, each with its own token
 * and alert rules, namespaced `host_a` and `host_b` — the setup system-info's README documents
 * ("Many hosts"). Each host's history, alerts and dashboard answer under its own prefix; the
 * second host's alerts resource, whose URI the first already uses, is reachable under the
 * gateway's rewritten URI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectRaw,
  type HttpProcess,
  type RawPeer,
  removeTempDirs,
  spawnHttpServer,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

const SYSINFO = fileURLToPath(new URL('../../system-info/dist/cli.js', import.meta.url));
const TOKENS = { a: 'host-a-token-0123456789', b: 'host-b-token-0123456789' };
const hosts: HttpProcess[] = [];
let gateway: Gateway;
let client: RawPeer;

type Structured = { structuredContent: Record<string, unknown>; isError?: boolean };
const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.result<Structured>('tools/call', { name, arguments: args })) as Structured;

beforeAll(async () => {
  const dir = tempDir('many-hosts-');
  // host b has a rule that fires at its first reading: the two hosts tell apart by their alerts.
  const alerts = join(dir, 'alerts-b.json');
  writeFileSync(
    alerts,
    JSON.stringify({ rules: [{ id: 'always', metric: 'load.1m', below: 1e9, clear: 2e9 }] }),
  );
  for (const [token, extra] of [
    [TOKENS.a, []],
    [TOKENS.b, ['--alerts-file', alerts]],
  ] as const) {
    hosts.push(
      await spawnHttpServer(
        process.execPath,
        [SYSINFO, '--transport', 'http', '--port', '0', ...extra],
        { timeoutMs: 20_000, env: { MCP_SYSINFO_TOKEN: token } },
      ),
    );
  }
  const [a, b] = hosts as [HttpProcess, HttpProcess];
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        'host-a': {
          url: `${a.url}/mcp`,
          namespace: 'host_a',
          headers: { Authorization: `Bearer ${TOKENS.a}` },
        },
        'host-b': {
          url: `${b.url}/mcp`,
          namespace: 'host_b',
          headers: { Authorization: `Bearer ${TOKENS.b}` },
        },
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  client = connectRaw(gateway.server);
  await client.initialize({ protocolVersion: '2025-11-25' });
});

afterAll(async () => {
  await client?.close();
  await gateway?.stop();
  for (const h of hosts) h.kill();
  removeTempDirs();
});

describe('many system-info hosts behind the gateway', () => {
  it('lists each host’s history tools under its namespace', async () => {
    const { tools } = await client.result<{ tools: { name: string }[] }>('tools/list', {});
    const names = tools.map((t) => t.name);
    for (const ns of ['host_a', 'host_b']) {
      for (const tool of [
        'get_metric_history',
        'top_consumers',
        'find_process_by_port',
        'get_alerts',
      ]) {
        expect(names).toContain(`${ns}__${tool}`);
      }
    }
  });

  it('answers each host’s own history and alerts', async () => {
    for (const ns of ['host_a', 'host_b']) {
      await expect
        .poll(
          async () =>
            (
              (await call(`${ns}__get_metric_history`, { metric: 'cpu.percent', window: '1m' }))
                .structuredContent?.summary as { points_with_data?: number } | undefined
            )?.points_with_data ?? 0,
          { timeout: 30_000 },
        )
        .toBeGreaterThan(0);
    }
    const a = await call('host_a__get_alerts');
    const b = await call('host_b__get_alerts');
    expect(a.structuredContent.active).toEqual([]);
    expect(b.structuredContent.active).toEqual([expect.objectContaining({ rule: 'always' })]);
  });

  it('reads both hosts’ alerts resources: the second under the gateway’s rewritten URI', async () => {
    const { resources } = await client.result<{ resources: { uri: string }[] }>(
      'resources/list',
      {},
    );
    const uris = resources.map((r) => r.uri);
    const second = `gateway://host_b/${encodeURIComponent('sysinfo://alerts')}`;
    expect(uris).toEqual(expect.arrayContaining(['sysinfo://alerts', second]));
    const read = async (uri: string) =>
      JSON.parse(
        (await client.result<{ contents: { text: string }[] }>('resources/read', { uri }))
          .contents[0]?.text ?? '{}',
      ) as { rules: { id: string }[] };
    expect((await read('sysinfo://alerts')).rules.map((r) => r.id)).toContain('cpu_high');
    expect((await read(second)).rules.map((r) => r.id)).toContain('always');
  });
});
