/**
 * DTCG 2025.10 colour values (`{colorSpace, components, alpha?, hex?}`) as colorjs.io colours:
 * the one colour library of the projects server (Style Dictionary 5 builds on it too), used for
 * CSS output and for WCAG contrast. The DTCG names its colour spaces as CSS Color 4 does; colorjs.io
 * names some of them differently.
 */
import Color from 'colorjs.io';
import { isObject } from '../json.js';

/** DTCG 2025.10 colour space → colorjs.io space id. */
const SPACES: Readonly<Record<string, string>> = {
  srgb: 'srgb',
  'srgb-linear': 'srgb-linear',
  hsl: 'hsl',
  hwb: 'hwb',
  lab: 'lab',
  lch: 'lch',
  oklab: 'oklab',
  oklch: 'oklch',
  'display-p3': 'p3',
  'a98-rgb': 'a98rgb',
  'prophoto-rgb': 'prophoto',
  rec2020: 'rec2020',
  'xyz-d65': 'xyz-d65',
  'xyz-d50': 'xyz-d50',
};

/** The colour spaces a DTCG 2025.10 colour may name. */
export const COLOR_SPACES: readonly string[] = Object.freeze(Object.keys(SPACES));

/** A DTCG colour value, as validation admits it. */
export interface DtcgColor {
  colorSpace: string;
  /** Numbers, or `"none"` for a missing component (CSS Color 4). */
  components: (number | 'none')[];
  alpha?: number;
  hex?: string;
}

/** Whether `value` has the shape of a DTCG colour (its ranges are validation's business). */
export function isDtcgColor(value: unknown): value is DtcgColor {
  return (
    isObject(value) &&
    typeof value.colorSpace === 'string' &&
    Object.hasOwn(SPACES, value.colorSpace) &&
    Array.isArray(value.components) &&
    value.components.length === 3 &&
    value.components.every((c) => c === 'none' || (typeof c === 'number' && Number.isFinite(c)))
  );
}

/** The colorjs.io colour of a DTCG colour value. */
export function toColor(value: DtcgColor): Color {
  const coords = value.components.map((c) => (c === 'none' ? Number.NaN : c)) as [
    number,
    number,
    number,
  ];
  return new Color(SPACES[value.colorSpace] as string, coords, value.alpha ?? 1);
}

/**
 * CSS text of a DTCG colour: `#rrggbb` for an opaque sRGB colour (what people expect to read),
 * otherwise the space's own CSS Color 4 notation (`oklch(…)`, `color(display-p3 …)`, with
 * `/ alpha`), so that a wide-gamut colour is not clipped to sRGB.
 */
export function cssColor(value: DtcgColor): string {
  const color = toColor(value);
  const opaque = (value.alpha ?? 1) === 1;
  if (value.colorSpace === 'srgb' && opaque && !value.components.includes('none')) {
    return color.toString({ format: 'hex', collapse: false });
  }
  return color.toString();
}

/** The colour as sRGB components 0–1 and alpha, gamut-mapped (for platforms that only know sRGB). */
export function srgbOf(value: DtcgColor): { r: number; g: number; b: number; alpha: number } {
  const [r, g, b] = toColor(value)
    .to('srgb')
    .toGamut()
    .coords.map((c) => (Number.isNaN(c) ? 0 : c));
  return { r: r as number, g: g as number, b: b as number, alpha: value.alpha ?? 1 };
}
