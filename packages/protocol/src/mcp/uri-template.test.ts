import { describe, expect, it, vi } from 'vitest';
import { UriTemplate } from './uri-template.js';

describe('UriTemplate: simple {var}', () => {
  const t = new UriTemplate('users://{userId}/posts/{postId}');

  it('lists its variable names', () => {
    expect(t.variableNames).toEqual(['userId', 'postId']);
    expect(t.template).toBe('users://{userId}/posts/{postId}');
  });

  it('matches and extracts variables', () => {
    expect(t.match('users://42/posts/abc')).toEqual({ userId: '42', postId: 'abc' });
  });

  it('percent-decodes values', () => {
    expect(t.match('users://j%C3%BCrgen%20x/posts/a%2Fb')).toEqual({
      userId: 'jürgen x',
      postId: 'a/b',
    });
  });

  it('does not let a simple value span a slash, query or fragment', () => {
    expect(t.match('users://a/b/posts/c')).toBeUndefined();
    expect(t.match('users://a/posts/c?x=1')).toBeUndefined();
    expect(t.match('users://a/posts/c#top')).toBeUndefined();
  });

  it('returns undefined for URIs that do not match', () => {
    expect(t.match('users://42/comments/1')).toBeUndefined();
    expect(t.match('other://42/posts/1')).toBeUndefined();
    expect(t.match('xusers://42/posts/1')).toBeUndefined();
    expect(t.match('users://42/posts/1/extra')).toBeUndefined();
    expect(t.match('')).toBeUndefined();
  });

  it('matches an empty value', () => {
    expect(t.match('users:///posts/x')).toEqual({ userId: '', postId: 'x' });
  });

  it('expands with percent-encoding and round-trips', () => {
    const vars = { userId: 'jürgen x', postId: 'a/b?c' };
    const uri = t.expand(vars);
    expect(uri).toBe('users://j%C3%BCrgen%20x/posts/a%2Fb%3Fc');
    expect(t.match(uri)).toEqual(vars);
  });

  it('expands a missing variable to nothing', () => {
    expect(t.expand({ userId: '1' })).toBe('users://1/posts/');
  });

  it('matches comma lists of names', () => {
    const pair = new UriTemplate('geo://{lat,lon}');
    expect(pair.variableNames).toEqual(['lat', 'lon']);
    expect(pair.match('geo://52.5,13.4')).toEqual({ lat: '52.5', lon: '13.4' });
    expect(pair.expand({ lat: '52.5', lon: '13.4' })).toBe('geo://52.5,13.4');
  });
});

describe('UriTemplate: reserved {+var} and fragment {#var}', () => {
  it('{+var} spans slashes', () => {
    const t = new UriTemplate('file:///{+path}');
    expect(t.match('file:///home/user/notes.txt')).toEqual({ path: 'home/user/notes.txt' });
    expect(t.expand({ path: 'a/b c/d' })).toBe('file:///a/b%20c/d');
    expect(t.match(t.expand({ path: 'a/b c/d' }))).toEqual({ path: 'a/b c/d' });
  });

  it('{+var} followed by a literal stops at that literal', () => {
    const t = new UriTemplate('repo://{+path}/raw');
    expect(t.match('repo://src/lib/index.ts/raw')).toEqual({ path: 'src/lib/index.ts' });
    expect(t.match('repo://src/lib/index.ts')).toBeUndefined();
  });

  it('{#var} matches a fragment', () => {
    const t = new UriTemplate('doc://guide{#section}');
    expect(t.match('doc://guide#install/linux')).toEqual({ section: 'install/linux' });
    expect(t.match('doc://guide')).toBeUndefined();
    expect(t.expand({ section: 'a b' })).toBe('doc://guide#a%20b');
    expect(t.expand({})).toBe('doc://guide');
  });
});

