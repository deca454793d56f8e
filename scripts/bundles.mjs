// @ts-check
/**
 * The apps as MCP Bundles (`.mcpb`, https://github.com/modelcontextprotocol/mcpb): one archive
 * a desktop host (Claude Desktop) installs with a click — the server and its whole
 * `node_modules`, a manifest saying how to start it, which tools it has and what the user may
 * configure. Built and tested by `pnpm pack-test` (its last phase), from the project it
 * `npm install`ed the tarballs into, so that a bundle holds exactly what npm would install.
 *
 * For each app with a bin:
 * 1. `<tmp>/bundles/<app>/server/node_modules/`: the app's production dependency closure, copied
 *    from the npm-installed project with its nesting (`pnpm`'s symlinked store would not do:
 *    `mcpb pack` follows symlinks, so a bundle of it breaks once unpacked elsewhere);
 * 2. `manifest.json`, generated from the app's package.json, its user settings below and the
 *    tools the installed bin lists over stdio (never written by hand, so never stale);
 * 3. `mcpb validate`, `mcpb pack`, `mcpb unpack`, `mcpb info` (the workspace's pinned CLI);
 * 4. the unpacked bundle started as a host does: `server.mcp_config` with `${__dirname}` and
 *    `${user_config.*}` substituted (mcpb's own `getMcpConfigForManifest`, the code hosts use),
 *    then a stdio session: initialize, tools/list (must equal the manifest's tools), one
 *    tools/call.
 *
 * A bundle is only as portable as its native addons: better-sqlite3 (gateway, projects) is
 * compiled here, for this platform, CPU and Node.js ABI only, so those bundles say so in
 * `compatibility`; system-info is plain JavaScript and runs anywhere.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MCPB = join(ROOT, 'node_modules', '.bin', 'mcpb');
const PROTOCOL_VERSION = '2025-06-18';
const SESSION_TIMEOUT_MS = 90_000;
/** Longest tool description in a manifest: a host shows it in a list, not as documentation. */
const MAX_DESCRIPTION = 160;

/**
 * @typedef {{ type: 'string' | 'number' | 'boolean' | 'directory' | 'file', title: string,
 *   description: string, required?: boolean, default?: string | number | boolean,
 *   sensitive?: boolean }} UserConfigOption
 *
 * @typedef {object} AppBundle
 * @property {Record<string, UserConfigOption>} userConfig What the host asks the user for.
 * @property {Record<string, string>} env The server's environment: variable → user_config key.
 * @property {string[]} listArgs Arguments of the installed bin when its tools are listed.
 * @property {boolean} [toolsGenerated] The server lists other tools than the manifest's,
 *   depending on the user's settings.
 * @property {(dir: string) => Record<string, string | number | boolean>} testConfig The
 *   user's settings for the test run from the unpacked bundle (`dir`: a scratch directory).
 * @property {string} testTool The tool called in that run.
 * @property {(result: any) => string} verify Throws unless the call's result is right; says
 *   what it saw.
 */

/**
 * Per app: the user settings and how they reach the server. A setting the user may leave empty
 * has a default (`''` when the app's own default is wanted): hosts substitute defaults, but leave
 * an unset `${user_config.X}` in place literally, and the server would read that as a value. An
 * empty variable, in turn, is an unset one for every app (runCli), so `''` means "the app's own
 * default".
 *
 * @type {Record<string, AppBundle>}
 */
