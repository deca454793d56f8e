import { runSteps } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import {
  defaultTokens,
  EXTENSION_KEY,
  TOKEN_LIMITS,
  tokenDocument,
  tokenLimitProblem,
  tokenLimitSteps,
  validateTokens,
  validateTokensSliced,
} from './dtcg.js';

const color = (hex: string) => ({ colorSpace: 'srgb', components: [0, 0, 0], hex });

describe('validateTokens (DTCG 2025.10)', () => {
  it('accepts the starter document, with its reference', () => {
    expect(validateTokens(defaultTokens())).toEqual([]);
  });

  it('inherits $type from groups and checks values by type', () => {
    expect(
      validateTokens({
        size: {
          $type: 'dimension',
          sm: { $value: { value: 4, unit: 'px' } },
          bad: { $value: { value: 4, unit: 'em' } },
        },
      }),
    ).toEqual([{ field: 'size.bad', error: 'a dimension is {value: number, unit: "px" | "rem"}' }]);
    expect(validateTokens({ c: { $type: 'color', x: { $value: '#fff' } } })).toEqual([
      { field: 'c.x', error: 'a color is {colorSpace, components[, alpha, hex]}' },
    ]);
    expect(
      validateTokens({ d: { $type: 'duration', x: { $value: { value: 1, unit: 'min' } } } })[0]
        ?.field,
    ).toBe('d.x');
  });

  it('resolves references and reports missing targets, cycles and type mismatches', () => {
    expect(validateTokens({ a: { $type: 'color', x: { $value: '{a.y}' } } })).toEqual([
      { field: 'a.x', error: 'references {a.y}, which does not exist' },
    ]);
    const cycle = validateTokens({
      a: { $type: 'number', x: { $value: '{a.y}' }, y: { $value: '{a.x}' } },
    });
    expect(cycle.map((p) => p.error)).toEqual([
      expect.stringContaining('cycle'),
      expect.stringContaining('cycle'),
    ]);
    expect(
      validateTokens({
        c: { $type: 'color', brand: { $value: color('#000000') } },
        n: { $type: 'number', x: { $value: '{c.brand}' } },
      }),
    ).toEqual([
      { field: 'n.x', error: 'a number token cannot reference the color token {c.brand}' },
    ]);
  });

  it('rejects bad names, unknown types and properties, and non-objects', () => {
    expect(validateTokens({ 'a.b': { $value: 1, $type: 'number' } })[0]?.error).toMatch(
      /cannot contain/,
    );
    expect(validateTokens({ a: { $type: 'colour', x: { $value: 1 } } })[0]?.error).toMatch(
      /unknown \$type/,
    );
    expect(validateTokens({ a: { $value: 1, $type: 'number', $weird: true } })[0]?.error).toMatch(
      /unknown token property/,
    );
    expect(validateTokens({ a: 5 })).toEqual([
      { field: 'a', error: 'a token or group is a JSON object' },
    ]);
    expect(validateTokens([])).toEqual([
      { field: '(root)', error: 'a token document is a JSON object' },
    ]);
  });

  it('bounds depth and size', () => {
    let deep: Record<string, unknown> = { t: { $value: 1, $type: 'number' } };
    for (let i = 0; i < 40; i++) deep = { g: deep };
    expect(validateTokens(deep).some((p) => /nest at most/.test(p.error))).toBe(true);
  });
});

