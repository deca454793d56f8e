#!/usr/bin/env node
// @ts-check
/**
 * `pnpm pack-test`: what a user gets from npm, tested before it is published.
 *
 * 1. builds the workspace (turbo, cached) and `pnpm pack`s every published (non-private) package
 *    of packages/ and apps/ into a temp dir;
 * 2. reads each tarball: `workspace:` ranges rewritten to real versions, LICENSE and README
 *    present, every `exports` / `main` / `types` / `bin` target present, no tests, fixtures,
 *    sources or configs, no stale dist files, bins with a shebang;
 * 3. `npm install`s all tarballs at once into an empty temp project (the internal @mcpkit
 *    dependencies must resolve to the tarballs, never the registry; better-sqlite3's install script
 *    is allowed through the project's `allowScripts`, and builds from source when no prebuilt
 *    binary can be downloaded);
 * 4. imports every package, type-checks a consumer against the published .d.ts files, and runs
 *    each installed bin: `--help`, `--version` and a real stdio MCP session (initialize,
 *    tools/list, tools/call) — the gateway with the installed mcp-system-info as its backend;
 * 5. builds each app's MCP Bundle (`.mcpb`) from that install, packs, validates and unpacks it
 *    with the mcpb CLI, and runs the unpacked server as a desktop host would (scripts/bundles.mjs).
 *
 * Prints a report and exits 1 on any failure. Flags: --skip-build, --keep (leave the temp dir),
 * --bundles-out <dir> (copy the .mcpb files there, e.g. for a release).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { buildBundles } from './bundles.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = new Set(process.argv.slice(2));
const KEEP = argv.has('--keep');
const SKIP_BUILD = argv.has('--skip-build');
const outFlag = process.argv.indexOf('--bundles-out');
const BUNDLES_OUT = outFlag > 0 ? process.argv[outFlag + 1] : undefined;
const TOTAL_TIMEOUT_MS = 20 * 60_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const SESSION_TIMEOUT_MS = 60_000;
const PROTOCOL_VERSION = '2025-06-18';

/**
 * @typedef {{ name: string, version: string, private?: boolean, bin?: string | Record<string, string> }} PackageJson
 *   The fields of a package.json read here.
 */

const started = Date.now();
const results = [];
const timings = [];
let tmp;

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
function record(ok, name, detail = '') {
  results.push({ ok, name, detail });
  console.log(
    `${ok === true ? '✓' : ok === 'warn' ? '!' : '✗'} ${name}${detail ? ` — ${detail}` : ''}`,
  );
}
const pass = (name, detail) => record(true, name, detail);
const fail = (name, detail) => record(false, name, detail);
const warn = (name, detail) => record('warn', name, detail);
function check(cond, name, detail, failDetail = detail) {
  record(Boolean(cond), name, cond ? detail : failDetail);
  return Boolean(cond);
}
async function phase(name, fn) {
  const t0 = Date.now();
  console.log(`\n— ${name}`);
  try {
    return await fn();
  } finally {
    timings.push([name, Date.now() - t0]);
  }
}

function cleanup() {
  if (!tmp) return;
  if (KEEP) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}
const watchdog = setTimeout(() => {
  console.error(`\npack-test: gave up after ${secs(TOTAL_TIMEOUT_MS)}`);
  cleanup();
  process.exit(1);
}, TOTAL_TIMEOUT_MS);
watchdog.unref();

/**
 * Runs a command in its own process group (killed whole on timeout); resolves, never rejects.
 *
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, log?: string }} [options]
 *   `log`: a file to write the command and its output to.
 */
