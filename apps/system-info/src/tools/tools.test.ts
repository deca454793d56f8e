import { describe, expect, it } from 'vitest';
import {
  bareVm,
  DF_TIMEOUT,
  diskTimeout,
  failing,
  firstCallMachine,
  isIsoTimestamp,
  type MachineValues,
  NOW_ISO,
  normalAuthLines,
  normalMachine,
  normalValues,
  PERMISSION_DENIED,
  SECRET_COMMAND_REDACTED,
  SECRET_PID,
  serve,
  textOf,
  withCollector,
  withValue,
} from '../../test/fixtures.js';
import type { Collectors } from '../sampler/collectors.js';

const GiB = 1024 ** 3;

interface Proc {
  pid: number;
  ppid: number;
  name: string;
  user: string;
  state: string;
  cpu_percent: number;
  memory_percent: number;
  memory_rss_bytes: number;
  started: string | null;
  command?: string;
}

interface Processes {
  processes: Proc[];
  total: number;
  running: number;
  sort_by: string;
  sampled_at: string;
}

interface Snapshot {
  cpu: {
    percent: number | null;
    cores: number;
    load_average: { one: number; five: number; fifteen: number };
  };
  memory: Record<string, unknown> & { pressure: string; used_percent: number | null };
  top_cpu: Proc[];
  top_memory: Proc[];
  full_disks: { mount: string; use_percent: number; available_bytes: number }[];
  findings: string[];
  sampled_at: string;
}

const ALL_TOOLS = [
  'get_cpu_info',
  'get_memory_info',
  'get_processes',
  'get_uptime',
  'get_disk_info',
  'get_network_info',
  'get_os_info',
  'get_listening_ports',
  'get_temperature',
  'get_battery',
  'get_gpu_info',
  'get_docker_containers',
  'get_system_snapshot',
  'get_auth_logs',
  'get_user_sessions',
];

const NOTHING_STANDS_OUT = 'nothing stands out: CPU, memory and disks are within normal ranges';

const pids = (list: { pid: number }[]) => list.map((p) => p.pid);

describe('tools/list', () => {
  it('lists the 15 readings, measure_system and the four history tools (test/history-tools.test.ts)', async () => {
    const client = serve(normalMachine());
    const reply = await client.request('tools/list');
    const tools = (reply.result as unknown as { tools: { name: string }[] }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        ...ALL_TOOLS,
        'measure_system',
        'get_metric_history',
        'top_consumers',
        'find_process_by_port',
        'get_alerts',
      ].sort(),
    );
  });
});

describe('every tool', () => {
  it.each(ALL_TOOLS)(
    '%s answers structuredContent with sampled_at, mirrored in a JSON text block',
    async (name) => {
      const client = serve(normalMachine());
      const result = await client.result(name);
      expect(result.isError).toBe(false);
      const structured = result.structuredContent as Record<string, unknown>;
      expect(isIsoTimestamp(structured.sampled_at)).toBe(true);
      expect(structured.sampled_at).toBe(NOW_ISO);
      const text = JSON.parse(textOf(result)) as unknown;
      // get_processes' text block is the list itself; every other tool mirrors structuredContent.
      expect(text).toEqual(name === 'get_processes' ? structured.processes : structured);
    },
  );

  it.each(ALL_TOOLS)('%s answers sampled_at as an ISO string on a bare VM too', async (name) => {
    const client = serve(bareVm());
    const structured = await client.structured(name);
    expect(isIsoTimestamp(structured.sampled_at)).toBe(true);
  });
});

