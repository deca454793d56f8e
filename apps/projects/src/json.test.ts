import { runSteps } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { jsonOverLimit, jsonOverLimitSteps } from './json.js';

/** A small seeded generator (mulberry32), so that a failure names a value that comes back. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Every kind of character JSON.stringify writes differently: plain, escaped short and long, two,
// three and four bytes of UTF-8, and lone surrogates (escaped).
const CHARS = [
  'a',
  ' ',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0001',
  '\u001f',
  'é',
  '€',
  '😀',
  '\ud800',
  '\udfff',
];
const NUMBERS = [0, -0, 1, -17, 0.5, 1e21, 1.5e-7, 123456789, Number.MAX_SAFE_INTEGER];

function value(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const text = () => Array.from({ length: Math.floor(next() * 6) }, () => pick(CHARS)).join('');
  const kind = depth > 4 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return text();
    case 1:
      return pick(NUMBERS);
    case 2:
      return pick([true, false]);
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(next() * 4) }, () => [text(), value(next, depth + 1)]),
      );
  }
}

describe('jsonOverLimit', () => {
  it('bytes: exactly the UTF-8 length of what JSON.stringify writes (2,000 random values)', () => {
    const next = random(20_251_001);
    for (let i = 0; i < 2_000; i++) {
      const v = value(next, 0);
      const bytes = Buffer.byteLength(JSON.stringify(v));
      expect(jsonOverLimit(v, 100, bytes), JSON.stringify(v)).toBeUndefined();
      expect(jsonOverLimit(v, 100, bytes - 1), JSON.stringify(v)).toEqual({ limit: 'bytes' });
    }
  });

  it('leaves out what JSON.stringify leaves out of objects, and writes null for it in arrays', () => {
    const v = { a: undefined, b: [undefined, () => 1], c: () => 1, d: Number.NaN };
    const bytes = Buffer.byteLength(JSON.stringify(v));
    expect(jsonOverLimit(v, 10, bytes)).toBeUndefined();
    expect(jsonOverLimit(v, 10, bytes - 1)).toEqual({ limit: 'bytes' });
  });

  it('depth: the path to the first container past it, in document order', () => {
    expect(jsonOverLimit({ a: [{ b: {} }] }, 3, 1_000)).toEqual({
      limit: 'depth',
      path: ['a', '0', 'b'],
    });
    expect(jsonOverLimit({ a: [{ b: {} }] }, 4, 1_000)).toBeUndefined();
    expect(jsonOverLimit({ x: 1, y: [[], [[1]]] }, 3, 1_000)).toEqual({
      limit: 'depth',
      path: ['y', '1', '0'],
    });
    expect(jsonOverLimit(5, 0, 10)).toBeUndefined();
  });

  it('100,000 deep: refused without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const over = jsonOverLimit(deep, 64, 1_000_000);
    expect(over).toMatchObject({ limit: 'depth' });
    expect(over?.limit === 'depth' && over.path).toHaveLength(64);
  });
});

describe('jsonOverLimitSteps', () => {
  /** Runs it to its end: the result, and how often it paused. */
  const run = (value: unknown, maxDepth: number, maxBytes: number) => {
    const { value: result, pauses } = runSteps(jsonOverLimitSteps(value, maxDepth, maxBytes));
    return { result, pauses };
  };
  const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, [i, 'x']]));

  it('pauses every few thousand members of a large value, and finds what jsonOverLimit finds', () => {
    const within = run(wide, 8, 1 << 20);
    expect(within.result).toBeUndefined();
    // 10,000 members of 2 items each: ~30,000 steps, a pause every 2,048.
    expect(within.pauses).toBeGreaterThanOrEqual(14);
    expect(run(wide, 8, 100_000).result).toStrictEqual(jsonOverLimit(wide, 8, 100_000));
    expect(run(wide, 8, 100_000).result).toStrictEqual({ limit: 'bytes' });
    expect(run(wide, 1, 1 << 20).result).toStrictEqual({ limit: 'depth', path: ['k0'] });
  });

  it('answers a scalar or a small value at once, without pausing', () => {
    expect(run('x'.repeat(10), 1, 5)).toStrictEqual({ result: { limit: 'bytes' }, pauses: 0 });
    expect(run({ a: [1] }, 2, 100)).toStrictEqual({ result: undefined, pauses: 0 });
    expect(run({ a: [1] }, 0, 100).result).toStrictEqual({ limit: 'depth', path: [] });
  });
});
