import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { blockShape, projectId, READ, type ToolDeps } from './common.js';

export const listBlocks = (deps: ToolDeps) =>
  defineTool({
    name: 'list_blocks',
    title: 'List blocks',
    description: 'Lists a project’s content blocks in page order.',
    inputSchema: z.object({ projectId }),
    outputSchema: z.object({ blocks: z.array(blockShape) }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    requiredScopes: READ,
    handler: async ({ projectId: id }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      return { blocks: await deps.store.listBlocks(id) };
    },
  });
