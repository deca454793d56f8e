/**
 * The history tools and resources over the wire, on fake collectors and a fake per-second source
 * driven by hand on a fixed clock: get_metric_history, top_consumers, find_process_by_port,
 * get_alerts, sysinfo://alerts (subscribed in both eras) and the metric resources.
 */
import { META } from '@mcpkit/protocol';
import { connectRaw, connectWire } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertRule } from '../src/alerts/rules.js';
import type { FastReading, FastSource } from '../src/history/sources.js';
import { ALERTS_URI, metricUri } from '../src/resources.js';
import { createSystemInfoServer } from '../src/server.js';
import {
  connect,
  NOW,
  normalMachine,
  SECRET_COMMAND_REDACTED,
  SECRET_PID,
  textOf,
} from './fixtures.js';

function reading(cpu: number): FastReading {
  return {
    cpu: { total: cpu, user: cpu, system: 0, iowait: 0, cores: [cpu, cpu] },
    load: [0.5, 0.4, 0.3],
    memory: { totalBytes: 1000, availableBytes: 400, swapTotalBytes: 0, swapFreeBytes: 0 },
    memoryPressure: null,
    swapPagesPerSec: null,
    disk: null,
    net: new Map(),
  };
}

const cpuRule: AlertRule = {
  id: 'cpu_high',
  metric: 'cpu.percent',
  above: 90,
  for_seconds: 3,
  clear: 80,
  clear_for_seconds: 2,
  severity: 'warning',
  summary: 'CPU {value} %',
};

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server whose history reads `next` on demand, at `clock.now`. */
function setup(rules: AlertRule[] = [cpuRule]) {
  const clock = { now: NOW };
  const state = { next: reading(10) };
  const source: FastSource = { kind: 'procfs', read: async () => state.next };
  const made = createSystemInfoServer({
    collectors: normalMachine(),
    sampler: { now: () => clock.now },
    history: { source, now: () => clock.now },
    alerts: rules,
    warm: false,
  });
  const client = connect(made.server);
  closers.push(() => client.peer.close());
  /** Record one reading per value, one second apart. */
  const feed = async (...cpus: number[]) => {
    for (const cpu of cpus) {
      clock.now += 1000;
      state.next = reading(cpu);
      await made.history.readFast();
    }
  };
  return { ...made, client, clock, feed };
}

