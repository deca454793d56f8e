import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import {
  assetShape,
  cursor,
  limit,
  projectId,
  READ,
  READ_ONLY,
  type ToolDeps,
  withCursor,
} from './common.js';

export const listAssets = (deps: ToolDeps) =>
  defineTool({
    name: 'list_assets',
    title: 'List assets',
    description: 'Lists a project’s assets (images, files): name, MIME type, size and URL.',
    inputSchema: z.object({ projectId, cursor, limit }),
    outputSchema: z.object({ assets: z.array(assetShape), nextCursor: z.string().optional() }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, cursor: after, limit: size }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const page = await withCursor(() =>
        deps.store.listAssets(id, { cursor: after, limit: size }),
      );
      return page.nextCursor
        ? { assets: page.items, nextCursor: page.nextCursor }
        : { assets: page.items };
    },
  });
