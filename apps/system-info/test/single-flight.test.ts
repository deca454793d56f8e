/** With the real systeminformation collectors: one process scan for concurrent callers. */
import { describe, expect, it } from 'vitest';
import { type Collectors, systemCollectors, WARM_KEYS } from '../src/sampler/collectors.js';
import { createSystemInfoServer } from '../src/server.js';
import { connect, isIsoTimestamp } from './fixtures.js';

describe('single flight on the real collectors', () => {
  it('20 concurrent get_processes calls cause exactly one process scan', async () => {
    let scans = 0;
    const counting: Collectors = {
      ...systemCollectors,
      processes: async () => {
        scans++;
        return systemCollectors.processes();
      },
    };
    const { server, sampler } = createSystemInfoServer({ collectors: counting, warm: false });
    const client = connect(server);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.structured('get_processes', { top: 5 })),
    );
    expect(scans).toBe(1);
    expect(sampler.calls.get('processes')).toBe(1);
    const stamps = new Set(results.map((r) => r.sampled_at));
    expect(stamps.size).toBe(1);
    expect(isIsoTimestamp([...stamps][0])).toBe(true);
    for (const r of results) {
      expect(Array.isArray(r.processes)).toBe(true);
      expect((r.processes as unknown[]).length).toBeGreaterThan(0);
      expect(r.processes).toEqual(results[0]?.processes);
    }
  });

  it('get_cpu_info answers cpu_percent as a number between 0 and 100 after warm-up', async () => {
    const { server, sampler } = createSystemInfoServer({
      collectors: systemCollectors,
      // Take a fresh CPU sample on the call, measured against the warm-up baseline.
      sampler: { ttlMs: { dynamic: 0 } },
    });
    await sampler.warm(WARM_KEYS);
    const cpu = await connect(server).structured('get_cpu_info', { per_cpu: true });
    expect(typeof cpu.cpu_percent).toBe('number');
    expect(cpu.cpu_percent).toBeGreaterThanOrEqual(0);
    expect(cpu.cpu_percent).toBeLessThanOrEqual(100);
    expect(cpu.cores).toBeGreaterThan(0);
    expect(Array.isArray(cpu.per_cpu)).toBe(true);
    expect(isIsoTimestamp(cpu.sampled_at)).toBe(true);
  });
});
