/**
 * The e2e package's own harness, shared by its test files: the app matrix, scratch directories,
 * each app prepared for a client (database, key, events), the checks every client test makes.
 * Processes, waits and temp dirs come from `@mcpkit/testing`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunResult, runProcess, spawnHttpServer, tempDir, within } from '@mcpkit/testing';
import { expect } from 'vitest';

/** A TCP port free on 127.0.0.1 a moment ago: the kit's. */
export {
  freePort,
  isAlive,
  killSpawned as killAll,
  type RunResult,
  TimeoutError,
  waitGone,
  within,
} from '@mcpkit/testing';

/** The repository root (this file is e2e/test/helpers.ts). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const E2E = join(REPO, 'e2e');
export const INSPECTOR_CLI = join(E2E, 'node_modules', '.bin', 'mcp-inspector-cli');

export const DEMO_USER = 'demo@codefluss.local';

/** Protocol revisions a 2025-era client may legitimately settle on with these servers. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

export type AppName = 'system-info' | 'projects' | 'gateway';
export type TransportName = 'stdio' | 'http';

export const APPS: readonly AppName[] = ['system-info', 'projects', 'gateway'];
export const TRANSPORTS: readonly TransportName[] = ['stdio', 'http'];

/** Every app × every transport: the rows of the matrix, as `[app, transport]`. */
export const CELLS: readonly [AppName, TransportName][] = APPS.flatMap((app) =>
  TRANSPORTS.map((transport): [AppName, TransportName] => [app, transport]),
);

export const cliOf = (app: AppName): string => join(REPO, 'apps', app, 'dist', 'cli.js');

/** The app's simple tool, and a tool name that must be in its tools/list. */
export const SIMPLE_TOOL: Record<AppName, string> = {
  'system-info': 'get_uptime',
  projects: 'list_projects',
  gateway: 'gateway_status',
};

/** Tools that must be listed: the gateway also shows both backends' tools, namespaced. */
export const EXPECTED_TOOLS: Record<AppName, readonly string[]> = {
  'system-info': ['get_uptime', 'get_cpu_info'],
  projects: ['list_projects', 'get_project', 'create_project'],
  gateway: ['gateway_status', 'projects__list_projects', 'sysinfo__get_uptime'],
};

// ---------------------------------------------------------------------------------------------
// Bounded waits and processes: `within`, `waitGone`, `isAlive`, `killAll` are the kit's.

/** The backends' pids that gateway_status reports. */
export function backendPids(structured: unknown): number[] {
  const backends = (structured as { backends?: Record<string, { pid?: unknown }> } | undefined)
    ?.backends;
  return Object.values(backends ?? {})
    .map((b) => b.pid)
    .filter((pid): pid is number => typeof pid === 'number');
}

// ---------------------------------------------------------------------------------------------
// Scratch space: every test gets its own directory (databases, event logs, HOME).

export interface Scratch {
  readonly dir: string;
  path(name: string): string;
  cleanup(): void;
}

