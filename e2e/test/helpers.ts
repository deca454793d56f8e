import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
// Bounded waits

export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label}: no answer within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** Reject when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(label, ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process is still there (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Wait (bounded) until none of `pids` is alive; resolves with those still alive at the end. */
export async function waitGone(pids: readonly number[], ms = 8_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    alive = alive.filter(isAlive);
  }
  return alive;
}

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
  const dir = mkdtempSync(join(tmpdir(), `mcpkit-e2e-${label}-`));
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

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

const children = new Set<ChildProcess>();

/** Kill a detached child's whole process group (it may have spawned servers of its own). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already; fall back to the child itself.
    try {
      child.kill(signal);
    } catch {
      // gone
    }
  }
}

/** Kill every process group these helpers started and that has not exited yet (afterAll). */
export function killAll(): void {
  for (const child of children) killGroup(child);
  children.clear();
}

/**
 * Run a command to its end, bounded: on timeout its whole process group is killed and the
 * result says `timedOut`. Never rejects for a non-zero exit; the caller asserts.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs: number; input?: string },
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd ?? tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      children.delete(child);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      // Whatever it left behind in its group goes too.
      killGroup(child);
      resolvePromise({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
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

const ourUrlLine = (stderr: string) => /"url":"(http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];

/**
 * Start any HTTP MCP server as a detached child (its own process group) and wait, bounded, until
 * its stderr tells where it listens. stop() sends SIGTERM, waits up to 5 s, then kills the group.
 */
export function startHttpServer(launch: HttpServerLaunch): Promise<HttpApp> {
  const timeoutMs = launch.timeoutMs ?? 20_000;
  const origin = launch.origin ?? ourUrlLine;
  const child = spawn(launch.command, [...launch.args], {
    env: launch.env,
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let stderr = '';
  let exited = false;
  const exit = new Promise<void>((done) => {
    child.on('exit', () => {
      exited = true;
      children.delete(child);
      done();
    });
  });
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      await Promise.race([exit, new Promise((r) => setTimeout(r, 5_000))]);
    }
    // The gateway's backends, if any survived.
    killGroup(child);
  };
  return new Promise((resolvePromise, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop();
      reject(new Error(`${launch.label} over HTTP: ${why}\n--- stderr ---\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`no listening line within ${timeoutMs} ms`), timeoutMs);
    child.stdout?.resume();
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (settled) return;
      const url = origin(stderr);
      if (!url) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({
        url,
        mcpUrl: `${url}${launch.path ?? '/mcp'}`,
        pid: child.pid as number,
        stderr: () => stderr,
        stop,
      });
    });
    child.on('error', (err) => fail(err.message));
    child.on('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
  });
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