describe('UriTemplate: path {/var} and label {.var}', () => {
  it('{/var} matches a path segment', () => {
    const t = new UriTemplate('api://v1{/resource}');
    expect(t.match('api://v1/users')).toEqual({ resource: 'users' });
    expect(t.match('api://v1users')).toBeUndefined();
    expect(t.match('api://v1/users/1')).toBeUndefined();
    expect(t.expand({ resource: 'a/b' })).toBe('api://v1/a%2Fb');
  });

  it('{/a,b} matches several segments', () => {
    const t = new UriTemplate('api://root{/a,b}');
    expect(t.match('api://root/x/y')).toEqual({ a: 'x', b: 'y' });
    expect(t.expand({ a: 'x', b: 'y' })).toBe('api://root/x/y');
  });

  it('{.var} matches a dot-prefixed label', () => {
    const t = new UriTemplate('files://report{.ext}');
    expect(t.match('files://report.pdf')).toEqual({ ext: 'pdf' });
    expect(t.match('files://reportpdf')).toBeUndefined();
    expect(t.match('files://report')).toBeUndefined();
    expect(t.expand({ ext: 'csv' })).toBe('files://report.csv');
  });
});

describe('UriTemplate: query {?a,b} and {&c}', () => {
  const t = new UriTemplate('search://items{?q,lang}');

  it('matches the query in any order', () => {
    expect(t.match('search://items?q=owl&lang=en')).toEqual({ q: 'owl', lang: 'en' });
    expect(t.match('search://items?lang=en&q=owl')).toEqual({ q: 'owl', lang: 'en' });
  });

  it('ignores unknown query keys and tolerates missing ones', () => {
    expect(t.match('search://items?page=2&q=owl&debug')).toEqual({ q: 'owl' });
    expect(t.match('search://items')).toEqual({});
    expect(t.match('search://items?lang=de')).toEqual({ lang: 'de' });
  });

  it('percent-decodes query keys and values', () => {
    expect(t.match('search://items?q=snowy%20owl%26co&l%61ng=en')).toEqual({
      q: 'snowy owl&co',
      lang: 'en',
    });
  });

  it('does not match when the path before the query differs', () => {
    expect(t.match('search://other?q=owl')).toBeUndefined();
    expect(t.match('search://itemsX?q=owl')).toBeUndefined();
  });

  it('expands present variables only', () => {
    expect(t.expand({ q: 'snowy owl', lang: 'en' })).toBe('search://items?q=snowy%20owl&lang=en');
    expect(t.expand({ lang: 'en' })).toBe('search://items?lang=en');
    expect(t.expand({})).toBe('search://items');
    expect(t.match(t.expand({ q: 'a&b=c', lang: 'x' }))).toEqual({ q: 'a&b=c', lang: 'x' });
  });

  it('combines a path variable with a query continuation {&c}', () => {
    const c = new UriTemplate('list://{kind}?fixed=1{&page}');
    expect(c.variableNames).toEqual(['kind', 'page']);
    expect(c.match('list://books?fixed=1&page=3')).toEqual({ kind: 'books', page: '3' });
    expect(c.expand({ kind: 'books', page: '3' })).toBe('list://books?fixed=1&page=3');
  });

  it('combines a path variable with a query expression', () => {
    const c = new UriTemplate('users://{id}{?fields}');
    expect(c.match('users://7?fields=name')).toEqual({ id: '7', fields: 'name' });
    expect(c.match('users://7')).toEqual({ id: '7' });
  });
});

