#!/usr/bin/env node
// @ts-check
/**
 * `node ../../scripts/bundle-cli.mjs` (run by an app's build, in the app's directory): the app's
 * built `dist/cli.js` bundled into `dist/bundle/` — the entry `cli.js` and, split at every
 * dynamic `import()`, chunks that load when that import runs — for the `bin` to start.
 *
 * Why (#35, cold start): Node 20's ESM loader resolves, reads and links each file on its own; the
 * gateway's unbundled start loads ~265 modules (95 of them zod's), and the loader's own work was
 * a third of the start's CPU. Node 22's module compile cache would help, but a user's Node 20
 * does not have it.
 *
 * `--metafile <file>` writes esbuild's metafile there.
 *
 * What goes in: the workspace's packages (`@mcpkit/*`) and the few pure-ESM libraries listed in
 * BUNDLED. Everything else stays an `import` the bundle makes at run time — native addons
 * (better-sqlite3), the large libraries loaded lazily (pg, ioredis, oidc-provider, jose,
 * OpenTelemetry) and the CommonJS ones our code `require`s. Such an import is resolved from
 * `dist/bundle/`, so the build checks that it finds there the very package it found beside the
 * importing module, and fails naming it otherwise (the fix: make it a dependency of the app).
 *
 * Each bundled workspace module keeps its own `import.meta.url`: the expression is rewritten to
 * the URL the module has unbundled (found through the package's `package.json`), so the paths a
 * module computes from it — the event log's worker, the status page's assets, `createRequire`,
 * the package's version — are what they were.
 */
import { realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

/** Third-party packages bundled: pure ESM, loaded at every start. */
const BUNDLED = new Set([
  // 95 modules, the largest share of the unbundled start.
  'zod',
  // One module; a dependency of @mcpkit/protocol, not of the apps, so not resolvable from them.
  'eventsource-parser',
]);
const WORKSPACE_SCOPE = '@mcpkit/';

const appDir = process.cwd();
const outdir = join(appDir, 'dist', 'bundle');
const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier);
}

/** The directory Node's lookup finds `name` in from `dir` (node_modules, walking up), real path. */
function packageDirFrom(name, dir) {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    try {
      if (statSync(join(candidate, 'package.json')).isFile()) return realpathSync(candidate);
    } catch {
      // not here; one level up
    }
    if (dirname(at) === at) return undefined;
  }
}

/** The package root and name of a file inside a workspace package's dist. */
function workspacePackageOf(file) {
  for (let at = dirname(file); dirname(at) !== at; at = dirname(at)) {
    try {
      const manifest = join(at, 'package.json');
      if (!statSync(manifest).isFile()) continue;
      return { root: at, manifest };
    } catch {
      // keep walking up
    }
  }
  return undefined;
}

/** @type {string[]} */
const problems = [];

/**
 * A dynamic `import('pkg')` of a library the app does not depend on itself (ioredis in
 * @mcpkit/fleet, OpenTelemetry's SDK in @mcpkit/observability) becomes an import of the file
 * Node's resolution finds from the importing module's own place — what the unbundled import
 * would have loaded (by its CommonJS condition; a library resolvable only by `import` fails the
 * build here).
 */
function lateImports(source, file) {
  return source.replace(/\bimport\((['"])([^'"./][^'"]*)\1\)/g, (whole, _quote, spec) => {
    const name = packageName(spec);
    if (spec.startsWith('node:') || BUILTINS.has(spec)) return whole;
    if (name.startsWith(WORKSPACE_SCOPE) || BUNDLED.has(name)) return whole;
    const fromImporter = packageDirFrom(name, dirname(file));
    if (fromImporter === undefined || fromImporter === packageDirFrom(name, outdir)) return whole;
    try {
      createRequire(file).resolve(spec);
    } catch (err) {
      problems.push(
        `${spec} (imported by ${relative(appDir, file)}): ${err instanceof Error ? err.message : err}`,
      );
      return whole;
    }
    return `import(__mcpkitImport(${JSON.stringify(spec)}, import.meta.url))`;
  });
}

