/**
 * The gateway's own test harness, shared by its test files: the real CLI as a child process (temp
 * config, temp event log, raw stdio from the kit), the gateway in-process with a recording
 * session (the kit's raw peer), the fixture backends, and a /proc based process-tree checker that
 * proves no child outlives a stop. Everything generic comes from `@mcpkit/protocol/testing`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpSession, ProcessExit } from '@mcpkit/protocol';
import {
  connectRaw,
  type HttpProcess,
  sleep,
  spawnHttpServer,
  spawnRaw,
  tempDir,
} from '@mcpkit/testing';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

export const GATEWAY_DIR = fileURLToPath(new URL('..', import.meta.url));
/**
 * The `mcp-gateway` command the tests start: its bin — what a user runs — which runs the bundled
 * CLI over stdio (dist/bundle, built by scripts/bundle-cli.mjs) and the unbundled one over HTTP.
 */
export const CLI = join(GATEWAY_DIR, 'bin', 'mcp-gateway.js');
/** The unbundled CLI (dist/cli.js), which `pnpm start` and the bin over HTTP run. */
export const UNBUNDLED_CLI = join(GATEWAY_DIR, 'dist', 'cli.js');
/** The bundled CLI, which the bin runs over stdio. */
export const BUNDLED_CLI = join(GATEWAY_DIR, 'dist', 'bundle', 'cli.js');

export type FixtureName =
  | 'chora'
  | 'rich'
  | 'crash-on-initialize'
  | 'crash-mid-call'
  | 'hang'
  | 'noisy'
  | 'list-changed'
  | 'flaky'
  | 'slow-start'
  | 'verbatim'
  | 'whoami'
  | 'leaky';

/** The absolute path of a compiled fixture backend (dist/fixtures/<name>.js). */
export function fixture(name: FixtureName): string {
  const path = join(GATEWAY_DIR, 'dist', 'fixtures', `${name}.js`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` first`);
  return path;
}

/** @mcpkit/node's fixture server with every conformance feature (its built file). */
export const EVERYTHING = join(
  GATEWAY_DIR,
  '..',
  '..',
  'packages',
  'node',
  'dist',
  'fixtures',
  'everything.js',
);

/** A stdio backend entry running @mcpkit/node's everything fixture, speaking `protocol`. */
export function everythingBackend(protocol: 'auto' | 'legacy' | '2026-07-28' = 'auto') {
  return { command: process.execPath, args: [EVERYTHING, '--log-level', 'warn'], protocol };
}

/** A stdio backend entry running a fixture with node. */
export function backend(
  name: FixtureName,
  extra: Record<string, unknown> = {},
  args: string[] = [],
) {
  return { command: process.execPath, args: [fixture(name), ...args], ...extra };
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC shapes

export interface RpcMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface ToolResult {
  content: { type: string; text?: string; [k: string]: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The text of the first content block of a tools/call result. */
export function textOf(message: RpcMessage): string {
  const result = message.result as ToolResult | undefined;
  const text = result?.content[0]?.text;
  if (typeof text !== 'string') {
    throw new Error(`no text result in ${JSON.stringify(message).slice(0, 500)}`);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// /proc process-tree checker

export interface ProcInfo {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
  /** Clock ticks after boot: with the pid, the identity of a process (pids are reused). */
  starttime: number;
}

/** /proc/<pid>/stat, or undefined when there is no such process. */
export function readStat(pid: number): ProcInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may hold spaces and parentheses: the fields start after the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text
    .slice(close + 2)
    .trim()
    .split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    starttime: Number(rest[19]),
  };
}

/** Every process on the machine, zombies included. */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readStat(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

const isLive = (p: ProcInfo) => p.state !== 'Z' && p.state !== 'X';

/** Live processes below `pid` (children, grandchildren …), found through their ppid. */
export function descendants(pid: number, all = listProcesses()): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of all) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const out: ProcInfo[] = [];
  const queue = [pid];
  // Bounded by the number of processes: a pid is visited once.
  const seen = new Set<number>([pid]);
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of byParent.get(next) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      queue.push(child.pid);
      if (isLive(child)) out.push(child);
    }
  }
  return out;
}

/** Live members of the process group `pgid`. */
export function processGroup(pgid: number, all = listProcesses()): ProcInfo[] {
  return all.filter((p) => p.pgrp === pgid && isLive(p));
}

/** Is this very process (same pid and start time) still running? */
export function isAlive(p: Pick<ProcInfo, 'pid' | 'starttime'>): boolean {
  const now = readStat(p.pid);
  return now !== undefined && now.starttime === p.starttime && isLive(now);
}

/**
 * What survives of a set of processes seen earlier: those still running, plus any live process
 * in a process group one of them led (a backend leads its group, so its grandchildren are found
 * even after they were re-parented), plus live descendants of any survivor.
 */
