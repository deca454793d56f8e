import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps, unavailableReason } from './common.js';

export const getGpuInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_gpu_info',
    title: 'GPUs',
    description:
      'Returns graphics controllers (vendor, model, VRAM), or the reason none can be seen.',
    outputSchema: z.object({
      gpus: z.array(
        z.object({ vendor: z.string(), model: z.string(), vram_mb: z.number().nullable() }),
      ),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'GPUs', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const g = await query(deps, 'gpus');
      return {
        gpus: g.value,
        unavailable_reason:
          g.value.length === 0 ? 'no graphics controller is visible to this machine' : null,
        sampled_at: g.sampledAt,
      };
    },
  });
