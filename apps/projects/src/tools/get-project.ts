import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import {
  projectId,
  projectShape,
  publicProject,
  READ,
  READ_ONLY,
  type ToolDeps,
} from './common.js';

export const getProject = (deps: ToolDeps) =>
  defineTool({
    name: 'get_project',
    title: 'Get project',
    description: 'Ruft Details eines spezifischen Projekts ab',
    inputSchema: z.object({ projectId }),
    outputSchema: projectShape.extend({ blockCount: z.number().int() }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id }, ctx) => {
      const project = await ownProject(deps.store, caller(ctx), id);
      return { ...publicProject(project), blockCount: await deps.store.countBlocks(id) };
    },
  });
