// @module-tag conformance
// @module-tag process
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_MODERN_SUITE, CONFORMANCE_SUITE } from '../../scripts/vitest/services.mjs';
import { conformanceCli, verdict } from './conformance-cli.js';
import {
  type AppName,
  type HttpApp,
  killAll,
  prepare,
  projectsOnlyGatewayConfig,
  type Scratch,
  scratch,
  startHttp,
} from './helpers.js';

afterAll(killAll);

/**
 * The runs each real app is held to — the ones the fixture is (packages/node/scripts/
 * conformance.mjs): the 2025 release's whole suite, and the release that knows MCP 2026-07-28 both
 * at that revision's requirement set and at 2025-11-25 with every scenario.
 */
const RUNS = [
  { key: '0.1.16 --suite all', suite: CONFORMANCE_SUITE, args: ['--suite', 'all'] },
  {
    key: '0.2.0-alpha.12 --requirements 2026-07-28',
    suite: CONFORMANCE_MODERN_SUITE,
    args: ['--requirements', '2026-07-28'],
  },
  {
    key: '0.2.0-alpha.12 --spec-version 2025-11-25 --suite all',
    suite: CONFORMANCE_MODERN_SUITE,
    args: ['--spec-version', '2025-11-25', '--suite', 'all'],
  },
] as const;

/** One app's expected failures: by run key, scenario → why (e2e/conformance/<app>.json). */
type ExpectedFailures = Readonly<Record<string, Readonly<Record<string, string>>>>;

const EXPECTED_DIR = fileURLToPath(new URL('../conformance/', import.meta.url));

/**
 * Scenarios an app fails by design, each with why — a fixture tool, prompt or resource of the
 * suite's own that the app does not have, never a spec violation. Handed to the suite as its
 * `--expected-failures` baseline, which also fails the run when one of them passes (the reason
 * is gone, and the entry with it).
 */
function expectedFailures(label: string): ExpectedFailures {
  const file = join(EXPECTED_DIR, `${label.replaceAll(' ', '-')}.json`);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const { $comment: _, ...runs } = parsed;
  return runs as ExpectedFailures;
}

/** The whole run's time limit: a scenario that hangs fails, it does not stall CI. */
const RUN_TIMEOUT_MS = 10 * 60_000;
/** The three runs, plus the app's start. */
const TEST_TIMEOUT_MS = 3 * RUN_TIMEOUT_MS + 60_000;

/** A suite's expected-failures file (its own YAML shape: `server:` and the scenario names). */
function baselineFile(s: Scratch, name: string, scenarios: readonly string[]): string {
  const file = s.path(`${name}.yml`);
  const list = scenarios.map((scenario) => `  - ${JSON.stringify(scenario)}`).join('\n');
  writeFileSync(file, scenarios.length > 0 ? `server:\n${list}\n` : 'server: []\n');
  return file;
}

/** Every run against `url`, each judged against the app's expected failures. */
async function allRuns(label: string, url: string, s: Scratch): Promise<void> {
  const expected = expectedFailures(label);
  for (const known of Object.keys(expected)) {
    expect(
      RUNS.some((r) => r.key === known),
      `${label}: expected failures for an unknown run '${known}'`,
    ).toBe(true);
  }
  for (const [i, { key, suite, args }] of RUNS.entries()) {
    const failing = expected[key] ?? {};
    const baseline = baselineFile(s, `expected-${i}`, Object.keys(failing));
    const r = await conformanceCli(
      suite,
      ['server', '--url', url, ...args, '--expected-failures', baseline],
      RUN_TIMEOUT_MS,
    );
    const shown = `${label} / ${key}: exit ${r.code}${r.timedOut ? ' (timed out)' : ''} in ${r.ms} ms\n${verdict(r.stdout)}\n${r.stdout.slice(-4000)}\n${r.stderr
      .split('\n')
      .filter((l) => !l.startsWith('npm warn'))
      .join('\n')
      .slice(-2000)}`;
    expect.soft(r.code, shown).toBe(0);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(r.stdout);
    console.log(
      `${label} / ${key}: ${total ? `${total[1]} checks passed, ${total[2]} failed` : 'no total'}; ${Object.keys(failing).length} scenario(s) expected to fail (${r.ms} ms)`,
    );
    for (const [scenario, why] of Object.entries(failing)) {
      console.log(`  ~ ${scenario}: ${why}`);
    }
  }
}

async function againstApp(
  label: string,
  app: AppName,
  s: Scratch,
  backends: readonly string[] = [],
  extraArgs: (s: Scratch) => string[] = () => [],
) {
  let server: HttpApp | undefined;
  try {
    const prepared = await prepare(app, s);
    server = await startHttp(app, [...prepared.httpArgs, ...extraArgs(s)], prepared.env);
    // A gateway serves at once and logs each backend's state once they have started: the
    // backends must be up (logged running), or the scenarios would only see its own tools.
    for (const backend of backends) {
      const running = new RegExp(`"backend":"${backend}","state":"running"`);
      await waitFor(
        `backend ${backend} running`,
        () => running.test(server?.stderr() ?? '') || undefined,
        20_000,
      );
    }
    await allRuns(label, server.mcpUrl, s);
  } catch (err) {
    if (server) console.error(`[${label}] server stderr:\n${server.stderr().slice(-4000)}`);
    throw err;
  } finally {
    await server?.stop();
    s.cleanup();
  }
}

describe('the official conformance suites against each real app on /mcp', () => {
  it(
    'system-info',
    async () => {
      await againstApp('system-info', 'system-info', scratch('conf-sysinfo'));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'gateway (default backends: projects and system-info)',
    async () => {
      await againstApp('gateway', 'gateway', scratch('conf-gateway'), ['projects', 'system-info']);
    },
    TEST_TIMEOUT_MS,
  );

  /**
   * projects requires an API key on every HTTP request (there is no anonymous mode) and the
   * conformance CLI cannot send an Authorization header, so its scenarios run against projects
   * through a gateway that has projects as its only backend.
   */
  it(
    'projects, through a gateway with projects as its only backend',
    async () => {
      await againstApp(
        'projects via gateway',
        'gateway',
        scratch('conf-projects'),
        ['projects'],
        (s) => ['--config', projectsOnlyGatewayConfig(s)],
      );
    },
    TEST_TIMEOUT_MS,
  );

  it('projects directly: why the suite cannot run there (401 without a key, Host checked first)', async () => {
    const s = scratch('conf-projects-direct');
    let server: HttpApp | undefined;
    try {
      const prepared = await prepare('projects', s, true);
      server = await startHttp('projects', prepared.httpArgs, prepared.env);
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'mcpkit-e2e', version: '0.0.0' },
        },
      });
      const post = (headers: Record<string, string>) =>
        fetch(server?.mcpUrl as string, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: initialize,
          signal: AbortSignal.timeout(10_000),
        });

      // What the conformance client sends: no Authorization header.
      const anonymous = await post({});
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await anonymous.json()).toMatchObject({ error: { code: -32001 } });

      // DNS rebinding is refused before authentication, with or without a key.
      const rebound = await post({ host: 'evil.example', origin: 'http://evil.example' });
      expect(rebound.status).toBe(403);

      // With a key the same request succeeds.
      const keyed = await post({ authorization: `Bearer ${prepared.apiKey}` });
      expect(keyed.status).toBe(200);
      expect(await keyed.json()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    } finally {
      await server?.stop();
      s.cleanup();
    }
  });
});