const APPS = {
  gateway: {
    userConfig: {
      config: {
        type: 'file',
        title: 'Gateway config',
        description:
          'A JSON config ({"mcpServers": {…}}) naming the backend MCP servers. Empty: the bundled projects and system-info servers.',
        default: '',
      },
    },
    env: { MCP_GATEWAY_CONFIG: 'config' },
    listArgs: [],
    // The tools are the backends' tools: the manifest lists those of the default config, a
    // config of the user's brings others.
    toolsGenerated: true,
    testConfig: () => ({}),
    testTool: 'gateway_status',
    verify: (result) => {
      const text = JSON.stringify(result);
      const missing = ['projects', 'system-info'].filter((b) => !text.includes(b));
      if (missing.length) throw new Error(`gateway_status does not name ${missing.join(', ')}`);
      return 'names both bundled backends';
    },
  },
  projects: {
    userConfig: {
      user: {
        type: 'string',
        title: 'User (email)',
        description:
          'Act as this user, with every scope (local use). It must exist in the database: the demo user does when "Demo data" is on; others come from `mcp-projects users create <email>`. Ignored when an API key is set.',
        default: 'demo@codefluss.local',
      },
      api_key: {
        type: 'string',
        title: 'API key',
        description:
          'Act as the user of this API key, with its scopes (`mcp-projects keys create`). Empty: the user above.',
        default: '',
        sensitive: true,
      },
      seed_demo: {
        type: 'boolean',
        title: 'Demo data',
        description: 'Create the demo user demo@codefluss.local and its projects, once.',
        default: true,
      },
      database_url: {
        type: 'string',
        title: 'Database',
        description:
          'A SQLite file path or a postgres://… URL. Empty: ~/.local/share/mcpkit/projects.db (the one a standalone mcp-projects uses).',
        default: '',
      },
    },
    env: {
      CODEFLUSS_USER: 'user',
      CODEFLUSS_API_KEY: 'api_key',
      CODEFLUSS_SEED_DEMO: 'seed_demo',
      DATABASE_URL: 'database_url',
    },
    listArgs: ['--seed-demo', '--user', 'demo@codefluss.local'],
    // The defaults: the demo user, demo data, the default database (in the scratch HOME).
    testConfig: () => ({}),
    testTool: 'list_projects',
    verify: (result) => {
      const projects = result.structuredContent?.projects;
      if (!Array.isArray(projects) || projects.length === 0)
        throw new Error(`no demo projects: ${JSON.stringify(result).slice(0, 300)}`);
      return `${projects.length} demo projects (SQLite via the bundled better-sqlite3)`;
    },
  },
  'system-info': {
    userConfig: {
      enable_sensitive: {
        type: 'boolean',
        title: 'Sensitive tools',
        description:
          'Enable the sensitive scope: get_auth_logs (logins, sudo, SSH) and get_user_sessions (who is logged in). Off: they answer that the scope is off.',
        default: false,
      },
      alerts_file: {
        type: 'file',
        title: 'Alert rules',
        description:
          'A JSON file of alert rules that amend or replace the defaults ({"rules": [{"id", "metric", "above"|"below", …}]}). Empty: the default rules.',
        default: '',
      },
    },
    env: {
      MCP_SYSINFO_ENABLE_SENSITIVE: 'enable_sensitive',
      MCP_SYSINFO_ALERTS_FILE: 'alerts_file',
    },
    listArgs: [],
    // Non-default values, so that the run shows both settings reach the server.
    testConfig: (dir) => {
      const file = join(dir, 'alerts.json');
      mkdirSync(dir, { recursive: true });
      const rules = [{ id: 'mcpb_bundle_check', metric: 'cpu.percent', above: 99.5 }];
      writeFileSync(file, JSON.stringify({ rules }));
      return { enable_sensitive: true, alerts_file: file };
    },
    testTool: 'get_alerts',
    verify: (result) => {
      if (!JSON.stringify(result).includes('mcpb_bundle_check'))
        throw new Error('get_alerts does not list the rule of the alerts file');
      return 'lists the rule of the configured alerts file';
    },
  },
};

