#!/usr/bin/env node
/**
 * The root test command (`pnpm test`): lint, build, type-check, every package's tests, then one
 * summary of what a missing service skipped and a table of where the time went.
 *
 *   node scripts/test.mjs           the whole suite
 *   node scripts/test.mjs --unit    the fast tier: lint, build, and the in-process tests only
 *
 * It probes the outside services once (scripts/vitest/services.mjs) and hands the result to every
 * package as MCPKIT_TEST_SERVICES, which is part of turbo's cache key: a green run cached on a
 * machine with the services is not replayed on one without. Every package runs even when one
 * fails (`--continue`), so one red package does not hide the others.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSkips, SKIPPED_FILE } from './vitest/reporter.mjs';
import { missingServices, SERVICE_NAMES, SERVICES, servicesRequired } from './vitest/services.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const unit = process.argv.includes('--unit');

/** @type {{ phase: string, seconds: number, ok: boolean }[]} */
const phases = [];

/**
 * Runs one phase with inherited stdio and records its time.
 *
 * @param {string} phase
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
function step(phase, command, args, env = process.env) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env });
    child.once('error', (error) => {
      process.stderr.write(`${phase}: ${error.message}\n`);
      finish(false);
    });
    child.once('exit', (code) => finish(code === 0));
    /** @param {boolean} ok */
    function finish(ok) {
      phases.push({ phase, seconds: (performance.now() - started) / 1000, ok });
      resolve(ok);
    }
  });
}

const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

const probeStarted = performance.now();
const missing = await missingServices(SERVICE_NAMES);
phases.push({
  phase: 'probe services',
  seconds: (performance.now() - probeStarted) / 1000,
  ok: true,
});
if (missing.size > 0 && servicesRequired() && !unit) {
  for (const [name, why] of missing) {
    process.stderr.write(
      `missing: ${SERVICES[name].what}: ${why}. Get it: ${SERVICES[name].get}\n`,
    );
  }
  process.stderr.write('MCPKIT_REQUIRE_SERVICES is set: every service must be present.\n');
  process.exit(1);
}

const env = {
  ...process.env,
  MCPKIT_TEST_SERVICES: SERVICE_NAMES.filter((s) => !missing.has(s)).join(','),
  MCPKIT_TEST_SUMMARY: 'root',
  ...(unit ? { MCPKIT_TEST_TIER: 'unit' } : {}),
};

const runStarted = Date.now();
const summaryDir = join(ROOT, '.turbo', 'runs');
rmSync(summaryDir, { recursive: true, force: true });

let ok = await step('lint (biome)', bin('biome'), ['check', '--error-on-warnings', '.']);
ok = (await step('engines', process.execPath, ['scripts/check-engines.mjs'])) && ok;
ok = (await step('build', bin('turbo'), ['run', 'build', '--output-logs=errors-only'], env)) && ok;
if (!unit) {
  ok = (await step('typecheck scripts', bin('tsc'), ['-p', 'tsconfig.scripts.json'])) && ok;
}
const tasks = unit ? ['test:unit'] : ['typecheck', 'test'];
ok =
  (await step(
    unit ? 'tests (in-process tier)' : 'typecheck + tests',
    bin('turbo'),
    [
      'run',
      ...tasks,
      '--continue',
      '--summarize',
      '--output-logs=new-only',
      `--concurrency=${concurrency()}`,
    ],
    env,
  )) && ok;

const packages = packageDirs();
const skips = [];
for (const dir of packages) {
  const file = join(ROOT, dir, SKIPPED_FILE);
  // Written (or restored from turbo's cache) by this run; an older file is another run's.
  if (existsSync(file) && statSync(file).mtimeMs >= runStarted - 1000) {
    skips.push(JSON.parse(readFileSync(file, 'utf8')));
  }
}
const failures = skips
  .filter((s) => packages.includes(s.package))
  .flatMap((s) => (s.failed ?? []).map((f) => `${s.package}: ${f}`));
const table = phaseTable();
// `.ci/run` shows these rows in its own phase table.
// The failed tests by name, last: the end of a CI log is the part that is shown.
const failedText =
  failures.length === 0
    ? ''
    : [
        `Failed tests (${failures.length}):`,
        ...failures.slice(0, 20).map((f) => `  ✗ ${f}`),
        ...(failures.length > 20 ? [`  … and ${failures.length - 20} more`] : []),
      ].join('\n');
if (process.env.MCPKIT_PHASES_FILE) {
  appendFileSync(
    process.env.MCPKIT_PHASES_FILE,
    `${table.split('\n').slice(1).join('\n')}\n${failedText ? `${failedText}\n` : ''}`,
  );
}
const summary = formatSkips(
  skips.filter((s) => packages.includes(s.package)),
  missing,
);
process.stdout.write(`\n${table}\n`);
if (summary) process.stdout.write(`\n${summary}\n`);
if (failedText) process.stdout.write(`\n${failedText}\n`);
process.stdout.write(
  `\n${ok ? 'All passed' : 'FAILED'} (${unit ? 'in-process tier' : 'whole suite'}).\n`,
);
process.exit(ok ? 0 : 1);

/** Packages whose tests may run side by side (TEST_CONCURRENCY overrides; see CONTRIBUTING). */
function concurrency() {
  return process.env.TEST_CONCURRENCY ?? '2';
}

/** Workspace package directories that have a vitest config. */
function packageDirs() {
  const dirs = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group))) dirs.push(`${group}/${name}`);
  }
  dirs.push('e2e', 'examples');
  return dirs.filter((d) => existsSync(join(ROOT, d, 'vitest.config.ts')));
}

/** The phases, then each package's test task from turbo's run summary, with seconds. */
function phaseTable() {
  const rows = phases.map((p) => [p.phase, p.seconds, p.ok ? '' : 'FAILED']);
  const runs = existsSync(summaryDir)
    ? readdirSync(summaryDir).filter((f) => f.endsWith('.json'))
    : [];
  for (const file of runs) {
    /** @type {{ tasks?: { taskId: string, cache?: { status?: string }, execution?: { startTime: number, endTime: number, exitCode?: number } }[] }} */
    const run = JSON.parse(readFileSync(join(summaryDir, file), 'utf8'));
    for (const task of run.tasks ?? []) {
      if (!task.execution || !/#test(:unit)?$/.test(task.taskId)) continue;
      const seconds = (task.execution.endTime - task.execution.startTime) / 1000;
      const note =
        task.cache?.status === 'HIT' ? 'cached' : task.execution.exitCode ? 'FAILED' : '';
      rows.push([`  ${task.taskId}`, seconds, note]);
    }
  }
  const width = Math.max(...rows.map((r) => String(r[0]).length));
  return [
    'Where the time went:',
    ...rows.map(([name, s, note]) =>
      `  ${String(name).padEnd(width)}  ${Number(s).toFixed(1).padStart(7)} s  ${note}`.trimEnd(),
    ),
  ].join('\n');
}
