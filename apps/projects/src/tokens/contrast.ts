/**
 * WCAG 2.2 contrast (success criteria 1.4.3 and 1.4.6, with 1.4.11's 3:1 for large text and
 * interface parts) of text colours on background colours, computed by colorjs.io from the DTCG
 * colour values, in whatever colour space they are given. A translucent text colour is first
 * laid over its background, a translucent background over white (the page), as a browser
 * paints them.
 */
import Color from 'colorjs.io';
import { isDtcgColor, toColor } from './colors.js';
import { flattenTokens, resolveValue } from './flatten.js';

/** The WCAG thresholds: AA normal text 4.5, AA large text 3, AAA normal 7, AAA large 4.5. */
export const WCAG = { aa: 4.5, aaLarge: 3, aaa: 7, aaaLarge: 4.5 } as const;

/** One text/background pair's result. */
export interface ContrastResult {
  foreground: string;
  background: string;
  /** The contrast ratio, 1–21, to two decimals (#777 on #fff: 4.48). */
  ratio: number;
  aa: boolean;
  aaLarge: boolean;
  aaa: boolean;
  aaaLarge: boolean;
}

/** `color` over `under` (both colorjs colours): source-over compositing in sRGB. */
function over(color: Color, under: Color): Color {
  const alpha = color.alpha.valueOf();
  if (alpha >= 1) return color;
  const top = color.to('srgb').coords;
  const bottom = under.to('srgb').coords;
  return new Color(
    'srgb',
    top.map((c, i) => (Number.isNaN(c) ? 0 : c) * alpha + (bottom[i] ?? 0) * (1 - alpha)) as [
      number,
      number,
      number,
    ],
  );
}

const WHITE = new Color('srgb', [1, 1, 1]);

/** The contrast of `foreground` text on `background` (colorjs colours). */
export function contrast(foreground: Color, background: Color) {
  // What a screen shows: colours outside sRGB mapped into it (color(srgb 2 2 2) is white),
  // else a ratio past WCAG's 21:1.
  const bg = over(background.to('srgb').toGamut(), WHITE);
  const fg = over(foreground.to('srgb').toGamut(), bg);
  const ratio = Math.round(Color.contrast(fg, bg, 'WCAG21') * 100) / 100;
  return {
    ratio,
    aa: ratio >= WCAG.aa,
    aaLarge: ratio >= WCAG.aaLarge,
    aaa: ratio >= WCAG.aaa,
    aaaLarge: ratio >= WCAG.aaaLarge,
  };
}

/** Path words that mark a colour as text, or as a surface text is drawn on. */
const TEXT = /(^|[.\-_ ])(text|foreground|fg|on|ink|content|label|heading)([.\-_ ]|$)/i;
const SURFACE = /(^|[.\-_ ])(surface|background|bg|canvas|page|base|paper|backdrop)([.\-_ ]|$)/i;

/** The colour tokens of a document, resolved to colorjs colours, by path. */
export function colorTokens(doc: Record<string, unknown>): Map<string, Color> {
  const tokens = flattenTokens(doc);
  const out = new Map<string, Color>();
  for (const token of tokens.values()) {
    if (token.type !== 'color') continue;
    const value = resolveValue(tokens, token.value);
    if (isDtcgColor(value)) out.set(token.path, toColor(value));
  }
  return out;
}

/**
 * The pairs to check when none are named: every text colour on every surface colour, by the
 * words of their paths (`color.text.muted` on `color.surface.background`) — the first `limit`
 * of them, made one by one (a document of thousands of colours would have millions of pairs).
 */
export function* defaultPairs(
  colors: Map<string, Color>,
  limit = Number.POSITIVE_INFINITY,
): Generator<[string, string]> {
  const paths = [...colors.keys()];
  const texts = paths.filter((p) => TEXT.test(p));
  const surfaces = paths.filter((p) => SURFACE.test(p) && !TEXT.test(p));
  let made = 0;
  for (const text of texts) {
    for (const surface of surfaces) {
      if (made++ >= limit) return;
      yield [text, surface];
    }
  }
}
