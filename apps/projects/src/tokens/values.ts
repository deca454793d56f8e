/**
 * The value rules of every DTCG Format Module 2025.10 type (§8 types, §9 composite types) and of
 * the Color Module's colour spaces: what a token's `$value` must be once its type is known.
 * Composite values may hold references in place of a sub-value (`"color": "{color.ink}"`); those
 * are collected, not followed here: validation checks afterwards that each names a token of the
 * sub-value's type.
 */

import { isObject } from '../json.js';
import { COLOR_SPACES } from './colors.js';

/** A reference inside a composite value, and the type its target must have. */
export interface SubReference {
  /** Where in the value, e.g. `color` or `1.offsetX` (empty for the whole value). */
  at: string;
  /** The referenced token's path. */
  ref: string;
  /** The type the referenced token must have. */
  type: string;
}

/** The 13 types of DTCG 2025.10, case-sensitive. */
export const TOKEN_TYPES: ReadonlySet<string> = new Set([
  'color',
  'dimension',
  'fontFamily',
  'fontWeight',
  'duration',
  'cubicBezier',
  'number',
  'strokeStyle',
  'border',
  'transition',
  'shadow',
  'gradient',
  'typography',
]);

/** §8.4: the font weight keywords, case-sensitive. */
export const FONT_WEIGHT_KEYWORDS: Readonly<Record<string, number>> = {
  thin: 100,
  hairline: 100,
  'extra-light': 200,
  'ultra-light': 200,
  light: 300,
  normal: 400,
  regular: 400,
  book: 400,
  medium: 500,
  'semi-bold': 600,
  'demi-bold': 600,
  bold: 700,
  'extra-bold': 800,
  'ultra-bold': 800,
  black: 900,
  heavy: 900,
  'extra-black': 950,
  'ultra-black': 950,
};

/** §9.3.1: the stroke style keywords. */
const STROKE_KEYWORDS = new Set([
  'solid',
  'dashed',
  'dotted',
  'double',
  'groove',
  'ridge',
  'outset',
  'inset',
]);

/** `{group.token}`: the whole string is a reference to a token (§7.1.1). */
export const REFERENCE = /^\{([^{}]+)\}$/;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Colour Module §4.2: each space's three component ranges; `)` marks an excluded maximum. */
type Range = readonly [min: number, max: number, maxExcluded?: boolean];
const UNIT: Range = [0, 1];
const HUE: Range = [0, 360, true];
const PERCENT: Range = [0, 100];
const ANY: Range = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
const CHROMA: Range = [0, Number.POSITIVE_INFINITY];
const COMPONENT_RANGES: Readonly<Record<string, readonly [Range, Range, Range]>> = {
  srgb: [UNIT, UNIT, UNIT],
  'srgb-linear': [UNIT, UNIT, UNIT],
  hsl: [HUE, PERCENT, PERCENT],
  hwb: [HUE, PERCENT, PERCENT],
  lab: [PERCENT, ANY, ANY],
  lch: [PERCENT, CHROMA, HUE],
  oklab: [UNIT, ANY, ANY],
  oklch: [UNIT, CHROMA, HUE],
  'display-p3': [UNIT, UNIT, UNIT],
  'a98-rgb': [UNIT, UNIT, UNIT],
  'prophoto-rgb': [UNIT, UNIT, UNIT],
  rec2020: [UNIT, UNIT, UNIT],
  'xyz-d65': [UNIT, UNIT, UNIT],
  'xyz-d50': [UNIT, UNIT, UNIT],
};

const inRange = (n: number, [min, max, excluded]: Range) =>
  n >= min && (excluded ? n < max : n <= max);

/** Keys of `value` that `allowed` does not list, as an error, or undefined. */
function extraKeys(value: Record<string, unknown>, allowed: readonly string[], what: string) {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  return extra === undefined ? undefined : `a ${what} has no property '${extra}'`;
}