export function survivors(tracked: readonly Pick<ProcInfo, 'pid' | 'starttime'>[]): ProcInfo[] {
  const all = listProcesses();
  const found = new Map<number, ProcInfo>();
  const groups = new Set(tracked.map((t) => t.pid));
  for (const t of tracked) {
    const now = all.find((p) => p.pid === t.pid);
    if (now && now.starttime === t.starttime && isLive(now)) found.set(now.pid, now);
  }
  for (const p of all) {
    if (groups.has(p.pgrp) && isLive(p) && p.pid !== process.pid) found.set(p.pid, p);
  }
  for (const p of [...found.values()]) {
    for (const d of descendants(p.pid, all)) found.set(d.pid, d);
  }
  return [...found.values()];
}

/** Identity of a pid now (for survivors() later), or undefined if it is not running. */
export function track(pid: number): ProcInfo | undefined {
  const info = readStat(pid);
  return info && isLive(info) ? info : undefined;
}

/** SIGKILL a process and everything below it (their own groups too). Never throws. */
export function killTree(pid: number): void {
  const below = descendants(pid);
  const kill = (target: number) => {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  kill(pid);
  for (const p of below) {
    // A backend leads its own group: kill the whole group, never ours.
    if (p.pgrp === p.pid && p.pgrp !== readStat(process.pid)?.pgrp) kill(-p.pid);
    kill(p.pid);
  }
}

// ---------------------------------------------------------------------------------------------
// The CLI as a child process

export interface GatewayChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  readonly dir: string;
  readonly configPath: string;
  readonly eventsPath: string;
  /** Every stdout line so far, in order. */
  readonly lines: readonly string[];
  /** Write one line (a newline is appended); an object is JSON-encoded. */
  send(message: string | Record<string, unknown>): void;
  /** The next stdout line not yet taken; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
  /** send(), then the next stdout line not yet taken, parsed. */
  exchange<T = RpcMessage>(message: unknown, timeoutMs?: number): Promise<T>;
  /** Send a request and wait for the response with its id (other lines stay readable). */
  request(
    method: string,
    params?: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<RpcMessage>;
  /** The response with this id, once it arrives. */
  response(id: string | number, timeoutMs?: number): Promise<RpcMessage>;
  /** tools/call through request(). */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<RpcMessage>;
  /** gateway_status, parsed. */
  status(): Promise<GatewayStatus>;
  stderr(): string;
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly exited: Promise<ProcessExit>;
  /** Close stdin and wait for the exit (the whole tree SIGKILLed after `timeoutMs`). */
  end(timeoutMs?: number): Promise<ProcessExit>;
  /** SIGKILL the gateway and every process below it. */
  kill(): void;
}

export interface GatewayStatus {
  gateway: {
    name: string;
    version: string;
    config: { log_level: string; debug: boolean; backend_timeout: number };
    collisions: string[];
  };
  backends: Record<
    string,
    {
      status: string;
      namespace: string;
      tool_count: number;
      pid: number | null;
      restarts: number;
      last_error: string | null;
      calls: number;
      errors: number;
      stdout_noise_lines: number;
      stderr_tail: string[];
    }
  >;
}

const children = new Set<GatewayChild>();

/** The bin falls back to the unbundled CLI: a test run must not, silently. */
function builtOrThrow(): void {
  for (const file of [UNBUNDLED_CLI, BUNDLED_CLI]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm build\` first`);
  }
}

export interface StartOptions {
  /** An events db to reuse (events survive a restart); default a new temp file. */
  events?: string;
  /** Extra CLI flags, e.g. ['--transport', 'http', '--port', '0']. */
  args?: string[];
  logLevel?: string;
  env?: NodeJS.ProcessEnv;
  /** The CLI to run; default {@link CLI}. */
  cli?: string;
}

