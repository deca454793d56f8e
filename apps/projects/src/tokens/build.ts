/**
 * Design tokens built into code with Style Dictionary 5: CSS custom properties, SCSS variables,
 * JS (ESM) with its `.d.ts`, a Tailwind v4 `@theme` block, flat JSON, an iOS Swift class and
 * Android resources. Style Dictionary resolves aliases, applies the platform's transforms and
 * writes each file with its own formats; this module hands it a prepared document and the
 * transforms the 2025.10 values need (./css-values.ts, ./native-values.ts).
 *
 * The prepared document holds only what a build needs — each token's `$type` (inherited types made
 * explicit), its `$value` and a `$description` made safe for a comment — with references inside
 * composite values resolved here (Style Dictionary would transform them twice), and whole-value
 * aliases kept, so that CSS and SCSS write `var(--target)` / `$target`. Style Dictionary reads
 * any `{…}` in any string as a reference; validation refuses braces in string values, and
 * descriptions lose theirs here.
 *
 * CPU-bound (~0.3 s for the demo's first build, most of it loading Style Dictionary): the server
 * runs it in a worker thread (./builder.ts), never on its event loop.
 */
import StyleDictionary from 'style-dictionary';
import type { Config, DesignTokens, Dictionary, TransformedToken } from 'style-dictionary/types';
import { isObject } from '../json.js';
import { CSS_VALUE } from './css-values.js';
import { TokenBuildError } from './errors.js';
import { flattenTokens, resolveValue } from './flatten.js';
import { androidName, CASE, identifier } from './names.js';
import { androidValue, swiftValue } from './native-values.js';
import { tailwindTheme } from './tailwind.js';
import { REFERENCE } from './values.js';

export { TokenBuildError };

/** The platforms a project's tokens build for. */
export const PLATFORMS = ['css', 'scss', 'js', 'tailwind', 'json', 'swift', 'android'] as const;
/** One of {@link PLATFORMS}. */
export type Platform = (typeof PLATFORMS)[number];

/** One generated file. */
export interface BuiltFile {
  /** File name, e.g. `tokens.css`. */
  name: string;
  /** Media type of its contents. */
  mimeType: string;
  contents: string;
}

