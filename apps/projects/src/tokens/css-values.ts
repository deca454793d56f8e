/**
 * DTCG 2025.10 values as CSS text, for the web platforms' builds (CSS, SCSS, Tailwind). Style
 * Dictionary 5 resolves references, names tokens and writes the files; its built-in value
 * transforms predate the 2025.10 object values (a duration `{value, unit}` or a gradient comes
 * out as `[object Object]`), so one transform per DTCG type, made of these, stands in for them.
 *
 * They see DTCG data only: references inside composite values are resolved to DTCG data before
 * the build ({@link import('./build.js')}), and a token that is a whole alias is not transformed
 * (it takes its target's CSS text, or `var(--target)`). Every string that ends up in CSS is a
 * keyword validation checked against a closed list or is quoted here, so no token value can
 * close a declaration.
 */

import { isObject } from '../json.js';
import { cssColor, isDtcgColor } from './colors.js';

/** A number as CSS writes it: no exponent, no trailing zeros. */
const num = (n: number) => String(Math.round(n * 1e6) / 1e6);

/** `{value, unit}` (dimension or duration) → `1rem`, `150ms`. */
export function cssMeasure(value: unknown): string {
  if (isObject(value) && typeof value.value === 'number' && typeof value.unit === 'string') {
    return `${num(value.value)}${value.unit}`;
  }
  return String(value);
}

/** A colour value → CSS text. */
export function cssColorValue(value: unknown): string {
  return isDtcgColor(value) ? cssColor(value) : String(value);
}

/** A CSS string literal: `"…"` with `"`, `\` and line breaks escaped (CSS Syntax 3, 4.3.5). */
export function cssString(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

const GENERIC_FAMILIES = new Set([
  'serif',
  'sans-serif',
  'monospace',
  'cursive',
  'fantasy',
  'system-ui',
  'ui-serif',
  'ui-sans-serif',
  'ui-monospace',
  'ui-rounded',
  'math',
  'emoji',
  'fangsong',
]);

/** A font family or list → `"Inter", system-ui, sans-serif` (names quoted, generic families bare). */
export function cssFontFamily(value: unknown): string {
  const names = Array.isArray(value) ? value : [value];
  return names
    .map((name) => {
      const text = String(name);
      return GENERIC_FAMILIES.has(text) ? text : cssString(text);
    })
    .join(', ');
}

/** `[x1, y1, x2, y2]` → `cubic-bezier(…)`. */
export function cssCubicBezier(value: unknown): string {
  return Array.isArray(value) ? `cubic-bezier(${value.map((n) => num(Number(n))).join(', ')})` : '';
}

/** A stroke style: its keyword, or `dashed` for the object form (CSS has no dash arrays). */
export function cssStrokeStyle(value: unknown): string {
  return typeof value === 'string' ? value : 'dashed';
}

/** `{color, width, style}` → `1px solid #000000`. */
export function cssBorder(value: unknown): string {
  if (!isObject(value)) return String(value);
  return `${cssMeasure(value.width)} ${cssStrokeStyle(value.style)} ${cssColorValue(value.color)}`;
}

/** One shadow or a list → `[inset ]x y blur spread color`, comma-separated. */
export function cssShadow(value: unknown): string {
  const layers = Array.isArray(value) ? value : [value];
  return layers
    .map((layer) => {
      if (!isObject(layer)) return String(layer);
      const parts = [
        cssMeasure(layer.offsetX),
        cssMeasure(layer.offsetY),
        cssMeasure(layer.blur),
        cssMeasure(layer.spread),
        cssColorValue(layer.color),
      ];
      return layer.inset === true ? `inset ${parts.join(' ')}` : parts.join(' ');
    })
    .join(', ');
}

/** `{duration, delay, timingFunction}` → `150ms cubic-bezier(…) 0ms` (the `transition` order). */
export function cssTransition(value: unknown): string {
  if (!isObject(value)) return String(value);
  return `${cssMeasure(value.duration)} ${cssCubicBezier(value.timingFunction)} ${cssMeasure(value.delay)}`;
}

/**
 * Gradient stops → `#000000 0%, #ffffff 100%`: the stop list, for `linear-gradient(<angle>,
 * var(--token))` — the DTCG gradient has no direction or shape of its own.
 */
export function cssGradient(value: unknown): string {
  if (!Array.isArray(value)) return String(value);
  return value
    .map((stop) =>
      isObject(stop)
        ? `${cssColorValue(stop.color)} ${num(Number(stop.position) * 100)}%`
        : String(stop),
    )
    .join(', ');
}

/** `{fontFamily, fontSize, fontWeight, letterSpacing, lineHeight}` → the `font` shorthand. */
export function cssTypography(value: unknown): string {
  if (!isObject(value)) return String(value);
  const size = cssMeasure(value.fontSize);
  const line = value.lineHeight === undefined ? '' : `/${num(Number(value.lineHeight))}`;
  return `${String(value.fontWeight ?? 400)} ${size}${line} ${cssFontFamily(value.fontFamily)}`;
}

/** Each DTCG type's CSS text. */
export const CSS_VALUE: Readonly<Record<string, (value: unknown) => string>> = {
  color: cssColorValue,
  dimension: cssMeasure,
  duration: cssMeasure,
  fontFamily: cssFontFamily,
  fontWeight: (v) => String(v),
  number: (v) => String(v),
  cubicBezier: cssCubicBezier,
  strokeStyle: cssStrokeStyle,
  border: cssBorder,
  shadow: cssShadow,
  transition: cssTransition,
  gradient: cssGradient,
  typography: cssTypography,
};
