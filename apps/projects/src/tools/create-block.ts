import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import {
  blockShape,
  checkBlockType,
  checkContent,
  projectId,
  type ToolDeps,
  WRITE,
} from './common.js';

export const createBlock = (deps: ToolDeps) =>
  defineTool({
    name: 'create_block',
    title: 'Create block',
    description:
      'Adds a content block to a project, at the end or at a position (later blocks move down).',
    inputSchema: z.object({
      projectId,
      type: z.string().describe('Block type, e.g. hero, text, gallery'),
      content: z.unknown().describe('Block content (any JSON)'),
      position: z.number().int().min(0).optional().describe('0-based position; default: last'),
    }),
    outputSchema: blockShape,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    requiredScopes: WRITE,
    handler: async ({ projectId: id, type, content, position }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      checkBlockType(type);
      checkContent(content);
      return deps.store.createBlock(id, {
        type,
        content: content ?? null,
        ...(position !== undefined ? { position } : {}),
      });
    },
  });
