import { seededRandom } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { advertisedName, CLIENT_SAFE, disambiguate, SEPARATOR } from './names.js';

const SAFE = /^[A-Za-z0-9_-]{1,64}$/;
const HASHED = /_[0-9a-f]{6}$/;
const dunder = (ns: string, name: string) => advertisedName(ns, name, 'double-underscore');

const NS_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
/** Tool-name characters: mostly safe, with the unsafe ones backends really use, and unicode. */
const NAME_POOLS: readonly string[][] = [
  [...NS_CHARS],
  [
    '.',
    ':',
    ' ',
    '/',
    '@',
    '#',
    '$',
    '+',
    '=',
    '(',
    ')',
    '[',
    ']',
    '\t',
    '\n',
    '"',
    "'",
    '\\',
    '%',
  ],
  [
    'é',
    'ü',
    'ß',
    'ñ',
    'ø',
    'Ж',
    'λ',
    '日',
    '本',
    '語',
    '한',
    'ع',
    '\u00a0',
    '\u200b',
    '😀',
    '🚀',
    '𝔘',
  ],
];

function randomNames(count: number, seed: number): [string, string][] {
  // Deterministic, so the generated names are the same every run.
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const out: [string, string][] = [];
  for (let i = 0; i < count; i++) {
    const nsLen = 1 + Math.floor(rnd() * 32);
    let ns = '';
    for (let j = 0; j < nsLen; j++) ns += pick([...NS_CHARS]);
    // Lengths 0…120, weighted to the short names most tools have and the 64 boundary.
    const nameLen = pick([0, 1, 3, 8, 15, 30, 50, 58, 59, 60, 61, 62, 63, 64, 70, 90, 120]);
    const unsafeRate = pick([0, 0, 0.05, 0.3, 1]);
    let name = '';
    for (let j = 0; j < nameLen; j++) {
      const pool = rnd() < unsafeRate ? pick(NAME_POOLS.slice(1)) : (NAME_POOLS[0] as string[]);
      name += pick(pool);
    }
    out.push([ns, name]);
  }
  return out;
}

describe('advertisedName (double-underscore)', () => {
  it('is ns__tool when that is client-safe', () => {
    expect(SEPARATOR).toBe('__');
    expect(dunder('github', 'create_issue')).toBe('github__create_issue');
    expect(dunder('fs', 'read-file')).toBe('fs__read-file');
    expect(dunder('A-b_9', 'X')).toBe('A-b_9__X');
    expect(dunder('everything', 'get-tiny-image')).toBe('everything__get-tiny-image');
  });

  it('keeps a safe name of exactly 64 characters as it is', () => {
    const name = 't'.repeat(64 - 'ns__'.length);
    expect(dunder('ns', name)).toBe(`ns__${name}`);
    expect(dunder('ns', name)).toHaveLength(64);
  });

  it.each([
    ['dots', 'files.read', /^ns__files_read_[0-9a-f]{6}$/],
    ['colons', 'db:query', /^ns__db_query_[0-9a-f]{6}$/],
    ['spaces', 'do thing', /^ns__do_thing_[0-9a-f]{6}$/],
    ['a slash', 'repo/list', /^ns__repo_list_[0-9a-f]{6}$/],
    ['accents', 'café', /^ns__caf__[0-9a-f]{6}$/],
    ['CJK', '検索', /^ns_____[0-9a-f]{6}$/],
    ['an emoji (two UTF-16 units)', 'go🚀', /^ns__go___[0-9a-f]{6}$/],
  ])('replaces %s with _ and appends a 6-hex hash', (_what, name, shape) => {
    const out = dunder('ns', name);
    expect(out).toMatch(shape);
    expect(out).toMatch(SAFE);
  });

  it('derives the hash from the original name: the same across processes and releases', () => {
    // Pinned: a tool must keep its advertised name across gateway restarts and upgrades.
    expect(dunder('ns', 'a.b')).toBe('ns__a_b_0195e9');
    expect(dunder('ns', 'a:b')).toBe('ns__a_b_a03a00');
    expect(dunder('ns', 'a b')).toBe('ns__a_b_37cf2d');
  });

  it('gives names that sanitize alike different advertised names', () => {
    const names = ['a.b', 'a:b', 'a b', 'a/b', 'a@b', 'a\tb', 'aéb', 'a_b'];
    const out = names.map((n) => dunder('ns', n));
    expect(new Set(out).size).toBe(names.length);
    // The already-safe spelling keeps its plain name; the others do not take it.
    expect(out.at(-1)).toBe('ns__a_b');
  });

  it('cuts an over-long name to 64 characters with a hash', () => {
    const long = 'x'.repeat(100);
    const out = dunder('namespace', long);
    expect(out).toHaveLength(64);
    expect(out).toMatch(SAFE);
    expect(out).toMatch(HASHED);
    expect(out.startsWith('namespace__xxxx')).toBe(true);
    // One character over the limit is already cut.
    const over = dunder('ns', 't'.repeat(61));
    expect(over.length).toBeLessThanOrEqual(64);
    expect(over).toMatch(HASHED);
  });

  it('keeps over-long names that differ only past the cut apart', () => {
    const base = 'tool_with_a_really_long_descriptive_name_that_goes_on_and_on';
    const a = dunder('namespace_of_32_characters_long_', `${base}_alpha`);
    const b = dunder('namespace_of_32_characters_long_', `${base}_beta`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 57)).toBe(b.slice(0, 57));
    for (const out of [a, b]) expect(out).toMatch(SAFE);
  });

  it('is a pure function of its input', () => {
    for (const [ns, name] of [
      ['ns', 'plain'],
      ['ns', 'with.dot'],
      ['n', 'y'.repeat(200)],
      ['ü', ''],
    ] as const) {
      expect(dunder(ns, name)).toBe(dunder(ns, name));
    }
  });

  it('handles empty names', () => {
    expect(dunder('ns', '')).toBe('ns__');
    // An empty namespace is no namespace (see below).
    expect(dunder('', 'tool')).toBe('tool');
  });
});