/** A tool's description for the manifest: its first sentence, at most {@link MAX_DESCRIPTION}. */
function summary(description = '') {
  const line = description.trim().split('\n')[0]?.trim() ?? '';
  const sentence = /^.*?(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  if (sentence.length <= MAX_DESCRIPTION) return sentence;
  const cut = sentence.lastIndexOf(' ', MAX_DESCRIPTION - 1);
  return `${sentence.slice(0, cut > 0 ? cut : MAX_DESCRIPTION - 1).replace(/[\s,;:]+$/, '')}…`;
}

/** `>=20.19` (package.json `engines.node`) → `20.19.0`. */
function engineFloor(range = '') {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error(`engines.node '${range}' is not '>=x.y.z'`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

/**
 * Where `name` resolves from the package in `from`, as Node.js looks it up: `node_modules` of
 * that directory, then of each parent (never inside a `node_modules` itself), up to `top`.
 */
function resolvePackage(from, name, top) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`)) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    if (dir === top || dir === dirname(dir)) return undefined;
  }
}

/**
 * The directories of `name` and everything it needs at run time in the npm project `project`:
 * `dependencies`, `optionalDependencies` (when installed) and the non-optional
 * `peerDependencies` (npm installs those; the package imports them), walked transitively.
 */
function dependencyClosure(project, name) {
  const rootDir = resolvePackage(project, name, project);
  if (!rootDir) throw new Error(`${name} is not installed in ${project}`);
  const found = new Set([rootDir]);
  const queue = [rootDir];
  for (let dir = queue.shift(); dir; dir = queue.shift()) {
    const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const optionalPeers = json.peerDependenciesMeta ?? {};
    const wanted = [
      ...Object.keys(json.dependencies ?? {}).map((dep) => ({ dep, optional: false })),
      ...Object.keys(json.optionalDependencies ?? {}).map((dep) => ({ dep, optional: true })),
      ...Object.keys(json.peerDependencies ?? {}).map((dep) => ({
        dep,
        optional: optionalPeers[dep]?.optional === true,
      })),
    ];
    for (const { dep, optional } of wanted) {
      const depDir = resolvePackage(dir, dep, project);
      if (!depDir) {
        // An optional dependency for another platform, or an optional peer nobody installed.
        if (optional) continue;
        throw new Error(`${dep} (needed by ${relative(project, dir)}) is not installed`);
      }
      if (!found.has(depDir)) {
        found.add(depDir);
        queue.push(depDir);
      }
    }
  }
  return [...found];
}

/** Every file under `dir`, recursively (npm made no symlinks, so none is followed). */
function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/**
 * Files and bytes under `dir`, and the packages in it with a native addon (a `*.node` file).
 */
function inventory(dir) {
  let files = 0;
  let bytes = 0;
  const native = new Set();
  for (const file of walk(dir)) {
    files++;
    bytes += statSync(file).size;
    if (!file.endsWith('.node')) continue;
    // The package: the name after the last node_modules of the path (scoped: two segments).
    const parts = relative(dir, file).split(sep);
    const at = parts.lastIndexOf('node_modules');
    const name = parts[at + 1]?.startsWith('@') ? parts.slice(at + 1, at + 3) : [parts[at + 1]];
    if (at >= 0) native.add(name.join('/'));
  }
  return { files, bytes, native: [...native] };
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const errorText = (err) => (err instanceof Error ? err.message : String(err));

/**
 * A stdio MCP session: initialize, every page of tools/list, then `use(session, tools)`, then
 * stdin closed and a clean exit required. The child is killed by its pid (its process group)
 * on any failure or after {@link SESSION_TIMEOUT_MS}.
 */
async function withSession(stdioSession, cmd, args, { env, cwd }, use) {
  const s = stdioSession(cmd, args, { env, cwd });
  const guard = setTimeout(() => s.kill(), SESSION_TIMEOUT_MS);
  try {
    const init = await s.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'mcpkit-pack-test-bundles', version: '0.0.0' },
    });
    s.notify('notifications/initialized');
    const tools = [];
    let cursor;
    do {
      const page = await s.request('tools/list', cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const note = await use(s, tools);
    const code = await s.close();
    if (code !== 0) {
      const stderr = s.stderr.trim().split('\n').slice(-8).join('\n');
      throw new Error(`exit ${code} after stdin closed; stderr: ${stderr}`);
    }
    return { init, tools, note };
  } catch (err) {
    s.kill();
    throw err;
  } finally {
    clearTimeout(guard);
  }
}

/**
 * The manifest of an app's bundle, from its package.json, its {@link APPS} entry, the tools its
 * server listed and the native addons in its node_modules.
 */
function manifestFor(json, app, spec, tools, native, dir) {
  // The bundled CLI where the app has one (scripts/bundle-cli.mjs: a faster start).
  const bundled = `server/node_modules/${json.name}/dist/bundle/cli.js`;
  const entryPoint = existsSync(join(dir, bundled))
    ? bundled
    : `server/node_modules/${json.name}/dist/cli.js`;
  const floor = engineFloor(json.engines?.node);
  let compatibility;
  let longDescription;
  if (native.length) {
    // A native addon loads only on the platform, CPU and Node.js ABI (NODE_MODULE_VERSION) it
    // was compiled for: here, by npm's install of better-sqlite3. The manifest can say platform
    // and Node.js major, not CPU, so the long description says that; bundles for darwin, win32
    // or another CPU would each need an install (a build) on such a machine.
    const major = Number(process.versions.node.split('.')[0]);
    const lower = Number(floor.split('.')[0]) === major ? floor : `${major}.0.0`;
    compatibility = {
      platforms: [process.platform],
      runtimes: { node: `>=${lower} <${major + 1}` },
    };
    longDescription = `${json.description}.\n\nThis bundle holds native code (${native.join(', ')}) built for ${process.platform}-${process.arch} and Node.js ${major} (NODE_MODULE_VERSION ${process.versions.modules}); it loads there only. If the host's built-in Node.js is another major version, let it start the bundle with a Node.js ${major} of your own.`;
  } else {
    compatibility = {
      platforms: ['darwin', 'win32', 'linux'],
      runtimes: { node: `>=${floor}` },
    };
  }
  // Hosts substitute defaults but leave an unset `${user_config.X}` literally in place: every
  // setting the server reads must always have a value.
  for (const key of Object.values(spec.env)) {
    const option = spec.userConfig[key];
    if (!option || (option.default === undefined && !option.required))
      throw new Error(`user_config.${key} is read by the server but has no default`);
  }
  const author = typeof json.author === 'string' ? json.author : json.author?.name;
  return {
    manifest_version: '0.3',
    name: `mcpkit-${app}`,
    display_name: `mcpkit ${app
      .split('-')
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join(' ')}`,
    version: json.version,
    description: json.description,
    ...(longDescription ? { long_description: longDescription } : {}),
    author: { name: author.replace(/\s*[<(].*$/, '') },
    repository: { type: json.repository.type, url: json.repository.url.replace(/^git\+/, '') },
    homepage: json.homepage,
    support: json.bugs?.url,
    server: {
      type: 'node',
      entry_point: entryPoint,
      mcp_config: {
        command: 'node',
        // The transport as a flag: it wins over an MCP_TRANSPORT the host may pass through.
        args: [`\${__dirname}/${entryPoint}`, '--transport', 'stdio'],
        env: Object.fromEntries(
          Object.entries(spec.env).map(([variable, key]) => [variable, `\${user_config.${key}}`]),
        ),
      },
    },
    tools: tools.map((t) => {
      const description = summary(t.description);
      return description ? { name: t.name, description } : { name: t.name };
    }),
    tools_generated: spec.toolsGenerated ?? false,
    keywords: json.keywords,
    license: json.license,
    compatibility,
    user_config: spec.userConfig,
  };
}

/**
 * @typedef {object} BundleContext
 * @property {string} tmp pack-test's temp dir; the bundles go to `<tmp>/bundles/`.
 * @property {string} project The npm project the tarballs are installed in.
 * @property {{ dir: string, rel: string, json: any }[]} packages pack-test's packages.
 * @property {string} [out] A directory to copy the `.mcpb` files to (releases).
 * @property {any} helpers pack-test's `check`, `pass`, `fail`, `run`, `describe`, `tail` and
 *   `stdioSession`.
 */

/**
 * Builds, packs, unpacks and runs the bundle of every app that has a bin and an {@link APPS}
 * entry, recording each step with pack-test's helpers. Never throws.
 *
 * @param {BundleContext} context
 */
export async function buildBundles({ tmp, project, packages, out, helpers }) {
  const { check, pass, fail, run, describe, tail, stdioSession } = helpers;
  if (!check(existsSync(MCPB), 'mcpb CLI', MCPB, `${MCPB} missing: run pnpm install`)) return;
  /** @type {typeof import('@anthropic-ai/mcpb').getMcpConfigForManifest} */
  let getMcpConfigForManifest;
  try {
    ({ getMcpConfigForManifest } = await import('@anthropic-ai/mcpb'));
  } catch (err) {
    fail('mcpb library', errorText(err));
    return;
  }
  const work = join(tmp, 'bundles');
  // HOME of every server started here: what they write (databases, event logs) stays in it.
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  const mcpb = (args, timeoutMs, log) => run(MCPB, args, { cwd: work, timeoutMs, log });
  const outDir = out ? resolve(out) : undefined;
  if (outDir) mkdirSync(outDir, { recursive: true });

  const apps = packages.filter((p) => p.rel.startsWith('apps/') && p.json.bin);
  for (const p of apps) {
    const app = p.rel.slice('apps/'.length);
    const spec = APPS[app];
    const label = `${app}.mcpb`;
    if (!spec) {
      fail(label, `no bundle settings for apps/${app} in scripts/bundles.mjs`);
      continue;
    }
    try {
      // 1. The server: the app's closure, copied with npm's layout, without nested node_modules
      //    (each package in them is copied on its own, if it is in the closure).
      const dir = join(work, app);
      const fromModules = join(project, 'node_modules');
      const toModules = join(dir, 'server', 'node_modules');
      rmSync(dir, { recursive: true, force: true });
      const closure = dependencyClosure(project, p.json.name);
      for (const pkg of closure) {
        cpSync(pkg, join(toModules, relative(fromModules, pkg)), {
          recursive: true,
          filter: (src) => src !== join(pkg, 'node_modules'),
        });
      }
      const server = inventory(join(dir, 'server'));
      pass(
        `${label}: server/node_modules`,
        `${closure.length} packages, ${server.files} files, ${mb(server.bytes)}; native addons: ${server.native.join(', ') || 'none'}`,
      );
      if (existsSync(join(p.dir, '.mcpbignore')))
        copyFileSync(join(p.dir, '.mcpbignore'), join(dir, '.mcpbignore'));

      // 2. The manifest, with the tools the installed bin lists.
      const bin = Object.keys(p.json.bin)[0] ?? '';
      const listed = await withSession(
        stdioSession,
        process.execPath,
        [join(fromModules, '.bin', bin), ...spec.listArgs, '--log-level', 'warn'],
        { env, cwd: home },
        async () => '',
      );
      const manifest = manifestFor(p.json, app, spec, listed.tools, server.native, dir);
      writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      const entry = join(dir, manifest.server.entry_point);
      if (!check(existsSync(entry), `${label}: entry point`, manifest.server.entry_point)) continue;
      pass(
        `${label}: manifest.json`,
        `${manifest.name}@${manifest.version}, ${manifest.tools.length} tools from ${bin}'s tools/list, user_config ${Object.keys(manifest.user_config).join(', ')}; ${manifest.compatibility.platforms.join('/')}, node ${manifest.compatibility.runtimes.node}`,
      );

      // 3. The mcpb CLI: validate, pack, unpack, info.
      const validate = await mcpb(['validate', dir], 30_000);
      if (
        !check(
          validate.code === 0,
          `${label}: mcpb validate`,
          validate.stdout.trim().split('\n')[0],
          `${describe(validate)}\n${tail(validate.stdout)}`,
        )
      )
        continue;
      const file = join(work, `${app}.mcpb`);
      const pack = await mcpb(['pack', dir, file], 5 * 60_000, join(work, `${app}.pack.log`));
      if (
        !check(
          pack.code === 0 && existsSync(file),
          `${label}: mcpb pack`,
          `${/ignored \(\.mcpbignore\) files: (\d+)/.exec(pack.stdout)?.[1] ?? '?'} files left out (mcpb's defaults and .mcpbignore) (${(pack.ms / 1000).toFixed(1)} s)`,
          `${describe(pack)}\n${tail(pack.stdout)}`,
        )
      )
        continue;
      const unpacked = join(work, 'unpacked', app);
      rmSync(unpacked, { recursive: true, force: true });
      const unpack = await mcpb(['unpack', file, unpacked], 2 * 60_000);
      if (
        !check(
          unpack.code === 0,
          `${label}: mcpb unpack`,
          relative(tmp, unpacked),
          describe(unpack),
        )
      )
        continue;
      const info = await mcpb(['info', file], 30_000);
      check(
        info.code === 0 && /^Size: /m.test(info.stdout),
        `${label}: mcpb info`,
        info.stdout
          .split('\n')
          .filter((l) => l.trim())
          .join('; '),
        describe(info),
      );
      const contents = inventory(unpacked);
      pass(
        `${label}: size`,
        `${statSync(file).size} bytes packed (${mb(statSync(file).size)}); ${contents.files} files, ${mb(contents.bytes)} unpacked`,
      );

      // 4. Started from the unpacked bundle as a host does.
      const installed = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
      const config = await getMcpConfigForManifest({
        manifest: installed,
        extensionPath: unpacked,
        systemDirs: { HOME: home },
        userConfig: spec.testConfig(join(work, 'settings', app)),
        pathSeparator: sep,
      });
      if (!config) throw new Error('the host would not start it: a required setting is missing');
      const left = JSON.stringify(config).match(/\$\{[^}]*\}/g);
      if (left) throw new Error(`unsubstituted in mcp_config: ${left.join(', ')}`);
      const expected = manifest.tools.map((t) => t.name).sort();
      const { init, tools, note } = await withSession(
        stdioSession,
        config.command === 'node' ? process.execPath : config.command,
        config.args ?? [],
        { env: { ...env, ...config.env }, cwd: home },
        async (s, tools) => {
          const names = tools.map((t) => t.name).sort();
          if (JSON.stringify(names) !== JSON.stringify(expected)) {
            const missing = expected.filter((n) => !names.includes(n));
            const extra = names.filter((n) => !expected.includes(n));
            throw new Error(
              `tools/list differs from the manifest: missing ${missing.join(', ') || '-'}; not in it ${extra.join(', ') || '-'}`,
            );
          }
          const result = await s.request('tools/call', { name: spec.testTool, arguments: {} });
          if (result.isError)
            throw new Error(`${spec.testTool} isError: ${JSON.stringify(result).slice(0, 500)}`);
          return spec.verify(result);
        },
      );
      pass(
        `${label}: runs unpacked`,
        `${init.serverInfo?.name}@${init.serverInfo?.version}, tools/list = the manifest's ${tools.length}, ${spec.testTool} → ${note}`,
      );
      if (outDir) {
        const target = join(outDir, `${manifest.name}-${manifest.version}.mcpb`);
        copyFileSync(file, target);
        pass(`${label}: copied`, target);
      }
    } catch (err) {
      fail(`${label}`, errorText(err));
    }
  }
}
