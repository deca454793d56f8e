#!/usr/bin/env node
/**
 * Puts the MCP conformance suites and the Node 22 their CLI needs into npm's cache, once, so the
 * tests that run them (tagged `conformance`) never fetch anything: they run npx `--offline`.
 * `.ci/run` calls it in its install phase; a developer runs `pnpm fetch:conformance`.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import {
  CONFORMANCE_MODERN_SUITE,
  CONFORMANCE_NODE,
  CONFORMANCE_SUITE,
} from './vitest/services.mjs';

for (const suite of [CONFORMANCE_SUITE, CONFORMANCE_MODERN_SUITE]) {
  const run = spawnSync(
    'npx',
    ['-y', '-p', CONFORMANCE_NODE, '-p', suite, 'conformance', '--version'],
    {
      // Outside the repository: its .npmrc sets engine-strict, which would refuse Node 22 packages.
      cwd: tmpdir(),
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        npm_config_engine_strict: 'false',
        npm_config_update_notifier: 'false',
      },
      timeout: 10 * 60_000,
    },
  );
  if (run.status !== 0) {
    console.error(
      `could not fetch ${suite} with ${CONFORMANCE_NODE}: ${run.error?.message ?? `exit ${run.status}`}`,
    );
    process.exit(1);
  }
  console.log(`cached: ${suite} with ${CONFORMANCE_NODE}`);
}
