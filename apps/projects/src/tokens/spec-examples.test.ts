/**
 * validateTokens against the DTCG 2025.10 spec: every token document among the examples of the
 * Format and Color modules (test/fixtures/dtcg-2025.10-examples.ts) gives no problem if the spec's
 * rules make it valid and a problem at the named path if not; then the reference rules the
 * examples leave out: cycles, the alias chain bound, sub-value and group references, and tokens
 * whose type cannot be determined.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_EXAMPLES, type SpecExample } from '../../test/fixtures/dtcg-2025.10-examples.js';
import { TOKEN_LIMITS, validateTokens } from '../dtcg.js';

/** The fixture of `source`. */
function specExample(source: string): SpecExample {
  const found = SPEC_EXAMPLES.find((e) => e.source === source);
  if (found === undefined) throw new Error(`no spec example '${source}'`);
  return found;
}

const title = ({ source, expect: expected }: SpecExample) =>
  expected === 'valid' ? `${source}: valid` : `${source}: refuses ${expected.invalid}`;

function check({ doc, expect: expected }: SpecExample) {
  const problems = validateTokens(doc);
  if (expected === 'valid') expect(problems).toEqual([]);
  else expect(problems).toContainEqual(expect.objectContaining({ field: expected.invalid }));
}

describe('DTCG 2025.10 spec examples', () => {
  for (const example of SPEC_EXAMPLES) {
    it(title(example), () => check(example));
  }
});

/** The problem a token on a reference cycle must have. */
const onCycle = (field: string) => ({ field, error: expect.stringMatching(/cycle|circular/i) });

describe('alias cycles: every token on the cycle is reported (§7.2.3)', () => {
  it('two tokens referencing each other', () => {
    const problems = validateTokens({
      n: { $type: 'number', a: { $value: '{n.b}' }, b: { $value: '{n.a}' } },
    });
    expect(problems).toContainEqual(onCycle('n.a'));
    expect(problems).toContainEqual(onCycle('n.b'));
  });

  it('three tokens, a → b → c → a', () => {
    const problems = validateTokens({
      n: {
        $type: 'number',
        a: { $value: '{n.b}' },
        b: { $value: '{n.c}' },
        c: { $value: '{n.a}' },
      },
    });
    for (const field of ['n.a', 'n.b', 'n.c']) expect(problems).toContainEqual(onCycle(field));
  });

  it('Format Example 34 as printed, without types', () => {
    const problems = validateTokens(specExample('Format Example 34').doc);
    for (const field of ['a', 'b', 'c']) expect(problems).toContainEqual(onCycle(field));
  });

  it('a token referencing itself', () => {
    expect(validateTokens({ n: { $type: 'number', a: { $value: '{n.a}' } } })).toContainEqual(
      onCycle('n.a'),
    );
  });
});

describe(`alias chains: at most TOKEN_LIMITS.aliasChain (${TOKEN_LIMITS.aliasChain}) references`, () => {
  /** `chain.t0` a number, `chain.t1` → `chain.t0`, …: `chain.tN` is N references from a value. */
  const chain = (references: number) => {
    const group: Record<string, unknown> = { $type: 'number', t0: { $value: 0 } };
    for (let i = 1; i <= references; i++) group[`t${i}`] = { $value: `{chain.t${i - 1}}` };
    return { chain: group };
  };

  it(`a chain of exactly ${TOKEN_LIMITS.aliasChain} references is accepted`, () => {
    expect(validateTokens(chain(TOKEN_LIMITS.aliasChain))).toEqual([]);
  });

  it(`a chain of ${TOKEN_LIMITS.aliasChain + 1} references is refused at its last token`, () => {
    const longest = `chain.t${TOKEN_LIMITS.aliasChain + 1}`;
    expect(validateTokens(chain(TOKEN_LIMITS.aliasChain + 1)).map((p) => p.field)).toEqual([
      longest,
    ]);
  });
});

describe('references by type and target (§7.4.5, §9)', () => {
  it('a composite sub-value referencing a token of another type: refused, naming where', () => {
    const problems = validateTokens({
      space: { $type: 'dimension', small: { $value: { value: 4, unit: 'px' } } },
      shadow: {
        $type: 'shadow',
        layered: {
          $value: [
            {
              color: { colorSpace: 'srgb', components: [0, 0, 0], alpha: 0.1 },
              offsetX: '{space.small}',
              offsetY: '{space.small}',
              blur: { value: 8, unit: 'px' },
              spread: { value: 0, unit: 'px' },
            },
            {
              color: '{space.small}',
              offsetX: { value: 0, unit: 'px' },
              offsetY: { value: 2, unit: 'px' },
              blur: { value: 4, unit: 'px' },
              spread: { value: 0, unit: 'px' },
            },
          ],
        },
      },
    });
    expect(problems).toEqual([
      { field: 'shadow.layered', error: expect.stringContaining('1.color') },
    ]);
  });

  it('a reference to a group is refused; one to its $root token is not (Format Example 10)', () => {
    const doc = {
      ...specExample('Format Example 10').doc,
      toGroup: { $type: 'color', $value: '{color.accent}' },
      toRoot: { $type: 'color', $value: '{color.accent.$root}' },
    };
    expect(validateTokens(doc)).toEqual([{ field: 'toGroup', error: expect.any(String) }]);
  });
});

describe('a token whose type cannot be determined is invalid (§5.2.2)', () => {
  it('no $type on the token or any group above it', () => {
    expect(validateTokens({ size: { small: { $value: { value: 4, unit: 'px' } } } })).toEqual([
      { field: 'size.small', error: expect.any(String) },
    ]);
  });

  it('a value that looks like a type does not give one', () => {
    expect(validateTokens({ ratio: { $value: 1.5 }, font: { $value: 'Inter' } })).toEqual([
      { field: 'ratio', error: expect.any(String) },
      { field: 'font', error: expect.any(String) },
    ]);
  });

  it('a reference to such a token has no type either', () => {
    const problems = validateTokens({
      base: { $value: { value: 4, unit: 'px' } },
      alias: { $value: '{base}' },
    });
    expect(problems).toContainEqual(expect.objectContaining({ field: 'base' }));
    expect(problems).toContainEqual(expect.objectContaining({ field: 'alias' }));
  });
});
