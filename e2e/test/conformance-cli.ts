/** Running the official MCP conformance CLI from the end-to-end tests. */
import { tmpdir } from 'node:os';
import { CONFORMANCE_NODE } from '../../scripts/vitest/services.mjs';
import { type RunResult, run } from './helpers.js';

/**
 * The conformance CLI of `suite` with `args`. It needs Node 22; npx supplies it from npm's cache
 * only (`--offline`: nothing is fetched at test time; `pnpm fetch:conformance` fills the cache,
 * `.ci/run` calls it). The repository's .npmrc (engine-strict) is kept out of the way by running
 * in the temp directory and by npm_config_engine_strict.
 */
export function conformanceCli(
  suite: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<RunResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { npm_config_engine_strict: 'false', NO_COLOR: '1', FORCE_COLOR: '0' });
  const offline = ['--offline', '-y', '-p', CONFORMANCE_NODE, '-p', suite, 'conformance'];
  return run('npx', [...offline, ...args], { env, cwd: tmpdir(), timeoutMs });
}

/** The suite's verdict lines: totals, and what it says about the baseline. */
export function verdict(stdout: string): string {
  const keep = /^(Total: |Passed: |✗ | {2}[~✓✗] |Baseline |Unexpected |Stale |Expected failures)/;
  return stdout
    .split('\n')
    .filter((line) => keep.test(line))
    .join('\n');
}
