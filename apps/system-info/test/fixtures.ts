/**
 * Deterministic fake collectors for the system-info tools, and a client of the server they feed:
 * the kit's raw JSON-RPC peer over an in-memory connection (tools/call as a transport sends it).
 */
import type { AuthInfo, CallToolResult, McpServer } from '@mcpkit/protocol';
import { connectRaw, type RawErrorObject, type RawPeer, type RawReply } from '@mcpkit/testing';
import type { Collectors, ProcessInfo } from '../src/sampler/collectors.js';
import { CollectorTimeoutError } from '../src/sampler/errors.js';
import type { Scope } from '../src/scopes.js';
import { createSystemInfoServer } from '../src/server.js';

/** What each collector resolves to. */
export type MachineValues = { [K in keyof Collectors]: Awaited<ReturnType<Collectors[K]>> };

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** The clock every fixture server runs on: every sample is stamped with it. */
export const NOW = Date.parse('2026-01-02T03:04:05.678Z');
export const NOW_ISO = new Date(NOW).toISOString();

export const PERMISSION_DENIED = 'EACCES: permission denied';
/** What the real `withTimeout(si.fsSize(), 5000, 'df')` rejects with. */
export const DF_TIMEOUT = 'df did not answer within 5000 ms';

/** A process whose command line carries secrets. */
export const SECRET_PID = 880;
export const SECRET_COMMAND = 'postgres --password=hunter2 postgres://u:pw@h/db TOKEN=abc';
export const SECRET_COMMAND_REDACTED =
  'postgres --password=[REDACTED] postgres://u:[REDACTED]@h/db TOKEN=[REDACTED]';

const proc = (
  pid: number,
  name: string,
  cpu: number,
  rssBytes: number,
  command: string,
  extra: Partial<ProcessInfo> = {},
): ProcessInfo => ({
  pid,
  ppid: pid === 1 ? 0 : 1,
  name,
  user: 'root',
  state: 'sleeping',
  cpu_percent: cpu,
  memory_percent: Math.round((rssBytes / (16 * GiB)) * 1000) / 10,
  memory_rss_bytes: rssBytes,
  started: '2026-01-01 00:00:00',
  command,
  ...extra,
});

/** 13 processes: more than the default page of 10, with ties in cpu (nginx/redis) and name. */
function normalProcesses(): ProcessInfo[] {
  return [
    proc(1, 'systemd', 0.1, 12 * MiB, '/sbin/init splash'),
    proc(412, 'sshd', 0, 8 * MiB, '/usr/sbin/sshd -D'),
    proc(SECRET_PID, 'postgres', 12.34, 1536 * MiB, SECRET_COMMAND, { user: 'postgres' }),
    proc(881, 'postgres', 0.3, 40 * MiB, 'postgres: checkpointer', { ppid: SECRET_PID }),
    proc(1024, 'node', 35.66, 600 * MiB, 'node server.js --port 3000', {
      user: 'app',
      state: 'running',
    }),
    proc(1100, 'java', 20, 3 * GiB, 'java -Xmx4g -jar app.jar', { state: 'running' }),
    proc(1200, 'nginx', 2.5, 50 * MiB, 'nginx: worker process'),
    proc(1300, 'redis-server', 2.5, 200 * MiB, 'redis-server *:6379'),
    proc(1400, 'chrome', 8.04, 900 * MiB, '/opt/google/chrome/chrome --type=renderer', {
      state: 'running',
    }),
    proc(1500, 'bash', 0, 5 * MiB, '-bash'),
    proc(1600, 'cron', 0, 3 * MiB, '/usr/sbin/cron -f'),
    proc(1700, 'dockerd', 1.2, 120 * MiB, '/usr/bin/dockerd -H fd://'),
    proc(1800, 'containerd', 0.8, 80 * MiB, '/usr/bin/containerd'),
  ];
}