describe('get_metric_history', () => {
  it('answers the recorded values per step with a summary, as its outputSchema says', async () => {
    const { client, feed } = setup([]);
    await feed(10, 20, 30, 40);
    const r = await client.structured('get_metric_history', {
      metric: 'cpu.percent',
      window: '10s',
      step: '1s',
    });
    expect(r).toMatchObject({
      metric: 'cpu.percent',
      unit: 'percent',
      window: '10s',
      step: '1s',
      tier: '1s',
      aggregate: 'avg',
      summary: { min: 10, max: 40, avg: 25, latest: 40, points_with_data: 4 },
      sampled_at: new Date(NOW + 4000).toISOString(),
    });
    const points = r.points as { t: string; value: number | null }[];
    expect(points).toHaveLength(10);
    expect(points.slice(-4).map((p) => p.value)).toEqual([10, 20, 30, 40]);
    expect(points[0]?.value).toBeNull();
    const max = await client.structured('get_metric_history', {
      metric: 'cpu.percent:1',
      window: '10s',
      step: '5s',
      aggregate: 'max',
    });
    expect(
      (max.points as { value: number | null }[]).map((p) => p.value).filter((v) => v !== null),
    ).toContain(40);
  });

  it('chooses a step of about 120 points by default, at least the stored resolution', async () => {
    const { client, feed } = setup([]);
    await feed(1);
    const hour = await client.structured('get_metric_history', { metric: 'load.1m', window: '1h' });
    expect(hour).toMatchObject({ step: '30s', tier: '10s' });
    const day = await client.structured('get_metric_history', { metric: 'load.1m', window: '2d' });
    expect(day).toMatchObject({ step: '24m', tier: '1m' });
  });

  it.each([
    [{ metric: 'cpu.bogus' }, "Unknown metric 'cpu.bogus'"],
    [
      { metric: 'disk.used_percent:/nope' },
      "No history of 'disk.used_percent:/nope' on this machine (mounts recorded: none)",
    ],
    [{ metric: 'swap.used_percent' }, "No history of 'swap.used_percent' on this machine yet"],
    [{ metric: 'cpu.percent', window: '3d' }, 'longer than the history keeps (2d)'],
    [{ metric: 'cpu.percent', window: '6h', step: '1s' }, 'use a step of at least 22s'],
  ])('answers %j with an error result the model can act on', async (args, message) => {
    const { client, feed } = setup([]);
    await feed(1);
    const r = await client.result('get_metric_history', args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(message);
  });

  it.each([
    { metric: 'cpu.percent', window: '0m' },
    { metric: 'cpu.percent', window: '10 minutes' },
    { metric: '' },
  ])('refuses the malformed arguments %j as a tool error naming them', async (args) => {
    const { client } = setup([]);
    const r = await client.result('get_metric_history', args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/invalid/i);
  });
});

describe('top_consumers and find_process_by_port', () => {
  it('ranks the processes sampled in the window', async () => {
    const { client, history, clock } = setup([]);
    await history.readProcesses();
    clock.now += 10_000;
    await history.readProcesses();
    const r = await client.structured('top_consumers', { window: '10m', top: 2 });
    expect(r).toMatchObject({ window: '10m', by: 'cpu', step: '10s', sampled_seconds: 20 });
    const consumers = r.consumers as Record<string, unknown>[];
    expect(consumers.map((c) => c.name)).toEqual(['node', 'java']);
    expect(consumers[0]).toMatchObject({
      pid: 1024,
      cpu_seconds: 7.1,
      cpu_percent_avg: 35.7,
      samples: 2,
    });
    expect(consumers[0]).not.toHaveProperty('command');
    const mem = await client.structured('top_consumers', {
      by: 'memory',
      top: 1,
      include_cmdline: true,
    });
    expect(mem.consumers).toEqual([
      expect.objectContaining({ name: 'java', command: 'java -Xmx4g -jar app.jar' }),
    ]);
    const secret = await client.structured('top_consumers', {
      by: 'memory',
      top: 3,
      include_cmdline: true,
    });
    expect(
      (secret.consumers as { pid: number; command: string }[]).find((c) => c.pid === SECRET_PID)
        ?.command,
    ).toBe(SECRET_COMMAND_REDACTED);
  });

  it('answers an empty ranking before any sample, and refuses a window beyond 48h', async () => {
    const { client } = setup([]);
    expect(await client.structured('top_consumers', {})).toMatchObject({
      consumers: [],
      sampled_seconds: 0,
    });
    const r = await client.result('top_consumers', { window: '3d' });
    expect(r.isError).toBe(true);
  });

  it('finds the listener of a port with its process, and says when it cannot see the owner', async () => {
    const { client } = setup([]);
    const pg = await client.structured('find_process_by_port', {
      port: 5432,
      include_cmdline: true,
    });
    expect(pg).toMatchObject({
      port: 5432,
      found: true,
      note: null,
      listeners: [
        {
          protocol: 'tcp',
          address: '0.0.0.0',
          pid: SECRET_PID,
          process: 'postgres',
          user: 'postgres',
          cpu_percent: 12.3,
          command: SECRET_COMMAND_REDACTED,
        },
      ],
    });
    const ssh = await client.structured('find_process_by_port', { port: 22, protocol: 'tcp' });
    expect((ssh.listeners as { protocol: string }[]).map((l) => l.protocol)).toEqual([
      'tcp',
      'tcp6',
    ]);
    const dns = await client.structured('find_process_by_port', { port: 53 });
    expect(dns).toMatchObject({
      found: true,
      listeners: [{ pid: null, user: null }, { pid: null }],
    });
    expect(dns.note).toContain('not visible');
    expect(await client.structured('find_process_by_port', { port: 9 })).toMatchObject({
      found: false,
      listeners: [],
      note: null,
    });
    // Arguments outside the schema: a tool error the model can correct (SEP-1303), not a crash.
    const bad = await client.result('find_process_by_port', { port: 70_000 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('port');
  });
});

describe('alerts', () => {
  it('a breach longer than the hold raises exactly one alert; a clear resolves it once (get_alerts)', async () => {
    const { client, feed } = setup();
    await feed(95, 95, 95);
    expect(await client.structured('get_alerts')).toMatchObject({ active: [] });
    await feed(96, 99, 91, 85, 92, 95);
    const firing = await client.structured('get_alerts');
    expect(firing.active).toEqual([
      expect.objectContaining({
        id: 1,
        rule: 'cpu_high',
        state: 'firing',
        peak: 99,
        value_at_raise: 96,
      }),
    ]);
    await feed(50, 50, 50, 50);
    const after = await client.structured('get_alerts', { limit: 10 });
    expect(after.active).toEqual([]);
    expect(after.history).toEqual([expect.objectContaining({ id: 1, state: 'resolved' })]);
    expect(after.rules).toEqual([
      expect.objectContaining({ id: 'cpu_high', above: 90, clear: 80 }),
    ]);
  });

  it('tells a 2025-11-25 subscriber of sysinfo://alerts once on raise and once on clear', async () => {
    const { server, feed } = setup();
    const peer = connectRaw(server);
    closers.push(() => peer.close());
    await peer.initialize({ protocolVersion: '2025-11-25' });
    expect(await peer.result('resources/subscribe', { uri: ALERTS_URI })).toEqual({});
    await feed(95, 95, 95, 95, 95, 89, 91, 95, 85, 70, 70, 70, 70);
    await peer.settle();
    const updates = peer.notifications.filter(
      (n) =>
        n.method === 'notifications/resources/updated' &&
        (n.params as { uri: string }).uri === ALERTS_URI,
    );
    expect(updates).toHaveLength(2);
    const read = await peer.result<{ contents: { text: string; mimeType: string }[] }>(
      'resources/read',
      { uri: ALERTS_URI },
    );
    expect(read.contents[0]?.mimeType).toBe('application/json');
    expect(JSON.parse(read.contents[0]?.text ?? '{}').history).toEqual([
      expect.objectContaining({ rule: 'cpu_high', state: 'resolved' }),
    ]);
  });

  it('tells a 2026-07-28 subscriptions/listen naming sysinfo://alerts once on raise and once on clear', async () => {
    const { server, feed } = setup();
    const c = await connectWire(server, 'modern');
    closers.push(() => c.peer.close());
    const listening = c.peer.send({
      jsonrpc: '2.0',
      id: 'alerts',
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: [ALERTS_URI] },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'listener', version: '1.0.0' },
        },
      },
    });
    await c.peer.settle();
    await feed(95, 95, 95, 95, 95, 89, 91, 95, 85, 70, 70, 70, 70);
    await c.peer.settle();
    const updates = c.peer.notifications.filter(
      (n) => n.method === 'notifications/resources/updated',
    );
    expect(updates).toEqual([
      {
        method: 'notifications/resources/updated',
        params: { uri: ALERTS_URI, _meta: { [META.subscriptionId]: 'alerts' } },
      },
      {
        method: 'notifications/resources/updated',
        params: { uri: ALERTS_URI, _meta: { [META.subscriptionId]: 'alerts' } },
      },
    ]);
    expect(await c.problems()).toEqual([]);
    await c.peer.close();
    await expect(listening).resolves.toBeUndefined();
  });
});