function run(cmd, args, { cwd = ROOT, env = process.env, timeoutMs = 60_000, log } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const done = (code, signal, error) => {
      clearTimeout(timer);
      if (log) writeFileSync(log, `$ ${cmd} ${args.join(' ')}\n${stdout}\n${stderr}`);
      resolve({ code, signal, stdout, stderr, timedOut, error, ms: Date.now() - t0 });
    };
    child.once('error', (err) => done(null, null, err));
    child.once('close', (code, signal) => done(code, signal));
  });
}
function killGroup(child, signal = 'SIGKILL') {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
const tail = (text, lines = 25) => text.trim().split('\n').slice(-lines).join('\n');
const describe = (r) =>
  r.error
    ? String(r.error.message)
    : r.timedOut
      ? 'timed out'
      : `exit ${r.code ?? r.signal}${r.stderr.trim() ? `: ${tail(r.stderr, 8)}` : ''}`;

/** pnpm as this script was started with (`pnpm pack-test` sets npm_execpath), else from PATH. */
function pnpmCommand() {
  const execpath = process.env.npm_execpath;
  if (execpath && /pnpm/.test(basename(execpath))) {
    return /\.[cm]?js$/.test(execpath) ? [process.execPath, execpath] : [execpath];
  }
  if (spawnSync('pnpm', ['--version'], { stdio: 'ignore' }).status === 0) return ['pnpm'];
  const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return ['npx', '-y', packageManager];
}

/** Entries of a .tgz: path (without `package/`) → { mode, data }. Handles pax long names. */
function readTarball(file) {
  const buf = gunzipSync(readFileSync(file));
  const entries = new Map();
  let offset = 0;
  let paxPath;
  const str = (start, len) => buf.toString('utf8', start, start + len).replace(/\0.*$/s, '');
  while (offset + 512 <= buf.length) {
    const header = offset;
    if (buf[header] === 0) break;
    const size = Number.parseInt(str(header + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(buf[header + 156] || 48);
    const prefix = str(header + 345, 155);
    const name = prefix ? `${prefix}/${str(header, 100)}` : str(header, 100);
    const mode = Number.parseInt(str(header + 100, 8).trim() || '0', 8);
    const data = buf.subarray(header + 512, header + 512 + size);
    offset = header + 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const match = /\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
      paxPath = match?.[1];
      continue;
    }
    if (type === '0' || type === '\0') {
      entries.set((paxPath ?? name).replace(/^package\//, ''), { mode, data });
    }
    paxPath = undefined;
  }
  return entries;
}

/** Every string target of an `exports` value (conditions and subpaths). */
function exportTargets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

/** @type {[RegExp, string][]} */
const FORBIDDEN = [
  [/\.(test|spec)\.[cm]?[jt]sx?(\.map)?$|\.(test|spec)\.d\.[cm]?ts(\.map)?$/, 'test file'],
  [/(^|\/)(test|tests|__tests__|fixtures|examples)\//, 'test/fixture/example dir'],
  [/^src\//, 'source file'],
  [/^scripts\//, 'repository script'],
  [/(^|\/)(tsconfig[^/]*\.json|vitest\.config\.[cm]?[jt]s|biome\.json|turbo\.json)$/, 'config'],
  [/\.tsbuildinfo$|(^|\/)\.turbo\/|(^|\/)node_modules\/|(^|\/)\.env/, 'build/workspace state'],
];

/** A bounded JSON-RPC client over a child's stdio, one JSON message per line. */
function stdioSession(cmd, args, { env, cwd }) {
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map();
  let nextId = 1;
  let stderr = '';
  let buffer = '';
  const exited = new Promise((resolve) => {
    child.once('close', (code, signal) => {
      for (const { reject } of pending.values()) {
        reject(new Error(`server exited (${code ?? signal}): ${tail(stderr, 8)}`));
      }
      pending.clear();
      resolve(code ?? signal);
    });
  });
  child.once('error', (err) => {
    for (const { reject } of pending.values()) reject(err);
    pending.clear();
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      if (!line) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const waiter = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!waiter || (msg.result === undefined && msg.error === undefined)) continue;
      pending.delete(msg.id);
      if (msg.error) waiter.reject(new Error(`${msg.error.code} ${msg.error.message}`));
      else waiter.resolve(msg.result);
    }
  });
  const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  return {
    request(method, params = {}, timeoutMs = 30_000) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(
            new Error(`${method}: no answer in ${secs(timeoutMs)}; stderr: ${tail(stderr, 8)}`),
          );
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        send({ id, method, params });
      });
    },
    notify: (method, params = {}) => send({ method, params }),
    /** Closes stdin (how an MCP client ends a stdio session); kills after `graceMs`. */
    async close(graceMs = 10_000) {
      child.stdin.end();
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill: () => killGroup(child, 'SIGKILL'),
    get stderr() {
      return stderr;
    },
  };
}

async function mcpSession(label, cmd, args, env, cwd, { expectTool, call, verify }) {
  const t0 = Date.now();
  const s = stdioSession(cmd, args, { env, cwd });
  const guard = setTimeout(() => s.kill(), SESSION_TIMEOUT_MS);
  try {
    const init = await s.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'mcpkit-pack-test', version: '0.0.0' },
    });
    s.notify('notifications/initialized');
    const { tools } = await s.request('tools/list');
    const names = tools.map((t) => t.name);
    const target = names.find((n) => expectTool(n));
    if (!target) throw new Error(`tools/list has no matching tool: ${names.join(', ')}`);
    const result = await s.request('tools/call', { name: target, arguments: call.arguments ?? {} });
    if (result.isError) throw new Error(`tools/call ${target} isError: ${JSON.stringify(result)}`);
    const note = verify(result, names);
    const code = await s.close();
    if (code !== 0)
      throw new Error(`exit ${code} after stdin closed; stderr: ${tail(s.stderr, 8)}`);
    pass(
      `${label}: stdio session`,
      `${init.serverInfo?.name}@${init.serverInfo?.version}, ${names.length} tools, ${target} → ${note} (${secs(Date.now() - t0)})`,
    );
  } catch (err) {
    s.kill();
    fail(`${label}: stdio session`, err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(guard);
  }
}

async function main() {
  const pnpm = pnpmCommand();
  const rootLicense = readFileSync(join(ROOT, 'LICENSE'));

  /** @type {{ dir: string, rel: string, json: PackageJson, tarball?: string }[]} */
  const packages = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(ROOT, group, d.name, 'package.json')))
      .map((d) => {
        const dir = join(ROOT, group, d.name);
        return {
          dir,
          rel: `${group}/${d.name}`,
          json: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
        };
      })
      .filter((p) => !p.json.private),
  );
  const versions = new Map(packages.map((p) => [p.json.name, p.json.version]));
  console.log(`pack-test: ${packages.map((p) => `${p.json.name}@${p.json.version}`).join(', ')}`);
  console.log(
    `node ${process.version}, npm ${spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim()}, pnpm via ${pnpm.join(' ')}`,
  );

  tmp = mkdtempSync(join(tmpdir(), 'mcpkit-pack-test-'));
  const tarDir = join(tmp, 'tarballs');
  const app = join(tmp, 'app');
  const data = join(tmp, 'data');
  for (const d of [tarDir, app, data]) mkdirSync(d, { recursive: true });

  if (!SKIP_BUILD) {
    const ok = await phase('build', async () => {
      const r = await run(
        pnpm[0],
        [...pnpm.slice(1), 'run', 'build', '--output-logs=errors-only'],
        {
          timeoutMs: 10 * 60_000,
        },
      );
      return check(r.code === 0, 'build', `pnpm build (${secs(r.ms)})`, describe(r));
    });
    if (!ok) return;
  }

  await phase('pack and inspect', async () => {
    for (const p of packages) {
      const name = p.json.name;
      const r = await run(pnpm[0], [...pnpm.slice(1), 'pack', '--pack-destination', tarDir], {
        cwd: p.dir,
      });
      const expected = join(
        tarDir,
        `${name.replace(/^@/, '').replace('/', '-')}-${p.json.version}.tgz`,
      );
      if (r.code !== 0 || !existsSync(expected)) {
        fail(`${name}: pnpm pack`, r.code === 0 ? `no ${basename(expected)}` : describe(r));
        continue;
      }
      p.tarball = expected;
      const entries = readTarball(expected);
      const files = [...entries.keys()];
      pass(
        `${name}: pnpm pack`,
        `${basename(expected)}, ${files.length} files, ${(statSync(expected).size / 1024).toFixed(1)} kB`,
      );

      const manifest = JSON.parse(entries.get('package.json')?.data.toString('utf8') ?? '{}');
      const deps = [
        'dependencies',
        'devDependencies',
        'peerDependencies',
        'optionalDependencies',
      ].flatMap((field) =>
        Object.entries(manifest[field] ?? {}).map(([dep, range]) => ({ field, dep, range })),
      );
      const leftover = deps.filter((d) => String(d.range).startsWith('workspace:'));
      const internal = deps.filter((d) => versions.has(d.dep) && d.field !== 'devDependencies');
      const wrong = internal.filter((d) => d.range !== versions.get(d.dep));
      check(
        leftover.length === 0 && wrong.length === 0,
        `${name}: workspace ranges rewritten`,
        internal.length
          ? internal.map((d) => `${d.dep} workspace:* → ${d.range}`).join(', ')
          : 'no internal dependencies',
        [...leftover, ...wrong].map((d) => `${d.field}.${d.dep} = ${d.range}`).join(', '),
      );

      const license = entries.get('LICENSE')?.data;
      check(
        license && Buffer.compare(license, rootLicense) === 0,
        `${name}: LICENSE`,
        'present, same as the root LICENSE',
        license ? 'differs from the root LICENSE' : 'missing',
      );
      check(entries.has('README.md'), `${name}: README.md`, 'present', 'missing');

      const targets = new Set([
        ...exportTargets(manifest.exports),
        ...(manifest.main ? [manifest.main] : []),
        ...(manifest.types ? [manifest.types] : []),
        ...Object.values(
          typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {}),
        ),
      ]);
      const missing = [...targets]
        .map((t) => t.replace(/^\.\//, ''))
        .filter((t) => !entries.has(t));
      check(
        missing.length === 0,
        `${name}: entry points`,
        `${targets.size} targets of exports/main/types/bin present`,
        `missing: ${missing.join(', ')}`,
      );

      const bad = files.flatMap((f) =>
        FORBIDDEN.filter(([re]) => re.test(f)).map(([, why]) => `${f} (${why})`),
      );
      check(
        bad.length === 0,
        `${name}: no tests, fixtures, sources or configs`,
        'clean',
        bad.slice(0, 10).join(', '),
      );

      // dist/bundle/ is made from dist/ itself (scripts/bundle-cli.mjs), after it: checked below.
      const stale = files
        .filter((f) => /^dist\/.*\.js$/.test(f) && !f.startsWith('dist/bundle/'))
        .filter(
          (f) => !existsSync(join(p.dir, f.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))),
        );
      check(
        stale.length === 0,
        `${name}: no stale dist files`,
        'every dist/*.js has its src/*.ts',
        `no source for: ${stale.join(', ')}`,
      );
      if (files.includes('dist/bundle/cli.js')) {
        const bundled = statSync(join(p.dir, 'dist/bundle/cli.js')).mtimeMs;
        const newer = files.filter(
          (f) =>
            /^dist\/.*\.js$/.test(f) &&
            !f.startsWith('dist/bundle/') &&
            statSync(join(p.dir, f)).mtimeMs > bundled,
        );
        check(
          newer.length === 0,
          `${name}: the bundled CLI is current`,
          'dist/bundle/cli.js built after every dist/*.js',
          `built since the bundle: ${newer.slice(0, 5).join(', ')}`,
        );
      }

      for (const [bin, target] of Object.entries(manifest.bin ?? {})) {
        const file = target.replace(/^\.\//, '');
        const head = entries.get(file)?.data.toString('utf8', 0, 64).split('\n')[0];
        const mode = statSync(join(p.dir, file)).mode;
        check(
          head === '#!/usr/bin/env node' && (mode & 0o111) !== 0,
          `${name}: bin ${bin}`,
          `${file} starts with '${head}', executable in the workspace (mode ${(mode & 0o777).toString(8)})`,
          `shebang '${head}', workspace mode ${(mode & 0o777).toString(8)}`,
        );
      }
    }
  });
  if (packages.some((p) => !p.tarball)) return;

  const installed = await phase('npm install (all tarballs, one call)', async () => {
    const spec = (p) => `file:../tarballs/${basename(p.tarball)}`;
    const manifest = {
      name: 'mcpkit-pack-test',
      version: '0.0.0',
      private: true,
      type: 'module',
      dependencies: Object.fromEntries(packages.map((p) => [p.json.name, spec(p)])),
      // Nested @mcpkit/* ranges (e.g. the apps' "@mcpkit/protocol": "0.1.0") resolve to the
      // tarballs too, never to the registry.
      overrides: Object.fromEntries(packages.map((p) => [p.json.name, `$${p.json.name}`])),
      // npm ≥ 11.16 asks for install scripts to be allowed; better-sqlite3 needs its own.
      allowScripts: { 'better-sqlite3': true },
    };
    writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const log = join(tmp, 'npm-install.log');
    const r = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--foreground-scripts', '--loglevel=warn'],
      {
        cwd: app,
        timeoutMs: INSTALL_TIMEOUT_MS,
        log,
        env: {
          ...process.env,
          npm_config_ignore_scripts: 'false',
          npm_config_update_notifier: 'false',
          // node-gyp: compile with every core when there is no prebuilt binary.
          JOBS: process.env.JOBS ?? 'max',
        },
      },
    );
    if (
      !check(
        r.code === 0,
        'npm install',
        `${packages.length} tarballs (${secs(r.ms)})`,
        `${describe(r)}\n${tail(r.stdout)}`,
      )
    ) {
      return false;
    }
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    const nodes = Object.entries(lock.packages ?? {}).filter(([path]) =>
      /(^|\/)node_modules\/@mcpkit\/[^/]+$/.test(path),
    );
    const notLocal = nodes.filter(([, n]) => !String(n.resolved ?? '').startsWith('file:'));
    const nested = nodes.filter(([path]) => path.split('node_modules/').length > 2);
    check(
      notLocal.length === 0 && nested.length === 0 && nodes.length === packages.length,
      '@mcpkit/* resolve to the tarballs',
      `${nodes.length} installed once each, all from file: tarballs`,
      `registry: ${notLocal.map(([p]) => p).join(', ') || '-'}; nested copies: ${nested.map(([p]) => p).join(', ') || '-'}`,
    );
    const sqlite = join(app, 'node_modules', 'better-sqlite3', 'build', 'Release');
    if (existsSync(join(sqlite, 'better_sqlite3.node'))) {
      const compiled = existsSync(join(sqlite, 'obj.target')) || existsSync(join(sqlite, 'obj'));
      pass(
        'better-sqlite3 native addon',
        compiled ? 'compiled from source by its install script' : 'prebuilt binary downloaded',
      );
    } else if (nodes.length) {
      fail('better-sqlite3 native addon', `not built; npm output:\n${tail(r.stdout + r.stderr)}`);
    }
    return true;
  });
  if (!installed) return;

  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k))),
    XDG_DATA_HOME: data,
    NO_COLOR: '1',
  };

  await phase('import and type-check as a consumer', async () => {
    const imports = {
      '@mcpkit/protocol': ['McpServer', 'McpClient', 'defineTool', 'serveMcpStdio'],
      '@mcpkit/protocol/testing': ['connectRaw', 'connectClient'],
      '@mcpkit/protocol/stdio': ['StdioClientTransport', 'defaultServerEnv'],
      '@mcpkit/node': ['runCli', 'createMcpHttpServer', 'serveHttp', 'createLogger'],
      '@mcpkit/fleet': ['MemoryStateStore', 'createRedisStateStore', 'shareNotifications'],
      '@mcpkit/observability': ['McpMetrics', 'startTracing', 'withTraceContext'],
      '@mcpkit/testing': ['spawnServer', 'postJson', 'waitFor', 'connectRaw'],
      '@mcpkit/gateway': ['Gateway', 'loadConfig', 'VERSION'],
      '@mcpkit/projects': ['createProjectsServer', 'seedDemo', 'VERSION'],
      '@mcpkit/system-info': ['createSystemInfoServer', 'parseScopes', 'VERSION'],
    };
    // A subpath (`@mcpkit/protocol/testing`) belongs to its package.
    const known = Object.entries(imports).filter(([name]) =>
      versions.has(name.split('/').slice(0, 2).join('/')),
    );
    const script = known
      .map(
        ([name, names], i) =>
          `import * as m${i} from '${name}';\nfor (const k of ${JSON.stringify(names)}) if (m${i}[k] === undefined) throw new Error('${name} has no export ' + k);`,
      )
      .join('\n');
    writeFileSync(join(app, 'check.mjs'), `${script}\nconsole.log('ok');\n`);
    const r = await run(process.execPath, ['check.mjs'], { cwd: app, env, timeoutMs: 30_000 });
    check(
      r.code === 0 && r.stdout.includes('ok'),
      'ESM import of every package',
      known.map(([n]) => n).join(', '),
      describe(r),
    );

    // TypeScript as a strict NodeNext consumer sees it, library .d.ts files included.
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typeRoots = join(ROOT, 'node_modules', '@types');
    if (!existsSync(tsc) || !existsSync(join(typeRoots, 'node'))) {
      warn(
        'type-check as a consumer',
        'skipped: typescript or @types/node is not installed at the root',
      );
      return;
    }
    writeFileSync(
      join(app, 'check.ts'),
      `${known.map(([name], i) => `import * as m${i} from '${name}';`).join('\n')}\nexport const all = [${known.flatMap(([, names], i) => names.map((n) => `m${i}.${n}`)).join(', ')}];\n`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [typeRoots],
        },
        files: ['check.ts'],
      }),
    );
    const t = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: app,
      env,
      timeoutMs: 120_000,
    });
    check(
      t.code === 0,
      'type-check as a consumer',
      `tsc NodeNext, strict, skipLibCheck false (${secs(t.ms)})`,
      `${describe(t)}\n${tail(t.stdout)}`,
    );
  });

  await phase('run the installed bins', async () => {
    const bins = join(app, 'node_modules', '.bin');
    const flags = {
      'mcp-gateway': ['--config', '--events', '--token'],
      'mcp-projects': ['--database-url', '--user', '--seed-demo'],
      'mcp-system-info': ['--scopes', '--enable-sensitive', '--token'],
    };
    for (const p of packages) {
      for (const bin of Object.keys(p.json.bin ?? {})) {
        const cmd = join(bins, bin);
        if (
          !check(
            existsSync(cmd),
            `${bin}: installed`,
            `node_modules/.bin/${bin}`,
            'missing from node_modules/.bin',
          )
        )
          continue;
        const help = await run(cmd, ['--help'], { cwd: app, env, timeoutMs: 20_000 });
        const want = ['--help', '--version', '--transport', ...(flags[bin] ?? [])];
        const absent = want.filter((f) => !help.stdout.includes(f));
        check(
          help.code === 0 && absent.length === 0,
          `${bin} --help`,
          `exit 0, lists ${want.join(' ')}`,
          help.code === 0 ? `does not list ${absent.join(' ')}` : describe(help),
        );
        const version = await run(cmd, ['--version'], { cwd: app, env, timeoutMs: 20_000 });
        const printed = version.stdout.trim();
        if (version.code !== 0 || !/^\d+\.\d+\.\d+/.test(printed))
          fail(`${bin} --version`, describe(version));
        else if (printed !== p.json.version)
          warn(`${bin} --version`, `prints ${printed}; package.json says ${p.json.version}`);
        else pass(`${bin} --version`, printed);
      }
    }

    const bin = (name) => join(bins, name);
    if (versions.has('@mcpkit/system-info')) {
      await mcpSession(
        'mcp-system-info',
        bin('mcp-system-info'),
        ['--log-level', 'warn'],
        env,
        app,
        {
          expectTool: (n) => n === 'get_uptime',
          call: {},
          verify: (r) => `${r.content?.[0]?.type} content`,
        },
      );
    }
    if (versions.has('@mcpkit/projects')) {
      await mcpSession(
        'mcp-projects',
        bin('mcp-projects'),
        ['--seed-demo', '--user', 'demo@codefluss.local', '--log-level', 'warn'],
        { ...env, DATABASE_URL: join(data, 'projects.db') },
        app,
        {
          expectTool: (n) => n === 'list_projects',
          call: {},
          verify: (r) => {
            const projects = r.structuredContent?.projects;
            if (!Array.isArray(projects) || projects.length === 0)
              throw new Error(`no demo projects: ${JSON.stringify(r)}`);
            return `${projects.length} demo projects (SQLite via better-sqlite3)`;
          },
        },
      );
    }
    if (versions.has('@mcpkit/gateway') && versions.has('@mcpkit/system-info')) {
      const config = join(tmp, 'gateway.json');
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            sysinfo: {
              command: bin('mcp-system-info'),
              args: ['--log-level', 'warn'],
              namespace: 'sysinfo',
            },
          },
        }),
      );
      await mcpSession(
        'mcp-gateway',
        bin('mcp-gateway'),
        ['--config', config, '--events', join(data, 'events.db'), '--log-level', 'warn'],
        env,
        app,
        {
          expectTool: (n) => n.startsWith('sysinfo') && n.endsWith('get_uptime'),
          call: {},
          verify: (r, names) => {
            if (!names.includes('gateway_status'))
              throw new Error(`no gateway_status in ${names.join(', ')}`);
            return `routed to the installed mcp-system-info (${r.content?.[0]?.type} content)`;
          },
        },
      );
    }
  });

  await phase('MCP Bundles (mcpb)', () =>
    buildBundles({
      tmp,
      project: app,
      packages,
      out: BUNDLES_OUT,
      helpers: { check, pass, fail, run, describe, tail, stdioSession },
    }),
  );
}

let crashed;
try {
  await main();
} catch (err) {
  crashed = err;
  fail('pack-test', (err instanceof Error ? err.stack : undefined) ?? String(err));
} finally {
  cleanup();
}
const failed = results.filter((r) => r.ok === false);
const warned = results.filter((r) => r.ok === 'warn');
console.log(
  `\n— timings: ${timings.map(([n, ms]) => `${n} ${secs(ms)}`).join(', ')}; total ${secs(Date.now() - started)}`,
);
console.log(
  failed.length
    ? `pack-test FAILED: ${failed.length} of ${results.length} checks${crashed ? ' (crashed)' : ''}:\n${failed.map((r) => `  ✗ ${r.name}`).join('\n')}`
    : `pack-test passed: ${results.length - warned.length} checks${warned.length ? `, ${warned.length} warnings` : ''}`,
);
process.exit(failed.length ? 1 : 0);