describe('UriTemplate: literals, decoding and limits', () => {
  it('treats regex metacharacters in literals literally', () => {
    const t = new UriTemplate('weird://a.b*c+(d)[e]^$|\\{id}');
    expect(t.match('weird://a.b*c+(d)[e]^$|\\42')).toEqual({ id: '42' });
    expect(t.match('weird://aXb*c+(d)[e]^$|\\42')).toBeUndefined();
    expect(t.match('weird://a.bbbc+(d)[e]^$|\\42')).toBeUndefined();
  });

  it('treats a literal question mark literally', () => {
    const t = new UriTemplate('q://x?y={v}');
    expect(t.match('q://x?y=1')).toEqual({ v: '1' });
    expect(t.match('q://xy=1')).toBeUndefined();
  });

  it('does not match malformed percent sequences', () => {
    const t = new UriTemplate('users://{id}');
    expect(t.match('users://%')).toBeUndefined();
    expect(t.match('users://%E0%A4%A')).toBeUndefined();
    expect(t.match('users://%ZZ')).toBeUndefined();
    expect(t.match('users://%C3')).toBeUndefined();
    const reserved = new UriTemplate('files://{+path}');
    expect(reserved.match('files://a/%G1/b')).toBeUndefined();
  });

  it('matches multi-line values of {+var} (dotAll)', () => {
    const t = new UriTemplate('raw://{+body}');
    expect(t.match('raw://line1\nline2')).toEqual({ body: 'line1\nline2' });
  });

  it('returns undefined for very long URIs', () => {
    const reserved = new UriTemplate('files://{+path}');
    const ok = `files://${'a'.repeat(1000)}`;
    expect(reserved.match(ok)).toEqual({ path: 'a'.repeat(1000) });
    const long = `files://${'a'.repeat(20_000)}`;
    expect(reserved.match(long)).toBeUndefined();
    const simple = new UriTemplate('users://{id}');
    expect(simple.match(`users://${'x'.repeat(10_000)}`)).toBeUndefined();
  });

  it('accepts a URI at the length limit and refuses one over it', () => {
    const t = new UriTemplate('x:{+v}');
    const at = `x:${'a'.repeat(4096 - 2)}`;
    expect(at).toHaveLength(4096);
    expect(t.match(at)?.v).toHaveLength(4094);
    expect(t.match(`${at}a`)).toBeUndefined();
  });

  it('matches a template without expressions exactly', () => {
    const t = new UriTemplate('config://app');
    expect(t.variableNames).toEqual([]);
    expect(t.match('config://app')).toEqual({});
    expect(t.match('config://apps')).toBeUndefined();
    expect(t.expand({ anything: 'x' })).toBe('config://app');
  });

  it('strips the explode modifier from names', () => {
    const t = new UriTemplate('tags://{list*}');
    expect(t.variableNames).toEqual(['list']);
    expect(t.match('tags://abc')).toEqual({ list: 'abc' });
  });
});

describe('UriTemplate: invalid templates', () => {
  it.each([
    ['unclosed brace', 'users://{id'],
    ['unclosed at the end', 'users://{'],
    ['path-parameter operator', 'users://x{;id}'],
    ['text after a query expression', 'search://{?q}/more'],
    ['text after a query continuation', 'search://x{?q}{&p}tail'],
    ['empty expression', 'users://{}'],
    ['space in a name', 'users://{user id}'],
    ['empty name in a list', 'users://{a,}'],
    ['nested brace', 'users://{a{b}}'],
    ['unsupported character in name', 'users://{a-b}'],
  ])('throws for %s (%s)', (_label, template) => {
    expect(() => new UriTemplate(template)).toThrow(TypeError);
  });

  it('names the problem', () => {
    expect(() => new UriTemplate('users://{id')).toThrow(/unclosed/);
    expect(() => new UriTemplate('users://{;id}')).toThrow(/not supported/);
    expect(() => new UriTemplate('s://{?q}x')).toThrow(/nothing may follow a query expression/);
  });
});

