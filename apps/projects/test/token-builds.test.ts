/**
 * Design-token builds, checked by the tools that read them: the demo project's tokens built for
 * every platform match the golden files in test/golden/tokens/ (UPDATE_GOLDEN=1 rewrites them),
 * and each output is read by a real parser of its language — CSS and the Tailwind block by
 * lightningcss, the JS module by Node and its `.d.ts` by the TypeScript compiler, the Android XML
 * by fast-xml-parser's validator, the Swift class by tree-sitter's Swift grammar (a syntax check:
 * no Swift compiler runs on this machine). Then hostile names and values: nothing breaks out of
 * a declaration, a string or a comment.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { transform } from 'lightningcss';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTokens, validateTokens } from '../src/dtcg.js';
import { type BuiltFile, buildTokens, PLATFORMS, TokenBuildError } from '../src/tokens/build.js';
import { flattenTokens } from '../src/tokens/flatten.js';

// web-tree-sitter is CommonJS (`export =`), loaded as such.
const require = createRequire(import.meta.url);
const Parser = require('web-tree-sitter') as typeof import('web-tree-sitter');
type Parser = InstanceType<typeof Parser>;

const GOLDEN = fileURLToPath(new URL('./golden/tokens/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

type Doc = Record<string, unknown>;

let swift: Parser;
let dir: string;

beforeAll(async () => {
  await Parser.init();
  const wasm = require.resolve('tree-sitter-wasms/out/tree-sitter-swift.wasm');
  swift = new Parser();
  swift.setLanguage(await Parser.Language.load(wasm));
  dir = mkdtempSync(join(tmpdir(), 'token-builds-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (files: BuiltFile[], name: string) => {
  const found = files.find((f) => f.name === name);
  if (!found) throw new Error(`no ${name} in ${files.map((f) => f.name).join(', ')}`);
  return found.contents;
};

/** The custom properties lightningcss reads, by the rule they are in (`:root`, `@theme`). */
function cssDeclarations(css: string): { rule: string; name: string }[] {
  const found: { rule: string; name: string }[] = [];
  transform({
    filename: 'tokens.css',
    code: Buffer.from(css),
    errorRecovery: false,
    customAtRules: { theme: { body: 'declaration-list' } },
    visitor: {
      Rule: {
        style(rule) {
          const selector = JSON.stringify(rule.value.selectors);
          for (const d of rule.value.declarations?.declarations ?? []) {
            found.push({
              rule: selector,
              name: d.property === 'custom' ? d.value.name : d.property,
            });
          }
          return undefined;
        },
        custom: {
          theme(rule) {
            const body = rule.body?.value as
              | { declarations?: { property: string; value: { name?: string } }[] }
              | undefined;
            for (const d of body?.declarations ?? []) {
              found.push({ rule: '@theme', name: d.value.name ?? d.property });
            }
            return undefined;
          },
        },
      },
    },
  });
  return found;
}

