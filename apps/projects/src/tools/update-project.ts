import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import type { ProjectInput } from '../db/types.js';
import { notFound } from '../errors.js';
import {
  checkDomain,
  checkName,
  PROJECTS_URI,
  projectId,
  projectShape,
  publicProject,
  SETS,
  type ToolDeps,
  WRITE,
} from './common.js';

export const updateProject = (deps: ToolDeps) =>
  defineTool({
    name: 'update_project',
    title: 'Update project',
    description:
      'Changes a project’s name, description, domain or status; fields left out stay as they are.',
    inputSchema: z.object({
      projectId,
      name: z.string().optional(),
      description: z.string().max(2000).nullable().optional(),
      domain: z.string().nullable().optional(),
      status: z.enum(['draft', 'published', 'archived']).optional(),
    }),
    outputSchema: projectShape,
    annotations: SETS,
    requiredScopes: WRITE,
    handler: async ({ projectId: id, ...args }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      const patch: Partial<ProjectInput> = {};
      const name = checkName(args.name);
      if (name !== undefined) patch.name = name;
      const domain = checkDomain(args.domain);
      if (domain !== undefined) patch.domain = domain;
      if (args.description !== undefined) patch.description = args.description;
      if (args.status !== undefined) patch.status = args.status;
      const project = await deps.store.updateProject(id, patch);
      if (!project) throw notFound('project', id);
      deps.changed(PROJECTS_URI, who.userId);
      return publicProject(project);
    },
  });
