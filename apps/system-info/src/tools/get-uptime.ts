import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps } from './common.js';

export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (parts.length === 0) parts.push(`${s % 60}s`);
  return parts.join(' ');
}

export const getUptime = (deps: ToolDeps) =>
  defineTool({
    name: 'get_uptime',
    title: 'Uptime',
    description: 'Returns how long the machine has been up, when it booted, and its time zone.',
    outputSchema: z.object({
      uptime_seconds: z.number(),
      uptime_human: z.string(),
      boot_time: z.string(),
      timezone: z.string(),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Uptime', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const t = await query(deps, 'time');
      return {
        ...t.value,
        uptime_human: humanDuration(t.value.uptime_seconds),
        sampled_at: t.sampledAt,
      };
    },
  });