describe('validateTokens: limits, linear and without recursion', () => {
  /** t0 a number; t1 → t0, t2 → t1, …; `count` tokens in one group. */
  const chain = (count: number, group = 'c') => {
    const tokens: Record<string, unknown> = { $type: 'number', t0: { $value: 0 } };
    for (let i = 1; i < count; i++) tokens[`t${i}`] = { $value: `{${group}.t${i - 1}}` };
    return tokens;
  };

  it('a chain as long as the token limit: every token past 32 references, each once', () => {
    const problems = validateTokens({ c: chain(TOKEN_LIMITS.tokens) });
    expect(problems).toHaveLength(TOKEN_LIMITS.tokens - 33);
    expect(problems[0]).toEqual({
      field: 'c.t33',
      error: 'an alias chain is at most 32 references long; this one is 33',
    });
    expect(problems.at(-1)).toEqual({
      field: `c.t${TOKEN_LIMITS.tokens - 1}`,
      error: `an alias chain is at most 32 references long; this one is ${(TOKEN_LIMITS.tokens - 1).toLocaleString('en-US')}`,
    });
  });

  it('twice the token limit in one chain: the token limit, not a RangeError', () => {
    const c = chain(2 * TOKEN_LIMITS.tokens);
    expect(() => validateTokens({ c })).not.toThrow();
    expect(validateTokens({ c })).toEqual([
      {
        field: `c.t${TOKEN_LIMITS.tokens}`,
        error: `a token document holds at most ${TOKEN_LIMITS.tokens.toLocaleString('en-US')} tokens`,
      },
    ]);
  });

  it('stops at the token limit: one problem, however many groups follow', () => {
    const doc: Record<string, unknown> = {};
    // Groups of two fifths of the limit: the third group crosses it at its member limit / 5.
    const per = (2 * TOKEN_LIMITS.tokens) / 5;
    const past = `g2.n${TOKEN_LIMITS.tokens / 5}`;
    for (let g = 0; g < 4; g++) {
      const group: Record<string, unknown> = { $type: 'number' };
      for (let i = 0; i < per; i++) group[`n${i}`] = { $value: i, $bogus: true };
      doc[`g${g}`] = group;
    }
    const problems = validateTokens(doc);
    expect(problems.filter((p) => /holds at most/.test(p.error))).toEqual([
      {
        field: past,
        error: `a token document holds at most ${TOKEN_LIMITS.tokens.toLocaleString('en-US')} tokens`,
      },
    ]);
    // Nothing after it was looked at.
    expect(problems.at(-1)?.field).toBe(past);
  });

  it('shared chains are resolved once: tokens that join one count from where they join', () => {
    const doc = {
      c: chain(31),
      j: { $type: 'number', a: { $value: '{c.t30}' }, b: { $value: '{j.a}' } },
    };
    // c.t30 is 30 references from a value: j.a is 31, j.b 32 — both fit; one more does not.
    expect(validateTokens(doc)).toEqual([]);
    const over = { ...doc, k: { $type: 'number', x: { $value: '{j.b}' } } };
    expect(validateTokens(over)).toEqual([
      { field: 'k.x', error: 'an alias chain is at most 32 references long; this one is 33' },
    ]);
  });

  it('a cycle at the end of a long chain: each token on the way reports it, once', () => {
    const doc = chain(4_000);
    doc.t0 = { $value: '{c.t3999}' };
    const problems = validateTokens({ c: doc });
    expect(problems).toHaveLength(4_000);
    expect(new Set(problems.map((p) => p.error)).size).toBe(1);
    expect(problems[0]?.error).toMatch(/^reference cycle through \{c\.t\d+\}$/);
  });

  it('a missing target at the end of a long chain: every token on it names the target', () => {
    const doc = chain(3_000);
    doc.t0 = { $value: '{c.nope}' };
    const problems = validateTokens({ c: doc });
    expect(problems).toHaveLength(3_000);
    expect(problems.every((p) => p.error === 'references {c.nope}, which does not exist')).toBe(
      true,
    );
  });

  it('JSON nested 100,000 deep anywhere: one problem naming the limit, not a RangeError', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    for (const doc of [
      { t: { $type: 'border', $value: deep } },
      { $extensions: { 'com.example': deep } },
      { g: deep },
    ]) {
      const problems = validateTokens(doc);
      expect(problems).toHaveLength(1);
      expect(problems[0]?.error).toBe('a token document nests objects and arrays at most 64 deep');
    }
  });

  it('a document over the size limit: one problem naming the limit', () => {
    const doc = { t: { $type: 'number', $value: 1, $description: 'x'.repeat(TOKEN_LIMITS.bytes) } };
    expect(validateTokens(doc)).toEqual([
      {
        field: '(root)',
        error: `a token document is at most ${TOKEN_LIMITS.bytes.toLocaleString('en-US')} bytes of JSON; this one is longer`,
      },
    ]);
  });

  it('exactly the byte limit of JSON (UTF-8, escapes included) is within it; one more is not', () => {
    // ü is two bytes, 😀 four, \n two, \u0001 six: the size is the text JSON.stringify writes.
    const base = { t: { $type: 'number', $value: 1, $description: 'ü😀\n\u0001' } };
    const fill = TOKEN_LIMITS.bytes - Buffer.byteLength(JSON.stringify(base));
    const exact = { t: { ...base.t, $description: `${base.t.$description}${'x'.repeat(fill)}` } };
    expect(Buffer.byteLength(JSON.stringify(exact))).toBe(TOKEN_LIMITS.bytes);
    expect(tokenLimitProblem(exact)).toBeUndefined();
    const over = { t: { ...exact.t, $description: `${exact.t.$description}x` } };
    expect(tokenLimitProblem(over)?.error).toBe(
      `a token document is at most ${TOKEN_LIMITS.bytes.toLocaleString('en-US')} bytes of JSON; this one is longer`,
    );
  });

  it('refuses a document too large or too deep without reading the rest of it', () => {
    // A group after the part already past a limit, which records whether it is looked at:
    // refusing must cost what the limit allows, not what the document holds.
    let touched = 0;
    const later = new Proxy(
      { t: { $value: 1 } },
      {
        ownKeys: (target) => {
          touched++;
          return Reflect.ownKeys(target);
        },
        get: (target, key) => {
          touched++;
          return Reflect.get(target, key);
        },
      },
    );
    const big = {
      t: { $type: 'number', $value: 1, $description: 'x'.repeat(TOKEN_LIMITS.bytes + 1) },
    };
    expect(tokenLimitProblem({ big, later })?.error).toBe(
      `a token document is at most ${TOKEN_LIMITS.bytes.toLocaleString('en-US')} bytes of JSON; this one is longer`,
    );
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { a: deep };
    expect(tokenLimitProblem({ deep, later })?.error).toMatch(/at most 64 deep/);
    expect(touched).toBe(0);
  });

  it('counts tokens before validating any: the first one past the limit, alone', () => {
    // Every token is invalid too: a document past the token limit is refused for that alone.
    const many: Record<string, unknown> = { $type: 'number' };
    for (let i = 0; i <= TOKEN_LIMITS.tokens; i++) many[`n${i}`] = { $value: 'x', $bogus: true };
    const refusal = {
      field: `many.n${TOKEN_LIMITS.tokens}`,
      error: `a token document holds at most ${TOKEN_LIMITS.tokens.toLocaleString('en-US')} tokens`,
    };
    expect(tokenLimitProblem({ many })).toEqual(refusal);
    expect(validateTokens({ many })).toEqual([refusal]);
  });

  it('validateTokensSliced: the same problems, with other work served between its slices', async () => {
    const doc = { c: chain(TOKEN_LIMITS.tokens) };
    const order: string[] = [];
    const other = new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push('other');
        resolve();
      }),
    );
    const problems = await validateTokensSliced(doc, 0);
    order.push('validated');
    await other;
    expect(order).toEqual(['other', 'validated']);
    expect(problems).toEqual(validateTokens(doc));
  });
});

