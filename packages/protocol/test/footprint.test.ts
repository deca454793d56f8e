// @module-tag process
/**
 * The engine stays the engine: three runtime dependencies, no platform code loaded by importing
 * it, no arrow to another mcpkit package, and no cycle among the workspace's packages. What a
 * stdio server or a client pays for `import '@mcpkit/protocol'` depends on it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const WORKSPACE = fileURLToPath(new URL('../../..', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as Manifest;

/** The platform's CommonJS dependencies: loading any of them means platform code came along. */
const PLATFORM =
  /\/node_modules\/(pino|pino-pretty|prom-client|@opentelemetry\/[^/]+|ioredis|rate-limiter-flexible)\//;

/** The CommonJS files loaded by a fresh Node process that runs `imports` (ESM specifiers). */
function loadedAfter(imports: string[]): string[] {
  const script = [
    "import { createRequire } from 'node:module';",
    ...imports.map((specifier) => `await import(${JSON.stringify(specifier)});`),
    'process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PACKAGE,
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as string[];
}

describe('@mcpkit/protocol', () => {
  it('has exactly four runtime dependencies, none of them an mcpkit package', () => {
    const own = manifest(PACKAGE);
    // oauth4webapi (no dependencies of its own): McpClient's sign-in (OAuthClient).
    expect(Object.keys(own.dependencies ?? {}).sort()).toEqual([
      '@standard-schema/spec',
      'eventsource-parser',
      'oauth4webapi',
      'zod',
    ]);
    expect(Object.keys(own.peerDependencies ?? {})).toEqual([]);
  });

  it('loads no logger, metrics, tracing, Redis or rate-limiter code when imported', () => {
    expect(loadedAfter([DIST]).filter((file) => PLATFORM.test(file))).toEqual([]);
    // The probe sees such a load when there is one (pino is one of the workspace's packages).
    const pino = pathToFileURL(
      createRequire(`${WORKSPACE}packages/node/package.json`).resolve('pino'),
    ).href;
    expect(loadedAfter([DIST, pino]).filter((file) => PLATFORM.test(file))).not.toEqual([]);
  });

  it('imports no other mcpkit package in its sources', () => {
    const sources = readdirSync(`${PACKAGE}src`, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts'),
    );
    const offending = sources.filter((file) =>
      /(?:from|import)\s*\(?\s*'@mcpkit\//.test(readFileSync(`${PACKAGE}src/${file}`, 'utf8')),
    );
    expect(offending).toEqual([]);
  });
});

describe('the workspace packages', () => {
  it('depend on each other without a cycle, dev dependencies included', () => {
    const graph = new Map<string, string[]>();
    for (const group of ['packages', 'apps']) {
      for (const dir of readdirSync(`${WORKSPACE}${group}`)) {
        const m = manifest(`${WORKSPACE}${group}/${dir}`);
        const all = { ...m.dependencies, ...m.devDependencies, ...m.peerDependencies };
        graph.set(
          m.name,
          Object.keys(all).filter((name) => name.startsWith('@mcpkit/')),
        );
      }
    }
    expect(graph.get('@mcpkit/protocol')).toEqual([]);
    // Depth-first search: a package met again while still on the path closes a cycle.
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (name: string, path: string[]) => {
      if (path.includes(name)) {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' → '));
        return;
      }
      if (done.has(name)) return;
      for (const next of graph.get(name) ?? []) visit(next, [...path, name]);
      done.add(name);
    };
    for (const name of graph.keys()) visit(name, []);
    expect(cycles).toEqual([]);
  });
});