describe('metric resources', () => {
  it('lists a resource per recorded series and reads its last 10 minutes', async () => {
    const { client, feed } = setup([]);
    await feed(10, 20);
    const list = await client.peer.result<{ resources: { uri: string; name: string }[] }>(
      'resources/list',
      {},
    );
    const uris = list.resources.map((r) => r.uri);
    expect(uris).toContain(ALERTS_URI);
    expect(uris).toContain(metricUri('cpu.percent:0'));
    expect(metricUri('disk.used_percent:/var')).toBe(
      'sysinfo://metrics/disk.used_percent%3A%2Fvar',
    );
    const read = await client.peer.result<{ contents: { text: string }[] }>('resources/read', {
      uri: metricUri('cpu.percent'),
    });
    const body = JSON.parse(read.contents[0]?.text ?? '{}');
    expect(body).toMatchObject({ metric: 'cpu.percent', unit: 'percent', step_ms: 1000 });
    expect(body.points).toHaveLength(600);
    expect(body.points.slice(-2).map((p: [number, number]) => p[1])).toEqual([10, 20]);
    const missing = await client.peer.request('resources/read', {
      uri: metricUri('swap.used_percent'),
    });
    expect(missing.error).toMatchObject({
      code: -32002,
      message: "No metric series 'swap.used_percent' is recorded",
    });
  });
});