describe('advertisedName without a namespace (namespace: false)', () => {
  it('is the name as it is, in both modes', () => {
    expect(advertisedName('', 'list_generators', 'double-underscore')).toBe('list_generators');
    expect(advertisedName('', 'list_generators', 'colon')).toBe('list_generators');
  });

  it('still makes an unsafe name client-safe', () => {
    const name = advertisedName('', 'has space', 'double-underscore');
    expect(name).toMatch(/^has_space_[0-9a-f]{6}$/);
  });
});

describe('advertisedName (colon)', () => {
  it('advertises ns:tool literally', () => {
    expect(advertisedName('chora', 'generate_content', 'colon')).toBe('chora:generate_content');
    expect(advertisedName('ns', 'a.b c', 'colon')).toBe('ns:a.b c');
    expect(advertisedName('ns', 'café', 'colon')).toBe('ns:café');
    const long = 'z'.repeat(100);
    expect(advertisedName('ns', long, 'colon')).toBe(`ns:${long}`);
  });
});

describe('advertisedName over 500 generated names', () => {
  // fast-check is not resolvable from this package, so a seeded generator stands in for it.
  const cases = randomNames(500, 0x5eed);

  it('generates a varied set', () => {
    const safe = cases.filter(([ns, n]) => CLIENT_SAFE.test(`${ns}__${n}`)).length;
    expect(safe).toBeGreaterThan(50);
    expect(cases.length - safe).toBeGreaterThan(150);
    expect(cases.some(([ns, n]) => `${ns}__${n}`.length > 64)).toBe(true);
    expect(cases.some(([, n]) => /[^\p{ASCII}]/u.test(n))).toBe(true);
  });

  it('always gives a client-safe name of at most 64 characters', () => {
    for (const [ns, name] of cases) {
      const out = dunder(ns, name);
      if (!SAFE.test(out))
        throw new Error(`${JSON.stringify([ns, name])} → ${JSON.stringify(out)}`);
      expect(CLIENT_SAFE.test(out)).toBe(true);
    }
  });

  it('keeps safe names, hashes the others, and is deterministic', () => {
    for (const [ns, name] of cases) {
      const candidate = `${ns}__${name}`;
      const out = dunder(ns, name);
      expect(dunder(ns, name)).toBe(out);
      if (CLIENT_SAFE.test(candidate)) expect(out).toBe(candidate);
      else {
        expect(out).toMatch(HASHED);
        // The readable part is the sanitized name, cut before the hash.
        const readable = candidate.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 57);
        expect(out.slice(0, -7)).toBe(readable);
      }
    }
  });

  it('maps different names to different advertised names', () => {
    const byOut = new Map<string, string>();
    for (const [ns, name] of cases) {
      const candidate = `${ns}__${name}`;
      const out = dunder(ns, name);
      const seen = byOut.get(out);
      if (seen !== undefined && seen !== candidate) {
        throw new Error(`${JSON.stringify(seen)} and ${JSON.stringify(candidate)} → ${out}`);
      }
      byOut.set(out, candidate);
    }
    expect(byOut.size).toBe(new Set(cases.map(([ns, n]) => `${ns}__${n}`)).size);
  });

  it('colon mode is literal for every generated name', () => {
    for (const [ns, name] of cases) expect(advertisedName(ns, name, 'colon')).toBe(`${ns}:${name}`);
  });
});

describe('disambiguate', () => {
  it('appends a hash of the backend: stable, per backend', () => {
    const a = disambiguate('shared__search', 'alpha');
    expect(a).toMatch(/^shared__search_[0-9a-f]{6}$/);
    expect(disambiguate('shared__search', 'alpha')).toBe(a);
    expect(disambiguate('shared__search', 'beta')).not.toBe(a);
    expect(a).not.toBe('shared__search');
  });

  it('keeps a client-safe name client-safe and at most 64 characters', () => {
    for (const name of ['x', 'ns__tool', 'n'.repeat(57), 'n'.repeat(58), 'n'.repeat(64)]) {
      const out = disambiguate(name, 'backend');
      expect(out).toMatch(SAFE);
      expect(out.length).toBeLessThanOrEqual(64);
      expect(out).toMatch(HASHED);
    }
    expect(disambiguate('n'.repeat(64), 'backend')).toHaveLength(64);
  });

  it('keeps advertised names of different backends apart after the cut', () => {
    const name = dunder('ns', 'q'.repeat(80));
    const outs = ['a', 'b', 'c', 'backend-with-a-long-name'].map((b) => disambiguate(name, b));
    expect(new Set(outs).size).toBe(outs.length);
    for (const out of outs) expect(out).toMatch(SAFE);
  });

  it('stays within 64 for every generated advertised name', () => {
    for (const [ns, name] of randomNames(500, 0xbeef)) {
      const out = disambiguate(dunder(ns, name), ns);
      expect(out).toMatch(SAFE);
      expect(disambiguate(dunder(ns, name), ns)).toBe(out);
    }
  });
});

describe('hashes over UTF-16 code units', () => {
  it('keeps lone surrogates apart', () => {
    expect(advertisedName('ns', '\uD800', 'double-underscore')).not.toBe(
      advertisedName('ns', '\uD801', 'double-underscore'),
    );
  });
});