/** Start `mcp-gateway --config <tmp> --events <tmp>` as a child, leading its own group. */
export function startGateway(config: unknown, options: StartOptions = {}): GatewayChild {
  builtOrThrow();
  const dir = tempDir('gw-e2e-');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const eventsPath = options.events ?? join(dir, 'events.db');
  const raw = spawnRaw(
    process.execPath,
    [
      options.cli ?? CLI,
      '--config',
      configPath,
      '--events',
      eventsPath,
      '--log-level',
      options.logLevel ?? 'warn',
      ...(options.args ?? []),
    ],
    { cwd: dir, detached: true, ...(options.env ? { env: options.env } : {}) },
  );
  if (raw.child.pid === undefined) throw new Error('the gateway did not start');
  const pid = raw.pid;
  let gone = false;
  void raw.exited.then(() => {
    gone = true;
  });
  const call = (name: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
    raw.request('tools/call', { name, arguments: args }, timeoutMs);

  const handle: GatewayChild = {
    child: raw.child,
    pid,
    dir,
    configPath,
    eventsPath,
    lines: raw.lines,
    send: raw.send,
    next: raw.next,
    exchange: raw.exchange,
    request: (method, params, timeoutMs) => raw.request(method, params, timeoutMs),
    response: (id, timeoutMs) => raw.response(id, timeoutMs),
    call,
    async status() {
      return JSON.parse(textOf(await call('gateway_status'))) as GatewayStatus;
    },
    stderr: raw.stderr,
    waitForStderr: raw.waitForStderr,
    exited: raw.exited,
    async end(timeoutMs = 10_000) {
      const timer = setTimeout(() => handle.kill(), timeoutMs);
      try {
        return await raw.end(timeoutMs + 5_000);
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      if (!gone) killTree(pid);
    },
  };
  children.add(handle);
  void raw.exited.then(() => children.delete(handle));
  return handle;
}

/** SIGKILL every gateway child still running (afterAll); waits for their exits, bounded. */
export async function killAllGateways(): Promise<void> {
  const running = [...children];
  for (const c of running) c.kill();
  await Promise.race([Promise.all(running.map((c) => c.exited)), sleep(5000)]);
}

/** initialize + initialized over a child's stdio; returns the initialize response. */
export async function handshake(gw: GatewayChild): Promise<RpcMessage> {
  const reply = await gw.request('initialize', {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name: 'e2e', version: '1.0.0' },
  });
  gw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return reply;
}

// ---------------------------------------------------------------------------------------------
// The gateway in-process

export interface Sent {
  method: string;
  params?: Record<string, unknown>;
}

/** A client of the in-process gateway: a raw JSON-RPC peer that records what it is sent. */
export interface RecordingSession {
  session: McpSession;
  notifications: Sent[];
  /** Notifications and responses in the order they reached this client. */
  readonly timeline: { kind: 'notification' | 'response'; method?: string; id?: unknown }[];
  request(
    method: string,
    params?: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<RpcMessage>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Send a frame as written (numbers JSON cannot hold exactly, say); its reply's text. */
  send(frame: string): Promise<string | undefined>;
  /** Every frame this client received, as the gateway wrote it. */
  readonly received: readonly string[];
  /** initialize (with `params` over the kit's defaults) and notifications/initialized. */
  initialize(params?: Record<string, unknown>): Promise<RpcMessage>;
  call(
    name: string,
    args?: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<RpcMessage>;
}

export interface InProcessGateway {
  gateway: Gateway;
  events: EventLog;
  /** A session opened at start, already initialized. */
  client: RecordingSession;
  openSession(): Promise<RecordingSession>;
  status(): Promise<GatewayStatus>;
  toolNames(): Promise<string[]>;
  stop(): Promise<void>;
}

function recordingSession(gateway: Gateway): RecordingSession {
  const peer = connectRaw(gateway.server);
  const request: RecordingSession['request'] = (method, params, meta) =>
    peer.request(method, meta ? { ...params, _meta: meta } : params);
  return {
    session: peer.session,
    notifications: peer.notifications,
    get timeline() {
      return peer.received.map((text) => {
        const m = JSON.parse(text) as { id?: unknown; method?: string };
        return m.method === undefined
          ? { kind: 'response' as const, id: m.id }
          : { kind: 'notification' as const, method: m.method };
      });
    },
    initialize: (params) => peer.initialize(params),
    request,
    notify: (method, params) => peer.notify(method, params),
    send: (frame) => peer.send(frame),
    received: peer.received,
    call: (name, args = {}, meta) => request('tools/call', { name, arguments: args }, meta),
  };
}

/** `new Gateway(parseConfig(config), { events: EventLog.open(':memory:') })`, started. */
export async function startInProcess(
  config: unknown,
  env: NodeJS.ProcessEnv = process.env,
): Promise<InProcessGateway> {
  const events = EventLog.open(':memory:');
  const gateway = new Gateway(parseConfig(config, env), { events });
  await gateway.start();
  const openSession = async () => {
    const s = recordingSession(gateway);
    await s.initialize({
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'e2e', version: '1.0.0' },
    });
    return s;
  };
  const client = await openSession();
  let stopped = false;
  return {
    gateway,
    events,
    client,
    openSession,
    async status() {
      return JSON.parse(textOf(await client.call('gateway_status'))) as GatewayStatus;
    },
    async toolNames() {
      const reply = await client.request('tools/list');
      return ((reply.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const pids = [...gateway.backends.values()]
        .map((b) => b.pid)
        .filter((p): p is number => p !== undefined);
      try {
        await Promise.race([gateway.stop(), sleep(8000)]);
      } finally {
        for (const pid of pids) killTree(pid);
      }
    },
  };
}

/**
 * The built gateway CLI over HTTP on a free port, with `config` written to a fresh directory (its
 * event log beside it) and `args` after the usual flags; `dir` is that directory (for files a
 * backend of the config uses). Stop it with `close()`.
 */
export async function spawnHttpGateway(
  config: unknown,
  options: { args?: string[]; env?: NodeJS.ProcessEnv; dir?: string; cli?: string } = {},
): Promise<HttpProcess> {
  builtOrThrow();
  const dir = options.dir ?? tempDir('gw-http-');
  const configPath = join(dir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify(config));
  return spawnHttpServer(
    process.execPath,
    [
      options.cli ?? CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--config',
      configPath,
      '--events',
      join(dir, 'events.db'),
      ...(options.args ?? []),
    ],
    options.env ? { env: options.env } : {},
  );
}

// Signing a client in to a gateway that is its own authorization server: the kit's.
export { connectSignedIn, SIGN_IN_REDIRECT, type SignedInOptions } from '@mcpkit/testing';