describe('get_cpu_info', () => {
  it('answers the fixture rounded to one decimal, without per_cpu by default', async () => {
    const cpu = await serve(normalMachine()).structured('get_cpu_info');
    expect(cpu).toEqual({
      model: 'Xeon Gold 6338',
      manufacturer: 'Intel',
      cores: 4,
      physical_cores: 2,
      speed_ghz: 2,
      speed_max_ghz: 3.2,
      cpu_percent: 23.5,
      user_percent: 15.1,
      system_percent: 8.4,
      load_average: { one: 1.25, five: 0.9, fifteen: 0.7 },
      sampled_at: NOW_ISO,
    });
  });

  it('per_cpu: true adds the per-CPU breakdown', async () => {
    const cpu = await serve(normalMachine()).structured('get_cpu_info', { per_cpu: true });
    expect(cpu.per_cpu).toEqual([
      { cpu: 0, load_percent: 22 },
      { cpu: 1, load_percent: 25.5 },
      { cpu: 2, load_percent: 20 },
      { cpu: 3, load_percent: 26.3 },
    ]);
  });

  it('first call: rates stay null, not 0', async () => {
    const cpu = await serve(firstCallMachine()).structured('get_cpu_info', { per_cpu: true });
    expect(cpu.cpu_percent).toBeNull();
    expect(cpu.user_percent).toBeNull();
    expect(cpu.system_percent).toBeNull();
    expect(cpu.per_cpu).toEqual([0, 1, 2, 3].map((n) => ({ cpu: n, load_percent: null })));
    expect(cpu.load_average).toEqual({ one: 1.25, five: 0.9, fifteen: 0.7 });
  });

  it('invalid per_cpu is a tool error naming the field', async () => {
    const result = await serve(normalMachine()).result('get_cpu_info', { per_cpu: 'yes' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('per_cpu');
  });
});

describe('get_memory_info', () => {
  it('answers bytes, percentages and low pressure', async () => {
    const mem = await serve(normalMachine()).structured('get_memory_info');
    expect(mem).toEqual({
      total_bytes: 16 * GiB,
      used_bytes: 6 * GiB,
      free_bytes: 2 * GiB,
      available_bytes: 8 * GiB,
      used_percent: 50,
      swap_total_bytes: 2 * GiB,
      swap_used_bytes: 0.25 * GiB,
      swap_used_percent: 12.5,
      pressure: 'low',
      sampled_at: NOW_ISO,
    });
  });

  it.each([
    [3, 'moderate', 81.3],
    [1, 'high', 93.8],
  ])('%i GiB of 16 available is %s pressure', async (available, pressure, used) => {
    const base = normalValues().memory;
    const client = serve(
      withValue(normalMachine(), 'memory', { ...base, available_bytes: available * GiB }),
    );
    const mem = await client.structured('get_memory_info');
    expect(mem.pressure).toBe(pressure);
    expect(mem.used_percent).toBe(used);
  });

  it('no swap: swap_used_percent is null', async () => {
    const base = normalValues().memory;
    const client = serve(
      withValue(normalMachine(), 'memory', { ...base, swap_total_bytes: 0, swap_used_bytes: 0 }),
    );
    expect((await client.structured('get_memory_info')).swap_used_percent).toBeNull();
  });
});

describe('get_processes', () => {
  const fixture = normalValues().processes.list;

  it('defaults: top 10 by CPU, ties by pid, no command lines', async () => {
    const result = await serve(normalMachine()).result('get_processes');
    const s = result.structuredContent as unknown as Processes;
    expect(pids(s.processes)).toEqual([1024, 1100, 880, 1400, 1200, 1300, 1700, 1800, 881, 1]);
    expect(s.total).toBe(214);
    expect(s.running).toBe(3);
    expect(s.sort_by).toBe('cpu');
    expect(s.sampled_at).toBe(NOW_ISO);
    for (const p of s.processes) expect(p).not.toHaveProperty('command');
    // The JSON text block is the processes array itself.
    expect(JSON.parse(textOf(result))).toEqual(s.processes);
  });

  it('rounds percentages to one decimal and keeps the other fields', async () => {
    const s = await serve(normalMachine()).structured<Processes>('get_processes', { top: 1 });
    const source = fixture.find((p) => p.pid === 1024);
    expect(s.processes).toEqual([
      {
        pid: 1024,
        ppid: 1,
        name: 'node',
        user: 'app',
        state: 'running',
        cpu_percent: 35.7,
        memory_percent: source?.memory_percent,
        memory_rss_bytes: 600 * 1024 * 1024,
        started: '2026-01-01 00:00:00',
      },
    ]);
  });

  it.each([
    ['cpu', [1024, 1100, 880, 1400, 1200, 1300, 1700, 1800, 881, 1, 412, 1500, 1600]],
    ['memory', [1100, 880, 1400, 1024, 1300, 1700, 1800, 1200, 881, 1, 412, 1500, 1600]],
    ['pid', [1, 412, 880, 881, 1024, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800]],
    ['name', [1500, 1400, 1800, 1600, 1700, 1100, 1200, 1024, 880, 881, 1300, 412, 1]],
  ])('sort_by %s', async (sort_by, expected) => {
    const s = await serve(normalMachine()).structured<Processes>('get_processes', {
      sort_by,
      top: 100,
    });
    expect(s.sort_by).toBe(sort_by);
    expect(pids(s.processes)).toEqual(expected);
  });

  it('sort orders agree with the fixture values', async () => {
    const client = serve(normalMachine());
    const byCpu = await client.structured<Processes>('get_processes', { top: 100 });
    for (let i = 1; i < byCpu.processes.length; i++) {
      const [a, b] = [byCpu.processes[i - 1], byCpu.processes[i]];
      if (!a || !b) throw new Error('missing process');
      expect(a.cpu_percent >= b.cpu_percent).toBe(true);
    }
    const byMem = await client.structured<Processes>('get_processes', {
      top: 100,
      sort_by: 'memory',
    });
    const rss = byMem.processes.map((p) => p.memory_rss_bytes);
    expect(rss).toEqual([...rss].sort((a, b) => b - a));
    expect(byMem.processes).toHaveLength(fixture.length);
  });

  it('top and its alias limit cap the list; top wins over limit', async () => {
    const client = serve(normalMachine());
    expect(
      (await client.structured<Processes>('get_processes', { top: 3 })).processes,
    ).toHaveLength(3);
    expect(
      (await client.structured<Processes>('get_processes', { limit: 2 })).processes,
    ).toHaveLength(2);
    const both = await client.structured<Processes>('get_processes', { top: 4, limit: 1 });
    expect(pids(both.processes)).toEqual([1024, 1100, 880, 1400]);
    const many = await client.structured<Processes>('get_processes', { top: 1000 });
    expect(many.processes).toHaveLength(13);
  });

  it('include_cmdline: false omits command, true includes it redacted', async () => {
    const client = serve(normalMachine());
    const off = await client.result('get_processes', { include_cmdline: false, top: 100 });
    const offList = (off.structuredContent as unknown as Processes).processes;
    for (const p of offList) expect(p).not.toHaveProperty('command');
    expect(textOf(off)).not.toContain('hunter2');

    const on = await client.result('get_processes', { include_cmdline: true, top: 100 });
    const onList = (on.structuredContent as unknown as Processes).processes;
    const secret = onList.find((p) => p.pid === SECRET_PID);
    expect(secret?.command).toBe(SECRET_COMMAND_REDACTED);
    expect(onList.find((p) => p.pid === 1024)?.command).toBe('node server.js --port 3000');
    for (const p of onList) expect(typeof p.command).toBe('string');
    const text = textOf(on);
    for (const leaked of ['hunter2', 'u:pw@', 'TOKEN=abc']) expect(text).not.toContain(leaked);
    expect(JSON.parse(text)).toEqual(onList);
  });

  it('first call: per-process cpu is 0 and the CPU order falls back to pid', async () => {
    const s = await serve(firstCallMachine()).structured<Processes>('get_processes', { top: 100 });
    expect(s.processes.every((p) => p.cpu_percent === 0)).toBe(true);
    expect(pids(s.processes)).toEqual([...pids(fixture)].sort((a, b) => a - b));
  });

  it.each([
    [{ top: 0 }, 'top'],
    [{ top: 'x' }, 'top'],
    [{ top: 1.5 }, 'top'],
    [{ top: 1001 }, 'top'],
    [{ limit: 0 }, 'limit'],
    [{ sort_by: 'color' }, 'sort_by'],
    [{ include_cmdline: 'yes' }, 'include_cmdline'],
  ])('invalid arguments %j: isError naming %s', async (args, field) => {
    const reply = await serve(normalMachine()).call('get_processes', args);
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(true);
    const text = reply.result ? textOf(reply.result) : '';
    expect(text).toContain('get_processes');
    expect(text).toContain(field);
  });
});

describe('get_uptime', () => {
  it('answers seconds, a human duration, boot time and time zone', async () => {
    expect(await serve(normalMachine()).structured('get_uptime')).toEqual({
      uptime_seconds: 93_784,
      uptime_human: '1d 2h 3m',
      boot_time: '2026-01-01T01:01:01.000Z',
      timezone: 'Europe/Berlin',
      sampled_at: NOW_ISO,
    });
  });

  it.each([
    [42, '42s'],
    [3600, '1h'],
    [90_061, '1d 1h 1m'],
  ])('uptime %i s is %s', async (seconds, human) => {
    const time = { ...normalValues().time, uptime_seconds: seconds };
    const up = await serve(withValue(normalMachine(), 'time', time)).structured('get_uptime');
    expect(up.uptime_human).toBe(human);
  });
});

describe('get_disk_info', () => {
  it('answers every filesystem, marking network ones', async () => {
    const disks = await serve(normalMachine()).structured<{
      filesystems: (MachineValues['filesystems'][number] & { network: boolean })[];
      unavailable_reason: string | null;
    }>('get_disk_info');
    expect(disks.unavailable_reason).toBeNull();
    expect(disks.filesystems).toEqual(
      normalValues().filesystems.map((f) => ({ ...f, network: f.type === 'nfs4' })),
    );
  });

  it('df timing out is an answer: filesystems null with the reason', async () => {
    const reply = await serve(diskTimeout(normalMachine())).call('get_disk_info');
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(false);
    const s = reply.result?.structuredContent as Record<string, unknown>;
    expect(s.filesystems).toBeNull();
    expect(s.unavailable_reason).toBe(DF_TIMEOUT);
    expect(isIsoTimestamp(s.sampled_at)).toBe(true);
  });

  it('any other failure is a query execution error', async () => {
    const err = await serve(failing(normalMachine(), 'filesystems')).error('get_disk_info');
    expect(err.code).toBe(-32000);
    expect(err.message).toBe(`Query execution error: ${PERMISSION_DENIED}`);
  });

  it('a timeout is told by its class, not by a message that reads like one', async () => {
    const err = await serve(failing(normalMachine(), 'filesystems', DF_TIMEOUT)).error(
      'get_disk_info',
    );
    expect(err.code).toBe(-32000);
    expect(err.message).toBe(`Query execution error: ${DF_TIMEOUT}`);
  });
});

describe('get_network_info', () => {
  it('joins interfaces with their counters and rounds rates to whole bytes', async () => {
    const net = await serve(normalMachine()).structured<{
      interfaces: Record<string, unknown>[];
    }>('get_network_info');
    expect(net.interfaces).toEqual([
      {
        ...normalValues().netInterfaces[0],
        rx_bytes: 5000,
        tx_bytes: 5000,
        rx_bytes_per_sec: 12,
        tx_bytes_per_sec: 12,
      },
      {
        ...normalValues().netInterfaces[1],
        rx_bytes: 123_456_789,
        tx_bytes: 98_765_432,
        rx_bytes_per_sec: 2049,
        tx_bytes_per_sec: 512,
      },
      {
        ...normalValues().netInterfaces[2],
        rx_bytes: null,
        tx_bytes: null,
        rx_bytes_per_sec: null,
        tx_bytes_per_sec: null,
      },
    ]);
  });

  it('first call: rates stay null while byte counters are real', async () => {
    const net = await serve(firstCallMachine()).structured<{
      interfaces: Record<string, unknown>[];
    }>('get_network_info');
    const eth0 = net.interfaces.find((i) => i.name === 'eth0');
    expect(eth0?.rx_bytes).toBe(123_456_789);
    expect(eth0?.rx_bytes_per_sec).toBeNull();
    expect(eth0?.tx_bytes_per_sec).toBeNull();
    for (const i of net.interfaces) {
      expect(i.rx_bytes_per_sec).toBeNull();
      expect(i.tx_bytes_per_sec).toBeNull();
    }
  });
});

describe('get_os_info', () => {
  it('answers the fixture', async () => {
    expect(await serve(normalMachine()).structured('get_os_info')).toEqual({
      ...normalValues().osInfo,
      sampled_at: NOW_ISO,
    });
  });
});

describe('get_listening_ports', () => {
  it('sorts by port, then protocol', async () => {
    const s = await serve(normalMachine()).structured<{
      ports: { protocol: string; port: number; pid: number | null }[];
    }>('get_listening_ports');
    expect(s.ports.map((p) => `${p.port}/${p.protocol}`)).toEqual([
      '22/tcp',
      '22/tcp6',
      '53/tcp',
      '53/udp',
      '5432/tcp',
    ]);
    expect(s.ports.find((p) => p.port === 5432)?.pid).toBe(SECRET_PID);
    expect(s.ports.find((p) => p.protocol === 'udp')?.pid).toBeNull();
  });
});

describe('get_temperature', () => {
  it('answers the sensors', async () => {
    expect(await serve(normalMachine()).structured('get_temperature')).toEqual({
      main_celsius: 48,
      max_celsius: 62,
      cores_celsius: [47, 49],
      unavailable_reason: null,
      sampled_at: NOW_ISO,
    });
  });

  it('bare VM: null values with the reason', async () => {
    const t = await serve(bareVm()).structured('get_temperature');
    expect(t.main_celsius).toBeNull();
    expect(t.max_celsius).toBeNull();
    expect(t.cores_celsius).toEqual([]);
    expect(t.unavailable_reason).toEqual(expect.stringMatching(/\S/));
  });

  it('core sensors without a main value are still an answer', async () => {
    const client = serve(
      withValue(normalMachine(), 'temperature', {
        main_celsius: null,
        max_celsius: null,
        cores_celsius: [51],
      }),
    );
    expect((await client.structured('get_temperature')).unavailable_reason).toBeNull();
  });
});

describe('get_battery', () => {
  it('answers the battery', async () => {
    expect(await serve(normalMachine()).structured('get_battery')).toEqual({
      ...normalValues().battery,
      unavailable_reason: null,
      sampled_at: NOW_ISO,
    });
  });

  it('bare VM: no battery, null values with the reason', async () => {
    const b = await serve(bareVm()).structured('get_battery');
    expect(b.has_battery).toBe(false);
    expect(b.percent).toBeNull();
    expect(b.is_charging).toBeNull();
    expect(b.time_remaining_minutes).toBeNull();
    expect(b.unavailable_reason).toEqual(expect.stringMatching(/\S/));
  });
});

describe('get_gpu_info', () => {
  it('answers the controllers', async () => {
    expect(await serve(normalMachine()).structured('get_gpu_info')).toEqual({
      gpus: normalValues().gpus,
      unavailable_reason: null,
      sampled_at: NOW_ISO,
    });
  });

  it('bare VM: no GPU, with the reason', async () => {
    const g = await serve(bareVm()).structured('get_gpu_info');
    expect(g.gpus).toEqual([]);
    expect(g.unavailable_reason).toEqual(expect.stringMatching(/\S/));
  });
});

describe('get_docker_containers', () => {
  it('answers the containers', async () => {
    expect(await serve(normalMachine()).structured('get_docker_containers')).toEqual({
      containers: normalValues().containers,
      unavailable_reason: null,
      sampled_at: NOW_ISO,
    });
  });

  it('Docker without containers is an empty list, not unavailable', async () => {
    const client = serve(withValue(normalMachine(), 'containers', []));
    const c = await client.structured('get_docker_containers');
    expect(c.containers).toEqual([]);
    expect(c.unavailable_reason).toBeNull();
  });

  it('bare VM: no Docker, containers null with the reason', async () => {
    const c = await serve(bareVm()).structured('get_docker_containers');
    expect(c.containers).toBeNull();
    expect(c.unavailable_reason).toEqual(expect.stringMatching(/\S/));
  });
});

describe('get_user_sessions', () => {
  it('answers the sessions', async () => {
    expect(await serve(normalMachine()).structured('get_user_sessions')).toEqual({
      sessions: normalValues().users,
      sampled_at: NOW_ISO,
    });
  });
});

describe('get_auth_logs', () => {
  const all = normalAuthLines();

  it('answers the last 50 lines by default, redacted', async () => {
    const log = await serve(normalMachine()).structured<{
      source: string | null;
      lines: string[];
      unavailable_reason: string | null;
    }>('get_auth_logs');
    expect(log.source).toBe('/var/log/auth.log');
    expect(log.unavailable_reason).toBeNull();
    expect(log.lines).toHaveLength(50);
    // Ordinary lines pass unchanged, in order, ending with the newest.
    expect(log.lines.slice(0, 47)).toEqual(all.slice(10, 57));
    expect(log.lines.at(-1)).toContain('postgres://app:[REDACTED]@db/prod');
    expect(log.lines.join('\n')).not.toMatch(/hunter2|s3cr3t/);
  });

  it('lines limits the count to the newest lines', async () => {
    const log = await serve(normalMachine()).structured<{ lines: string[] }>('get_auth_logs', {
      lines: 3,
    });
    expect(log.lines).toEqual([
      all[57],
      'Jan  2 08:58:00 web-01 sudo: alice : TTY=pts/0 ; USER=root ; COMMAND=/usr/bin/mysql --password=[REDACTED] -u root',
      'Jan  2 08:59:00 web-01 sudo: bob : TTY=pts/1 ; USER=root ; COMMAND=/usr/bin/psql postgres://app:[REDACTED]@db/prod',
    ]);
    const one = await serve(normalMachine()).structured<{ lines: string[] }>('get_auth_logs', {
      lines: 1,
    });
    expect(one.lines).toHaveLength(1);
    const max = await serve(normalMachine()).structured<{ lines: string[] }>('get_auth_logs', {
      lines: 500,
    });
    expect(max.lines).toHaveLength(all.length);
  });

  it.each([0, 501, 'ten', 2.5])(
    'invalid lines %j is a tool error naming the field',
    async (lines) => {
      const result = await serve(normalMachine()).result('get_auth_logs', { lines });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('lines');
    },
  );

  it('bare VM: no auth log source, with the reason', async () => {
    const log = await serve(bareVm()).structured('get_auth_logs');
    expect(log.source).toBeNull();
    expect(log.lines).toEqual([]);
    expect(log.unavailable_reason).toEqual(expect.stringMatching(/\S/));
  });
});

describe('a failing collector', () => {
  it.each<[string, keyof Collectors]>([
    ['get_cpu_info', 'cpuStatic'],
    ['get_cpu_info', 'cpuLoad'],
    ['get_memory_info', 'memory'],
    ['get_processes', 'processes'],
    ['get_uptime', 'time'],
    ['get_disk_info', 'filesystems'],
    ['get_network_info', 'netInterfaces'],
    ['get_network_info', 'netStats'],
    ['get_os_info', 'osInfo'],
    ['get_listening_ports', 'listening'],
    ['get_temperature', 'temperature'],
    ['get_battery', 'battery'],
    ['get_gpu_info', 'gpus'],
    ['get_docker_containers', 'containers'],
    ['get_system_snapshot', 'cpuStatic'],
    ['get_system_snapshot', 'cpuLoad'],
    ['get_system_snapshot', 'memory'],
    ['get_system_snapshot', 'processes'],
    ['get_auth_logs', 'authLog'],
    ['get_user_sessions', 'users'],
  ])('%s with %s throwing answers -32000 with the cause', async (tool, key) => {
    const reply = await serve(failing(normalMachine(), key)).call(tool);
    expect(reply).not.toHaveProperty('result');
    expect(reply.error?.code).toBe(-32000);
    expect(reply.error?.message.startsWith('Query execution error: ')).toBe(true);
    expect(reply.error?.message).toContain(PERMISSION_DENIED);
    expect(reply.error?.data).toEqual({ collector: key });
  });

  it('is not cached: the next call after a recovery answers', async () => {
    let fail = true;
    const base = normalMachine();
    const client = serve(
      withCollector(base, 'memory', async () => {
        if (fail) throw new Error(PERMISSION_DENIED);
        return base.memory();
      }),
    );
    expect((await client.error('get_memory_info')).code).toBe(-32000);
    fail = false;
    expect((await client.structured('get_memory_info')).total_bytes).toBe(16 * GiB);
  });
});

describe('get_system_snapshot', () => {
  it('a healthy machine: nothing stands out', async () => {
    const s = await serve(normalMachine()).structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual([NOTHING_STANDS_OUT]);
    expect(s.cpu).toEqual({
      percent: 23.5,
      cores: 4,
      load_average: { one: 1.25, five: 0.9, fifteen: 0.7 },
    });
    expect(s.memory.pressure).toBe('low');
    expect(s.memory.used_percent).toBe(50);
    // The full read-only snap image is not a full disk.
    expect(s.full_disks).toEqual([]);
    expect(pids(s.top_cpu)).toEqual([1024, 1100, 880, 1400, 1200]);
    expect(pids(s.top_memory)).toEqual([1100, 880, 1400, 1024, 1300]);
    for (const p of [...s.top_cpu, ...s.top_memory]) expect(p).not.toHaveProperty('command');
    expect(s.sampled_at).toBe(NOW_ISO);
  });

  it('a machine in trouble: every finding, most pressing first', async () => {
    const v = normalValues();
    const busy = normalMachine({
      cpuLoad: { ...v.cpuLoad, total_percent: 95.04, load_average: [6.5, 5, 4] },
      memory: { ...v.memory, available_bytes: 1 * GiB, swap_used_bytes: 1.5 * GiB },
      processes: {
        ...v.processes,
        list: [
          ...v.processes.list,
          {
            pid: 4242,
            ppid: 1,
            name: 'stress',
            user: 'root',
            state: 'running',
            cpu_percent: 97.5,
            memory_percent: 0.1,
            memory_rss_bytes: 1024 * 1024,
            started: null,
            command: 'stress --cpu 4',
          },
        ],
      },
      filesystems: v.filesystems.map((f) => (f.mount === '/' ? { ...f, use_percent: 93 } : f)),
    });
    const s = await serve(busy).structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual([
      'load average 6.5 is well above the 4 CPU cores: processes are waiting for CPU',
      'CPU is 95 % busy',
      'stress (pid 4242) uses 97.5 % CPU',
      'memory pressure is high: 93.8 % in use',
      '75 % of swap is in use',
      '/ is 93 % full',
    ]);
    expect(s.cpu.percent).toBe(95);
    expect(s.full_disks).toEqual([{ mount: '/', use_percent: 93, available_bytes: 55 * GiB }]);
    expect(s.top_cpu[0]?.pid).toBe(4242);
  });

  it.each([
    [4, []],
    [4.5, ['load average 4.5 is above the 4 CPU cores']],
    [6, ['load average 6 is above the 4 CPU cores']],
    [6.01, ['load average 6.01 is well above the 4 CPU cores: processes are waiting for CPU']],
  ])('load average %d on 4 cores', async (one, expected) => {
    const v = normalValues();
    const client = serve(normalMachine({ cpuLoad: { ...v.cpuLoad, load_average: [one, 1, 1] } }));
    const s = await client.structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual(expected.length > 0 ? expected : [NOTHING_STANDS_OUT]);
  });

  it.each([
    [89.94, []],
    [90, ['CPU is 90 % busy']],
    [99.99, ['CPU is 100 % busy']],
  ])('CPU at %d %%', async (total, expected) => {
    const v = normalValues();
    const client = serve(normalMachine({ cpuLoad: { ...v.cpuLoad, total_percent: total } }));
    const s = await client.structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual(expected.length > 0 ? expected : [NOTHING_STANDS_OUT]);
  });

  it.each([
    [1, 'memory pressure is high: 93.8 % in use'],
    [3, 'memory pressure is moderate: 81.3 % in use'],
  ])('%i GiB of 16 available is a memory finding', async (available, finding) => {
    const v = normalValues();
    const client = serve(
      normalMachine({ memory: { ...v.memory, available_bytes: available * GiB } }),
    );
    const s = await client.structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual([finding]);
  });

  it.each([
    [89.9, false],
    [90, true],
    [100, true],
  ])('a writable disk at %d %% full: finding %s', async (use, full) => {
    const v = normalValues();
    const client = serve(
      normalMachine({
        filesystems: v.filesystems.map((f) =>
          f.mount === '/mnt/nas' ? { ...f, use_percent: use } : f,
        ),
      }),
    );
    const s = await client.structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual(full ? [`/mnt/nas is ${use} % full`] : [NOTHING_STANDS_OUT]);
    expect(s.full_disks.map((d) => d.mount)).toEqual(full ? ['/mnt/nas'] : []);
  });

  it('first call: CPU percent stays null and raises no CPU finding', async () => {
    const reply = await serve(firstCallMachine()).call('get_system_snapshot');
    const s = reply.result?.structuredContent as unknown as Snapshot;
    expect(s.cpu.percent).toBeNull();
    expect(s.top_cpu.every((p) => p.cpu_percent === 0)).toBe(true);
    expect(s.findings).toEqual([NOTHING_STANDS_OUT]);
  });

  it('df timing out: the snapshot still answers, with a finding about disks', async () => {
    const reply = await serve(diskTimeout(normalMachine())).call('get_system_snapshot');
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(false);
    const s = reply.result?.structuredContent as unknown as Snapshot;
    expect(s.full_disks).toEqual([]);
    expect(s.findings).toEqual([
      'disk usage could not be read in time (a network mount may be hung)',
    ]);
    expect(s.cpu.percent).toBe(23.5);
    expect(s.sampled_at).toBe(NOW_ISO);
  });

  it('df timing out on a busy machine: disks come after the other findings', async () => {
    const v = normalValues();
    const client = serve(
      diskTimeout(normalMachine({ cpuLoad: { ...v.cpuLoad, total_percent: 97 } })),
    );
    const s = await client.structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual([
      'CPU is 97 % busy',
      'disk usage could not be read in time (a network mount may be hung)',
    ]);
  });

  it('a bare VM is no finding in itself', async () => {
    const s = await serve(bareVm()).structured<Snapshot>('get_system_snapshot');
    expect(s.findings).toEqual([NOTHING_STANDS_OUT]);
  });
});

describe('get_system_snapshot when disks fail for another reason', () => {
  it('names the cause instead of blaming a timeout', async () => {
    const s = await serve(failing(normalMachine(), 'filesystems')).structured<Snapshot>(
      'get_system_snapshot',
    );
    expect(s.findings).toEqual(['disk usage could not be read: EACCES: permission denied']);
  });
});
