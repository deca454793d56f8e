import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps, unavailableReason } from './common.js';

export const getBattery = (deps: ToolDeps) =>
  defineTool({
    name: 'get_battery',
    title: 'Battery',
    description:
      'Returns battery charge and charging state, or null values when the machine has no battery.',
    outputSchema: z.object({
      has_battery: z.boolean(),
      percent: z.number().nullable(),
      is_charging: z.boolean().nullable(),
      ac_connected: z.boolean().nullable(),
      time_remaining_minutes: z.number().nullable(),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Battery', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const b = await query(deps, 'battery');
      return {
        ...b.value,
        unavailable_reason: b.value.has_battery ? null : 'this machine has no battery',
        sampled_at: b.sampledAt,
      };
    },
  });
