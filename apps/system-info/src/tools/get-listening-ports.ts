import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps } from './common.js';

export const getListeningPorts = (deps: ToolDeps) =>
  defineTool({
    name: 'get_listening_ports',
    title: 'Listening ports',
    description:
      'Returns the TCP/UDP ports this machine listens on, with the owning process where the server may see it.',
    outputSchema: z.object({
      ports: z.array(
        z.object({
          protocol: z.string(),
          address: z.string(),
          port: z.number().int(),
          pid: z.number().int().nullable(),
          process: z.string().nullable(),
        }),
      ),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Listening ports', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const ports = await query(deps, 'listening');
      return {
        ports: [...ports.value].sort(
          (a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol),
        ),
        sampled_at: ports.sampledAt,
      };
    },
  });
