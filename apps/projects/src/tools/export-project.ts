import { defineTool, ToolError } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { defaultTokens, tokenDocument } from '../dtcg.js';
import {
  assetShape,
  blockShape,
  projectId,
  projectShape,
  publicProject,
  READ,
  READ_ONLY,
  type ToolDeps,
} from './common.js';

/** The export's format: what an import reads. */
export const EXPORT_FORMAT = 'mcpkit.projects.export/1' as const;
/**
 * The largest export one result carries (JSON bytes of its blocks): a project at its block limit
 * with large blocks is refused, saying so, rather than sent as a result no client can take.
 */
export const MAX_EXPORT_BYTES = 32 * 1024 * 1024;
/** Blocks read per page while exporting. */
const PAGE = 100;

export const exportProject = (deps: ToolDeps) =>
  defineTool({
    name: 'export_project',
    title: 'Export project',
    description: `Exports a whole project — its details, every block in page order, its assets (metadata and URLs) and its design tokens (W3C DTCG) — as one JSON document (format ${EXPORT_FORMAT}, at most ${MAX_EXPORT_BYTES / 1024 / 1024} MiB of blocks). Long for large projects: clients that support tasks get a task to poll.`,
    inputSchema: z.object({ projectId }),
    outputSchema: z.object({
      format: z.literal(EXPORT_FORMAT),
      exportedAt: z.string(),
      project: projectShape,
      blocks: z.array(blockShape),
      assets: z.array(assetShape),
      designTokens: z.record(z.string(), z.unknown()),
    }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    // Thousands of blocks page by page: a task for a client that can, so no timeout cuts it.
    taskSupport: 'optional',
    handler: async ({ projectId: id }, ctx) => {
      const project = await ownProject(deps.store, caller(ctx), id);
      const total = await deps.store.countBlocks(id);
      const blocks: z.infer<typeof blockShape>[] = [];
      let bytes = 0;
      let cursor: string | undefined;
      do {
        ctx.signal.throwIfAborted();
        const page = await deps.store.listBlocks(id, { cursor, limit: PAGE });
        for (const block of page.items) {
          bytes += JSON.stringify(block.content)?.length ?? 0;
          if (bytes > MAX_EXPORT_BYTES) {
            throw new ToolError(
              `project ${id} is too large to export in one result (its blocks exceed ${MAX_EXPORT_BYTES / 1024 / 1024} MiB)`,
            );
          }
          blocks.push(block);
        }
        ctx.progress(blocks.length, total, `exported ${blocks.length} of ${total} blocks`);
        cursor = page.nextCursor;
      } while (cursor);
      const assets: z.infer<typeof assetShape>[] = [];
      cursor = undefined;
      do {
        ctx.signal.throwIfAborted();
        const page = await deps.store.listAssets(id, { cursor, limit: PAGE });
        assets.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      const system = await deps.store.getDesignSystem(id);
      const updatedAt = system?.updatedAt ?? project.updatedAt;
      return {
        format: EXPORT_FORMAT,
        exportedAt: new Date().toISOString(),
        project: publicProject(project),
        blocks,
        assets,
        designTokens: tokenDocument(system?.tokens ?? defaultTokens(), id, updatedAt),
      };
    },
  });
