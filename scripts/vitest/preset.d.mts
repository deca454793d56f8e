/** Types of preset.mjs for the packages' `vitest.config.ts` (TypeScript files outside `scripts/`). */
import type { ViteUserConfigFnPromise } from 'vitest/config';
import type { InlineConfig } from 'vitest/node';

/** An outside service some tests need (services.mjs). */
export type ServiceName =
  | 'postgres'
  | 'redis'
  | 'haproxy'
  | 'chromium'
  | 'conformance'
  | 'systemd'
  | 'nspawn';

/**
 * A package's Vitest configuration: the service tags, the `process` tag of the slow tier, the
 * skip reporter, and `test` (Vitest's own options).
 */
export declare function mcpkitConfig(
  options: { services?: ServiceName[] } & InlineConfig,
): ViteUserConfigFnPromise;