function color(v: unknown): string | undefined {
  const shape = 'a color is {colorSpace, components[, alpha, hex]}';
  if (!isObject(v) || typeof v.colorSpace !== 'string' || !Array.isArray(v.components)) {
    return shape;
  }
  const extra = extraKeys(v, ['colorSpace', 'components', 'alpha', 'hex'], 'color');
  if (extra) return extra;
  const ranges = COMPONENT_RANGES[v.colorSpace];
  if (!ranges) return `unknown colorSpace '${v.colorSpace}'; one of ${COLOR_SPACES.join(', ')}`;
  if (v.components.length !== 3) return `a ${v.colorSpace} color has 3 components`;
  for (let i = 0; i < 3; i++) {
    const c = v.components[i];
    if (c === 'none') continue;
    if (!isNumber(c)) return `components[${i}] is a number or "none"`;
    if (!inRange(c, ranges[i] as Range)) {
      const [min, max, excluded] = ranges[i] as Range;
      return `components[${i}] of a ${v.colorSpace} color is from ${min} to ${max}${excluded ? ' (excluded)' : ''}`;
    }
  }
  if (v.alpha !== undefined && (!isNumber(v.alpha) || v.alpha < 0 || v.alpha > 1)) {
    return 'alpha is a number from 0 to 1';
  }
  if (v.hex !== undefined && (typeof v.hex !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(v.hex))) {
    return 'hex is a 6-digit CSS hex colour, e.g. #ff00aa';
  }
  return undefined;
}

const measure = (what: string, units: readonly string[]) => (v: unknown) => {
  const shape = `a ${what} is {value: number, unit: ${units.map((u) => `"${u}"`).join(' | ')}}`;
  if (!isObject(v) || !isNumber(v.value) || !units.includes(v.unit as string)) return shape;
  return extraKeys(v, ['value', 'unit'], what);
};

function fontName(v: unknown): boolean {
  return typeof v === 'string' && v.trim() !== '' && !/[{}]/.test(v);
}

function fontFamily(v: unknown): string | undefined {
  if (fontName(v)) return undefined;
  if (Array.isArray(v) && v.length > 0 && v.every(fontName)) return undefined;
  return 'a font family is a font name or a non-empty list of them (names hold no { or })';
}

function fontWeight(v: unknown): string | undefined {
  if (isNumber(v) && v >= 1 && v <= 1000) return undefined;
  if (typeof v === 'string' && Object.hasOwn(FONT_WEIGHT_KEYWORDS, v)) return undefined;
  return 'a font weight is a number from 1 to 1000 or one of the keywords thin, hairline, extra-light, ultra-light, light, normal, regular, book, medium, semi-bold, demi-bold, bold, extra-bold, ultra-bold, black, heavy, extra-black, ultra-black';
}

function cubicBezier(v: unknown): string | undefined {
  if (!Array.isArray(v) || v.length !== 4 || !v.every(isNumber)) {
    return 'a cubic Bézier is [x1, y1, x2, y2]';
  }
  return inRange(v[0] as number, UNIT) && inRange(v[2] as number, UNIT)
    ? undefined
    : 'the x coordinates of a cubic Bézier are from 0 to 1';
}

const number = (v: unknown) => (isNumber(v) ? undefined : 'a number token needs a finite number');

/**
 * Checks `v` as a sub-value of type `type` at `at`: a reference is collected into `refs`,
 * anything else checked as a value of that type. The error names `at`.
 */
function sub(type: string, v: unknown, at: string, refs: SubReference[]): string | undefined {
  const ref = typeof v === 'string' ? REFERENCE.exec(v)?.[1] : undefined;
  if (ref !== undefined) {
    refs.push({ at, ref, type });
    return undefined;
  }
  const error = checkValue(type, v, at, refs);
  return error === undefined ? undefined : `${at}: ${error}`;
}

/** Each required member of a composite, checked as a sub-value; no other members. */
function composite(
  what: string,
  members: Readonly<Record<string, string>>,
  v: unknown,
  at: string,
  refs: SubReference[],
  optional: Readonly<Record<string, (v: unknown) => boolean>> = {},
): string | undefined {
  const names = Object.keys(members);
  if (!isObject(v)) return `a ${what} is {${names.join(', ')}}`;
  const extra = extraKeys(v, [...names, ...Object.keys(optional)], what);
  if (extra) return extra;
  for (const [name, type] of Object.entries(members)) {
    const path = at === '' ? name : `${at}.${name}`;
    if (v[name] === undefined) return `a ${what} needs ${name}`;
    const error = sub(type, v[name], path, refs);
    if (error) return error;
  }
  for (const [name, ok] of Object.entries(optional)) {
    if (v[name] !== undefined && !ok(v[name])) return `${what} ${name} has the wrong type`;
  }
  return undefined;
}

