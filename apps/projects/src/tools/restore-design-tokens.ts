import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { notFound } from '../errors.js';
import { ADDS, projectId, type ToolDeps, WRITE } from './common.js';
import { checkTokens, tokenUris } from './tokens-common.js';

export const restoreDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'restore_design_tokens',
    title: 'Restore design tokens',
    description:
      'Makes an earlier version of a project’s design tokens and modes (see list_design_token_versions) the current one. The history keeps everything: the restore is a new version, noted "restored version N".',
    inputSchema: z.object({
      projectId,
      version: z.number().int().min(1).describe('The version to go back to'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      version: z.number().int().describe('The new version'),
      restored: z.number().int().describe('The version its tokens are from'),
      updatedAt: z.string(),
    }),
    annotations: ADDS,
    requiredScopes: WRITE,
    handler: async ({ projectId: id, version }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      const saved = await deps.tokenWrites(id, async () => {
        const old = await deps.store.getDesignTokenVersion(id, version);
        if (!old) throw notFound('resource', `${id} design tokens version ${version}`);
        // Written under the rules of its day: checked again under today's before it is current.
        await checkTokens(old.tokens, old.resolver);
        return deps.store.setDesignSystem(id, old.tokens, {
          author: who.userId,
          note: `restored version ${version}`,
          resolver: old.resolver,
        });
      });
      for (const uri of tokenUris(id)) deps.changed(uri, who.userId);
      return {
        projectId: id,
        version: saved.version,
        restored: version,
        updatedAt: saved.updatedAt,
      };
    },
  });
