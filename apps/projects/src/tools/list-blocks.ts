import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { MAX_BLOCK_PAGE_BYTES } from '../db/types.js';
import {
  blockShape,
  cursor,
  limit,
  pageText,
  projectId,
  READ,
  READ_ONLY,
  type ToolDeps,
  withCursor,
} from './common.js';

export const listBlocks = (deps: ToolDeps) =>
  defineTool({
    name: 'list_blocks',
    title: 'List blocks',
    description: `Lists a project’s content blocks in page order, a page at a time: up to \`limit\` blocks and at most ${MAX_BLOCK_PAGE_BYTES / 1024} KiB of their content; pass \`nextCursor\` as \`cursor\` for the next page.`,
    inputSchema: z.object({ projectId, cursor, limit }),
    outputSchema: z.object({ blocks: z.array(blockShape), nextCursor: z.string().optional() }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, cursor: after, limit: size }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const page = await withCursor(() =>
        deps.store.listBlocks(id, { cursor: after, limit: size }),
      );
      const blocks = page.items;
      return {
        content: pageText(JSON.stringify({ blocks }), page.nextCursor),
        structuredContent: page.nextCursor ? { blocks, nextCursor: page.nextCursor } : { blocks },
      };
    },
  });
