import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { notFound } from '../errors.js';
import { assetShape, READ, READ_ONLY, type ToolDeps } from './common.js';

export const getAsset = (deps: ToolDeps) =>
  defineTool({
    name: 'get_asset',
    title: 'Get asset',
    description: 'Returns one asset’s metadata.',
    inputSchema: z.object({ assetId: z.string().describe('The asset id (ast_…)') }),
    outputSchema: assetShape,
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ assetId }, ctx) => {
      const who = caller(ctx);
      const asset = await deps.store.getAsset(assetId);
      if (!asset) throw notFound('asset', assetId);
      await ownProject(deps.store, who, asset.projectId);
      return asset;
    },
  });
