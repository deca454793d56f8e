import { mcpkitConfig } from '../../scripts/vitest/preset.mjs';

export default mcpkitConfig({
  include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  // The outside services these tests use: skipped with a summary where missing.
  services: ['redis', 'postgres'],
  testTimeout: 20_000,
});