/** 60 auth log lines, the last ones with secrets in them. */
export function normalAuthLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 57; i++) {
    const minute = String(i).padStart(2, '0');
    lines.push(
      `Jan  2 08:${minute}:00 web-01 sshd[${2000 + i}]: Accepted publickey for alice from 10.0.0.7 port ${50000 + i} ssh2`,
    );
  }
  lines.push('Jan  2 08:57:00 web-01 sshd[2100]: Failed password for invalid user admin');
  lines.push(
    'Jan  2 08:58:00 web-01 sudo: alice : TTY=pts/0 ; USER=root ; COMMAND=/usr/bin/mysql --password=hunter2 -u root',
  );
  lines.push(
    'Jan  2 08:59:00 web-01 sudo: bob : TTY=pts/1 ; USER=root ; COMMAND=/usr/bin/psql postgres://app:s3cr3t@db/prod',
  );
  return lines;
}

/** A healthy 4-core server with everything present. Fresh objects on every call. */
export function normalValues(): MachineValues {
  return {
    cpuStatic: {
      manufacturer: 'Intel',
      brand: 'Xeon Gold 6338',
      cores: 4,
      physical_cores: 2,
      speed_ghz: 2,
      speed_max_ghz: 3.2,
    },
    cpuLoad: {
      total_percent: 23.456,
      user_percent: 15.06,
      system_percent: 8.4,
      per_cpu: [
        { cpu: 0, load_percent: 22.04 },
        { cpu: 1, load_percent: 25.51 },
        { cpu: 2, load_percent: 20 },
        { cpu: 3, load_percent: 26.27 },
      ],
      load_average: [1.25, 0.9, 0.7],
    },
    memory: {
      total_bytes: 16 * GiB,
      used_bytes: 6 * GiB,
      free_bytes: 2 * GiB,
      available_bytes: 8 * GiB,
      swap_total_bytes: 2 * GiB,
      swap_used_bytes: 256 * MiB,
    },
    processes: { total: 214, running: 3, sleeping: 211, list: normalProcesses() },
    time: {
      uptime_seconds: 93_784,
      boot_time: '2026-01-01T01:01:01.000Z',
      timezone: 'Europe/Berlin',
    },
    osInfo: {
      platform: 'linux',
      distro: 'Ubuntu',
      release: '24.04',
      kernel: '6.8.0-45-generic',
      arch: 'x64',
      hostname: 'web-01',
    },
    filesystems: [
      {
        filesystem: '/dev/sda1',
        type: 'ext4',
        mount: '/',
        size_bytes: 100 * GiB,
        used_bytes: 45 * GiB,
        available_bytes: 55 * GiB,
        use_percent: 45,
        read_only: false,
      },
      {
        filesystem: '/dev/sda2',
        type: 'vfat',
        mount: '/boot/efi',
        size_bytes: 512 * MiB,
        used_bytes: 6 * MiB,
        available_bytes: 506 * MiB,
        use_percent: 1.2,
        read_only: false,
      },
      {
        filesystem: 'nas:/export',
        type: 'nfs4',
        mount: '/mnt/nas',
        size_bytes: 1024 * GiB,
        used_bytes: 718 * GiB,
        available_bytes: 306 * GiB,
        use_percent: 70.1,
        read_only: false,
      },
      {
        // A full read-only snap image is normal and must not count as a full disk.
        filesystem: '/dev/loop0',
        type: 'squashfs',
        mount: '/snap/core22/1',
        size_bytes: 74 * MiB,
        used_bytes: 74 * MiB,
        available_bytes: 0,
        use_percent: 100,
        read_only: true,
      },
    ],
    netInterfaces: [
      {
        name: 'lo',
        ip4: '127.0.0.1',
        ip6: '::1',
        mac: null,
        internal: true,
        operstate: 'unknown',
        speed_mbps: null,
      },
      {
        name: 'eth0',
        ip4: '10.0.0.5',
        ip6: 'fe80::1',
        mac: '52:54:00:12:34:56',
        internal: false,
        operstate: 'up',
        speed_mbps: 1000,
      },
      {
        name: 'wlan0',
        ip4: null,
        ip6: null,
        mac: '52:54:00:ab:cd:ef',
        internal: false,
        operstate: 'down',
        speed_mbps: null,
      },
    ],
    netStats: [
      {
        name: 'lo',
        rx_bytes: 5000,
        tx_bytes: 5000,
        rx_bytes_per_sec: 12.4,
        tx_bytes_per_sec: 12.4,
      },
      {
        name: 'eth0',
        rx_bytes: 123_456_789,
        tx_bytes: 98_765_432,
        rx_bytes_per_sec: 2048.6,
        tx_bytes_per_sec: 512.2,
      },
    ],
    listening: [
      { protocol: 'tcp', address: '0.0.0.0', port: 5432, pid: SECRET_PID, process: 'postgres' },
      { protocol: 'udp', address: '0.0.0.0', port: 53, pid: null, process: null },
      { protocol: 'tcp6', address: '::', port: 22, pid: 412, process: 'sshd' },
      { protocol: 'tcp', address: '0.0.0.0', port: 22, pid: 412, process: 'sshd' },
      { protocol: 'tcp', address: '127.0.0.53', port: 53, pid: null, process: null },
    ],
    temperature: { main_celsius: 48, max_celsius: 62, cores_celsius: [47, 49] },
    battery: {
      has_battery: true,
      percent: 87,
      is_charging: false,
      ac_connected: false,
      time_remaining_minutes: 213,
    },
    gpus: [{ vendor: 'NVIDIA', model: 'GeForce RTX 3060', vram_mb: 12_288 }],
    containers: [
      {
        id: 'a1b2c3d4e5f6',
        name: 'web',
        image: 'nginx:1.27',
        state: 'running',
        started: '2026-01-01T00:00:00.000Z',
      },
      { id: '0123456789ab', name: 'db', image: 'postgres:16', state: 'exited', started: null },
    ],
    users: [
      { user: 'alice', tty: 'pts/0', login_time: '2026-01-02 08:15', from: '10.0.0.7' },
      { user: 'bob', tty: 'tty1', login_time: '2026-01-02 07:00', from: null },
    ],
    authLog: { source: '/var/log/auth.log', lines: normalAuthLines() },
  };
}

