/**
 * Helpers for the gateway's end-to-end tests: the real CLI as a child process (temp config, temp
 * event log, a line reader with timeouts), the gateway in-process with a recording session, the
 * fixture backends, and a /proc based process-tree checker that proves no child outlives a stop.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpSession } from '@mcpkit/protocol';
import { connectRaw } from '@mcpkit/protocol/testing';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

export const GATEWAY_DIR = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(GATEWAY_DIR, 'dist', 'cli.js');

export type FixtureName =
  | 'chora'
  | 'rich'
  | 'crash-on-initialize'
  | 'crash-mid-call'
  | 'hang'
  | 'noisy'
  | 'list-changed'
  | 'flaky'
  | 'slow-start';

/** The absolute path of a compiled fixture backend (dist/fixtures/<name>.js). */
export function fixture(name: FixtureName): string {
  const path = join(GATEWAY_DIR, 'dist', 'fixtures', `${name}.js`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` first`);
  return path;
}

/** A stdio backend entry running a fixture with node. */
export function backend(
  name: FixtureName,
  extra: Record<string, unknown> = {},
  args: string[] = [],
) {
  return { command: process.execPath, args: [fixture(name), ...args], ...extra };
}

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by removeTempDirs(). */
export function tempDir(prefix = 'gw-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined/false; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
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
  readonly lines: string[];
  /** Write one line (a newline is appended); an object is JSON-encoded. */
  send(message: string | Record<string, unknown>): void;
  /** The next stdout line not yet taken; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
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
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Close stdin and wait for the exit (SIGKILL after `timeoutMs`). */
  end(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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

export interface StartOptions {
  /** An events db to reuse (events survive a restart); default a new temp file. */
  events?: string;
  /** Extra CLI flags, e.g. ['--transport', 'http', '--port', '0']. */
  args?: string[];
  logLevel?: string;
  env?: NodeJS.ProcessEnv;
}

/** Start `node dist/cli.js --config <tmp> --events <tmp>` as a child, leading its own group. */
export function startGateway(config: unknown, options: StartOptions = {}): GatewayChild {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
  const dir = tempDir();
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const eventsPath = options.events ?? join(dir, 'events.db');
  const child = spawn(
    process.execPath,
    [
      CLI,
      '--config',
      configPath,
      '--events',
      eventsPath,
      '--log-level',
      options.logLevel ?? 'warn',
      ...(options.args ?? []),
    ],
    {
      cwd: dir,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  if (child.pid === undefined) throw new Error('the gateway did not start');
  const pid = child.pid;
  const lines: string[] = [];
  let cursor = 0;
  let partial = '';
  let err = '';
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const w of [...wakers]) w();
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    wake();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
    wake();
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      wake();
      resolve({ code, signal });
    }),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
  });

  /** Resolves with `check()`'s first defined answer, re-checked on every stdout/stderr chunk. */
  const until = <T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> => {
    const first = check();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(waker);
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no ${what} within ${timeoutMs} ms${gone ? ' (the gateway exited)' : ''}; stderr: ${err.slice(-1500)}`,
          ),
        );
      }, timeoutMs);
      const waker = () => {
        const value = check();
        if (value !== undefined) {
          done();
          resolve(value);
        }
      };
      wakers.add(waker);
    });
  };

  let nextId = 1000;
  const parsed = new Map<number, RpcMessage | null>();
  const parseLine = (i: number): RpcMessage | null => {
    if (!parsed.has(i)) {
      try {
        parsed.set(i, JSON.parse(lines[i] ?? '') as RpcMessage);
      } catch {
        parsed.set(i, null);
      }
    }
    return parsed.get(i) ?? null;
  };
  const response = (id: string | number, timeoutMs = 10_000) =>
    until(
      `response to id ${JSON.stringify(id)}`,
      () => {
        for (let i = 0; i < lines.length; i++) {
          const m = parseLine(i);
          if (m && m.id === id && m.method === undefined) return m;
        }
        return undefined;
      },
      timeoutMs,
    );
  const send = (message: string | Record<string, unknown>) => {
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  };
  const request = (method: string, params?: Record<string, unknown>, timeoutMs = 10_000) => {
    const id = nextId++;
    send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return response(id, timeoutMs);
  };
  const call = (name: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
    request('tools/call', { name, arguments: args }, timeoutMs);

  const handle: GatewayChild = {
    child,
    pid,
    dir,
    configPath,
    eventsPath,
    lines,
    send,
    next: (timeoutMs = 10_000) =>
      until(
        'stdout line',
        () => (cursor < lines.length ? (lines[cursor++] as string) : undefined),
        timeoutMs,
      ),
    request,
    response,
    call,
    async status() {
      return JSON.parse(textOf(await call('gateway_status'))) as GatewayStatus;
    },
    stderr: () => err,
    waitForStderr: (pattern, timeoutMs = 10_000) =>
      until(`stderr matching ${pattern}`, () => pattern.exec(err) ?? undefined, timeoutMs),
    exited,
    async end(timeoutMs = 10_000) {
      child.stdin.end();
      const timer = setTimeout(() => handle.kill(), timeoutMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
    kill() {
      if (!gone) killTree(pid);
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

/** SIGKILL every gateway child still running (afterAll); waits for their exits, bounded. */
export async function killAllGateways(): Promise<void> {
  const running = [...children];
  for (const c of running) c.kill();
  await Promise.race([Promise.all(running.map((c) => c.exited)), sleep(5000)]);
}

/** The seed's initialize request, verbatim. */
export const SEED_INITIALIZE =
  '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "claude-desktop", "version": "1.0.0"}}}';

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

let rpcId = 1;

function recordingSession(gateway: Gateway): RecordingSession {
  const peer = connectRaw(gateway.server);
  const request: RecordingSession['request'] = async (method, params, meta) => {
    const id = rpcId++;
    const p = meta ? { ...params, _meta: meta } : params;
    const reply = await peer.send(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(p ? { params: p } : {}) }),
    );
    if (reply === undefined) throw new Error(`no reply to ${method}`);
    return JSON.parse(reply) as RpcMessage;
  };
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
    request,
    notify: (method, params) => peer.notify(method, params),
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
    const init = await s.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'e2e', version: '1.0.0' },
    });
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    await s.notify('notifications/initialized');
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