/** Type-checks `consumer` against the build's `.d.ts` with the TypeScript compiler. */
function typeErrors(files: BuiltFile[], consumer: string): string[] {
  const at = join(dir, `ts-${Math.random().toString(36).slice(2)}`);
  mkdirSync(at);
  writeFileSync(join(at, 'tokens.js'), file(files, 'tokens.js'));
  writeFileSync(join(at, 'tokens.d.ts'), file(files, 'tokens.d.ts'));
  writeFileSync(join(at, 'consumer.ts'), consumer);
  writeFileSync(join(at, 'package.json'), '{"type":"module"}');
  const program = ts.createProgram([join(at, 'consumer.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: false,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** The JS module's exports, imported by Node. */
async function jsExports(files: BuiltFile[]): Promise<Record<string, unknown>> {
  const path = join(dir, `tokens-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(path, file(files, 'tokens.js'));
  return { ...(await import(pathToFileURL(path).href)) };
}

/** The Android resources: names and values, after the XML is validated. */
function androidResources(xml: string): { kind: string; name: string; value: string }[] {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (_name, path) => String(path).split('.').length === 2,
  }).parse(xml);
  const resources = parsed.resources as Record<string, { '@_name': string; '#text': unknown }[]>;
  return Object.entries(resources).flatMap(([kind, items]) =>
    kind.startsWith('#')
      ? []
      : items.map((i) => ({ kind, name: i['@_name'], value: String(i['#text']) })),
  );
}

function swiftErrors(source: string): boolean {
  return swift.parse(source).rootNode.hasError;
}

async function buildAll(doc: Doc): Promise<Record<string, BuiltFile[]>> {
  const out: Record<string, BuiltFile[]> = {};
  for (const platform of PLATFORMS) out[platform] = await buildTokens(doc, platform);
  return out;
}

describe('the demo project’s tokens, built for every platform', () => {
  const doc = defaultTokens();
  const tokenCount = flattenTokens(doc).size;
  let builds: Record<string, BuiltFile[]>;
  beforeAll(async () => {
    expect(validateTokens(doc)).toEqual([]);
    builds = await buildAll(doc);
  });

  it('match the golden files', () => {
    for (const platform of PLATFORMS) {
      for (const built of builds[platform] ?? []) {
        const path = join(GOLDEN, built.name);
        if (UPDATE) {
          mkdirSync(GOLDEN, { recursive: true });
          writeFileSync(path, built.contents);
        }
        expect(built.contents, `${platform}: ${built.name}`).toBe(readFileSync(path, 'utf8'));
      }
    }
  });

  it('CSS: lightningcss reads one custom property per token on :root; aliases are var()', () => {
    const css = file(builds.css ?? [], 'tokens.css');
    const declared = cssDeclarations(css);
    expect(declared).toHaveLength(tokenCount);
    expect(new Set(declared.map((d) => d.rule)).size).toBe(1);
    expect(css).toContain('--color-action: var(--color-brand-primary);');
    expect(css).toContain('--border-focus: 2px solid #2563eb;');
    expect(css).toContain('--shadow-card: 0px 4px 12px 0px rgb(0% 0% 0% / 0.1);');
    expect(css).toContain('--transition-fade: 150ms cubic-bezier(0.2, 0, 0, 1) 0ms;');
  });

  it('Tailwind: an @theme block lightningcss reads, in Tailwind’s namespaces', () => {
    const names = cssDeclarations(file(builds.tailwind ?? [], 'theme.css'));
    expect(names.every((d) => d.rule === '@theme')).toBe(true);
    const declared = names.map((d) => d.name);
    expect(declared).toEqual(
      expect.arrayContaining([
        '--color-brand-primary',
        '--spacing-md',
        '--radius-md',
        '--font-weight-bold',
        '--shadow-card',
        '--ease-motion-ease',
        '--text-body',
        '--text-body--line-height',
        '--text-heading--letter-spacing',
      ]),
    );
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('JS: Node imports one export per token; the .d.ts type-checks a consumer with tsc', async () => {
    const files = builds.js ?? [];
    const exports = await jsExports(files);
    expect(Object.keys(exports)).toHaveLength(tokenCount);
    expect(exports.ColorBrandPrimary).toBe('#2563eb');
    expect(exports.ColorAction).toBe('#2563eb');
    const consumer = `import { ${Object.keys(exports).join(', ')} } from './tokens.js';\nconst all: string[] = [${Object.keys(exports).join(', ')}];\nexport default all;\n`;
    expect(typeErrors(files, consumer)).toEqual([]);
    // The check bites: a name the build does not export is an error.
    expect(
      typeErrors(
        files,
        "import { NoSuchToken } from './tokens.js';\nexport default NoSuchToken;\n",
      ),
    ).not.toEqual([]);
  });

  it('JSON: one entry per token', () => {
    const json = JSON.parse(file(builds.json ?? [], 'tokens.json'));
    expect(Object.keys(json)).toHaveLength(tokenCount);
    expect(json['typography-heading']).toBe('700 2rem/1.2 "Inter", system-ui, sans-serif');
  });

  it('Android: valid XML; resource names aapt accepts; composites in parts', () => {
    const resources = androidResources(file(builds.android ?? [], 'tokens.xml'));
    expect(resources.every((r) => /^[a-z][a-z0-9_]*$/.test(r.name))).toBe(true);
    expect(new Set(resources.map((r) => r.name)).size).toBe(resources.length);
    expect(resources).toContainEqual({
      kind: 'color',
      name: 'color_brand_primary',
      value: '#ff2563eb',
    });
    expect(resources).toContainEqual({ kind: 'dimen', name: 'spacing_md', value: '16dp' });
    expect(resources).toContainEqual({
      kind: 'color',
      name: 'shadow_card_color',
      value: '#1a000000',
    });
  });

  it('Swift: tree-sitter’s Swift grammar parses it without an error node', () => {
    const source = file(builds.swift ?? [], 'Tokens.swift');
    expect(swiftErrors(source)).toBe(false);
    expect(source).toContain(
      'public static let colorBrandPrimary = UIColor(red: 0.145, green: 0.388, blue: 0.922, alpha: 1)',
    );
    // The check bites: Style Dictionary's own output for an object value does not parse.
    expect(swiftErrors('public class A {\n    public static let x = [object Object]\n}\n')).toBe(
      true,
    );
  });
});

describe('hostile names and values cannot break out', () => {
  // Names may hold anything but {, } and . (DTCG §5.1.1).
  const HOSTILE_NAME = 'x"; </style><script>alert(1)</script> /* ';
  const doc: Doc = {
    color: {
      $type: 'color',
      [HOSTILE_NAME]: {
        $value: { colorSpace: 'srgb', components: [1, 0, 0] },
        $description:
          '*/ } body { background: url(https://evil.example) } /* --> <!-- \n\u2028 ]]>',
      },
      'a\\b\nc': { $value: { colorSpace: 'srgb', components: [0, 1, 0] } },
      '1st': { $value: { colorSpace: 'srgb', components: [0, 0, 1] } },
      Größe: { $value: { colorSpace: 'srgb', components: [0.5, 0.5, 0.5] } },
    },
    font: {
      $type: 'fontFamily',
      evil: {
        $value: [`Evil"; background: url(x); --a: "`, "O'Brien\\\n</string>&amp;", 'sans-serif'],
      },
    },
  };
  const tokens = 5;
  let builds: Record<string, BuiltFile[]>;
  beforeAll(async () => {
    expect(validateTokens(doc)).toEqual([]);
    builds = await buildAll(doc);
  });

  it('CSS and Tailwind: exactly one declaration per token, nothing else', () => {
    const declared = cssDeclarations(file(builds.css ?? [], 'tokens.css')).map((d) => d.name);
    expect(declared).toHaveLength(tokens);
    // What the font family's value would declare, had it broken out of its string.
    expect(declared).not.toContain('--a');
    expect(declared).not.toContain('background');
    // SCSS: one `$name: value;` line per token (a `//` comment after it), comments, nothing else.
    const scss = file(builds.scss ?? [], '_tokens.scss').split('\n');
    const variables = scss.filter((line) =>
      /^\$[\p{L}\p{N}-]+: [^\n]*;( \/\/ [^\n]*)?$/u.test(line),
    );
    expect(variables).toHaveLength(tokens);
    expect(scss.filter((l) => l !== '' && !l.startsWith('//') && !variables.includes(l))).toEqual(
      [],
    );
    expect(cssDeclarations(file(builds.tailwind ?? [], 'theme.css'))).toHaveLength(tokens);
    expect(file(builds.css ?? [], 'tokens.css')).not.toContain('</style>');
  });

  it('JS/TS: one export per token with the value as data; the .d.ts type-checks', async () => {
    const files = builds.js ?? [];
    const exports = await jsExports(files);
    expect(Object.keys(exports)).toHaveLength(tokens);
    expect(Object.values(exports)).toContain(
      '"Evil\\"; background: url(x); --a: \\"", "O\'Brien\\\\\\a </string>&amp;", sans-serif',
    );
    expect(Object.keys(exports).every((name) => /^[\p{L}_][\p{L}\p{N}_]*$/u.test(name))).toBe(true);
    const consumer = `import * as t from './tokens.js';\nexport const n: number = Object.keys(t).length;\n`;
    expect(typeErrors(files, consumer)).toEqual([]);
  });

  it('Android XML and Swift parse; JSON is JSON', () => {
    const resources = androidResources(file(builds.android ?? [], 'tokens.xml'));
    expect(resources).toHaveLength(tokens);
    expect(resources.every((r) => /^[a-z][a-z0-9_]*$/.test(r.name))).toBe(true);
    expect(swiftErrors(file(builds.swift ?? [], 'Tokens.swift'))).toBe(false);
    expect(Object.keys(JSON.parse(file(builds.json ?? [], 'tokens.json')))).toHaveLength(tokens);
  });
});

describe('builds that cannot be made are refused, by name', () => {
  it('two tokens one platform name: TokenBuildError naming both', async () => {
    const doc = {
      a: {
        $type: 'number',
        'b-c': { $value: 1 },
        b_c: { $value: 2 },
      },
    };
    expect(validateTokens(doc)).toEqual([]);
    const error = await buildTokens(doc, 'css').catch((e: unknown) => e);
    expect(TokenBuildError.is(error)).toBe(true);
    expect((error as Error).message).toMatch(/a\.b_c.*a\.b-c|a\.b-c.*a\.b_c/);
  });

  it('a name with no letters or digits', async () => {
    const doc = { '***': { $type: 'number', $value: 1 } };
    const error = await buildTokens(doc, 'css').catch((e: unknown) => e);
    expect(TokenBuildError.is(error)).toBe(true);
    expect((error as Error).message).toContain('no letters or digits');
  });
});
