import { describe, expect, it } from 'vitest';
import { ALERT_HISTORY, type Alert, type AlertChange, AlertEngine } from './engine.js';
import type { AlertRule } from './rules.js';

const T0 = Date.parse('2026-05-01T00:00:00Z');
const cpu: AlertRule = {
  id: 'cpu_high',
  metric: 'cpu.percent',
  above: 90,
  for_seconds: 5,
  clear: 80,
  clear_for_seconds: 3,
  severity: 'warning',
  summary: 'CPU {value} %',
};

/** An engine fed one value per second from `values`, and what it told. */
function run(
  rules: AlertRule[],
  values: (number | Record<string, number>)[],
  metric = 'cpu.percent',
) {
  const engine = new AlertEngine(rules);
  const told: [AlertChange, Alert][] = [];
  engine.onChange((a, c) => told.push([c, a]));
  values.forEach((v, i) => {
    const map = typeof v === 'number' ? new Map([[metric, v]]) : new Map(Object.entries(v));
    engine.evaluate(T0 + i * 1000, map);
  });
  return { engine, told };
}

describe('AlertEngine', () => {
  it('raises once a breach has lasted for_seconds, not before', () => {
    expect(run([cpu], [95, 95, 95, 95, 95]).told).toEqual([]); // 4 s of breach
    const { told, engine } = run([cpu], [50, 95, 95, 95, 95, 95, 95, 97]);
    expect(told.map(([c]) => c)).toEqual(['raised']);
    expect(told[0]?.[1]).toMatchObject({
      rule: 'cpu_high',
      state: 'firing',
      started_at: new Date(T0 + 1000).toISOString(),
      raised_at: new Date(T0 + 6000).toISOString(),
      value_at_raise: 95,
      summary: 'CPU 95 %',
    });
    expect(engine.active()).toEqual([expect.objectContaining({ peak: 97, value: 97 })]);
  });

  it('a dip below the threshold during the hold starts it again', () => {
    expect(run([cpu], [95, 95, 95, 95, 85, 95, 95, 95, 95]).told).toEqual([]);
  });

  it('does not flap: values wavering between clear and the threshold neither clear nor raise again', () => {
    const wave = [95, 95, 95, 95, 95, 95, 89, 91, 85, 92, 81, 95, 88, 91];
    const { told, engine } = run([cpu], wave);
    expect(told.map(([c]) => c)).toEqual(['raised']);
    expect(engine.active()).toHaveLength(1);
  });

  it('holds the band without hold times too: between clear and threshold is still firing', () => {
    const instant = { ...cpu, for_seconds: 0, clear_for_seconds: 0 };
    const { told } = run([instant], [95, 85, 95, 81, 89, 95, 79]);
    expect(told.map(([c, a]) => `${c}:${a.value}`)).toEqual(['raised:95', 'resolved:79']);
  });

  it('clears once, after the value stayed past clear for clear_for_seconds', () => {
    const { told, engine } = run([cpu], [95, 95, 95, 95, 95, 95, 70, 70, 85, 70, 70, 70, 70, 70]);
    expect(told.map(([c]) => c)).toEqual(['raised', 'resolved']);
    // 70, 70 then 85 (over clear): the clear hold restarts at the next 70 (index 9) and ends at 12.
    expect(told[1]?.[1]).toMatchObject({
      state: 'resolved',
      resolved_at: new Date(T0 + 12_000).toISOString(),
      peak: 95,
    });
    expect(engine.active()).toEqual([]);
    expect(engine.history()).toHaveLength(1);
  });

  it('raises again after a clear, as a new alert', () => {
    const zero = { ...cpu, for_seconds: 0, clear_for_seconds: 0 };
    const { told, engine } = run([zero], [95, 70, 95]);
    expect(told.map(([c, a]) => `${c}#${a.id}`)).toEqual(['raised#1', 'resolved#1', 'raised#2']);
    expect(engine.history().map((a) => [a.id, a.state])).toEqual([
      [2, 'firing'],
      [1, 'resolved'],
    ]);
  });

  it('tracks each instance of a wildcard rule on its own, and below rules the other way up', () => {
    const disk: AlertRule = {
      ...cpu,
      id: 'disk_full',
      metric: 'disk.used_percent:*',
      for_seconds: 0,
      summary: '{instance} at {value} %',
    };
    const { told } = run(
      [disk],
      [
        { 'disk.used_percent:/': 91, 'disk.used_percent:/var': 50 },
        { 'disk.used_percent:/': 93, 'disk.used_percent:/var': 99 },
      ],
    );
    expect(told.map(([c, a]) => `${c} ${a.summary}`)).toEqual([
      'raised / at 91 %',
      'raised /var at 99 %',
    ]);
    const low: AlertRule = {
      ...cpu,
      id: 'idle',
      above: undefined,
      below: 10,
      clear: 20,
      for_seconds: 0,
      clear_for_seconds: 0,
    };
    delete (low as { above?: number }).above;
    const { told: lowTold } = run([low], [50, 5, 3, 15, 25]);
    expect(lowTold.map(([c, a]) => `${c}:${a.peak}`)).toEqual(['raised:5', 'resolved:3']);
  });

  it('ignores readings without its metric and keeps firing alerts however many resolved ones there are', () => {
    const zero = { ...cpu, for_seconds: 0, clear_for_seconds: 0 };
    const stuck = { ...zero, id: 'stuck', metric: 'load.1m' };
    const engine = new AlertEngine([zero, stuck]);
    engine.evaluate(T0, new Map([['load.1m', 95]]));
    for (let i = 1; i <= ALERT_HISTORY + 20; i++) {
      engine.evaluate(T0 + i * 1000, new Map([['cpu.percent', i % 2 === 1 ? 95 : 10]]));
    }
    const history = engine.history();
    expect(history.length).toBeLessThanOrEqual(ALERT_HISTORY + 1);
    expect(history.filter((a) => a.state === 'firing').map((a) => a.rule)).toContain('stuck');
  });

  it('a listener that throws does not stop the others', () => {
    const engine = new AlertEngine([{ ...cpu, for_seconds: 0 }]);
    const heard: string[] = [];
    engine.onChange(() => {
      throw new Error('boom');
    });
    engine.onChange((a) => heard.push(a.rule));
    engine.evaluate(T0, new Map([['cpu.percent', 99]]));
    expect(heard).toEqual(['cpu_high']);
  });
});
