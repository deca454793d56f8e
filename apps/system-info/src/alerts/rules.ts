import { readFileSync } from 'node:fs';
import { CliUsageError } from '@mcpkit/node';
import { z } from 'zod';
import { kindOf, splitMetric } from '../history/metrics.js';

/**
 * An alert rule: raised when `metric` stays above (or below) its threshold for `for_seconds`,
 * cleared when it stays past `clear` — on the safe side of the threshold — for
 * `clear_for_seconds`. The band between threshold and `clear` is the hysteresis: a value
 * wavering around the threshold raises once and clears once, not at every sample.
 */
export interface AlertRule {
  /** snake_case, unique: what `get_alerts` and the resource name it by. */
  id: string;
  /** A metric name, or `kind:*` for each instance of a kind (every mount, every core). */
  metric: string;
  /** Raise when the value is above this… */
  above?: number;
  /** …or below this (exactly one of the two). */
  below?: number;
  /** For how long the breach must last. */
  for_seconds: number;
  /** The value the metric must get past, back on the safe side, to clear. */
  clear: number;
  /** For how long it must stay past `clear`. */
  clear_for_seconds: number;
  severity: 'warning' | 'critical';
  /** One line for people; `{metric}` and `{value}` are filled in. */
  summary: string;
}

/**
 * The defaults: what a person would set up first on any server, after Netdata's stock alarms
 * (10-minute CPU, disk space, RAM, swap) with the hold times made explicit.
 */
export const DEFAULT_RULES: readonly AlertRule[] = Object.freeze([
  {
    id: 'cpu_high',
    metric: 'cpu.percent',
    above: 90,
    for_seconds: 300,
    clear: 80,
    clear_for_seconds: 60,
    severity: 'warning',
    summary: 'CPU above 90 % for 5 minutes (now {value} %)',
  },
  {
    id: 'disk_full',
    metric: 'disk.used_percent:*',
    above: 90,
    for_seconds: 0,
    clear: 85,
    clear_for_seconds: 0,
    severity: 'critical',
    summary: 'Filesystem {instance} is {value} % full',
  },
  {
    id: 'memory_pressure',
    metric: 'memory.pressure_percent',
    above: 25,
    for_seconds: 60,
    clear: 10,
    clear_for_seconds: 120,
    severity: 'warning',
    summary: 'Tasks stalled on memory {value} % of the time (Linux PSI) for a minute',
  },
  {
    id: 'memory_low',
    metric: 'memory.used_percent',
    above: 95,
    for_seconds: 120,
    clear: 90,
    clear_for_seconds: 60,
    severity: 'critical',
    summary: 'Memory {value} % used for 2 minutes',
  },
  {
    id: 'swap_storm',
    metric: 'swap.pages_per_sec',
    above: 1000,
    for_seconds: 30,
    clear: 100,
    clear_for_seconds: 60,
    severity: 'warning',
    summary: 'Swapping {value} pages/s for 30 s',
  },
]);

const ruleInput = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case, at most 64 characters'),
    enabled: z.boolean().optional(),
    metric: z.string().min(1).max(200).optional(),
    above: z.number().finite().optional(),
    below: z.number().finite().optional(),
    for_seconds: z.number().min(0).max(86_400).optional(),
    clear: z.number().finite().optional(),
    clear_for_seconds: z.number().min(0).max(86_400).optional(),
    severity: z.enum(['warning', 'critical']).optional(),
    summary: z.string().max(300).optional(),
  })
  .strict();

const fileShape = z
  .object({
    /** Keep the default rules (those not replaced by id). Default true. */
    defaults: z.boolean().optional(),
    rules: z.array(ruleInput).max(100).optional(),
  })
  .strict();

/** A rule from the config, checked: what makes it unusable is said in words. */
function complete(input: z.infer<typeof ruleInput>, base: AlertRule | undefined): AlertRule {
  const merged = { ...base, ...input };
  const where = `rule '${input.id}'`;
  const metric = merged.metric;
  if (metric === undefined) throw new Error(`${where} needs a metric`);
  const { kind, instance } = splitMetric(metric);
  if (!kindOf(instance === '*' ? `${kind}:x` : metric))
    throw new Error(`${where}: unknown metric '${metric}' (see the README's metrics table)`);
  // A replacement that names a direction drops the default's other one.
  const above = input.above ?? (input.below === undefined ? merged.above : undefined);
  const below = input.below ?? (input.above === undefined ? merged.below : undefined);
  if ((above === undefined) === (below === undefined))
    throw new Error(`${where} needs exactly one of above and below`);
  const threshold = (above ?? below) as number;
  // Without `clear`, a band of 10 % of the threshold (90 → 81).
  const clear =
    input.clear ??
    (input.above !== undefined || input.below !== undefined ? undefined : base?.clear) ??
    threshold - (above !== undefined ? 1 : -1) * Math.abs(threshold) * 0.1;
  if (above !== undefined ? clear > above : clear < (below as number))
    throw new Error(`${where}: clear must be on the safe side of the threshold`);
  return {
    id: input.id,
    metric,
    ...(above !== undefined ? { above } : { below: below as number }),
    for_seconds: merged.for_seconds ?? 0,
    clear,
    clear_for_seconds: merged.clear_for_seconds ?? 0,
    severity: merged.severity ?? 'warning',
    summary: merged.summary ?? `${metric} ${above !== undefined ? 'above' : 'below'} ${threshold}`,
  };
}

/**
 * The rules of a config document: the defaults (unless `defaults: false`), each replaced or
 * amended by a rule of the same id (`{"id": "cpu_high", "above": 95}`) or dropped by
 * `enabled: false`, then the new rules. Throws `Error` with every reason it cannot use.
 */
export function parseRules(doc: unknown): AlertRule[] {
  const parsed = fileShape.safeParse(doc);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; '),
    );
  }
  const rules = new Map<string, AlertRule>();
  if (parsed.data.defaults ?? true) for (const r of DEFAULT_RULES) rules.set(r.id, r);
  const seen = new Set<string>();
  for (const input of parsed.data.rules ?? []) {
    if (seen.has(input.id)) throw new Error(`rule '${input.id}' is given twice`);
    seen.add(input.id);
    if (input.enabled === false) rules.delete(input.id);
    else rules.set(input.id, complete(input, rules.get(input.id)));
  }
  return [...rules.values()];
}

/** `--alerts-file`: the rules of a JSON file, or the defaults without one; a usage error if bad. */
export function loadRules(file: string | undefined): AlertRule[] {
  if (file === undefined) return [...DEFAULT_RULES];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliUsageError(`cannot read alerts file ${file}: ${(err as Error).message}`);
  }
  try {
    return parseRules(doc);
  } catch (err) {
    throw new CliUsageError(`alerts file ${file}: ${(err as Error).message}`);
  }
}
