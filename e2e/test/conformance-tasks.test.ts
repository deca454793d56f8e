// @module-tag conformance
// @module-tag process
/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) held to the official conformance suite:
 * every `tasks-*` server scenario of 0.2.0-alpha.12 against the fixture server, whose task tools
 * are the ones the suite's `tasks-lifecycle` names (packages/node/src/fixtures/task-tools.ts),
 * and against the gateway in front of it (its one backend, tools un-namespaced): the gateway's
 * tasks wrap the backend's, its input rounds and task asks relayed both ways.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_MODERN_SUITE } from '../../scripts/vitest/services.mjs';
import { conformanceCli, verdict } from './conformance-cli.js';
import {
  appEnv,
  type HttpApp,
  killAll,
  REPO,
  scratch,
  startHttp,
  startHttpServer,
} from './helpers.js';

afterAll(killAll);

/** Every tasks scenario of the suite (its `tasks-status-notifications` is a placeholder: skipped). */
const SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
] as const;

const FIXTURE = join(REPO, 'packages', 'node', 'dist', 'fixtures', 'everything.js');
/** One scenario's time limit: a hang fails it, it does not stall CI. */
const SCENARIO_TIMEOUT_MS = 2 * 60_000;

/** Runs `test` against `server`, showing its stderr when it fails, and stops it. */
async function against(server: HttpApp, label: string, test: () => Promise<void>): Promise<void> {
  try {
    await test();
  } catch (err) {
    console.error(`[${label}] stderr:\n${server.stderr().slice(-4000)}`);
    throw err;
  } finally {
    await server.stop();
  }
}

/** Each scenario against `url`: it must pass every check it makes. */
async function everyScenario(label: string, url: string): Promise<void> {
  let checks = 0;
  for (const scenario of SCENARIOS) {
    const r = await conformanceCli(
      CONFORMANCE_MODERN_SUITE,
      ['server', '--url', url, '--scenario', scenario],
      SCENARIO_TIMEOUT_MS,
    );
    const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(r.stdout);
    const shown = `${label} / ${scenario}: exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${verdict(r.stdout)}\n${r.stdout.slice(-3000)}`;
    expect.soft(r.code, shown).toBe(0);
    expect.soft(passed?.[3], shown).toBe('0');
    expect.soft(passed?.[1], shown).toBe(passed?.[2]);
    checks += Number(passed?.[1] ?? 0);
    console.log(
      `${label} / ${scenario}: ${passed ? `${passed[1]}/${passed[2]} checks` : 'no total'} (${r.ms} ms)`,
    );
  }
  // The scenarios that check something (all but the placeholder) checked it here.
  expect(checks).toBeGreaterThanOrEqual(40);
}

describe('conformance 0.2.0-alpha.12: the tasks scenarios', () => {
  it(
    'on the fixture server',
    async () => {
      const server = await startHttpServer({
        label: 'fixture',
        command: process.execPath,
        args: [
          FIXTURE,
          '--transport',
          'http',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--log-level',
          'info',
        ],
        env: { PATH: process.env.PATH ?? '' },
      });
      await against(server, 'fixture', () => everyScenario('fixture', server.mcpUrl));
    },
    SCENARIOS.length * SCENARIO_TIMEOUT_MS,
  );

  it(
    'through the gateway, the fixture its one backend (2026-07-28 link)',
    async () => {
      const s = scratch('conf-tasks-gateway');
      const config = s.path('gateway.json');
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            fixture: {
              command: process.execPath,
              args: [FIXTURE, '--log-level', 'warn'],
              protocol: '2026-07-28',
              namespace: false,
            },
          },
        }),
      );
      const gateway = await startHttp(
        'gateway',
        ['--config', config, '--events', s.path('events.db'), '--log-level', 'info'],
        appEnv(s),
      );
      try {
        await waitFor(
          'the fixture backend running',
          () => /"backend":"fixture","state":"running"/.test(gateway.stderr()) || undefined,
        );
        await against(gateway, 'gateway', () => everyScenario('gateway', gateway.mcpUrl));
      } finally {
        s.cleanup();
      }
    },
    SCENARIOS.length * SCENARIO_TIMEOUT_MS,
  );
});
