import { defineResource, defineResourceTemplate, type McpContext } from '@mcpkit/protocol';
import { caller, ownProject } from './access.js';
import type { Store } from './db/types.js';
import { defaultTokens, tokenDocument } from './dtcg.js';
import { authorizationFailed } from './errors.js';
import { designSystemUri, PROJECTS_URI } from './tools/common.js';

const MAX_LISTED = 1000;

function readable(ctx: McpContext) {
  const who = caller(ctx);
  if (!who.scopes.has('read')) throw authorizationFailed("API key lacks scope 'read'");
  return who;
}

export function projectResources(store: Store) {
  const projects = defineResource({
    uri: PROJECTS_URI,
    name: 'Projects',
    description: 'Alle Projekte des Benutzers',
    mimeType: 'application/json',
    read: async (ctx) => {
      const who = readable(ctx);
      const list: { id: string; name: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listProjects(who.userId, { cursor, limit: 100 });
        list.push(...page.items.map(({ id, name }) => ({ id, name })));
        cursor = page.nextCursor;
      } while (cursor && list.length < MAX_LISTED);
      return JSON.stringify(list.slice(0, MAX_LISTED));
    },
  });

  const designSystem = defineResourceTemplate({
    uriTemplate: 'codefluss://design-system/{projectId}',
    name: 'Design System',
    description: 'Design Tokens eines Projekts',
    mimeType: 'application/json',
    // Listed by resources/templates/list only. The CODEFLUSS protocol page's resources/list
    // example shows the template among the resources, but a Resource's `uri` is a URI (MCP
    // schema, every revision) and `{projectId}` is none: a client that checks it refuses the
    // whole list.
    // Completing offers the user's project ids: reading them, so the same scope as reading.
    complete: {
      projectId: async (value, ctx) => {
        const who = readable(ctx);
        return store.projectIdsStartingWith(who.userId, value, 100);
      },
    },
    read: async (uri, { projectId }, ctx) => {
      const who = readable(ctx);
      const id = projectId ?? '';
      const project = await ownProject(store, who, id);
      const system = await store.getDesignSystem(id);
      const doc = tokenDocument(
        system?.tokens ?? defaultTokens(),
        id,
        system?.updatedAt ?? project.updatedAt,
      );
      return { uri, mimeType: 'application/json', text: JSON.stringify(doc) };
    },
  });
  return { projects, designSystem, designSystemUri };
}
