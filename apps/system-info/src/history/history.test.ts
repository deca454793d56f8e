import { describe, expect, it, vi } from 'vitest';
import { fastValues, History } from './history.js';
import { MAX_INSTANCES } from './metrics.js';
import type { ProcessSample } from './processes.js';
import type { FastReading, FastSource } from './sources.js';

const T0 = Date.parse('2026-06-01T00:00:00Z');

function reading(cpu: number, extra: Partial<FastReading> = {}): FastReading {
  return {
    cpu: { total: cpu, user: cpu / 2, system: cpu / 2, iowait: 0, cores: [cpu, cpu] },
    load: [1, 2, 3],
    memory: { totalBytes: 1000, availableBytes: 250, swapTotalBytes: 0, swapFreeBytes: 0 },
    memoryPressure: null,
    swapPagesPerSec: null,
    disk: null,
    net: new Map([['eth0', { rxBytesPerSec: 10, txBytesPerSec: 5 }]]),
    ...extra,
  };
}

/** A history on a fake source and clock: `next` is what the source reads next. */
function fake() {
  const clock = { now: T0 };
  const state: { next: FastReading; fail?: Error } = { next: reading(10) };
  const source: FastSource = {
    kind: 'procfs',
    read: async () => {
      if (state.fail) throw state.fail;
      return state.next;
    },
  };
  const procs: ProcessSample[] = [];
  const logger = { warn: vi.fn(), error: vi.fn(), debug: vi.fn(), info: vi.fn() };
  const history = new History({
    source,
    slow: {
      processes: async () => procs,
      filesystems: async () => [
        {
          filesystem: '/dev/sda1',
          type: 'ext4',
          mount: '/',
          size_bytes: 100,
          used_bytes: 93,
          available_bytes: 7,
          use_percent: 93,
          read_only: false,
        },
        {
          filesystem: 'proc',
          type: 'proc',
          mount: '/proc',
          size_bytes: 0,
          used_bytes: 0,
          available_bytes: 0,
          use_percent: null,
          read_only: false,
        },
      ],
    },
    now: () => clock.now,
    logger,
  });
  return { history, clock, state, procs, logger };
}

describe('History', () => {
  it('records every metric of a reading and answers queries on its clock', async () => {
    const { history, clock, state } = fake();
    for (const cpu of [10, 20, 30]) {
      state.next = reading(cpu);
      await history.readFast();
      clock.now += 1000;
    }
    clock.now -= 1000;
    expect(history.metrics().map((m) => m.metric)).toEqual([
      'cpu.percent',
      'cpu.user_percent',
      'cpu.system_percent',
      'cpu.iowait_percent',
      'cpu.percent:0',
      'cpu.percent:1',
      'load.1m',
      'load.5m',
      'load.15m',
      'memory.used_percent',
      'memory.used_bytes',
      'net.rx_bytes_per_sec',
      'net.tx_bytes_per_sec',
      'net.rx_bytes_per_sec:eth0',
      'net.tx_bytes_per_sec:eth0',
    ]);
    const q = history.query('cpu.percent', 5000, 1000, 'avg');
    expect(q?.points.map((p) => p.value)).toEqual([null, null, 10, 20, 30]);
    expect(history.query('memory.used_percent', 2000, 1000, 'max')?.points.at(-1)?.value).toBe(75);
    expect(history.query('no.such', 5000, 1000, 'avg')).toBeUndefined();
  });

  it('records filesystem usage per mount, skipping pseudo filesystems', async () => {
    const { history } = fake();
    await history.readDisks();
    expect(history.metrics().map((m) => m.metric)).toEqual(['disk.used_percent:/']);
  });

  it('tells listeners each reading', async () => {
    const { history } = fake();
    const heard: [number, number | undefined][] = [];
    const stop = history.onRecord((t, v) => heard.push([t, v.get('cpu.percent')]));
    await history.readFast();
    stop();
    await history.readFast();
    expect(heard).toEqual([[T0, 10]]);
  });

  it('keeps at most MAX_INSTANCES of a kind and counts the rest as dropped', async () => {
    const { history, state } = fake();
    const cores = Array.from({ length: MAX_INSTANCES.core + 6 }, () => 5);
    state.next = reading(5, { cpu: { total: 5, user: 5, system: 0, iowait: 0, cores } });
    await history.readFast();
    const held = history.metrics().filter((m) => m.metric.startsWith('cpu.percent:'));
    expect(held).toHaveLength(MAX_INSTANCES.core);
    expect(history.dropped).toBe(6);
  });

  it('never overlaps a reading with itself, and logs a failing reading once per streak', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { history, state, logger } = fake();
      let release: (() => void) | undefined;
      let reads = 0;
      const slow: FastSource = {
        kind: 'procfs',
        read: () => {
          reads++;
          return new Promise((resolve) => {
            release = () => resolve(state.next);
          });
        },
      };
      // A second history whose source never answers until released.
      const h2 = new History({
        source: slow,
        slow: {
          processes: async () => [],
          filesystems: async () => [],
        },
        now: () => T0,
        logger,
      });
      h2.start();
      vi.advanceTimersByTime(5000);
      expect(reads).toBe(1); // the first read never answered: the next four were skipped
      release?.();
      await vi.waitFor(() => expect(h2.metrics().length).toBeGreaterThan(0));
      h2.stop();

      state.fail = new Error('EACCES');
      history.start();
      for (let i = 0; i < 3; i++) {
        vi.advanceTimersByTime(1000);
        await Promise.resolve();
      }
      await vi.waitFor(() => expect(logger.warn).toHaveBeenCalledTimes(1));
      state.fail = undefined;
      vi.advanceTimersByTime(1000);
      await vi.waitFor(() =>
        expect(logger.info).toHaveBeenCalledWith({ reading: 'fast' }, 'history reading back'),
      );
      history.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('weighs its buffers: every series allocated whole, processes estimated', async () => {
    const { history } = fake();
    await history.readFast();
    const b = history.bytes();
    expect(b.seriesCount).toBe(history.metrics().length);
    expect(b.series).toBe(b.perSeries * b.seriesCount);
    expect(b.perSeries).toBe((600 + 2160 + 2880) * 26);
  });
});

describe('fastValues', () => {
  it('leaves out swap without swap, and what the machine cannot tell', () => {
    const v = fastValues(reading(1, { net: new Map() }));
    expect(v.has('swap.used_percent')).toBe(false);
    expect(v.has('memory.pressure_percent')).toBe(false);
    expect(v.has('net.rx_bytes_per_sec')).toBe(false);
    const w = fastValues(
      reading(1, {
        memory: { totalBytes: 100, availableBytes: 50, swapTotalBytes: 10, swapFreeBytes: 4 },
        memoryPressure: 2,
        swapPagesPerSec: 7,
        disk: { readBytesPerSec: 1, writeBytesPerSec: 2 },
      }),
    );
    expect(Object.fromEntries([...w].filter(([k]) => /swap|pressure|disk/.test(k)))).toEqual({
      'swap.used_percent': 60,
      'memory.pressure_percent': 2,
      'swap.pages_per_sec': 7,
      'disk.read_bytes_per_sec': 1,
      'disk.write_bytes_per_sec': 2,
    });
  });
});
