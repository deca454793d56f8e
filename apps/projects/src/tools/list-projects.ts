import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller } from '../access.js';
import {
  cursor,
  limit,
  pageText,
  projectShape,
  publicProject,
  READ,
  READ_ONLY,
  type ToolDeps,
  withCursor,
} from './common.js';

export const listProjects = (deps: ToolDeps) =>
  defineTool({
    name: 'list_projects',
    title: 'List projects',
    description: 'Listet alle Projekte des Benutzers auf',
    inputSchema: z.object({ cursor, limit }),
    outputSchema: z.object({ projects: z.array(projectShape), nextCursor: z.string().optional() }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ cursor: after, limit: size }, ctx) => {
      const who = caller(ctx);
      const page = await withCursor(() =>
        deps.store.listProjects(who.userId, { cursor: after, limit: size }),
      );
      const projects = page.items.map(publicProject);
      const structured = page.nextCursor ? { projects, nextCursor: page.nextCursor } : { projects };
      // As the CODEFLUSS protocol's example, the text is the compact list: [{"id": …, "name": …}];
      // a next page is announced in a second text block.
      return {
        content: pageText(
          JSON.stringify(projects.map(({ id, name }) => ({ id, name }))),
          page.nextCursor,
        ),
        structuredContent: structured,
      };
    },
  });
