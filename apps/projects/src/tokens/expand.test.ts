import { runSteps } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { validateTokens } from '../dtcg.js';
import { EXPANSION_LIMIT, expandDocument, usesExpansionSteps } from './expand.js';
import { flattenTokens } from './flatten.js';

const blue = { colorSpace: 'srgb', components: [0, 0.4, 0.8] };

describe('$extends and $ref, expanded', () => {
  it('a group extension: inherited tokens and $type, local tokens replace whole, groups merge', () => {
    const doc = {
      button: {
        $type: 'color',
        bg: { $value: blue, $description: 'inherited' },
        text: { $value: blue },
        states: { hover: { $value: blue }, active: { $value: blue } },
      },
      danger: {
        $extends: '{button}',
        bg: { $value: { colorSpace: 'srgb', components: [1, 0, 0] } },
        states: { hover: { $value: { colorSpace: 'srgb', components: [0.8, 0, 0] } } },
      },
    };
    expect(validateTokens(doc)).toEqual([]);
    const flat = flattenTokens(doc);
    expect([...flat.keys()].filter((p) => p.startsWith('danger.'))).toEqual([
      'danger.bg',
      'danger.text',
      'danger.states.hover',
      'danger.states.active',
    ]);
    // Replaced whole: the inherited description is gone; the type is the extended group's.
    expect(flat.get('danger.bg')).toMatchObject({ type: 'color', description: undefined });
    expect(flat.get('danger.states.hover')?.value).toEqual({
      colorSpace: 'srgb',
      components: [0.8, 0, 0],
    });
    expect(flat.get('danger.states.active')?.value).toEqual(blue);
  });

  it('JSON Pointer references: a token to a token is an alias; into a value, that value', () => {
    const doc = {
      colors: { $type: 'color', blue: { $value: blue } },
      semantic: {
        primary: { $ref: '#/colors/blue' },
        hue: { $type: 'number', $value: { $ref: '#/colors/blue/$value/components/2' } },
        same: { $type: 'color', $value: { $ref: '#/colors/blue/$value' } },
      },
    };
    expect(validateTokens(doc)).toEqual([]);
    const { doc: expanded } = expandDocument(doc);
    expect(expanded.semantic).toEqual({
      primary: { $value: '{colors.blue}' },
      hue: { $type: 'number', $value: 0.8 },
      same: { $type: 'color', $value: '{colors.blue}' },
    });
    // The stored document keeps its references (§7.2).
    expect(doc.semantic.primary).toEqual({ $ref: '#/colors/blue' });
  });

  it('refuses what cannot be expanded, naming where', () => {
    const fields = (doc: Record<string, unknown>) => validateTokens(doc).map((p) => p.field);
    expect(fields({ a: { $extends: '{nowhere}' } })).toEqual(['a']);
    expect(fields({ t: { $type: 'number', $value: 1 }, a: { $extends: '{t}' } })).toEqual(['a']);
    expect(validateTokens({ a: { $extends: '{b}' }, b: { $extends: '{a}' } })[0]?.error).toMatch(
      /\$extends cycle/,
    );
    expect(
      validateTokens({ n: { $type: 'number', $value: { $ref: 'https://example.com/x.json' } } }),
    ).toEqual([
      { field: 'n', error: "$ref 'https://example.com/x.json': only same-document pointers (#/…)" },
    ]);
    expect(
      validateTokens({ n: { $type: 'number', $value: { $ref: '#/m' } }, m: { $ref: '#/n' } })[0]
        ?.error,
    ).toMatch(/points at|cycle/);
  });

  it(`stops past ${EXPANSION_LIMIT.toLocaleString('en-US')} objects: groups extending groups cannot multiply a document`, () => {
    // Each level extends the one before twice over: 2^18 copies of the first group's tokens.
    const doc: Record<string, unknown> = {
      l0: { $type: 'number', a: { $value: 1 }, b: { $value: 2 } },
    };
    for (let i = 1; i <= 18; i++) {
      doc[`l${i}`] = { x: { $extends: `{l${i - 1}}` }, y: { $extends: `{l${i - 1}}` } };
    }
    const problems = validateTokens(doc);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.error).toMatch(/expand this document past|holds at most/);
  });
});

describe('the look for $extends and $ref', () => {
  const steps = (doc: unknown) => {
    const { value: uses, pauses } = runSteps(usesExpansionSteps(doc));
    return { uses, pauses };
  };

  it('pauses every 2,048 nodes of a document that uses neither (#35: no single long step)', () => {
    const doc: Record<string, unknown> = {};
    // 10,000 tokens: the group, 10,000 tokens and their 10,000 values are 20,001 nodes.
    for (let n = 0; n < 10_000; n++) doc[`t${n}`] = { $value: n };
    const { uses, pauses } = steps(doc);
    expect(uses).toBe(false);
    expect(pauses).toBe(Math.floor(20_001 / 2048));
  });

  it('finds one however deep, and stops there', () => {
    let doc: Record<string, unknown> = { leaf: { $ref: '#/x' } };
    for (let n = 0; n < 5_000; n++) doc = { [`g${n}`]: doc };
    expect(steps(doc).uses).toBe(true);
    expect(steps({ a: [{ b: { $extends: '{c}' } }] }).uses).toBe(true);
  });

  it('walks an array of half a million members without overflowing the stack', () => {
    const doc = { big: { $value: new Array(500_000).fill(0) } };
    expect(steps(doc)).toEqual({ uses: false, pauses: Math.floor(500_003 / 2048) });
    expect(expandDocument(doc).doc).toBe(doc);
    // The whole validation too: a value it cannot take, said as a problem, not a RangeError.
    expect(validateTokens(doc).length).toBeGreaterThan(0);
  });
});
