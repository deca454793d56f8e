#!/usr/bin/env node
// @ts-check
/**
 * Builds the MCP Apps views of the package it is run in (`node ../../scripts/build-views.mjs
 * <name>…` from apps/<app>): for each name, `src/views/<name>.ts` is bundled with its imports
 * (the ext-apps bridge included) and `src/views/<name>.css` is minified (with what it imports —
 * every view starts from `scripts/views/base.css`, the look they share), both inlined into
 * `src/views/<name>.html`, and the result written to `dist/views/<name>.html` — one
 * self-contained file a host renders with no network at all. Fails when a view is over budget.
 *
 * esbuild is loaded from the package being built (its exact-version devDependency), so this
 * script needs nothing installed at the repository root.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The budget of one view: 150 KB gzip-compressed (what it weighs on the wire), and 360 KB as it
 * is — the ext-apps bridge alone is about 240 KB minified and system-info's charts (uPlot) add
 * about 55 KB, so 360 KB catches a regression such as the slimming below no longer applying
 * (+330 KB).
 */
export const MAX_VIEW_GZIP_BYTES = 150 * 1024;
export const MAX_VIEW_RAW_BYTES = 360 * 1024;

const cwd = process.cwd();
const esbuild = createRequire(join(cwd, 'package.json'))('esbuild');
const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: build-views.mjs <view name>…');
  process.exit(2);
}

/**
 * Two size fixes for the ext-apps bridge, each exact and failing loudly rather than silently:
 *
 * - ext-apps imports zod as `import { z } from "zod/v4"`, a namespace *object* that bundlers must
 *   keep whole (every locale included, ~260 KB); rewritten to `import * as z`, whose static
 *   property reads esbuild can tree-shake. Same bindings, same code.
 * - ext-apps takes only `Protocol` from `@modelcontextprotocol/client`, whose index also pulls in
 *   the whole client (HTTP transports, OAuth, a JSON Schema validator, ~70 KB); `Protocol` is
 *   imported from the chunk the index re-exports it from. If the client's layout changes, the
 *   build falls back to the whole index (bigger, same behaviour) and says so.
 */
const slimBridge = {
  name: 'slim-ext-apps-bridge',
  setup(build) {
    build.onLoad({ filter: /[\\/]ext-apps[\\/]dist[\\/]src[\\/][\w-]+\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8').replace(
        /import\{z as ([\w$]+)\}from"zod\/v4"/g,
        'import*as $1 from"zod/v4"',
      );
      return { contents: code, loader: 'js' };
    });
    build.onResolve({ filter: /^@modelcontextprotocol\/client$/ }, async (args) => {
      if (args.pluginData === 'inner') return undefined;
      const index = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: 'inner',
      });
      if (index.errors.length > 0) return { errors: index.errors };
      const match = readFileSync(index.path, 'utf8').match(
        /import \{[^}]*?\b([\w$]+) as Protocol\b[^}]*\} from "(\.\/[\w.-]+\.mjs)"/,
      );
      if (!match) {
        console.warn(
          '! build-views: Protocol not found in @modelcontextprotocol/client; bundling the whole client',
        );
        return { path: index.path };
      }
      return {
        path: index.path,
        namespace: 'protocol-only',
        pluginData: { local: match[1], chunk: match[2] },
      };
    });
    build.onLoad({ filter: /.*/, namespace: 'protocol-only' }, (args) => ({
      contents: `export { ${args.pluginData.local} as Protocol } from ${JSON.stringify(args.pluginData.chunk)};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

const MARK_STYLE = '/* inline:style */';
const MARK_SCRIPT = '/* inline:script */';

let failed = false;
for (const name of names) {
  const base = join(cwd, 'src', 'views', name);
  const template = readFileSync(`${base}.html`, 'utf8');
  if (!template.includes(MARK_STYLE) || !template.includes(MARK_SCRIPT)) {
    console.error(`${name}.html: needs the markers ${MARK_STYLE} and ${MARK_SCRIPT}`);
    process.exit(1);
  }
  // esbuild has printed what went wrong (logLevel); a failed view fails the build, not a stack trace.
  const built = await Promise.all([
    esbuild.build({
      entryPoints: [`${base}.ts`],
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
      legalComments: 'none',
      plugins: [slimBridge],
      logLevel: 'warning',
    }),
    esbuild.build({
      entryPoints: [`${base}.css`],
      bundle: true,
      minify: true,
      write: false,
      logLevel: 'warning',
    }),
  ]).catch(() => undefined);
  if (!built) {
    console.error(`✗ view ${name}: esbuild failed`);
    failed = true;
    continue;
  }
  const [script, style] = built;
  // esbuild escapes `</script` in strings for browser targets; this guards the invariant that
  // the inlined code cannot close its own <script> element.
  const js = script.outputFiles[0].text.replaceAll('</script', '<\\/script');
  const css = style.outputFiles[0].text.replaceAll('</style', '<\\/style');
  // Functions as replacements: `$&` and friends in the code must stay literal.
  const html = template.replace(MARK_STYLE, () => css.trim()).replace(MARK_SCRIPT, () => js.trim());
  mkdirSync(join(cwd, 'dist', 'views'), { recursive: true });
  const out = join(cwd, 'dist', 'views', `${name}.html`);
  writeFileSync(out, html);
  const raw = Buffer.byteLength(html);
  const gzip = gzipSync(html).length;
  const size = `${(raw / 1024).toFixed(1)} KB (${(gzip / 1024).toFixed(1)} KB gzip)`;
  if (raw > MAX_VIEW_RAW_BYTES || gzip > MAX_VIEW_GZIP_BYTES) {
    console.error(
      `✗ view ${name}: ${size}, over the budget of ${MAX_VIEW_RAW_BYTES / 1024} KB (${MAX_VIEW_GZIP_BYTES / 1024} KB gzip)`,
    );
    failed = true;
  } else console.log(`view ${name}: ${size} → dist/views/${name}.html`);
}
if (failed) process.exit(1);