export function scratch(label: string): Scratch {
  const dir = tempDir(`mcpkit-e2e-${label}-`);
  return {
    dir,
    path: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A clean environment for an app: nothing inherited from the test runner except PATH, so a
 * developer's MCP_TRANSPORT, DATABASE_URL or LOG_LEVEL cannot change what is tested; HOME is
 * the scratch directory, so no default path (~/.local/…) of the real user is touched.
 */
export function appEnv(s: Scratch, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: s.dir,
    TMPDIR: tmpdir(),
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes

/**
 * Run a command to its end, bounded, in its own process group: on timeout the whole group is
 * killed and the result says `timedOut`. Never rejects for a non-zero exit; the caller asserts.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs: number; input?: string },
): Promise<RunResult> {
  return runProcess(command, args, {
    env: options.env,
    inheritEnv: false,
    cwd: options.cwd ?? tmpdir(),
    detached: true,
    timeoutMs: options.timeoutMs,
    input: options.input ?? '',
  });
}

export interface HttpApp {
  /** Origin, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** The Streamable HTTP endpoint. */
  readonly mcpUrl: string;
  readonly pid: number;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Start an app with `--transport http --port 0` on 127.0.0.1 and wait (bounded) for the log line
 * carrying its URL. stop() sends SIGTERM, waits up to 5 s, then kills the process group.
 */
export function startHttp(
  app: AppName,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<HttpApp> {
  return startHttpServer({
    label: app,
    command: process.execPath,
    args: [cliOf(app), '--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...args],
    env,
    timeoutMs,
  });
}

export interface HttpServerLaunch {
  /** Names the server in errors. */
  label: string;
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  /**
   * Finds the server's origin (`http://127.0.0.1:PORT`) in what it has written to stderr so far.
   * Default: the `"url":"http://127.0.0.1:PORT…"` log line every server of ours writes.
   */
  origin?: (stderr: string) => string | undefined;
  /** Where the Streamable HTTP endpoint is, below the origin. Default `/mcp`. */
  path?: string;
  timeoutMs?: number;
}

/**
 * Start any HTTP MCP server as a detached child (its own process group), with exactly `env`, and
 * wait, bounded, until its stderr tells where it listens. stop() sends SIGTERM, waits up to 5 s,
 * then kills the group.
 */
export async function startHttpServer(launch: HttpServerLaunch): Promise<HttpApp> {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  try {
    server = await spawnHttpServer(launch.command, launch.args, {
      env: launch.env,
      inheritEnv: false,
      cwd: tmpdir(),
      detached: true,
      timeoutMs: launch.timeoutMs ?? 20_000,
      ...(launch.origin ? { urlFrom: launch.origin } : {}),
    });
  } catch (err) {
    throw new Error(`${launch.label} over HTTP: ${(err as Error).message}`);
  }
  return {
    url: server.url,
    mcpUrl: `${server.url}${launch.path ?? '/mcp'}`,
    pid: server.pid,
    stderr: server.stderr,
    async stop() {
      await server.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Per-app set-up

/** How to launch an app over stdio: command, args and environment. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface Prepared {
  /** For stdio clients. */
  stdio: StdioLaunch;
  /** Extra flags for `startHttp`. */
  httpArgs: string[];
  /** Environment for both. */
  env: Record<string, string>;
  /** The bearer key projects requires over HTTP. */
  apiKey?: string;
}

/** Seed the demo user and projects into a fresh SQLite file (the stdio server exits at EOF). */
export async function seedProjects(env: Record<string, string>): Promise<void> {
  const seeded = await run(
    process.execPath,
    [cliOf('projects'), '--seed-demo', '--user', DEMO_USER, '--log-level', 'warn'],
    { env, timeoutMs: 20_000 },
  );
  if (seeded.code !== 0) throw new Error(`seeding projects failed: ${seeded.stderr}`);
}

/** `keys create`: the key is the only thing on stdout. */
export async function createApiKey(env: Record<string, string>): Promise<string> {
  const created = await run(
    process.execPath,
    [cliOf('projects'), 'keys', 'create', '--user', DEMO_USER, '--scopes', 'read,write'],
    { env, timeoutMs: 20_000 },
  );
  const key = created.stdout.trim();
  if (created.code !== 0 || !/^cf_live_sk_[0-9A-Za-z]{32}$/.test(key))
    throw new Error(`keys create failed (code ${created.code}): ${created.stderr}`);
  return key;
}

/**
 * Everything an app needs in a scratch directory: projects gets a seeded SQLite database and
 * (when `withKey`) an API key; the gateway gets its own event log and a projects database for
 * its default projects backend.
 */
export async function prepare(app: AppName, s: Scratch, withKey = false): Promise<Prepared> {
  const node = process.execPath;
  if (app === 'system-info') {
    const env = appEnv(s);
    return {
      env,
      stdio: { command: node, args: [cliOf(app), '--log-level', 'warn'], env },
      httpArgs: ['--log-level', 'info'],
    };
  }
  if (app === 'projects') {
    const env = appEnv(s, { DATABASE_URL: s.path('projects.db') });
    await seedProjects(env);
    const apiKey = withKey ? await createApiKey(env) : undefined;
    return {
      env,
      stdio: {
        command: node,
        args: [cliOf(app), '--seed-demo', '--user', DEMO_USER, '--log-level', 'warn'],
        env,
      },
      httpArgs: ['--seed-demo', '--log-level', 'info'],
      ...(apiKey ? { apiKey } : {}),
    };
  }
  const env = appEnv(s, { DATABASE_URL: s.path('projects.db') });
  await seedProjects(env);
  const events = ['--events', s.path('events.db')];
  return {
    env,
    stdio: { command: node, args: [cliOf(app), ...events, '--log-level', 'warn'], env },
    httpArgs: [...events, '--log-level', 'info'],
  };
}

/** A gateway config with the projects app as its only backend (for conformance of projects). */
export function projectsOnlyGatewayConfig(s: Scratch): string {
  const file = s.path('gateway-projects.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        projects: {
          command: process.execPath,
          args: [cliOf('projects'), '--seed-demo', '--user', DEMO_USER, '--log-level', 'warn'],
          env: { DATABASE_URL: s.path('projects.db') },
          namespace: 'projects',
        },
      },
    }),
  );
  return file;
}

// ---------------------------------------------------------------------------------------------
// Result checks shared by the client tests

export interface ToolLike {
  name: string;
  description?: string | undefined;
}

/** What is wrong with an app's tools/list: none, a tool it must list missing, undescribed tools. */
export function checkTools(app: AppName, tools: readonly ToolLike[]): string | undefined {
  if (tools.length === 0) return 'no tools';
  const names = tools.map((t) => t.name);
  const missing = EXPECTED_TOOLS[app].filter((name) => !names.includes(name));
  if (missing.length > 0) return `missing ${missing.join(', ')} in ${names.join(', ')}`;
  const undescribed = tools.filter((t) => !t.description?.trim()).map((t) => t.name);
  return undescribed.length > 0
    ? `tools without a description: ${undescribed.join(', ')}`
    : undefined;
}

/**
 * What every client cell asserts, whatever the client library: the app lists its tools (each
 * described) and its simple tool answers with the expected structured content. `list` and `call`
 * adapt the client's own API (the SDK v1 and v2 signatures differ).
 */
export async function expectToolsAndSimpleCall<R>(
  app: AppName,
  list: () => Promise<{ tools: readonly ToolLike[] }>,
  call: (name: string) => Promise<R>,
): Promise<R> {
  const { tools } = await within(list(), 25_000, 'tools/list');
  expect(checkTools(app, tools)).toBeUndefined();
  const result = await within(call(SIMPLE_TOOL[app]), 25_000, 'tools/call');
  const answer = result as { isError?: boolean; structuredContent?: unknown };
  expect(answer.isError ?? false).toBe(false);
  expect(checkSimpleResult(app, answer.structuredContent)).toBeUndefined();
  return result;
}

/** The meaningful field of each app's simple tool, from its structured content. */
export function checkSimpleResult(app: AppName, structured: unknown): string | undefined {
  const s = structured as Record<string, unknown> | undefined;
  if (!s) return 'no structuredContent';
  if (app === 'system-info') {
    return typeof s.uptime_seconds === 'number' && s.uptime_seconds > 0
      ? undefined
      : `uptime_seconds is ${JSON.stringify(s.uptime_seconds)}`;
  }
  if (app === 'projects') {
    const projects = s.projects as { name?: unknown }[] | undefined;
    const names = Array.isArray(projects) ? projects.map((p) => p.name) : [];
    return names.includes('Meine Website') ? undefined : `projects: ${JSON.stringify(projects)}`;
  }
  const backends = s.backends as Record<string, { status?: unknown }> | undefined;
  return backends?.projects?.status === 'running' && backends['system-info']?.status === 'running'
    ? undefined
    : `backends: ${JSON.stringify(backends)}`;
}
