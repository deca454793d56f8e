import { describe, expect, it } from 'vitest';
import { Sampler } from './sampler.js';

function counter() {
  let n = 0;
  let fail = false;
  const collectors = {
    scan: async () => {
      n++;
      await new Promise((r) => setTimeout(r, 10));
      if (fail) throw new Error('ps failed');
      return n;
    },
    info: async () => ({ model: 'x' }),
  };
  return {
    collectors,
    calls: () => n,
    failNext: (v: boolean) => {
      fail = v;
    },
  };
}

describe('Sampler', () => {
  it('shares one in-flight collection between concurrent callers', async () => {
    const c = counter();
    const sampler = new Sampler(c.collectors, { scan: 'dynamic', info: 'static' });
    const results = await Promise.all(Array.from({ length: 20 }, () => sampler.get('scan')));
    expect(c.calls()).toBe(1);
    expect(new Set(results.map((r) => r.value))).toEqual(new Set([1]));
    expect(sampler.calls.get('scan')).toBe(1);
  });

  it('serves from cache within the tier TTL and collects again after it', async () => {
    let now = 1_000_000;
    const c = counter();
    const sampler = new Sampler(
      c.collectors,
      { scan: 'dynamic', info: 'static' },
      { now: () => now },
    );
    const first = await sampler.get('scan');
    now += 1000;
    expect((await sampler.get('scan')).value).toBe(1);
    now += 600;
    const second = await sampler.get('scan');
    expect(second.value).toBe(2);
    expect(first.sampledAt).toBe(new Date(1_000_000).toISOString());
    expect(second.sampledAt).toBe(new Date(1_001_600).toISOString());
  });

  it('keeps static values for the life of the process', async () => {
    let now = 0;
    const c = counter();
    const sampler = new Sampler(
      c.collectors,
      { scan: 'dynamic', info: 'static' },
      { now: () => now },
    );
    const a = await sampler.get('info');
    now += 10 ** 12;
    expect(await sampler.get('info')).toBe(a);
  });

  it('does not cache failures: every waiter of the flight sees the error, the next call retries', async () => {
    const c = counter();
    const sampler = new Sampler(c.collectors, { scan: 'dynamic', info: 'static' });
    c.failNext(true);
    const failed = await Promise.allSettled([sampler.get('scan'), sampler.get('scan')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    c.failNext(false);
    await expect(sampler.get('scan')).resolves.toMatchObject({ value: 2 });
  });

  it('warms keys without throwing on a failing collector', async () => {
    const c = counter();
    c.failNext(true);
    const sampler = new Sampler(c.collectors, { scan: 'dynamic', info: 'static' });
    await expect(sampler.warm(['scan', 'info'])).resolves.toBeUndefined();
    expect(sampler.calls.get('info')).toBe(1);
  });
});
