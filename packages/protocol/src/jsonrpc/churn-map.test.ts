import { describe, expect, it } from 'vitest';
import { ChurnMap } from './churn-map.js';

describe('ChurnMap', () => {
  it('holds, replaces and drops values by string or integer key, counting them', () => {
    const map = new ChurnMap<string>();
    expect(map.size).toBe(0);
    map.set(1, 'one').set('s1', 'string one');
    expect(map.size).toBe(2);
    expect(map.get(1)).toBe('one');
    // An integer key is its decimal string.
    expect(map.get('1')).toBe('one');
    expect(map.has('s1')).toBe(true);
    map.set(1, 'uno');
    expect(map.size).toBe(2);
    expect(map.get(1)).toBe('uno');
    expect(map.delete(1)).toBe(true);
    expect(map.delete(1)).toBe(false);
    expect(map.has(1)).toBe(false);
    expect(map.get(1)).toBeUndefined();
    expect(map.size).toBe(1);
  });

  it("takes a peer's id such as __proto__ or constructor as a key like any other", () => {
    const map = new ChurnMap<number>();
    expect(map.has('constructor')).toBe(false);
    expect(map.has('toString')).toBe(false);
    map.set('__proto__', 1).set('constructor', 2).set('hasOwnProperty', 3);
    expect(map.size).toBe(3);
    expect(map.get('__proto__')).toBe(1);
    expect(map.get('constructor')).toBe(2);
    expect(map.get('hasOwnProperty')).toBe(3);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(map.delete('__proto__')).toBe(true);
    expect(map.size).toBe(2);
  });

  it('walks snapshots: entries and values taken before a change are not changed by it', () => {
    const map = new ChurnMap<string>();
    map.set('a', 'A').set(7, 'seven');
    const entries = map.entries();
    const keys = map.keys();
    const values = map.values();
    for (const [key] of entries) map.delete(key);
    expect(map.size).toBe(0);
    expect(entries.sort()).toEqual([
      ['7', 'seven'],
      ['a', 'A'],
    ]);
    expect(keys.sort()).toEqual(['7', 'a']);
    expect(values.sort()).toEqual(['A', 'seven']);
  });

  it('clears, and counts from zero again', () => {
    const map = new ChurnMap<boolean>();
    for (let id = 0; id < 100; id++) map.set(id, true);
    expect(map.size).toBe(100);
    map.clear();
    expect(map.size).toBe(0);
    expect(map.has(5)).toBe(false);
    map.set(5, true);
    expect(map.size).toBe(1);
  });

  it('stays exact over a long run of keys that come and go, as request ids do', () => {
    const map = new ChurnMap<{ id: number }>();
    for (let id = 0; id < 50_000; id++) {
      map.set(id, { id });
      if (id >= 32) expect(map.delete(id - 32)).toBe(true);
    }
    expect(map.size).toBe(32);
    expect(
      map
        .values()
        .map((v) => v.id)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 32 }, (_, n) => 50_000 - 32 + n));
  });
});
