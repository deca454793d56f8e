/**
 * DTCG values as Swift expressions and Android resource text, for the iOS and Android builds.
 * Style Dictionary 5 expands composite tokens (typography, shadow, border, transition, gradient)
 * into their parts before these run, so they see colours, measures, numbers, strings and lists;
 * they go by the value's shape, since an expanded part's type is only its key's name.
 */

import { isObject } from '../json.js';
import { isDtcgColor, srgbOf } from './colors.js';

const fixed = (n: number, digits = 3) => String(Math.round(n * 10 ** digits) / 10 ** digits);

/** Points (iOS) and dp (Android) per rem: the platforms' default text size. */
const REM = 16;

const measure = (v: unknown): { value: number; unit: string } | undefined =>
  isObject(v) && typeof v.value === 'number' && typeof v.unit === 'string'
    ? { value: v.value, unit: v.unit }
    : undefined;

/** A Swift string literal: `\`, `"` and every control character escaped as `\u{…}`. */
export function swiftString(text: string): string {
  const escaped = text
    .replace(/[\\"]/g, '\\$&')
    .replace(/[\p{Cc}\u2028\u2029]/gu, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
  return `"${escaped}"`;
}

/** A DTCG value as a Swift expression. */
export function swiftValue(value: unknown): string {
  if (isDtcgColor(value)) {
    const { r, g, b, alpha } = srgbOf(value);
    return `UIColor(red: ${fixed(r)}, green: ${fixed(g)}, blue: ${fixed(b)}, alpha: ${fixed(alpha)})`;
  }
  const m = measure(value);
  if (m) {
    if (m.unit === 'ms' || m.unit === 's') {
      return `TimeInterval(${fixed(m.unit === 'ms' ? m.value / 1000 : m.value, 4)})`;
    }
    return `CGFloat(${fixed(m.unit === 'rem' ? m.value * REM : m.value, 2)})`;
  }
  if (typeof value === 'number') return fixed(value, 4);
  if (typeof value === 'string') return swiftString(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) {
    return `[${value.map((v) => fixed(v, 4)).join(', ')}]`;
  }
  // A font family list: the first family (UIFont takes one name).
  if (Array.isArray(value) && typeof value[0] === 'string') return swiftString(value[0]);
  return swiftString(JSON.stringify(value));
}

/** Text as XML character data, and as an Android string resource (`'`, `"`, `@`, `?` escaped). */
export function androidText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/['"]/g, '\\$&')
    .replace(/^[@?]/, '\\$&')
    .replace(/\n/g, '\\n')
    .replace(/\p{Cc}/gu, ' ');
}

const hex2 = (c: number) =>
  Math.round(Math.min(1, Math.max(0, c)) * 255)
    .toString(16)
    .padStart(2, '0');

/** A DTCG value as the text of an Android resource (`#aarrggbb`, `16dp`, `150`, escaped text). */
export function androidValue(value: unknown): string {
  if (isDtcgColor(value)) {
    const { r, g, b, alpha } = srgbOf(value);
    return `#${hex2(alpha)}${hex2(r)}${hex2(g)}${hex2(b)}`;
  }
  const m = measure(value);
  if (m) {
    if (m.unit === 'ms' || m.unit === 's') {
      return String(Math.round(m.unit === 's' ? m.value * 1000 : m.value));
    }
    return `${fixed(m.unit === 'rem' ? m.value * REM : m.value, 2)}dp`;
  }
  if (typeof value === 'number') return fixed(value, 4);
  if (typeof value === 'string') return androidText(value);
  if (Array.isArray(value)) return androidText(value.map(String).join(', '));
  return androidText(JSON.stringify(value));
}
