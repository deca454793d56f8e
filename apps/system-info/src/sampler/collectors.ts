import { execFile } from 'node:child_process';
import { access, open } from 'node:fs/promises';
import { loadavg } from 'node:os';
import si from 'systeminformation';
import { CollectorTimeoutError } from './errors.js';
import type {
  AuthLog,
  Battery,
  Container,
  CpuLoad,
  CpuStatic,
  Filesystem,
  Gpu,
  ListeningPort,
  Memory,
  NetInterface,
  NetStat,
  OsInfo,
  ProcessList,
  Temperature,
  TimeInfo,
  UserSession,
} from './shapes.js';

export type * from './shapes.js';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** `2026-11-22 06:11:03` (local time, as ps prints it) → ISO 8601 in UTC. */
export function localToIso(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return null;
  const date = new Date(value.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Run a collector with a deadline: `df` on a dead network mount never returns. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CollectorTimeoutError(what, ms)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export const DOCKER_SOCKET = '/var/run/docker.sock';
const AUTH_LOG_FILES = ['/var/log/auth.log', '/var/log/secure'];
const AUTH_LOG_MAX_LINES = 500;

async function tailFile(path: string, lines: number): Promise<string[]> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    // Bounded read: at most 256 KiB from the end, whatever the log's size.
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const all = buffer.toString('utf8').split('\n').filter(Boolean);
    return all.slice(-lines);
  } finally {
    await handle.close();
  }
}

function journal(lines: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'journalctl',
      [
        '--quiet',
        '--no-pager',
        '--output=short-iso',
        `--lines=${lines}`,
        'SYSLOG_FACILITY=4',
        'SYSLOG_FACILITY=10',
      ],
      { timeout: 5000, maxBuffer: 4 * 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve(stdout.split('\n').filter(Boolean))),
    );
  });
}

