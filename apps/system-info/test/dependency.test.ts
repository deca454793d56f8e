import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/** systeminformation below 5.31.7 has command-injection advisories (some triggered by data on the machine). */
const MINIMUM = [5, 31, 7];

describe('systeminformation', () => {
  it('resolves to a version at or above 5.31.7', () => {
    const require = createRequire(import.meta.url);
    const { version } = require('systeminformation/package.json') as { version: string };
    const parts = version.split('.').map(Number);
    const cmp = MINIMUM.map((m, i) => (parts[i] ?? 0) - m).find((d) => d !== 0) ?? 0;
    expect(cmp, `systeminformation ${version}`).toBeGreaterThanOrEqual(0);
  });
});
