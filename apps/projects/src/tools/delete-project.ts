import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import {
  DELETES,
  designSystemUri,
  PROJECTS_URI,
  projectId,
  type ToolDeps,
  WRITE,
} from './common.js';

export const deleteProject = (deps: ToolDeps) =>
  defineTool({
    name: 'delete_project',
    title: 'Delete project',
    description:
      'Deletes a project with all its blocks, assets and design tokens. This cannot be undone.',
    inputSchema: z.object({ projectId }),
    outputSchema: z.object({ deleted: z.boolean(), projectId: z.string() }),
    annotations: DELETES,
    requiredScopes: WRITE,
    handler: async ({ projectId: id }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      const deleted = await deps.store.deleteProject(id);
      deps.changed(PROJECTS_URI, who.userId);
      deps.changed(designSystemUri(id), who.userId);
      return { deleted, projectId: id };
    },
  });
