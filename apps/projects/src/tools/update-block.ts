import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import type { BlockInput } from '../db/types.js';
import { notFound } from '../errors.js';
import { ownBlock } from './blocks-access.js';
import { blockShape, checkBlockType, checkContent, SETS, type ToolDeps, WRITE } from './common.js';

export const updateBlock = (deps: ToolDeps) =>
  defineTool({
    name: 'update_block',
    title: 'Update block',
    description: 'Changes a block’s type or content, or moves it to another position.',
    inputSchema: z.object({
      blockId: z.string(),
      type: z.string().optional(),
      content: z.unknown().optional(),
      position: z.number().int().min(0).optional(),
    }),
    outputSchema: blockShape,
    annotations: SETS,
    requiredScopes: WRITE,
    handler: async ({ blockId, type, content, position }, ctx) => {
      await ownBlock(deps, ctx, blockId);
      checkBlockType(type);
      checkContent(content);
      const patch: Partial<BlockInput> = {};
      if (type !== undefined) patch.type = type;
      if (content !== undefined) patch.content = content;
      if (position !== undefined) patch.position = position;
      const block = await deps.store.updateBlock(blockId, patch);
      if (!block) throw notFound('block', blockId);
      return block;
    },
  });
