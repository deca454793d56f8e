/**
 * A Tailwind CSS v4 `@theme` block: theme variables in the namespaces Tailwind makes utilities
 * from (tailwindcss.com/docs/theme, "Theme variable namespaces") — `--color-*` for colours,
 * `--font-*` for families, `--font-weight-*`, `--shadow-*`, `--ease-*`, `--spacing-*`,
 * `--radius-*` and the other size namespaces, `--text-*` for typography with its
 * `--text-*--line-height` options. Tokens of other types become plain theme variables. Style
 * Dictionary has no Tailwind format; this one is registered as its format for the `tailwind`
 * platform and gets values already written as CSS (./css-values.ts).
 */
import type { TransformedToken } from 'style-dictionary/types';
import { isObject } from '../json.js';
import { cssFontFamily, cssMeasure } from './css-values.js';
import { TokenBuildError } from './errors.js';
import { CASE } from './names.js';

/** Tailwind namespaces a dimension token may name with its first path segment. */
const SIZE_NAMESPACES = new Set([
  'spacing',
  'radius',
  'text',
  'tracking',
  'leading',
  'breakpoint',
  'container',
  'blur',
  'perspective',
]);

/** The namespace of each type whose tokens Tailwind makes utilities from. */
const TYPE_NAMESPACE: Readonly<Record<string, string>> = {
  color: 'color',
  fontFamily: 'font',
  fontWeight: 'font-weight',
  shadow: 'shadow',
  cubicBezier: 'ease',
};

/** `--namespace-rest`: a path that starts with the namespace (or its plural) is not repeated. */
function themeName(token: TransformedToken): string {
  const path = token.path;
  const full = CASE.kebab(path);
  const first = CASE.kebab(path.slice(0, 1));
  let namespace: string | undefined = TYPE_NAMESPACE[token.$type as string];
  if (token.$type === 'dimension') namespace = SIZE_NAMESPACES.has(first) ? first : 'spacing';
  if (token.$type === 'typography') namespace = 'text';
  if (namespace === undefined) return `--${full}`;
  const typeName = CASE.kebab([String(token.$type)]);
  for (const prefix of [`${namespace}-`, `${namespace}s-`, `${typeName}-`]) {
    if (full.startsWith(prefix) && full.length > prefix.length) {
      return `--${namespace}-${full.slice(prefix.length)}`;
    }
  }
  return `--${namespace}-${full}`;
}

/** The declarations of one token (a typography token gives up to four). */
function declarations(token: TransformedToken): [string, string][] {
  const name = themeName(token);
  const value: unknown = token.$value;
  if (token.$type !== 'typography' || !isObject(value)) return [[name, String(value)]];
  const out: [string, string][] = [[name, cssMeasure(value.fontSize)]];
  if (value.lineHeight !== undefined) out.push([`${name}--line-height`, String(value.lineHeight)]);
  if (value.letterSpacing !== undefined) {
    out.push([`${name}--letter-spacing`, cssMeasure(value.letterSpacing)]);
  }
  if (value.fontWeight !== undefined) {
    out.push([`${name}--font-weight`, String(value.fontWeight)]);
  }
  if (value.fontFamily !== undefined) {
    out.push([`--font-${name.slice('--text-'.length)}`, cssFontFamily(value.fontFamily)]);
  }
  return out;
}

/**
 * The `@theme { … }` block of a platform's transformed tokens; with a `selector` (a mode), a rule
 * that gives the same theme variables the mode's values (Tailwind v4 reads theme variables as CSS
 * variables, so a later, more specific rule overrides them).
 */
export function tailwindTheme(tokens: TransformedToken[], selector?: string): string {
  const lines: string[] = [];
  const seen = new Map<string, string>();
  for (const token of tokens) {
    for (const [name, value] of declarations(token)) {
      const path = token.path.join('.');
      const other = seen.get(name);
      // Two tokens in one Tailwind name: refused by the build, like a name collision.
      if (other !== undefined && other !== path) {
        throw new TokenBuildError(`it and ${other} are both ${name} in Tailwind`, path);
      }
      seen.set(name, path);
      lines.push(`  ${name}: ${value};`);
    }
  }
  const head = selector === undefined || selector === ':root' ? '@theme' : selector;
  return `/* Do not edit directly: generated from the project's design tokens. */\n${head} {\n${lines.join('\n')}\n}\n`;
}