/**
 * zod's `locales` namespace re-exports its ~50 translations of error messages (370 KB of the
 * bundle's 1.6 MB): `import * as z` keeps every one, though zod itself configures English and
 * nothing here picks another. The bundle gets English alone; `z.locales` has `en` only.
 */
const ZOD_LOCALES = /[/\\]zod[/\\]v4[/\\](?:classic|core|mini)[/\\]/;
const ENGLISH_ONLY = 'mcpkit-zod-locales-en';

/** @type {import('esbuild').Plugin} */
const plugin = {
  name: 'mcpkit-cli-bundle',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      ZOD_LOCALES.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: ENGLISH_ONLY }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: ENGLISH_ONLY }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const spec = args.path;
      if (spec.startsWith('node:') || BUILTINS.has(spec)) return { external: true };
      const name = packageName(spec);
      if (name.startsWith(WORKSPACE_SCOPE) || BUNDLED.has(name)) return undefined;
      const fromImporter = packageDirFrom(name, dirname(args.importer));
      const fromBundle = packageDirFrom(name, outdir);
      // Not installed beside its importer either (an optional peer): it fails alike unbundled.
      if (fromImporter !== undefined && fromImporter !== fromBundle) {
        problems.push(
          `${name} (imported by ${relative(appDir, args.importer)}) resolves to ${fromBundle ?? 'nothing'} from the bundle, not ${fromImporter}: make it a dependency of the app, or add it to BUNDLED`,
        );
      }
      return { external: true };
    });
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      const source = lateImports(await readFile(args.path, 'utf8'), args.path);
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      const pkg = workspacePackageOf(args.path);
      const manifest = pkg && JSON.parse(await readFile(pkg.manifest, 'utf8'));
      if (
        !pkg ||
        typeof manifest?.name !== 'string' ||
        !manifest.name.startsWith(WORKSPACE_SCOPE)
      ) {
        problems.push(`${args.path} uses import.meta.url and is not in a workspace package`);
        return { contents: source, loader: 'js' };
      }
      const path = relative(pkg.root, args.path).split(sep).join('/');
      const url = `__mcpkitUrl(${JSON.stringify(manifest.name)}, ${JSON.stringify(path)})`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

// A chunk's name carries its content's hash: last build's would stay beside this one's.
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { cli: join(appDir, 'dist', 'cli.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  // Every output file's own helpers: a module's unbundled URL, from its package's manifest; a
  // library resolved from a module's unbundled place (see lateImports).
  banner: {
    js: [
      "import { createRequire as __mcpkitRequire } from 'node:module';",
      "import { pathToFileURL as __mcpkitFileUrl } from 'node:url';",
      "const __mcpkitUrl = (pkg, path) => new URL(path, import.meta.resolve(pkg + '/package.json')).href;",
      'const __mcpkitImport = (spec, parent) => __mcpkitFileUrl(__mcpkitRequire(parent).resolve(spec)).href;',
    ].join('\n'),
  },
  plugins: [plugin],
  logLevel: 'warning',
  metafile: true,
  legalComments: 'none',
});

if (problems.length > 0) {
  process.stderr.write(`bundle-cli: ${problems.length} problem(s):\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
// `--metafile <file>`: esbuild's account of what went where (for a look at the chunks).
const metafileAt = process.argv.indexOf('--metafile');
if (metafileAt > 0 && process.argv[metafileAt + 1]) {
  writeFileSync(process.argv[metafileAt + 1] ?? '', JSON.stringify(result.metafile));
}
const outputs = Object.keys(result.metafile.outputs).length;
const inputs = Object.keys(result.metafile.inputs).length;
process.stderr.write(`bundle-cli: ${inputs} modules → ${outputs} files in dist/bundle\n`);
