import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps } from './common.js';

export const getOsInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_os_info',
    title: 'Operating system',
    description: 'Returns the operating system, distribution, kernel, architecture and hostname.',
    outputSchema: z.object({
      platform: z.string(),
      distro: z.string(),
      release: z.string(),
      kernel: z.string(),
      arch: z.string(),
      hostname: z.string(),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Operating system', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const os = await query(deps, 'osInfo');
      return { ...os.value, sampled_at: os.sampledAt };
    },
  });
