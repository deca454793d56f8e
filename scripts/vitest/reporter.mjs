/**
 * Records which tests a missing service skipped (services.mjs), in the package's
 * `node_modules/.cache/mcpkit-test/skipped.json`: the root test command (scripts/test.mjs) reads
 * every package's file and prints one summary at the end; turbo keeps the file with its cached
 * result, so a cache hit still reports its skips. Run alone (`vitest run` in a package), the
 * reporter prints the package's summary itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES, SERVICES } from './services.mjs';

/** @typedef {import('./services.mjs').ServiceName} ServiceName */
/** @typedef {import('vitest/node').Reporter} Reporter */

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Where a package's record goes, relative to the package. */
export const SKIPPED_FILE = join('node_modules', '.cache', 'mcpkit-test', 'skipped.json');

/**
 * @typedef {object} SkipRecord
 * @property {string} package   The package's directory, relative to the repository.
 * @property {Partial<Record<ServiceName, number>>} skipped  Tests skipped per missing service.
 * @property {Partial<Record<ServiceName, string>>} why      The probe's reason per missing service.
 * @property {string[]} [failed]  Each failed test (file > name: the error's first line), so the
 *   root command can name them at the end of its output, where a CI log's tail shows them.
 */

/** @implements {Reporter} */
export class SkipReporter {
  /** @type {Map<ServiceName, string>} */
  #missing;
  /** @type {string} */
  #root = process.cwd();

  /** @param {Map<ServiceName, string>} missing The services absent here, and why. */
  constructor(missing) {
    this.#missing = missing;
  }

  /** @param {import('vitest/node').Vitest} vitest */
  onInit(vitest) {
    this.#root = vitest.config.root;
  }

  /** @param {ReadonlyArray<import('vitest/node').TestModule>} modules */
  onTestRunEnd(modules) {
    /** @type {Partial<Record<ServiceName, number>>} */
    const skipped = {};
    /** @type {string[]} */
    const failed = [];
    for (const module of modules) {
      const file = relative(this.#root, module.moduleId);
      // A file that failed outside its tests (a hook, an import): its own errors.
      for (const error of module.errors()) failed.push(`${file}: ${firstLine(error)}`);
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'failed') {
          failed.push(`${file} > ${test.fullName}: ${firstLine(result.errors?.[0])}`);
          continue;
        }
        if (test.result().state !== 'skipped') continue;
        // Counted once, under the first missing service it needs.
        const service = SERVICE_NAMES.find((s) => this.#missing.has(s) && test.tags.includes(s));
        if (service) skipped[service] = (skipped[service] ?? 0) + 1;
      }
    }
    /** @type {SkipRecord} */
    const record = {
      package: relative(REPO, this.#root) || '.',
      skipped,
      why: Object.fromEntries(this.#missing),
      failed,
    };
    const file = join(this.#root, SKIPPED_FILE);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    if (process.env.MCPKIT_TEST_SUMMARY !== 'root') {
      const text = formatSkips([record]);
      if (text) process.stdout.write(`\n${text}\n`);
    }
  }
}

/**
 * The summary of what missing services skipped across `records`, or '' when nothing was.
 *
 * @param {readonly SkipRecord[]} records
 * @param {ReadonlyMap<ServiceName, string>} [reasons] Why each is missing, when the caller probed.
 */
export function formatSkips(records, reasons = new Map()) {
  /** @type {Map<ServiceName, { count: number, packages: string[], why: string }>} */
  const byService = new Map();
  for (const record of records) {
    for (const [name, count] of Object.entries(record.skipped)) {
      const service = /** @type {ServiceName} */ (name);
      const why = reasons.get(service) ?? record.why[service] ?? 'not found';
      const entry = byService.get(service) ?? { count: 0, packages: [], why };
      entry.count += count ?? 0;
      entry.packages.push(record.package);
      byService.set(service, entry);
    }
  }
  if (byService.size === 0) return '';
  const total = [...byService.values()].reduce((n, e) => n + e.count, 0);
  const lines = [
    `Skipped ${total} ${total === 1 ? 'test' : 'tests'}: a service they need is missing on this machine.`,
  ];
  for (const name of SERVICE_NAMES) {
    const entry = byService.get(name);
    if (!entry) continue;
    const s = SERVICES[name];
    lines.push(
      `  ${entry.count} ${entry.count === 1 ? 'test needs' : 'tests need'} ${s.what}, in ${entry.packages.join(', ')}: ${entry.why}`,
      `      get it: ${s.get}${s.env ? `; ${s.env} points the tests at another` : ''}`,
    );
  }
  lines.push(
    '  On Debian, .ci/run installs and starts them all (CONTRIBUTING: "Services"). In CI,',
    '  MCPKIT_REQUIRE_SERVICES=1 turns a missing service into a failure.',
  );
  return lines.join('\n');
}

/**
 * The first line of a test error's message, at most 300 characters.
 *
 * @param {{ message?: string, name?: string } | undefined} error
 */
function firstLine(error) {
  const text = `${error?.name ?? 'Error'}: ${error?.message ?? ''}`.split('\n')[0] ?? '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
