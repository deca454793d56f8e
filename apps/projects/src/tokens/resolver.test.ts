import { describe, expect, it } from 'vitest';
import {
  allModes,
  MAX_MODES,
  modeAxes,
  modeInput,
  modeLabel,
  type ResolverLayer,
  readResolver,
  resolveMode,
} from './resolver.js';

type Json = Record<string, unknown>;

const c = (hex: string) => ({
  colorSpace: 'srgb',
  components: [0, 0, 0],
  hex,
});

/** Light/dark and a beta flag, as the Resolver Module's input example (§5) has them, inline. */
const THEMES = {
  version: '2025.10',
  sets: {
    brand: { sources: [{ color: { $type: 'color', brand: { $value: c('#2563eb') } } }] },
  },
  modifiers: {
    theme: {
      contexts: {
        light: [{ color: { surface: { $value: c('#ffffff') } } }],
        dark: [{ color: { surface: { $value: c('#111111') } } }],
      },
      default: 'light',
    },
  },
  resolutionOrder: [
    { $ref: '#/sets/brand' },
    { $ref: '#/modifiers/theme' },
    {
      type: 'modifier',
      name: 'beta',
      contexts: { false: [], true: [{ color: { beta: { $value: '{color.brand}' } } }] },
      default: 'false',
    },
  ],
};

function layers(doc: unknown): ResolverLayer[] {
  const read = readResolver(doc);
  if ('problems' in read) throw new Error(JSON.stringify(read.problems));
  return read.layers;
}

const problems = (doc: unknown) => {
  const read = readResolver(doc);
  return 'problems' in read ? read.problems : [];
};

