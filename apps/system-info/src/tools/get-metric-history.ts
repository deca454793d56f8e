import { defineTool, ToolError } from '@mcpkit/protocol';
import { z } from 'zod';
import { DASHBOARD_TOOL_META } from '../dashboard.js';
import { formatDuration } from '../history/duration.js';
import { kindOf, METRIC_KINDS } from '../history/metrics.js';
import { AGGREGATES } from '../history/series.js';
import {
  CORE,
  duration,
  durationMs,
  READ_ONLY,
  sampledAt,
  type ToolDeps,
  windowWithin,
} from './common.js';

/** The most points one answer holds: a longer window needs a coarser step. */
export const MAX_POINTS = 1000;
/** Points a window is split into when no step is given. */
export const DEFAULT_POINTS = 120;

const KINDS = [
  ...new Set(METRIC_KINDS.map((k) => (k.instance ? `${k.name}:<${k.instance}>` : k.name))),
];

export const historyShape = z.object({
  metric: z.string(),
  unit: z.string(),
  description: z.string(),
  window: z.string().describe('The window asked for'),
  step: z.string().describe('What each point spans'),
  tier: z.string().describe('The stored resolution the points were made from'),
  aggregate: z.enum(AGGREGATES),
  points: z.array(
    z.object({
      t: z.string().describe('Start of the step (ISO 8601)'),
      value: z.number().nullable().describe('null: nothing was recorded in this step'),
    }),
  ),
  summary: z.object({
    min: z.number().nullable(),
    max: z.number().nullable(),
    avg: z.number().nullable(),
    latest: z.number().nullable(),
    points_with_data: z.number().int(),
  }),
  sampled_at: sampledAt,
});

const round = (n: number) => Math.round(n * 1000) / 1000;

export const getMetricHistory = (deps: ToolDeps) =>
  defineTool({
    name: 'get_metric_history',
    title: 'Metric history',
    description: `What a metric did over a recent window: one value per step, aggregated (avg, min, max or p95). Kept at 1 s for 10 min, 10 s for 6 h and 1 min for 48 h. Metrics: ${KINDS.join(', ')}; e.g. cpu.percent, memory.used_percent, disk.used_percent:/var, net.rx_bytes_per_sec:eth0.`,
    inputSchema: z.object({
      metric: z.string().min(1).max(200).describe('Metric name, e.g. cpu.percent or cpu.percent:0'),
      window: duration
        .optional()
        .describe('How far back: 90s, 10m, 6h, 2d (default 10m, at most 48h)'),
      step: duration
        .optional()
        .describe(
          `What each point spans (default: window / ${DEFAULT_POINTS}, at least the stored resolution)`,
        ),
      aggregate: z
        .enum(AGGREGATES)
        .optional()
        .describe('How a step becomes one value (default avg)'),
    }),
    outputSchema: historyShape,
    annotations: { title: 'Metric history', ...READ_ONLY },
    _meta: DASHBOARD_TOOL_META,
    requiredScopes: CORE,
    handler: async ({ metric, window, step, aggregate }) => {
      const kind = kindOf(metric);
      if (!kind) {
        throw new ToolError(`Unknown metric '${metric}'. Known: ${KINDS.join(', ')}`, {
          metric,
          known: KINDS,
        });
      }
      const windowMs = windowWithin(deps, window ?? '10m');
      const stepMs = step ? durationMs(step) : Math.ceil(windowMs / DEFAULT_POINTS);
      if (windowMs / stepMs > MAX_POINTS) {
        throw new ToolError(
          `A ${window} window in steps of ${step} is more than ${MAX_POINTS} points; use a step of at least ${formatDuration(Math.ceil(windowMs / MAX_POINTS / 1000) * 1000)}`,
          { window, step, max_points: MAX_POINTS },
        );
      }
      const result = deps.history.query(metric, windowMs, stepMs, aggregate ?? 'avg');
      if (!result) {
        throw new ToolError(
          `No history of '${metric}' on this machine${
            kind.instance
              ? ` (${kind.instance}s recorded: ${
                  deps.history
                    .metrics()
                    .map((m) => m.metric)
                    .filter((m) => m.startsWith(`${kind.name}:`))
                    .map((m) => m.slice(kind.name.length + 1))
                    .join(', ') || 'none'
                })`
              : ' yet'
          }`,
          { metric },
        );
      }
      const values = result.points.flatMap((p) => (p.value === null ? [] : [p.value]));
      const latest = deps.history.series(metric)?.latest() ?? null;
      return {
        metric,
        unit: kind.unit,
        description: kind.description,
        window: formatDuration(windowMs),
        step: formatDuration(result.stepMs),
        tier: formatDuration(result.tierMs),
        aggregate: aggregate ?? 'avg',
        points: result.points.map((p) => ({
          t: new Date(p.t).toISOString(),
          value: p.value === null ? null : round(p.value),
        })),
        summary: {
          min: values.length ? round(Math.min(...values)) : null,
          max: values.length ? round(Math.max(...values)) : null,
          avg: values.length ? round(values.reduce((a, b) => a + b, 0) / values.length) : null,
          latest: latest === null ? null : round(latest),
          points_with_data: values.length,
        },
        sampled_at: new Date(result.now).toISOString(),
      };
    },
  });
