import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { ownBlock } from './blocks-access.js';
import { DELETES, type ToolDeps, WRITE } from './common.js';

export const deleteBlock = (deps: ToolDeps) =>
  defineTool({
    name: 'delete_block',
    title: 'Delete block',
    description: 'Deletes a content block; the blocks after it move up.',
    inputSchema: z.object({ blockId: z.string() }),
    outputSchema: z.object({ deleted: z.boolean(), blockId: z.string() }),
    annotations: DELETES,
    requiredScopes: WRITE,
    handler: async ({ blockId }, ctx) => {
      await ownBlock(deps, ctx, blockId);
      return { deleted: await deps.store.deleteBlock(blockId), blockId };
    },
  });
