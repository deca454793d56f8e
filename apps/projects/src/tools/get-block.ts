import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { ownBlock } from './blocks-access.js';
import { blockShape, READ, READ_ONLY, type ToolDeps } from './common.js';

export const getBlock = (deps: ToolDeps) =>
  defineTool({
    name: 'get_block',
    title: 'Get block',
    description: 'Returns one content block.',
    inputSchema: z.object({ blockId: z.string().describe('The block id (blk_…)') }),
    outputSchema: blockShape,
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ blockId }, ctx) => ownBlock(deps, ctx, blockId),
  });
