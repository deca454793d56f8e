import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { LimitError, MAX_BLOCKS_PER_PROJECT } from '../db/types.js';
import { validationError } from '../errors.js';
import {
  ADDS,
  blockShape,
  checkBlockType,
  checkContent,
  MAX_CONTENT_BYTES,
  MAX_CONTENT_DEPTH,
  projectId,
  type ToolDeps,
  WRITE,
} from './common.js';

export const createBlock = (deps: ToolDeps) =>
  defineTool({
    name: 'create_block',
    title: 'Create block',
    description: `Adds a content block to a project, at the end or at a position (later blocks move down). Content: any JSON up to ${MAX_CONTENT_BYTES / 1024} KiB, nested at most ${MAX_CONTENT_DEPTH} deep; a project holds at most ${MAX_BLOCKS_PER_PROJECT} blocks.`,
    inputSchema: z.object({
      projectId,
      type: z.string().describe('Block type, e.g. hero, text, gallery'),
      content: z.unknown().describe('Block content (any JSON)'),
      position: z.number().int().min(0).optional().describe('0-based position; default: last'),
    }),
    outputSchema: blockShape,
    annotations: ADDS,
    requiredScopes: WRITE,
    handler: async ({ projectId: id, type, content, position }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      checkBlockType(type);
      checkContent(content);
      try {
        return await deps.store.createBlock(id, {
          type,
          content: content ?? null,
          ...(position !== undefined ? { position } : {}),
        });
      } catch (err) {
        if (err instanceof LimitError) {
          throw validationError(
            'projectId',
            `a project holds at most ${err.max} blocks; delete one before adding another`,
          );
        }
        throw err;
      }
    },
  });
