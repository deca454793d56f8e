import { redact } from '@mcpkit/node';
import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { formatDuration } from '../history/duration.js';
import { TOP_KEPT } from '../history/processes.js';
import { CORE, duration, READ_ONLY, sampledAt, type ToolDeps, windowWithin } from './common.js';

export const topConsumers = (deps: ToolDeps) =>
  defineTool({
    name: 'top_consumers',
    title: 'Top consumers',
    description: `Who used the most CPU or memory over a recent window (up to 48h), from process samples every 10 s: CPU time and average CPU per process, peak memory. Each sample keeps the top ${TOP_KEPT} processes by CPU and by memory.`,
    inputSchema: z.object({
      window: duration.optional().describe('How far back: 10m, 1h, 2d (default 1h)'),
      by: z
        .enum(['cpu', 'memory'])
        .optional()
        .describe('Rank by CPU time or peak memory (default cpu)'),
      top: z.number().int().min(1).max(50).optional().describe('How many processes (default 5)'),
      include_cmdline: z.boolean().optional().describe('Include redacted command lines'),
    }),
    outputSchema: z.object({
      window: z.string(),
      by: z.enum(['cpu', 'memory']),
      step: z.string().describe('What one process sample spans'),
      sampled_seconds: z.number().describe('How much of the window was sampled'),
      consumers: z.array(
        z.object({
          pid: z.number().int(),
          name: z.string(),
          user: z.string(),
          started: z.string().nullable(),
          cpu_seconds: z.number().describe('CPU time used in the window, seconds of one core'),
          cpu_percent_avg: z.number().describe('Average over the sampled time, % of one core'),
          memory_peak_bytes: z.number(),
          samples: z.number().int().describe('Samples it was a top process in'),
          command: z.string().optional(),
        }),
      ),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Top consumers', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async ({ window, by, top, include_cmdline }) => {
      const windowMs = windowWithin(deps, window ?? '1h');
      const now = deps.history.now();
      const result = deps.history.processes.top(now, windowMs, by ?? 'cpu', top ?? 5);
      const r1 = (n: number) => Math.round(n * 10) / 10;
      return {
        window: formatDuration(windowMs),
        by: by ?? 'cpu',
        step: formatDuration(result.stepMs),
        sampled_seconds: (result.sampledBuckets * result.stepMs) / 1000,
        consumers: result.consumers.map(({ command, buckets, ...c }) => ({
          pid: c.pid,
          name: c.name,
          user: c.user,
          started: c.started,
          cpu_seconds: r1(c.cpu_seconds),
          cpu_percent_avg: r1(c.cpu_percent_avg),
          memory_peak_bytes: c.memory_peak_bytes,
          samples: buckets,
          ...(include_cmdline ? { command: redact(command) } : {}),
        })),
        sampled_at: new Date(now).toISOString(),
      };
    },
  });