/** The first call after start without warm-up: no baseline, so every rate is unknown. */
export function firstCallValues(): MachineValues {
  const v = normalValues();
  v.cpuLoad = {
    ...v.cpuLoad,
    total_percent: null,
    user_percent: null,
    system_percent: null,
    per_cpu: v.cpuLoad.per_cpu.map((c) => ({ cpu: c.cpu, load_percent: null })),
  };
  v.processes.list = v.processes.list.map((p) => ({ ...p, cpu_percent: 0 }));
  v.netStats = v.netStats.map((n) => ({ ...n, rx_bytes_per_sec: null, tx_bytes_per_sec: null }));
  return v;
}

/** A minimal VM: no sensors, no battery, no GPU, no Docker, no auth log. */
export function bareVmValues(): MachineValues {
  const v = normalValues();
  v.temperature = { main_celsius: null, max_celsius: null, cores_celsius: [] };
  v.battery = {
    has_battery: false,
    percent: null,
    is_charging: null,
    ac_connected: null,
    time_remaining_minutes: null,
  };
  v.gpus = [];
  v.containers = null;
  v.authLog = { source: null, lines: [] };
  return v;
}

/** Collectors that answer `values` (a fresh copy per call). */
export function collectorsFrom(values: MachineValues): Collectors {
  const out: Record<string, () => Promise<unknown>> = {};
  for (const key of Object.keys(values) as (keyof MachineValues)[]) {
    out[key] = async () => structuredClone(values[key]);
  }
  return out as unknown as Collectors;
}

export const normalMachine = (overrides: Partial<MachineValues> = {}): Collectors =>
  collectorsFrom({ ...normalValues(), ...overrides });
export const firstCallMachine = (overrides: Partial<MachineValues> = {}): Collectors =>
  collectorsFrom({ ...firstCallValues(), ...overrides });
