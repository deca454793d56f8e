import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { DASHBOARD_TOOL_META } from '../dashboard.js';
import type { Memory } from '../sampler/collectors.js';
import { CORE, query, READ_ONLY, round, sampledAt, type ToolDeps } from './common.js';

/** Memory pressure from what is still available without swapping. */
export function memoryPressure(m: Memory): 'low' | 'moderate' | 'high' {
  const available = m.total_bytes > 0 ? m.available_bytes / m.total_bytes : 1;
  if (available < 0.1) return 'high';
  if (available < 0.25) return 'moderate';
  return 'low';
}

export const memoryShape = z.object({
  total_bytes: z.number(),
  used_bytes: z.number(),
  free_bytes: z.number(),
  available_bytes: z.number(),
  used_percent: z.number().nullable(),
  swap_total_bytes: z.number(),
  swap_used_bytes: z.number(),
  swap_used_percent: z.number().nullable(),
  pressure: z.enum(['low', 'moderate', 'high']),
});

export function describeMemory(m: Memory): z.infer<typeof memoryShape> {
  return {
    ...m,
    used_percent:
      m.total_bytes > 0 ? round(((m.total_bytes - m.available_bytes) / m.total_bytes) * 100) : null,
    swap_used_percent:
      m.swap_total_bytes > 0 ? round((m.swap_used_bytes / m.swap_total_bytes) * 100) : null,
    pressure: memoryPressure(m),
  };
}

export const getMemoryInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_memory_info',
    title: 'Memory information',
    description: 'Returns RAM and swap: total, used, free, available, and memory pressure.',
    outputSchema: memoryShape.extend({ sampled_at: sampledAt }),
    annotations: { title: 'Memory information', ...READ_ONLY },
    // MCP Apps hosts draw the live dashboard beside the result; others ignore it.
    _meta: DASHBOARD_TOOL_META,
    requiredScopes: CORE,
    handler: async () => {
      const mem = await query(deps, 'memory');
      return { ...describeMemory(mem.value), sampled_at: mem.sampledAt };
    },
  });
