import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from './random.js';
import { removeTempDirs, tempDir } from './temp.js';
import { TimeoutError, waitFor, within } from './wait.js';

describe('waitFor', () => {
  it('resolves with the first answer that is not undefined or false, retrying throws', async () => {
    let n = 0;
    const got = await waitFor('n to reach 3', () => {
      n++;
      if (n === 1) throw new Error('not yet');
      return n >= 3 ? n : false;
    });
    expect(got).toBe(3);
  });

  it('names what it waited for, and the last error, when time runs out', async () => {
    await expect(
      waitFor(
        'the moon',
        () => {
          throw new Error('cloudy');
        },
        50,
      ),
    ).rejects.toThrow(/timed out after 50 ms waiting for the moon: Error: cloudy/);
  });
});

describe('within', () => {
  it('passes a prompt answer through and bounds a slow one', async () => {
    expect(await within(Promise.resolve(1), 100, 'fast')).toBe(1);
    const slow = within(new Promise(() => {}), 20, 'slow');
    await expect(slow).rejects.toBeInstanceOf(TimeoutError);
    await expect(slow).rejects.toThrow('slow: no answer within 20 ms');
  });
});

describe('tempDir', () => {
  it('makes fresh directories that removeTempDirs removes with their contents', () => {
    const a = tempDir('kit-');
    const b = tempDir('kit-');
    expect(a).not.toBe(b);
    writeFileSync(join(a, 'file.txt'), 'x');
    removeTempDirs();
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(8)()).not.toBe(xs[0]);
  });
});