describe('tokenDocument', () => {
  it('adds product data under $extensions and keeps other extensions', () => {
    const doc = tokenDocument(
      { $extensions: { 'com.other': { x: 1 } }, a: { $value: 1, $type: 'number' } },
      'proj_1',
      't',
    );
    expect(doc.$extensions).toEqual({
      'com.other': { x: 1 },
      [EXTENSION_KEY]: { projectId: 'proj_1', updatedAt: 't' },
    });
  });
});

describe('tokenLimitSteps', () => {
  /** Runs it to its end: the problem found, and how often it paused. */
  const run = (doc: unknown) => {
    const { value: problem, pauses } = runSteps(tokenLimitSteps(doc));
    return { problem, pauses };
  };
  const tokens = (n: number) => ({
    n: {
      $type: 'number',
      ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, { $value: i }])),
    },
  });

  it('pauses while it measures and counts a large document (#35), and finds what tokenLimitProblem finds', () => {
    const within = run(tokens(TOKEN_LIMITS.tokens));
    expect(within.problem).toBeUndefined();
    // Every 128 tokens counted, and every 2,048 members measured before.
    expect(within.pauses).toBeGreaterThanOrEqual(TOKEN_LIMITS.tokens / 128);
    const over = tokens(TOKEN_LIMITS.tokens + 1);
    expect(run(over).problem).toStrictEqual(tokenLimitProblem(over));
    expect(run(over).problem?.error).toContain('at most 10,000 tokens');
  });

  it('does not pause for a small document', () => {
    expect(run(tokens(10))).toStrictEqual({ problem: undefined, pauses: 0 });
  });
});
