import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller } from '../access.js';
import { defaultTokens } from '../dtcg.js';
import {
  ADDS,
  checkDomain,
  checkName,
  PROJECTS_URI,
  projectShape,
  publicProject,
  type ToolDeps,
  WRITE,
} from './common.js';

export const createProject = (deps: ToolDeps) =>
  defineTool({
    name: 'create_project',
    title: 'Create project',
    description: 'Creates a project (with a starter design system) for the key’s user.',
    inputSchema: z.object({
      name: z.string().describe('Project name, 1–200 characters'),
      description: z.string().max(2000).nullable().optional(),
      domain: z.string().nullable().optional().describe('Host name, e.g. example.com'),
      status: z.enum(['draft', 'published', 'archived']).optional(),
    }),
    outputSchema: projectShape,
    annotations: ADDS,
    requiredScopes: WRITE,
    handler: async (args, ctx) => {
      const who = caller(ctx);
      const name = checkName(args.name) as string;
      const domain = checkDomain(args.domain);
      const project = await deps.store.createProject(who.userId, {
        name,
        ...(args.description !== undefined ? { description: args.description } : {}),
        ...(domain !== undefined ? { domain } : {}),
        ...(args.status ? { status: args.status } : {}),
      });
      await deps.store.setDesignSystem(project.id, defaultTokens());
      deps.changed(PROJECTS_URI, who.userId);
      return publicProject(project);
    },
  });
