/**
 * Token paths as the names each platform's code uses: `color.brand.primary` → `color-brand-primary`
 * (CSS, Tailwind, JSON), `ColorBrandPrimary` (JS/TS), `colorBrandPrimary` (Swift),
 * `color_brand_primary` (Android resources). A DTCG name may be any text without `{`, `}` or `.`;
 * a platform name keeps only its letters and digits (so no name can carry code), and one that
 * would still not be an identifier of the platform gets a prefix.
 */

/** The words of a path: each segment split at anything but letters and digits, and at `aB`. */
export function words(path: readonly string[]): string[] {
  const out: string[] = [];
  for (const segment of path) {
    for (const part of segment.split(/[^\p{L}\p{N}]+/u)) {
      if (part === '') continue;
      out.push(...part.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u).map((w) => w.toLowerCase()));
    }
  }
  return out;
}

const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** The casings the platforms use. */
export const CASE = {
  kebab: (path: readonly string[]) => words(path).join('-'),
  snake: (path: readonly string[]) => words(path).join('_'),
  camel: (path: readonly string[]) => {
    const [first = '', ...rest] = words(path);
    return first + rest.map(capital).join('');
  },
  pascal: (path: readonly string[]) => words(path).map(capital).join(''),
} as const;

/**
 * The name as an identifier of a language whose identifiers start with a letter or `_` (JS, Swift):
 * `_` before a leading digit, `_` for an empty name.
 */
export function identifier(name: string): string {
  return /^\p{L}/u.test(name) ? name : `_${name}`;
}

/** An Android resource name: `[a-z][a-z0-9_]*` only (aapt refuses anything else). */
export function androidName(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[^a-z0-9_]/g, '_');
  return /^[a-z]/.test(ascii) ? ascii : `t_${ascii}`;
}