/**
 * Items of a list value: each checked by `check`, or a reference to a token of `itemType` (a
 * referenced item is one item, never spliced in: §9.6, §9.7).
 */
function list(
  what: string,
  itemType: string,
  v: unknown,
  at: string,
  refs: SubReference[],
  check: (item: unknown, at: string) => string | undefined,
): string | undefined {
  if (!Array.isArray(v) || v.length === 0) return `a ${what} is a non-empty list`;
  for (let i = 0; i < v.length; i++) {
    const path = at === '' ? String(i) : `${at}.${i}`;
    const item = v[i];
    const ref = typeof item === 'string' ? REFERENCE.exec(item)?.[1] : undefined;
    if (ref !== undefined) {
      refs.push({ at: path, ref, type: itemType });
      continue;
    }
    const error = check(item, path);
    if (error) return error;
  }
  return undefined;
}

function strokeStyle(v: unknown, at: string, refs: SubReference[]): string | undefined {
  if (typeof v === 'string') {
    return STROKE_KEYWORDS.has(v)
      ? undefined
      : `a stroke style is one of ${[...STROKE_KEYWORDS].join(', ')}, or {dashArray, lineCap}`;
  }
  if (!isObject(v)) return 'a stroke style is a keyword or {dashArray, lineCap}';
  const extra = extraKeys(v, ['dashArray', 'lineCap'], 'stroke style');
  if (extra) return extra;
  if (!['round', 'butt', 'square'].includes(v.lineCap as string)) {
    return 'lineCap is round, butt or square';
  }
  const dashes = at === '' ? 'dashArray' : `${at}.dashArray`;
  return list('dashArray', 'dimension', v.dashArray, dashes, refs, (item, path) =>
    sub('dimension', item, path, refs),
  );
}

const SHADOW = {
  color: 'color',
  offsetX: 'dimension',
  offsetY: 'dimension',
  blur: 'dimension',
  spread: 'dimension',
};

/**
 * Why `v` is not a value of `type` (a DTCG type), or undefined if it is. References inside a
 * composite value are added to `refs` with the type their target must have (a whole-value
 * reference is the caller's to handle).
 */
export function checkValue(
  type: string,
  v: unknown,
  at: string,
  refs: SubReference[],
): string | undefined {
  switch (type) {
    case 'color':
      return color(v);
    case 'dimension':
      return measure('dimension', ['px', 'rem'])(v);
    case 'duration':
      return measure('duration', ['ms', 's'])(v);
    case 'fontFamily':
      return fontFamily(v);
    case 'fontWeight':
      return fontWeight(v);
    case 'cubicBezier':
      return cubicBezier(v);
    case 'number':
      return number(v);
    case 'strokeStyle':
      return strokeStyle(v, at, refs);
    case 'border':
      return composite(
        'border',
        { color: 'color', width: 'dimension', style: 'strokeStyle' },
        v,
        at,
        refs,
      );
    case 'transition':
      return composite(
        'transition',
        { duration: 'duration', delay: 'duration', timingFunction: 'cubicBezier' },
        v,
        at,
        refs,
      );
    case 'shadow':
      if (!Array.isArray(v)) {
        return composite('shadow', SHADOW, v, at, refs, { inset: (x) => typeof x === 'boolean' });
      }
      return list('shadow', 'shadow', v, at, refs, (item, path) =>
        composite('shadow', SHADOW, item, path, refs, { inset: (x) => typeof x === 'boolean' }),
      );
    case 'gradient':
      // A position outside [0, 1] is clamped, not refused (§9.7).
      return list('gradient', 'gradient', v, at, refs, (item, path) =>
        composite('gradient stop', { color: 'color', position: 'number' }, item, path, refs),
      );
    case 'typography':
      return composite(
        'typography',
        {
          fontFamily: 'fontFamily',
          fontSize: 'dimension',
          fontWeight: 'fontWeight',
          letterSpacing: 'dimension',
          lineHeight: 'number',
        },
        v,
        at,
        refs,
      );
    default:
      return `unknown $type '${type}'`;
  }
}