/** A description as one line of comment text: no comment starts or ends, no braces, no line breaks. */
function safeDescription(text: string): string {
  return (
    text
      .replace(/[{}]/g, (c) => (c === '{' ? '(' : ')'))
      .replace(/\*\//g, '* /')
      // Swift's block comments nest: an opening inside one would leave it open.
      .replace(/\/\*/g, '/ *')
      .replace(/--/g, '- -')
      .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
      .slice(0, 500)
  );
}

const isAlias = (value: unknown) => typeof value === 'string' && REFERENCE.test(value);

/** The document Style Dictionary gets (see the module header). */
export function prepareForBuild(doc: Record<string, unknown>): Record<string, unknown> {
  const tokens = flattenTokens(doc);
  const out: Record<string, unknown> = {};
  for (const token of tokens.values()) {
    const segments = token.path.split('.');
    let group = out;
    for (const segment of segments.slice(0, -1)) {
      let next = group[segment];
      if (!isObject(next)) {
        next = {};
        group[segment] = next;
      }
      group = next as Record<string, unknown>;
    }
    group[segments[segments.length - 1] as string] = {
      $type: token.type,
      $value: isAlias(token.value) ? token.value : resolveValue(tokens, token.value),
      ...(token.description === undefined
        ? {}
        : { $description: safeDescription(token.description) }),
    };
  }
  return out;
}

const original = (token: TransformedToken) => token.original.$value as unknown;

/** Outside quoted strings, CSS text of a value holds none of these: nothing closes a declaration. */
const CSS_BREAKOUT = /[;{}<>!\\]|\/\*|\p{Cc}/u;

function cssText(token: TransformedToken): string {
  const write = CSS_VALUE[token.$type as string];
  const text = write ? write(token.$value) : String(token.$value);
  if (CSS_BREAKOUT.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) {
    throw new TokenBuildError('its value cannot be written as CSS', token.path.join('.'));
  }
  return text;
}

/**
 * A name transform that also refuses two tokens the platform would give one name
 * (`a-b` and `a.b` are both `a-b` in CSS): the file would silently keep one of them.
 */
function naming(name: (path: readonly string[]) => string, failures: TokenBuildError[]) {
  const seen = new Map<string, string>();
  return {
    type: 'name' as const,
    transform: guarded(failures, (token: TransformedToken) => {
      const result = name(token.path);
      const path = token.path.join('.');
      const other = seen.get(result);
      if (other !== undefined && other !== path) {
        throw new TokenBuildError(`it and ${other} have the same name here, '${result}'`, path);
      }
      if (result === '') throw new TokenBuildError('its name has no letters or digits', path);
      seen.set(result, path);
      return result;
    }),
  };
}

/**
 * A transform whose errors are kept in `failures` as well as thrown: Style Dictionary catches a
 * transform's error, logs it as a warning and writes the untransformed value (or name) instead,
 * so the build checks `failures` afterwards and refuses what would otherwise ship.
 */
function guarded<T>(failures: TokenBuildError[], transform: (token: TransformedToken) => T) {
  return (token: TransformedToken): T => {
    try {
      return transform(token);
    } catch (error) {
      failures.push(
        TokenBuildError.is(error)
          ? error
          : new TokenBuildError(
              error instanceof Error ? error.message : String(error),
              token.path.join('.'),
            ),
      );
      throw error;
    }
  };
}

/** Value transforms skip whole aliases: those take their target's transformed value. */
const notAlias = (token: TransformedToken) => !isAlias(original(token));

/** Composite types the native platforms write part by part. */
const EXPANDED = ['typography', 'shadow', 'border', 'transition', 'gradient', 'strokeStyle'];

interface PlatformSpec {
  transforms: string[];
  files: NonNullable<Config['platforms']>[string]['files'];
  expand?: boolean;
  mimeType: string;
}

const PLATFORM_SPECS: Record<Platform, PlatformSpec> = {
  css: {
    transforms: ['mcpkit/name/kebab', 'mcpkit/value/css'],
    files: [
      { destination: 'tokens.css', format: 'css/variables', options: { outputReferences: true } },
    ],
    mimeType: 'text/css',
  },
  scss: {
    transforms: ['mcpkit/name/kebab', 'mcpkit/value/css'],
    files: [
      {
        destination: '_tokens.scss',
        format: 'scss/variables',
        options: { outputReferences: true },
      },
    ],
    mimeType: 'text/x-scss',
  },
  js: {
    transforms: ['mcpkit/name/pascal', 'mcpkit/value/css'],
    files: [
      { destination: 'tokens.js', format: 'javascript/es6' },
      { destination: 'tokens.d.ts', format: 'typescript/es6-declarations' },
    ],
    mimeType: 'text/javascript',
  },
  tailwind: {
    transforms: ['mcpkit/name/kebab', 'mcpkit/value/tailwind'],
    files: [{ destination: 'theme.css', format: 'mcpkit/tailwind-v4' }],
    mimeType: 'text/css',
  },
  json: {
    transforms: ['mcpkit/name/kebab', 'mcpkit/value/css'],
    files: [{ destination: 'tokens.json', format: 'json/flat' }],
    mimeType: 'application/json',
  },
  swift: {
    transforms: ['mcpkit/name/camel', 'mcpkit/value/swift'],
    files: [
      {
        destination: 'Tokens.swift',
        format: 'ios-swift/class.swift',
        options: { className: 'DesignTokens', import: ['UIKit'] },
      },
    ],
    expand: true,
    mimeType: 'text/x-swift',
  },
  android: {
    transforms: ['mcpkit/name/android', 'mcpkit/value/android'],
    files: [
      {
        destination: 'tokens.xml',
        format: 'android/resources',
        options: {
          resourceMap: {
            color: 'color',
            dimension: 'dimen',
            fontWeight: 'integer',
            duration: 'integer',
          },
        },
      },
    ],
    expand: true,
    mimeType: 'application/xml',
  },
};

/** The hooks of one build: fresh, so each name transform sees only this build's tokens. */
function hooks(failures: TokenBuildError[]): Config['hooks'] {
  return {
    transforms: {
      'mcpkit/name/kebab': naming(CASE.kebab, failures),
      'mcpkit/name/pascal': naming((path) => identifier(CASE.pascal(path)), failures),
      'mcpkit/name/camel': naming((path) => identifier(CASE.camel(path)), failures),
      'mcpkit/name/android': naming((path) => androidName(CASE.snake(path)), failures),
      'mcpkit/value/css': {
        type: 'value',
        filter: notAlias,
        transform: guarded(failures, cssText),
      },
      // Typography stays an object: the Tailwind format writes its parts as `--text-*` options.
      'mcpkit/value/tailwind': {
        type: 'value',
        filter: (token) => notAlias(token) && token.$type !== 'typography',
        transform: guarded(failures, cssText),
      },
      'mcpkit/value/swift': {
        type: 'value',
        filter: notAlias,
        transform: guarded(failures, (token) => swiftValue(token.$value)),
      },
      'mcpkit/value/android': {
        type: 'value',
        filter: notAlias,
        transform: guarded(failures, (token) => androidValue(token.$value)),
      },
    },
    formats: {
      'mcpkit/tailwind-v4': ({
        dictionary,
        options,
      }: {
        dictionary: Dictionary;
        options: { selector?: string };
      }) => tailwindTheme(dictionary.allTokens, options.selector),
    },
  };
}

/** How a mode's build differs from the plain one (see `build_design_tokens`). */
export interface BuildOptions {
  /**
   * CSS and Tailwind: the selector the variables are declared under instead of `:root` (and, for
   * Tailwind, in a plain rule overriding the `@theme` variables), e.g. `[data-theme="dark"]`.
   */
  selector?: string;
  /** Put before each file name's extension, e.g. `theme-dark` → `tokens.theme-dark.css`. */
  suffix?: string;
  /** Swift: the class name (default `DesignTokens`). */
  className?: string;
}

/** `tokens.d.ts` + `theme-dark` → `tokens.theme-dark.d.ts`. */
function withSuffix(name: string, suffix: string | undefined): string {
  if (!suffix) return name;
  const dot = name.endsWith('.d.ts') ? name.length - 5 : name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${suffix}${name.slice(dot)}`;
}

/** The platform's files with a mode's options applied. */
function filesOf(spec: PlatformSpec, options: BuildOptions): PlatformSpec['files'] {
  return spec.files?.map((f) => ({
    ...f,
    destination: withSuffix(f.destination ?? '', options.suffix),
    options: {
      ...f.options,
      ...(options.selector ? { selector: options.selector } : {}),
      ...(options.className && f.format === 'ios-swift/class.swift'
        ? { className: options.className }
        : {}),
    },
  }));
}

/**
 * The files of `doc` (a validated DTCG document) for `platform`. Throws {@link TokenBuildError}
 * for a token the platform cannot name or write.
 */
export async function buildTokens(
  doc: Record<string, unknown>,
  platform: Platform,
  options: BuildOptions = {},
): Promise<BuiltFile[]> {
  const spec = PLATFORM_SPECS[platform];
  const failures: TokenBuildError[] = [];
  const sd = new StyleDictionary({
    tokens: prepareForBuild(doc) as DesignTokens,
    usesDtcg: true,
    log: { verbosity: 'silent', warnings: 'disabled', errors: { brokenReferences: 'throw' } },
    hooks: hooks(failures),
    platforms: {
      [platform]: {
        transforms: spec.transforms,
        files: filesOf(spec, options),
        ...(spec.expand ? { expand: { include: EXPANDED } } : {}),
      },
    },
  });
  let outputs: Awaited<ReturnType<StyleDictionary['formatPlatform']>>;
  try {
    outputs = await sd.formatPlatform(platform);
  } catch (error) {
    if (TokenBuildError.is(error)) throw error;
    // Style Dictionary's own errors name tokens in their text; passed on as they are.
    throw new TokenBuildError(error instanceof Error ? error.message : String(error));
  }
  const [first] = failures;
  if (first) {
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
    throw new TokenBuildError(`${first.message}${more}`, first.path);
  }
  return outputs.map((out) => ({
    name: out.destination ?? `tokens.${platform}`,
    mimeType: out.destination?.endsWith('.d.ts') ? 'application/typescript' : spec.mimeType,
    contents: String(out.output),
  }));
}
