import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { DESIGN_TOKEN_VERSIONS_KEPT } from '../db/types.js';
import {
  cursor,
  limit,
  pageText,
  projectId,
  READ,
  READ_ONLY,
  type ToolDeps,
  withCursor,
} from './common.js';

export const versionShape = z.object({
  version: z.number().int(),
  createdAt: z.string(),
  author: z.string().nullable().describe('The user who wrote it'),
  note: z.string().nullable().describe('e.g. "restored version 3"'),
});

export const listDesignTokenVersions = (deps: ToolDeps) =>
  defineTool({
    name: 'list_design_token_versions',
    title: 'List design token versions',
    description: `Lists a project’s design-token history, newest first: every write of its tokens is a version (the last ${DESIGN_TOKEN_VERSIONS_KEPT} are kept). Compare two with diff_design_tokens; go back to one with restore_design_tokens.`,
    inputSchema: z.object({ projectId, cursor, limit }),
    outputSchema: z.object({ versions: z.array(versionShape), nextCursor: z.string().optional() }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, cursor: after, limit: size }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const page = await withCursor(() =>
        deps.store.listDesignTokenVersions(id, { cursor: after, limit: size }),
      );
      const versions = page.items;
      return {
        content: pageText(JSON.stringify({ versions }), page.nextCursor),
        structuredContent: page.nextCursor
          ? { versions, nextCursor: page.nextCursor }
          : { versions },
      };
    },
  });