export const bareVm = (overrides: Partial<MachineValues> = {}): Collectors =>
  collectorsFrom({ ...bareVmValues(), ...overrides });

/** Replace one collector. */
export function withCollector<K extends keyof Collectors>(
  base: Collectors,
  key: K,
  collector: Collectors[K],
): Collectors {
  return { ...base, [key]: collector };
}

/** Replace what one collector answers. */
export function withValue<K extends keyof Collectors>(
  base: Collectors,
  key: K,
  value: MachineValues[K],
): Collectors {
  const collector = async () => structuredClone(value);
  return withCollector(base, key, collector as unknown as Collectors[K]);
}

/** One collector rejects (default: a permission error). */
export function failing<K extends keyof Collectors>(
  base: Collectors,
  key: K,
  error: string | Error = PERMISSION_DENIED,
): Collectors {
  const collector = async () => {
    throw typeof error === 'string' ? new Error(error) : error;
  };
  return withCollector(base, key, collector as unknown as Collectors[K]);
}

/** `df` hangs: the filesystems collector rejects as the real 5 s deadline would, at once. */
export const diskTimeout = (base: Collectors): Collectors =>
  failing(base, 'filesystems', new CollectorTimeoutError('df', 5000));

// ---------------------------------------------------------------------------------------------
// An in-process client: the kit's raw JSON-RPC peer (replies as the wire has them, so the exact
// error objects of MCP System Info's JSON-RPC API can be compared).

export type ErrorObject = RawErrorObject;
export type Reply = RawReply<CallToolResult>;

export interface Client {
  server: McpServer;
  peer: RawPeer;
  /** The raw JSON-RPC reply to tools/call (no `arguments` when `args` is undefined). */
  call(name: string, args?: Record<string, unknown>): Promise<Reply>;
  /** The tools/call result; throws on a JSON-RPC error. */
  result(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The structuredContent of a successful (isError false) call. */
  structured<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** The JSON-RPC error of a call that must fail. */
  error(name: string, args?: Record<string, unknown>): Promise<ErrorObject>;
  /** Any JSON-RPC request. */
  request(method: string, params?: unknown): Promise<Reply>;
}

export function connect(server: McpServer, auth?: AuthInfo): Client {
  const peer = connectRaw(server, auth ? { auth } : {});
  const params = (name: string, args?: Record<string, unknown>) =>
    args === undefined ? { name } : { name, arguments: args };
  const result = (name: string, args?: Record<string, unknown>) =>
    peer.result<CallToolResult>('tools/call', params(name, args));

  async function structured<T>(name: string, args?: Record<string, unknown>): Promise<T> {
    const r = await result(name, args);
    if (r.isError) throw new Error(`${name} answered isError: ${JSON.stringify(r.content)}`);
    if (!r.structuredContent) throw new Error(`${name} answered without structuredContent`);
    return r.structuredContent as T;
  }

  return {
    server,
    peer,
    call: peer.callTool,
    result,
    structured,
    error: (name, args) => peer.error('tools/call', params(name, args)),
    request: (method, params) => peer.request<CallToolResult>(method, params),
  };
}

export interface ServeOptions {
  scopes?: Scope[];
  auth?: AuthInfo;
  now?: () => number;
}

/** A system-info server on `collectors` (no warm-up, fixed clock) and a client of it. */
export function serve(collectors: Collectors, options: ServeOptions = {}): Client {
  const { server } = createSystemInfoServer({
    collectors,
    scopes: options.scopes ?? ['core', 'sensitive'],
    sampler: { now: options.now ?? (() => NOW) },
    warm: false,
  });
  return connect(server, options.auth);
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0];
  if (block?.type !== 'text') throw new Error('first content block is not text');
  return block.text;
}

/** A strict ISO 8601 UTC timestamp, as Date#toISOString writes it. */
export function isIsoTimestamp(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) &&
    new Date(value).toISOString() === value
  );
}
