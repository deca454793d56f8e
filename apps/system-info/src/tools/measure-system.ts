import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, round, type ToolDeps } from './common.js';
import { describeMemory } from './get-memory-info.js';

/** How long one measurement may run: an hour. */
export const MAX_WINDOW_SECONDS = 3600;
/**
 * The shortest interval: the sampler keeps a dynamic reading 1.5 s, so a shorter one would
 * count one reading twice.
 */
export const MIN_INTERVAL_SECONDS = 2;

const stats = z.object({
  min: z.number().nullable(),
  avg: z.number().nullable(),
  max: z.number().nullable(),
  p95: z.number().nullable(),
});

/** min, mean, max and 95th percentile of the readings that are numbers. */
export function summarize(values: readonly (number | null)[]): z.infer<typeof stats> {
  const known = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (known.length === 0) return { min: null, avg: null, max: null, p95: null };
  const sum = known.reduce((a, b) => a + b, 0);
  return {
    min: round(known[0] as number),
    avg: round(sum / known.length),
    max: round(known.at(-1) as number),
    p95: round(known[Math.min(known.length - 1, Math.ceil(known.length * 0.95) - 1)] as number),
  };
}

/** One reading of `metric`, in percent. */
async function reading(deps: ToolDeps, metric: 'cpu' | 'memory'): Promise<number | null> {
  if (metric === 'cpu') return (await query(deps, 'cpuLoad')).value.total_percent;
  return describeMemory((await query(deps, 'memory')).value).used_percent;
}

export const measureSystem = (deps: ToolDeps) =>
  defineTool({
    name: 'measure_system',
    title: 'Measure over a window',
    description:
      'Measures CPU or memory use over a window of time (up to an hour) and returns min, average, max and 95th percentile with every reading. Long: clients that support tasks get a task to poll.',
    inputSchema: z.object({
      metric: z.enum(['cpu', 'memory']).describe('What to measure, in percent'),
      window_seconds: z.number().int().min(MIN_INTERVAL_SECONDS).max(MAX_WINDOW_SECONDS),
      interval_seconds: z
        .number()
        .int()
        .min(MIN_INTERVAL_SECONDS)
        .max(60)
        .default(5)
        .describe('Seconds between readings'),
    }),
    outputSchema: z.object({
      metric: z.enum(['cpu', 'memory']),
      unit: z.literal('percent'),
      window_seconds: z.number(),
      interval_seconds: z.number(),
      readings: z.array(z.object({ at: z.string(), value: z.number().nullable() })),
      ...stats.shape,
    }),
    annotations: { title: 'Measure over a window', readOnlyHint: true, openWorldHint: false },
    requiredScopes: CORE,
    // A window of minutes outlasts proxy and client timeouts: a task for a client that can.
    taskSupport: 'optional',
    handler: async ({ metric, window_seconds, interval_seconds }, ctx) => {
      const interval = Math.min(interval_seconds, window_seconds);
      const count = Math.floor(window_seconds / interval) + 1;
      const readings: { at: string; value: number | null }[] = [];
      for (let i = 0; i < count; i++) {
        if (i > 0) await sleep(interval * 1000, undefined, { signal: ctx.signal });
        readings.push({ at: new Date().toISOString(), value: round(await reading(deps, metric)) });
        ctx.progress(i + 1, count, `${metric}: ${readings.length} of ${count} readings`);
      }
      return {
        metric,
        unit: 'percent' as const,
        window_seconds,
        interval_seconds: interval,
        readings,
        ...summarize(readings.map((r) => r.value)),
      };
    },
  });
