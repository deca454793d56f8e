import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { DASHBOARD_TOOL_META } from '../dashboard.js';
import { CORE, query, READ_ONLY, round, sampledAt, type ToolDeps } from './common.js';

export const getCpuInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_cpu_info',
    title: 'CPU information',
    description: 'Returns CPU usage, frequency, load average, and core information.',
    inputSchema: z.object({
      per_cpu: z.boolean().optional().describe('Include per-CPU breakdown'),
    }),
    outputSchema: z.object({
      model: z.string(),
      manufacturer: z.string(),
      cores: z.number().int(),
      physical_cores: z.number().int(),
      speed_ghz: z.number().nullable(),
      speed_max_ghz: z.number().nullable(),
      cpu_percent: z.number().nullable().describe('Total CPU usage since the previous sample'),
      user_percent: z.number().nullable(),
      system_percent: z.number().nullable(),
      load_average: z.object({ one: z.number(), five: z.number(), fifteen: z.number() }),
      per_cpu: z
        .array(z.object({ cpu: z.number().int(), load_percent: z.number().nullable() }))
        .optional(),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'CPU information', ...READ_ONLY },
    // MCP Apps hosts draw the live dashboard beside the result; others ignore it.
    _meta: DASHBOARD_TOOL_META,
    requiredScopes: CORE,
    handler: async ({ per_cpu }) => {
      const [info, load] = await Promise.all([query(deps, 'cpuStatic'), query(deps, 'cpuLoad')]);
      const [one, five, fifteen] = load.value.load_average;
      return {
        model: info.value.brand,
        manufacturer: info.value.manufacturer,
        cores: info.value.cores,
        physical_cores: info.value.physical_cores,
        speed_ghz: info.value.speed_ghz,
        speed_max_ghz: info.value.speed_max_ghz,
        cpu_percent: round(load.value.total_percent),
        user_percent: round(load.value.user_percent),
        system_percent: round(load.value.system_percent),
        load_average: { one, five, fifteen },
        ...(per_cpu
          ? {
              per_cpu: load.value.per_cpu.map((c) => ({
                cpu: c.cpu,
                load_percent: round(c.load_percent),
              })),
            }
          : {}),
        sampled_at: load.sampledAt,
      };
    },
  });
