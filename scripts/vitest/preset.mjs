/**
 * The Vitest configuration every package's `vitest.config.ts` builds on: the service tags (see
 * services.mjs), the `process` tag of the slow tier, and the reporter that records what a missing
 * service skipped.
 *
 * Tiers: `vitest run` runs everything; with MCPKIT_TEST_TIER=unit (each package's `test:unit`,
 * the root's `pnpm test:unit`) only the in-process tests run: whatever is tagged `process` (starts
 * child processes or servers on real ports) or with a service is left out.
 */
import { defineConfig } from 'vitest/config';
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
    return {
      test: {
        ...test,
        ...(unit
          ? { tagsFilter: [['!process', ...services.map((s) => `!${s}`)].join(' && ')] }
          : {}),
        tags: [
          {
            name: 'process',
            description:
              'starts child processes or real servers: the slow tier (test:unit leaves it out)',
          },
          ...services.map((name) => ({
            name,
            description: `needs ${SERVICES[name].what}`,
            skip: missing.has(name),
          })),
        ],
        reporters: ['default', new SkipReporter(missing)],
      },
    };
  });
}
