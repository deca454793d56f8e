import { describe, expect, it } from 'vitest';
import { IdMap } from './id-map.js';

/** Numbers in [0, 1) from a linear congruential generator: the same on every run. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('IdMap', () => {
  it('holds, replaces, reports and drops entries', () => {
    const m = new IdMap<string>();
    expect(m.set(1, 'a').set(2, 'b').set(1, 'A').size).toBe(2);
    expect([m.get(1), m.get(2), m.get(3), m.has(2), m.has(3)]).toEqual([
      'A',
      'b',
      undefined,
      true,
      false,
    ]);
    expect(m.delete(1)).toBe(true);
    expect(m.delete(1)).toBe(false);
    expect([m.size, m.get(1), m.keys(), m.values()]).toEqual([1, undefined, [2], ['b']]);
  });

  it('lists its entries as a snapshot and is empty after clear, ready for more', () => {
    const m = new IdMap<string>();
    m.set(3, 'c').set(1, 'a').set(67, 'x');
    const entries = m.entries();
    m.delete(1);
    expect(entries.sort((a, b) => a[0] - b[0])).toEqual([
      [1, 'a'],
      [3, 'c'],
      [67, 'x'],
    ]);
    m.clear();
    expect([m.size, m.get(3), m.get(67), m.entries()]).toEqual([0, undefined, undefined, []]);
    expect(m.set(3, 'again').get(3)).toBe('again');
  });

  it('answers any number that is not a key with nothing, and refuses one as a key', () => {
    const m = new IdMap<string>();
    m.set(0, 'zero');
    for (const id of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -0.5, 2 ** 53 + 2]) {
      expect([m.get(id), m.has(id), m.delete(id)]).toEqual([undefined, false, false]);
      expect(() => m.set(id, 'x')).toThrow(RangeError);
    }
    expect([m.size, m.get(0)]).toEqual([1, 'zero']);
  });

  it('keeps ids that share a slot apart, across the end of the table, and after deletes', () => {
    const m = new IdMap<number>();
    // 63, 127, 191 share the table's last slot at every size up to 64 (their low bits are all
    // ones): the later ones wrap around to its first slots, where 0, 64 and 1 belong.
    const ids = [63, 127, 191, 0, 64, 1];
    for (const id of ids) m.set(id, id * 10);
    expect(ids.map((id) => m.get(id))).toEqual(ids.map((id) => id * 10));
    // Deleting the first of a chain moves the others back; each is still found.
    m.delete(63);
    m.delete(0);
    expect([127, 191, 64, 1].map((id) => m.get(id))).toEqual([1270, 1910, 640, 10]);
    expect([m.get(63), m.get(0), m.size]).toEqual([undefined, undefined, 4]);
  });

  it('grows past its first table and keeps ids beyond 2^32', () => {
    const m = new IdMap<number>();
    const big = 2 ** 40;
    for (let i = 0; i < 1000; i++) m.set(big + i * 64, i);
    expect(m.size).toBe(1000);
    for (let i = 0; i < 1000; i++) expect(m.get(big + i * 64)).toBe(i);
    for (let i = 0; i < 1000; i += 2) m.delete(big + i * 64);
    expect(m.size).toBe(500);
    expect(m.values().sort((a, b) => a - b)).toEqual(
      Array.from({ length: 500 }, (_, i) => i * 2 + 1),
    );
  });

  it('agrees with a Map through 200,000 random calls coming and going out of order', () => {
    const next = random(35);
    const m = new IdMap<number>();
    const reference = new Map<number, number>();
    let id = 1;
    for (let step = 0; step < 200_000; step++) {
      const live = [...reference.keys()];
      if (live.length < 40 && (live.length === 0 || next() < 0.55)) {
        // Mostly the next id; now and then one far ahead (a gap, as after a burst).
        id += next() < 0.02 ? 1 + Math.floor(next() * 500) : 1;
        m.set(id, step);
        reference.set(id, step);
      } else {
        const gone = live[Math.floor(next() * live.length)] as number;
        expect(m.delete(gone)).toBe(true);
        reference.delete(gone);
      }
      if (step % 997 === 0) {
        expect(m.size).toBe(reference.size);
        for (const [k, v] of reference) expect(m.get(k)).toBe(v);
        expect(m.keys().sort((a, b) => a - b)).toEqual([...reference.keys()].sort((a, b) => a - b));
      }
    }
  });
});
