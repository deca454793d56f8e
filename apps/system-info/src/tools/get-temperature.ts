import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps, unavailableReason } from './common.js';

export const getTemperature = (deps: ToolDeps) =>
  defineTool({
    name: 'get_temperature',
    title: 'Temperatures',
    description:
      'Returns CPU temperatures in °C, or null values with the reason when no sensor is exposed.',
    outputSchema: z.object({
      main_celsius: z.number().nullable(),
      max_celsius: z.number().nullable(),
      cores_celsius: z.array(z.number()),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Temperatures', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const t = await query(deps, 'temperature');
      const none = t.value.main_celsius === null && t.value.cores_celsius.length === 0;
      return {
        ...t.value,
        unavailable_reason: none
          ? 'no temperature sensors are exposed to this machine (common in virtual machines and containers)'
          : null,
        sampled_at: t.sampledAt,
      };
    },
  });
