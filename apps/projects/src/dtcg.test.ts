import { describe, expect, it } from 'vitest';
import { defaultTokens, EXTENSION_KEY, tokenDocument, validateTokens } from './dtcg.js';

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
        c: { $type: 'color', brand: { $value: color('#000') } },
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