describe('UriTemplate: matching cannot be made slow', () => {
  it('refuses more than one reserved expression, and adjacent expressions', () => {
    expect(() => new UriTemplate('x://{+a}/{+b}')).toThrow(/at most one/);
    expect(() => new UriTemplate('x://{+a}{#b}')).toThrow(/at most one/);
    expect(() => new UriTemplate('x://{a}{b}')).toThrow(/adjacent expressions/);
    expect(() => new UriTemplate('x{?a}{/b}')).toThrow(/nothing may follow a query expression/);
    expect(new UriTemplate('x://{a}{/b}').match('x://one/two')).toEqual({ a: 'one', b: 'two' });
  });

  it('stops a simple value at the separator that follows it', () => {
    const t = new UriTemplate('x://{a}-{b}');
    expect(t.match('x://one-two-three')).toEqual({ a: 'one', b: 'two-three' });
    expect(t.match('x://one-two')).toEqual({ a: 'one', b: 'two' });
    expect(new UriTemplate('x://{a}-{b}/z').match('x://one-two-three/z')).toEqual({
      a: 'one',
      b: 'two-three',
    });
  });

  it('cannot backtrack catastrophically on hostile URIs at the length limit', () => {
    const hostile = [
      ['x://{a}-{b}-{c}-{d}z', `x://${'-'.repeat(4000)}`],
      ['x://{+a}/{b}/{c}z', `x://${'a/'.repeat(2040)}`],
      ['x://{a},{b}.{c}z', `x://${'a,'.repeat(2040)}`],
    ] as const;
    for (const [template, uri] of hostile) {
      // The guard is the shape of the expression matched, not a clock: each group can end at
      // one place only, so a 4096-character URI costs at most one pass per end of the single
      // lazy group (quadratic, bounded by the length limit), never an exponential search.
      // Checked first: a regression fails here instead of hanging in `match`.
      expect(backtrackRisks(patternOf(template)), template).toEqual([]);
      expect(new UriTemplate(template).match(uri)).toBeUndefined();
    }
  });

  it('sees the risks it is there to see', () => {
    expect(backtrackRisks('^x://([^/]*)/(.*?)/(.*?)$')).toEqual(['2 lazy (.*?) groups']);
    expect(backtrackRisks('^x://([^/?#,]*)\\-([^/]*)z$')).toEqual([
      "([^/?#,]*) can run over the '-' after it",
      "([^/]*) can run over the 'z' after it",
    ]);
    expect(backtrackRisks('^x://([^/]*)([^-]*)$')).toEqual([
      "([^/]*) can run over the '(' after it",
    ]);
    expect(backtrackRisks('^x://((?:a+)+)$')).toEqual(["another quantifier: '((?:a+)+)'"]);
  });
});

/** The source of the regular expression `new UriTemplate(template)` matches with. */
function patternOf(template: string): string {
  const built = vi.spyOn(globalThis, 'RegExp');
  try {
    new UriTemplate(template);
    return String(built.mock.calls.at(-1)?.[0]);
  } finally {
    built.mockRestore();
  }
}

/**
 * What in an expression could make matching search more than one lazy group's ends: a second
 * `(.*?)`, a `([^…]*)` group whose class lets it run over the literal after it (two ways to split
 * the same text), or any other quantifier or group. None: matching is a single pass per end of
 * the one lazy group.
 */
function backtrackRisks(pattern: string): string[] {
  const risks: string[] = [];
  const lazy = pattern.split('(.*?)').length - 1;
  if (lazy > 1) risks.push(`${lazy} lazy (.*?) groups`);
  const rest = pattern
    .replace(
      /\(\[\^((?:\\.|[^\]\\])*)\]\*\)(?=(\\.|.|$))/g,
      (group: string, stops: string, next: string, at: number, all: string) => {
        const anchored = next === '$' && at + group.length + 1 === all.length;
        const literal = next.replace(/^\\/, '');
        if (!anchored && !stops.replace(/\\(.)/g, '$1').includes(literal)) {
          risks.push(`${group} can run over the '${literal}' after it`);
        }
        return '';
      },
    )
    .replaceAll('(.*?)', '')
    .replace(/\(\?:\[\?&\]\(\.\*\)\)\?\$$/, '$')
    .replace(/\\./g, '');
  const other = rest.match(/[(*+?{].*[)*+?}]/)?.[0];
  if (other !== undefined) risks.push(`another quantifier: '${other}'`);
  return risks;
}
