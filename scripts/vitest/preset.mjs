/**
 * The Vitest configuration every package's `vitest.config.ts` builds on: the service tags (see
 * services.mjs), the `process` tag of the slow tier, and the reporter that records what a missing
 * service skipped.
 *
 * Tiers: `vitest run` runs everything; with MCPKIT_TEST_TIER=unit (each package's `test:unit`,
 * the root's `pnpm test:unit`) only the in-process tests run: whatever is tagged `process` (starts
 * child processes or servers on real ports) or with a service is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { SkipReporter } from './reporter.mjs';
import { missingServices, SERVICES, servicesRequired } from './services.mjs';

/** @typedef {import('./services.mjs').ServiceName} ServiceName */

/**
 * @param {{ services?: ServiceName[] } & import('vitest/node').InlineConfig} options
 *   `services`: the outside services this package's tests use (their tags); the rest is Vitest's
 *   `test` configuration.
 */
export function mcpkitConfig({ services = [], ...test }) {
  return defineConfig(async () => {
    const missing = await missingServices(services);
    if (missing.size > 0 && servicesRequired()) {
      const lines = [...missing].map(
        ([name, why]) => `  ${SERVICES[name].what}: ${why}. Get it: ${SERVICES[name].get}`,
      );
      throw new Error(
        `MCPKIT_REQUIRE_SERVICES is set and ${missing.size === 1 ? 'a service is' : 'services are'} missing:\n${lines.join('\n')}`,
      );
    }
    const unit = process.env.MCPKIT_TEST_TIER === 'unit';
    const tiered = ['process', ...services];
    return {
      test: {
        ...test,
        // expect.poll waits for something to happen, as waitFor does: 1 s (Vitest's default) is
        // a bet a loaded machine loses, a generous deadline is a hang guard.
        expect: { ...test.expect, poll: { timeout: 30_000, ...test.expect?.poll } },
        ...(unit
          ? {
              // Whole files tagged for the slow tier are not even imported; tagged tests in
              // other files are filtered out by their tags.
              exclude: [...(test.exclude ?? configDefaults.exclude), ...filesTagged(tiered)],
              tagsFilter: [tiered.map((tag) => `!${tag}`).join(' && ')],
            }
          : {}),
        tags: [
          {
            name: 'process',
            description:
              'starts child processes or real servers: the slow tier (test:unit leaves it out)',
          },
          // `skip` only where missing: a present service's `skip: false` would override a
          // missing one's `skip: true` on a test that carries both tags.
          ...services.map((name) => ({
            name,
            description: `needs ${SERVICES[name].what}`,
            ...(missing.has(name) ? { skip: true } : {}),
          })),
        ],
        // The in-process tier leaves the service tests out by design: nothing to report.
        reporters: unit ? ['default'] : ['default', new SkipReporter(missing)],
      },
    };
  });
}

/**
 * The test files under the package (its `src/` and `test/`) that carry `// @module-tag <tag>`
 * for one of `tags`, relative to the package.
 *
 * @param {readonly string[]} tags
 */
function filesTagged(tags) {
  const root = process.cwd();
  const pattern = new RegExp(`^// @module-tag (${tags.join('|')})\\b`, 'm');
  /** @type {string[]} */
  const found = [];
  /** @param {string} dir */
  const walk = (dir) => {
    /** @type {import('node:fs').Dirent[]} */
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(path);
      else if (entry.name.endsWith('.test.ts') && pattern.test(readFileSync(path, 'utf8'))) {
        found.push(relative(root, path));
      }
    }
  };
  walk(join(root, 'src'));
  walk(join(root, 'test'));
  return found;
}