describe('DTCG resolver documents (Resolver Module 2025.10)', () => {
  it('reads sets, modifiers and inline items in resolution order', () => {
    const read = layers(THEMES);
    expect(read.map((l) => `${l.kind}:${l.name}`)).toEqual([
      'set:brand',
      'modifier:theme',
      'modifier:beta',
    ]);
    expect(modeAxes(read)).toEqual([
      { name: 'theme', contexts: ['light', 'dark'], default: 'light' },
      { name: 'beta', contexts: ['false', 'true'], default: 'false' },
    ]);
    // Every combination, the defaults' first.
    expect(allModes(read).map(modeLabel)).toEqual([
      'theme=light, beta=false',
      'theme=light, beta=true',
      'theme=dark, beta=false',
      'theme=dark, beta=true',
    ]);
  });

  it('lays the layers over the project’s tokens; the chosen context only', () => {
    const base: Json = {
      color: { $type: 'color', surface: { $value: c('#eeeeee') }, ink: { $value: c('#000000') } },
    };
    const dark = resolveMode(base, layers(THEMES), { theme: 'dark', beta: 'true' }) as {
      color: Record<string, { $value: unknown }>;
    };
    expect(dark.color.surface?.$value).toEqual(c('#111111'));
    expect(dark.color.ink?.$value).toEqual(c('#000000'));
    expect(dark.color.brand?.$value).toEqual(c('#2563eb'));
    expect(dark.color.beta?.$value).toBe('{color.brand}');
    const light = resolveMode(base, layers(THEMES), { theme: 'light', beta: 'false' }) as {
      color: Record<string, unknown>;
    };
    expect(light.color.surface).toEqual({ $value: c('#ffffff') });
    expect(light.color.beta).toBeUndefined();
    // The base is not changed.
    expect((base.color as Json).surface).toEqual({ $value: c('#eeeeee') });
  });

  it('inputs as §6.1 says: defaults fill in, case does not matter, the rest is refused', () => {
    const read = layers(THEMES);
    expect(modeInput(read, {})).toEqual({ mode: { theme: 'light', beta: 'false' } });
    expect(modeInput(read, { THEME: 'Dark' })).toEqual({ mode: { theme: 'dark', beta: 'false' } });
    expect(modeInput(read, { theme: 'blue', foo: 'bar', beta: true })).toEqual({
      problems: [
        {
          field: 'mode.theme',
          error: 'invalid context "blue" for modifier "theme"; contexts: light, dark',
        },
        { field: 'mode.foo', error: 'unknown modifier "foo"; modifiers: theme, beta' },
        { field: 'mode.beta', error: 'a mode names contexts as strings (§5.2)' },
      ],
    });
    const noDefault = layers({
      version: '2025.10',
      resolutionOrder: [{ type: 'modifier', name: 'size', contexts: { s: [], l: [] } }],
    });
    expect(modeInput(noDefault, {})).toEqual({
      problems: [{ field: 'mode.size', error: 'missing modifier "size" (it has no default)' }],
    });
  });

  it('refuses what the module forbids, each with its place', () => {
    expect(problems([])).toEqual([{ field: '(root)', error: 'a resolver is a JSON object' }]);
    const fields = (doc: unknown) => problems(doc).map((p) => p.field);
    expect(
      fields({ resolutionOrder: [{ $ref: '#/sets/x' }], sets: { x: { sources: [] } } }),
    ).toEqual(['version']);
    expect(fields({ version: '2025.10', resolutionOrder: [] })).toEqual(['resolutionOrder']);
    expect(fields({ version: '2025.10', resolutionOrder: [{ $ref: '#/sets/missing' }] })).toEqual([
      'resolutionOrder.0',
    ]);
    // Files are not there to read; modifiers are referenced from the order only; nothing points into it.
    expect(
      problems({
        version: '2025.10',
        sets: { a: { sources: [{ $ref: 'tokens/base.json' }, { $ref: '#/modifiers/m' }] } },
        resolutionOrder: [{ $ref: '#/sets/a' }, { $ref: '#/resolutionOrder/0' }],
      }).map((p) => p.field),
    ).toEqual(['sets.a.sources.0', 'sets.a.sources.1', 'resolutionOrder.1']);
    // One context is a set (§4.1.5); a default must be a context.
    expect(
      problems({
        version: '2025.10',
        modifiers: { m: { contexts: { only: [] }, default: 'other' } },
        resolutionOrder: [{ $ref: '#/modifiers/m' }],
      }).map((p) => p.field),
    ).toEqual(['modifiers.m.contexts', 'modifiers.m.default']);
    // Inline items name themselves, once.
    expect(
      problems({
        version: '2025.10',
        resolutionOrder: [
          { type: 'set', sources: [] },
          { type: 'set', name: 'x', sources: [] },
          { type: 'set', name: 'x', sources: [] },
        ],
      }).map((p) => p.field),
    ).toEqual(['resolutionOrder.0', 'resolutionOrder.2.name']);
    // Sets that reference each other in a circle.
    expect(
      problems({
        version: '2025.10',
        sets: { a: { sources: [{ $ref: '#/sets/b' }] }, b: { sources: [{ $ref: '#/sets/a' }] } },
        resolutionOrder: [{ $ref: '#/sets/a' }],
      })[0]?.error,
    ).toBe('sets reference each other in a circle: a → b → a');
    // $defs is ignored, not refused (§4.5); unknown root keys are refused.
    expect(
      fields({
        version: '2025.10',
        $defs: {},
        extra: 1,
        resolutionOrder: [{ type: 'set', name: 's', sources: [] }],
      }),
    ).toEqual(['extra']);
  });

  it(`bounds the modes at ${MAX_MODES}`, () => {
    const axis = (name: string) => ({
      type: 'modifier',
      name,
      contexts: { a: [], b: [] },
      default: 'a',
    });
    const order = (n: number) => Array.from({ length: n }, (_, i) => axis(`m${i}`));
    expect(problems({ version: '2025.10', resolutionOrder: order(5) })).toEqual([]);
    expect(problems({ version: '2025.10', resolutionOrder: order(6) })).toEqual([
      {
        field: 'modifiers',
        error: `at most ${MAX_MODES} modes (the product of the contexts); these make 64`,
      },
    ]);
  });
});
