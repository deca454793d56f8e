#!/usr/bin/env node
// @ts-check
/**
 * `pnpm conformance`: start the fixture server over Streamable HTTP and run the official MCP
 * conformance suite against it three times — 0.1.16 `--suite all`, and with the release that knows
 * MCP 2026-07-28 (0.2.0-alpha.12) both `--requirements 2026-07-28` and `--spec-version 2025-11-25
 * --suite all`, so both eras are held to the suite; then run the suites' client scenarios
 * with McpClient (`dist/fixtures/conformance-client.js`, `protocol: 'auto'`) as the client
 * under test, in parallel as the suite runs them: 0.1.16's whole client suite and
 * 0.2.0-alpha.12's requirement sets of 2025-11-25 and 2026-07-28.
 * Exits non-zero when anything fails. The suite's CLI needs Node ≥ 22, so npx brings a Node 22 binary from the
 * npm registry.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CONFORMANCE_MODERN_SUITE,
  CONFORMANCE_NODE,
  CONFORMANCE_SUITE,
} from '../../../scripts/vitest/services.mjs';

// `--client <file>`: another client under test (a program taking the server URL as its last
// argument, run with this Node); `--clients-only`: the client scenarios alone; `--baselines
// <prefix>`: that client's expected-failures files. The gateway uses all three to hold its
// backend links to the client scenarios.
const { values: options } = parseArgs({
  options: {
    client: { type: 'string' },
    'clients-only': { type: 'boolean', default: false },
    // The client's own expected failures: `<prefix>.<release>.yml` (default: McpClient's, here).
    baselines: { type: 'string' },
  },
});

// The suites (one list for the scripts and the tests: scripts/vitest/services.mjs). The modern one
// knows MCP 2026-07-28: `--requirements 2026-07-28` runs exactly the scenarios that revision
// requires (the tasks extension and pending scenarios are run but not scored by the suite itself).
const SUITE = CONFORMANCE_SUITE;
const MODERN_SUITE = CONFORMANCE_MODERN_SUITE;
const fixture = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));
const clientFixture = options.client
  ? resolve(options.client)
  : fileURLToPath(new URL('../dist/fixtures/conformance-client.js', import.meta.url));
const clientName = options.client ? clientFixture : 'McpClient';
/**
 * The client runs, each the way the suite runs them by default — every scenario of the run in
 * parallel: 0.1.16's whole client suite, and 0.2.0-alpha.12's requirement sets of 2025-11-25 and
 * 2026-07-28 (each scenario at its revision's wire). What McpClient does not do yet (the OAuth
 * scenarios) is each release's baseline file, which also fails the run when a listed one passes.
 */
const CLIENT_RUNS = [
  { suite: SUITE, args: ['--suite', 'all'], baseline: 'conformance-client-baseline.0.1.16.yml' },
  {
    suite: MODERN_SUITE,
    args: ['--requirements', '2025-11-25'],
    baseline: 'conformance-client-baseline.alpha.yml',
  },
  {
    suite: MODERN_SUITE,
    args: ['--requirements', '2026-07-28'],
    baseline: 'conformance-client-baseline.alpha.yml',
  },
];
const baseline = fileURLToPath(new URL('../conformance-baseline.yml', import.meta.url));
for (const file of options['clients-only'] ? [clientFixture] : [fixture, clientFixture]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
}

/** Run the suite's CLI with `args`; resolves to its exit code. */
async function runSuite(args, suitePackage = SUITE) {
  const suite = spawn(
    'npx',
    ['-y', '-p', CONFORMANCE_NODE, '-p', suitePackage, 'conformance', ...args],
    {
      // Outside the repo: its .npmrc sets engine-strict, which would refuse the suite's Node 22 deps.
      cwd: tmpdir(),
      stdio: 'inherit',
      env: {
        ...process.env,
        npm_config_engine_strict: 'false',
        npm_config_update_notifier: 'false',
      },
    },
  );
  const timer = setTimeout(() => suite.kill('SIGTERM'), 10 * 60_000);
  const code = await new Promise((resolve) =>
    suite.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))),
  );
  clearTimeout(timer);
  return code;
}

let failed = false;
if (!options['clients-only']) {
  const server = spawn(
    process.execPath,
    [fixture, '--transport', 'http', '--port', '0', '--log-level', 'info'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${buffer}`)), 15_000);
    server.stderr.setEncoding('utf8');
    server.stderr.on('data', (chunk) => {
      buffer += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.once('exit', (code) => reject(new Error(`fixture exited with ${code}: ${buffer}`)));
  });

  console.log(`conformance: ${SUITE} against ${url}/mcp`);
  const serverArgs = ['server', '--url', `${url}/mcp`, '--suite', 'all'];
  if (existsSync(baseline)) serverArgs.push('--expected-failures', baseline);
  failed = (await runSuite(serverArgs)) !== 0;
  console.log(`conformance: ${MODERN_SUITE} --requirements 2026-07-28 against ${url}/mcp`);
  if (
    (await runSuite(
      ['server', '--url', `${url}/mcp`, '--requirements', '2026-07-28'],
      MODERN_SUITE,
    )) !== 0
  ) {
    console.log('conformance: 2026-07-28 requirements FAILED');
    failed = true;
  }
  console.log(
    `conformance: ${MODERN_SUITE} --spec-version 2025-11-25 --suite all against ${url}/mcp`,
  );
  if (
    (await runSuite(
      ['server', '--url', `${url}/mcp`, '--spec-version', '2025-11-25', '--suite', 'all'],
      MODERN_SUITE,
    )) !== 0
  ) {
    console.log('conformance: 2025-11-25 suite (0.2.0-alpha.12) FAILED');
    failed = true;
  }
  server.kill('SIGTERM');
}

for (const { suite, args, baseline: file } of CLIENT_RUNS) {
  const label = `${suite} ${args.join(' ')}`;
  console.log(`conformance: client runs of ${label} with ${clientName} as the client under test`);
  const expected = options.baselines
    ? resolve(`${options.baselines}${file.slice('conformance-client-baseline'.length)}`)
    : fileURLToPath(new URL(`../${file}`, import.meta.url));
  const run = ['client', '--command', `${process.execPath} ${clientFixture}`, ...args];
  if ((await runSuite([...run, '--expected-failures', expected], suite)) !== 0) {
    console.log(`conformance: client runs of ${label} FAILED`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
