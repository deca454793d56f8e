import { mcpkitConfig } from '../scripts/vitest/preset.mjs';

export default mcpkitConfig({
  include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  testTimeout: 60_000,
});
