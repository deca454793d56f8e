import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, round, sampledAt, type ToolDeps } from './common.js';

export const getNetworkInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_network_info',
    title: 'Network',
    description:
      'Returns network interfaces with addresses, state, byte counters and current throughput.',
    outputSchema: z.object({
      interfaces: z.array(
        z.object({
          name: z.string(),
          ip4: z.string().nullable(),
          ip6: z.string().nullable(),
          mac: z.string().nullable(),
          internal: z.boolean(),
          operstate: z.string(),
          speed_mbps: z.number().nullable(),
          rx_bytes: z.number().nullable(),
          tx_bytes: z.number().nullable(),
          rx_bytes_per_sec: z.number().nullable(),
          tx_bytes_per_sec: z.number().nullable(),
        }),
      ),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Network', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const [ifaces, stats] = await Promise.all([
        query(deps, 'netInterfaces'),
        query(deps, 'netStats'),
      ]);
      const byName = new Map(stats.value.map((s) => [s.name, s]));
      return {
        interfaces: ifaces.value.map((i) => {
          const s = byName.get(i.name);
          return {
            ...i,
            rx_bytes: s?.rx_bytes ?? null,
            tx_bytes: s?.tx_bytes ?? null,
            rx_bytes_per_sec: round(s?.rx_bytes_per_sec ?? null, 0),
            tx_bytes_per_sec: round(s?.tx_bytes_per_sec ?? null, 0),
          };
        }),
        sampled_at: stats.sampledAt,
      };
    },
  });