/** The real collectors, on systeminformation. */
export const systemCollectors = {
  cpuStatic: async (): Promise<CpuStatic> => {
    const c = await si.cpu();
    return {
      manufacturer: c.manufacturer,
      brand: c.brand,
      cores: c.cores,
      physical_cores: c.physicalCores,
      speed_ghz: num(c.speed) || null,
      speed_max_ghz: num(c.speedMax) || null,
    };
  },
  cpuLoad: async (): Promise<CpuLoad> => {
    const l = await si.currentLoad();
    const [one, five, fifteen] = loadavg();
    return {
      total_percent: num(l.currentLoad),
      user_percent: num(l.currentLoadUser),
      system_percent: num(l.currentLoadSystem),
      per_cpu: l.cpus.map((c, cpu) => ({ cpu, load_percent: num(c.load) })),
      load_average: [one ?? 0, five ?? 0, fifteen ?? 0],
    };
  },
  memory: async (): Promise<Memory> => {
    const m = await si.mem();
    return {
      total_bytes: m.total,
      used_bytes: m.active,
      free_bytes: m.free,
      available_bytes: m.available,
      swap_total_bytes: m.swaptotal,
      swap_used_bytes: m.swapused,
    };
  },
  processes: async (): Promise<ProcessList> => {
    const p = await si.processes();
    return {
      total: p.all,
      running: p.running,
      sleeping: p.sleeping,
      list: p.list.map((x) => ({
        pid: x.pid,
        ppid: x.parentPid,
        name: x.name,
        user: x.user,
        state: x.state,
        cpu_percent: num(x.cpu) ?? 0,
        memory_percent: num(x.mem) ?? 0,
        memory_rss_bytes: (num(x.memRss) ?? 0) * 1024,
        started: localToIso(x.started),
        command: [x.command, x.params].filter(Boolean).join(' '),
      })),
    };
  },
  time: async (): Promise<TimeInfo> => {
    const t = si.time();
    const uptime = Number(t.uptime);
    return {
      uptime_seconds: uptime,
      boot_time: new Date(Date.now() - uptime * 1000).toISOString(),
      timezone: t.timezoneName || t.timezone,
    };
  },
  osInfo: async (): Promise<OsInfo> => {
    const o = await si.osInfo();
    return {
      platform: o.platform,
      distro: o.distro,
      release: o.release,
      kernel: o.kernel,
      arch: o.arch,
      hostname: o.hostname,
    };
  },
  filesystems: async (): Promise<Filesystem[]> => {
    const list = await withTimeout(si.fsSize(), 5000, 'df');
    return list.map((f) => ({
      filesystem: f.fs,
      type: f.type,
      mount: f.mount,
      size_bytes: f.size,
      used_bytes: f.used,
      available_bytes: f.available,
      use_percent: num(f.use),
      read_only: f.rw === false,
    }));
  },
  netInterfaces: async (): Promise<NetInterface[]> => {
    const list = await si.networkInterfaces();
    return (Array.isArray(list) ? list : [list]).map((n) => ({
      name: n.iface,
      ip4: str(n.ip4),
      ip6: str(n.ip6),
      mac: str(n.mac),
      internal: n.internal,
      operstate: n.operstate,
      // systeminformation says -1 for an unknown link speed.
      speed_mbps: (num(n.speed) ?? -1) >= 0 ? num(n.speed) : null,
    }));
  },
  netStats: async (): Promise<NetStat[]> => {
    const list = await si.networkStats('*');
    return list.map((n) => ({
      name: n.iface,
      rx_bytes: n.rx_bytes,
      tx_bytes: n.tx_bytes,
      rx_bytes_per_sec: num(n.rx_sec),
      tx_bytes_per_sec: num(n.tx_sec),
    }));
  },
  listening: async (): Promise<ListeningPort[]> => {
    const list = await si.networkConnections();
    return list
      .filter(
        (c) => c.state === 'LISTEN' || (c.protocol.startsWith('udp') && c.peerAddress === '*'),
      )
      .map((c) => ({
        protocol: c.protocol,
        address: c.localAddress,
        port: Number(c.localPort),
        pid: num(c.pid) || null,
        process: str(c.process),
      }));
  },
  temperature: async (): Promise<Temperature> => {
    const t = await si.cpuTemperature();
    return {
      main_celsius: num(t.main),
      max_celsius: num(t.max),
      cores_celsius: t.cores.filter((c) => Number.isFinite(c)),
    };
  },
  battery: async (): Promise<Battery> => {
    const b = await si.battery();
    if (!b.hasBattery) {
      return {
        has_battery: false,
        percent: null,
        is_charging: null,
        ac_connected: b.acConnected,
        time_remaining_minutes: null,
      };
    }
    return {
      has_battery: true,
      percent: num(b.percent),
      is_charging: b.isCharging,
      ac_connected: b.acConnected,
      time_remaining_minutes: num(b.timeRemaining),
    };
  },
  gpus: async (): Promise<Gpu[]> => {
    const g = await si.graphics();
    return g.controllers.map((c) => ({ vendor: c.vendor, model: c.model, vram_mb: num(c.vram) }));
  },
  containers: async (): Promise<Container[] | null> => {
    // systeminformation answers [] both for "no containers" and "no Docker": tell them apart.
    try {
      await access(DOCKER_SOCKET);
    } catch {
      return null;
    }
    const list = await si.dockerContainers(true);
    return list.map((c) => ({
      id: c.id.slice(0, 12),
      name: c.name,
      image: c.image,
      state: c.state,
      started: c.started ? new Date(c.started * 1000).toISOString() : null,
    }));
  },
  users: async (): Promise<UserSession[]> => {
    const list = await si.users();
    return list.map((u) => ({
      user: u.user,
      tty: u.tty,
      login_time: u.date ? `${u.date}${u.time ? ` ${u.time}` : ''}` : null,
      from: str(u.ip),
    }));
  },
  authLog: async (): Promise<AuthLog> => {
    for (const file of AUTH_LOG_FILES) {
      try {
        return { source: file, lines: await tailFile(file, AUTH_LOG_MAX_LINES) };
      } catch {
        // not there or not readable: try the next source
      }
    }
    try {
      return { source: 'journald', lines: await journal(AUTH_LOG_MAX_LINES) };
    } catch {
      return { source: null, lines: [] };
    }
  },
};

/** The collectors by key: each a function that reads one kind of system information. */
export type Collectors = typeof systemCollectors;

/** How long each collector's sample stays fresh: `static` forever, `semi` 30 s, `dynamic` 1.5 s. */
export const TIERS: Record<keyof Collectors, 'static' | 'semi' | 'dynamic'> = {
  cpuStatic: 'static',
  osInfo: 'static',
  gpus: 'static',
  cpuLoad: 'dynamic',
  memory: 'dynamic',
  processes: 'dynamic',
  netStats: 'dynamic',
  time: 'dynamic',
  filesystems: 'semi',
  netInterfaces: 'semi',
  listening: 'semi',
  temperature: 'semi',
  battery: 'semi',
  containers: 'semi',
  users: 'semi',
  authLog: 'semi',
};

/** The rate-based collectors: warmed at start so the first request already gets real rates. */
export const WARM_KEYS: (keyof Collectors)[] = [
  'cpuStatic',
  'cpuLoad',
  'processes',
  'netStats',
  'osInfo',
];
