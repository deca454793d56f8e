import { mcpkitConfig } from '../scripts/vitest/preset.mjs';

export default mcpkitConfig({
  include: ['test/**/*.test.ts'],
  // The outside services these tests use: skipped with a summary where missing.
  services: ['postgres', 'redis', 'haproxy', 'conformance', 'systemd', 'nspawn'],
  // Tests that start processes and databases get room on a loaded 2-core machine.
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
