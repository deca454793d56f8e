// @module-tag process
/**
 * The history and the alerts on this machine's real counters: the test burns every core with
 * child processes of its own and watches the server see it. Nothing here assumes an idle machine:
 * a burn of every core makes the whole CPU busy whatever else runs, and the alert rule's clear
 * level sits below the busy level so the burn cannot make it flap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { connectRaw } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlertRule } from '../src/alerts/rules.js';
import { ALERTS_URI } from '../src/resources.js';
import { createSystemInfoServer } from '../src/server.js';

const burners: ChildProcess[] = [];
afterAll(() => {
  for (const b of burners) b.kill('SIGKILL');
});

/** One busy-looping child per core; resolves once they all run. */
async function burn(): Promise<ChildProcess[]> {
  const started = Array.from({ length: availableParallelism() }, () =>
    // Bounded: a burner left behind by a crashed run stops by itself after two minutes.
    spawn(
      process.execPath,
      ['-e', 'process.send?.(1); const end = Date.now() + 120_000; while (Date.now() < end);'],
      {
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      },
    ),
  );
  burners.push(...started);
  await Promise.all(started.map((c) => new Promise((resolve) => c.once('message', resolve))));
  return started;
}

const busy: AlertRule = {
  id: 'busy',
  metric: 'cpu.percent',
  above: 90,
  for_seconds: 3,
  clear: 50,
  clear_for_seconds: 2,
  severity: 'warning',
  summary: 'CPU {value} %',
};

describe('history on the real machine', () => {
  it('shows a CPU burn in get_metric_history within one tier step, and raises its alert once', async () => {
    const { server, close } = createSystemInfoServer({ alerts: [busy] });
    const peer = connectRaw(server);
    try {
      await peer.initialize({ protocolVersion: '2025-11-25' });
      expect(await peer.result('resources/subscribe', { uri: ALERTS_URI })).toEqual({});
      const history = async () =>
        (
          await peer.result<{
            structuredContent: { points: { t: string; value: number | null }[] };
          }>('tools/call', {
            name: 'get_metric_history',
            arguments: { metric: 'cpu.percent', window: '1m', step: '1s' },
          })
        ).structuredContent.points;
      // The history has recorded before the burn.
      await expect
        .poll(async () => (await history()).filter((p) => p.value !== null).length, {
          timeout: 60_000,
        })
        .toBeGreaterThan(1);

      const children = await burn();
      const startedAt = Date.now();
      // The 1 s tier: each reading measures the second before it, so the second that starts one
      // step after the burn holds a whole second of it.
      const firstFull = Math.floor(startedAt / 1000) * 1000 + 1000;
      await expect
        .poll(
          async () =>
            (await history()).find((p) => Date.parse(p.t) === firstFull + 1000)?.value ?? null,
          { timeout: 60_000 },
        )
        .not.toBeNull();
      const points = await history();
      const within = points.filter((p) => {
        const t = Date.parse(p.t);
        return t >= firstFull && t <= firstFull + 1000;
      });
      expect(Math.max(...within.map((p) => p.value ?? 0))).toBeGreaterThanOrEqual(90);

      // Held for 3 s: raised, the subscriber told, exactly once while the burn goes on.
      await expect
        .poll(
          () =>
            peer.notifications.filter((n) => n.method === 'notifications/resources/updated').length,
          { timeout: 60_000 },
        )
        .toBe(1);
      const alerts = await peer.result<{
        structuredContent: { active: { rule: string; value_at_raise: number }[] };
      }>('tools/call', { name: 'get_alerts', arguments: {} });
      expect(alerts.structuredContent.active).toEqual([expect.objectContaining({ rule: 'busy' })]);
      expect(alerts.structuredContent.active[0]?.value_at_raise).toBeGreaterThan(90);
      // Two more seconds of burn: no second alert.
      const heard = peer.notifications.length;
      await new Promise((r) => setTimeout(r, 2000));
      expect(peer.notifications.length).toBe(heard);
      for (const c of children) c.kill('SIGKILL');
    } finally {
      close();
      await peer.close();
    }
  });
});
