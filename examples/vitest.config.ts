import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The test starts two real processes; give them room on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
