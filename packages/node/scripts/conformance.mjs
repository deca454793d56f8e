#!/usr/bin/env node
// @ts-check
/**
 * `pnpm conformance`: start the fixture server over Streamable HTTP and run the official MCP
 * conformance suite against it three times — 0.1.16 `--suite all`, and with the release that knows
 * MCP 2026-07-28 (0.2.0-alpha.12) both `--requirements 2026-07-28` and `--spec-version 2025-11-25
 * --suite all`, so both eras are held to the suite; then run the suites' client scenarios
 * with McpClient (`dist/fixtures/conformance-client.js`, `protocol: 'auto'`) as the client
 * under test: the 2025-era ones with both releases, the 2026-07-28 ones with 0.2.0-alpha.12.
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
// argument, run with this Node); `--clients-only`: the client scenarios alone. The gateway uses
// both to hold its backend links to the client scenarios.
const { values: options } = parseArgs({
  options: { client: { type: 'string' }, 'clients-only': { type: 'boolean', default: false } },
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
/** The 2025-era client scenarios (initialize): run with 0.1.16, and again with MODERN_SUITE. */
const LEGACY_CLIENT_SCENARIOS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'elicitation-sep1034-client-defaults',
];
/** The client scenarios only MODERN_SUITE knows (MCP 2026-07-28, JSON Schema 2020-12). */
const MODERN_CLIENT_SCENARIOS = [
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];
// Every client scenario of the suites that is not about OAuth (which McpClient does not do yet)
// nor an extension (skills): each with the suite that runs it, and the spec version to run it
// at when not its own (the suite runs a scenario of both eras at 2025-11-25 unless told).
/** @type {{ scenario: string, suite: string, specVersion?: string }[]} */
const CLIENT_SCENARIOS = [
  ...LEGACY_CLIENT_SCENARIOS.map((scenario) => ({ scenario, suite: SUITE })),
  ...[...LEGACY_CLIENT_SCENARIOS, ...MODERN_CLIENT_SCENARIOS].map((scenario) => ({
    scenario,
    suite: MODERN_SUITE,
  })),
  { scenario: 'tools_call', suite: MODERN_SUITE, specVersion: '2026-07-28' },
  { scenario: 'json-schema-2020-12-preservation', suite: MODERN_SUITE, specVersion: '2026-07-28' },
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

for (const { scenario, suite, specVersion } of CLIENT_SCENARIOS) {
  const label = `${scenario} (${suite}${specVersion ? ` --spec-version ${specVersion}` : ''})`;
  console.log(`conformance: client scenario ${label} with ${clientName} as the client under test`);
  const args = ['client', '--command', `${process.execPath} ${clientFixture}`];
  args.push('--scenario', scenario);
  if (specVersion) args.push('--spec-version', specVersion);
  if ((await runSuite(args, suite)) !== 0) {
    console.log(`conformance: client scenario ${label} FAILED`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
