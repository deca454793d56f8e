import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliUsageError } from '@mcpkit/node';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES, loadRules, parseRules } from './rules.js';

afterAll(() => removeTempDirs());

describe('alert rules', () => {
  it('keeps the defaults, amends one by id, drops one and adds a new one', () => {
    const rules = parseRules({
      rules: [
        { id: 'cpu_high', for_seconds: 60 },
        { id: 'swap_storm', enabled: false },
        { id: 'load_high', metric: 'load.5m', above: 8, severity: 'critical' },
      ],
    });
    expect(rules.map((r) => r.id)).toEqual([
      'cpu_high',
      'disk_full',
      'memory_pressure',
      'memory_low',
      'load_high',
    ]);
    expect(rules[0]).toMatchObject({ above: 90, clear: 80, for_seconds: 60 });
    // No clear given: a band of 10 % of the threshold.
    expect(rules[4]).toMatchObject({ above: 8, clear: 7.2, for_seconds: 0, severity: 'critical' });
  });

  it('changing a default’s threshold drops its clear for a fresh band, and flips direction cleanly', () => {
    const [cpu] = parseRules({
      defaults: false,
      rules: [{ id: 'cpu_high', metric: 'cpu.percent', above: 50 }],
    });
    expect(cpu).toMatchObject({ above: 50, clear: 45 });
    const rules = parseRules({ rules: [{ id: 'memory_low', below: 5 }] });
    const low = rules.find((r) => r.id === 'memory_low');
    expect(low).toMatchObject({ below: 5, clear: 5.5 });
    expect(low).not.toHaveProperty('above');
  });

  it('takes wildcard instances and defaults: false', () => {
    expect(parseRules({ defaults: false })).toEqual([]);
    expect(
      parseRules({ defaults: false, rules: [{ id: 'core', metric: 'cpu.percent:*', above: 99 }] }),
    ).toHaveLength(1);
  });

  it.each([
    [{ rules: [{ id: 'x', metric: 'cpu.bogus', above: 1 }] }, "unknown metric 'cpu.bogus'"],
    [
      { rules: [{ id: 'x', metric: 'disk.used_percent', above: 1 }] },
      "unknown metric 'disk.used_percent'",
    ],
    [{ rules: [{ id: 'x', metric: 'cpu.percent' }] }, 'exactly one of above and below'],
    [
      { rules: [{ id: 'x', metric: 'cpu.percent', above: 1, below: 2 }] },
      'exactly one of above and below',
    ],
    [{ rules: [{ id: 'x', metric: 'cpu.percent', above: 50, clear: 60 }] }, 'safe side'],
    [{ rules: [{ id: 'x', above: 50 }] }, 'needs a metric'],
    [{ rules: [{ id: 'Bad-Id', metric: 'cpu.percent', above: 1 }] }, 'snake_case'],
    [{ rules: [{ id: 'x', metric: 'cpu.percent', above: 1, extra: 1 }] }, 'rules.0'],
    [
      {
        rules: [
          { id: 'x', metric: 'cpu.percent', above: 1 },
          { id: 'x', enabled: false },
        ],
      },
      'given twice',
    ],
    [{ rule: [] }, '(top)'],
    [[], '(top)'],
  ])('refuses %j, saying why', (doc, why) => {
    expect(() => parseRules(doc)).toThrow(why);
  });

  it('reads --alerts-file, and a missing or bad file is a usage error naming it', () => {
    expect(loadRules(undefined)).toEqual(DEFAULT_RULES);
    const dir = tempDir('sysinfo-alerts-');
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({ defaults: false, rules: [{ id: 'a', metric: 'load.1m', above: 4 }] }),
    );
    expect(loadRules(good).map((r) => r.id)).toEqual(['a']);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"rules": [{"id": "a"}]}');
    expect(() => loadRules(bad)).toThrow(CliUsageError);
    expect(() => loadRules(bad)).toThrow(`alerts file ${bad}: rule 'a' needs a metric`);
    writeFileSync(bad, '{not json');
    expect(() => loadRules(bad)).toThrow(/cannot read alerts file/);
    expect(() => loadRules(join(dir, 'missing.json'))).toThrow(CliUsageError);
  });
});
