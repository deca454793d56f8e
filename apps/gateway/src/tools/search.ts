import { defineTool, holdsScopes } from '@mcpkit/protocol';
import { z } from 'zod';
import type { Gateway } from '../gateway.js';

/**
 * The `search` tool (`query`: "Search query") of the `POST /messages/` endpoint's reference:
 * here it finds tools, prompts, resources and resource templates across every backend. Each
 * result carries what the backend listed of it: its description, and its title when it has one.
 */
export const search = (gateway: Gateway) =>
  defineTool({
    name: 'search',
    description:
      'Search for information: find tools, prompts, resources and resource templates of every backend by name or description',
    inputSchema: z.object({
      query: z.string().min(1).max(200).describe('Search query'),
      limit: z.number().int().min(1).max(100).default(20),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ query, limit }, ctx) => {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const scored: {
        kind: string;
        name: string;
        title?: string;
        description: string;
        backend: string;
        score: number;
      }[] = [];
      const consider = (
        kind: string,
        name: string,
        entry: Readonly<Record<string, unknown>>,
        backend: string,
        requiredScopes?: readonly string[],
      ) => {
        // What the caller may not use is not found for it either.
        if (!holdsScopes(ctx.auth, requiredScopes)) return;
        const description = typeof entry.description === 'string' ? entry.description : '';
        const title = typeof entry.title === 'string' ? entry.title : '';
        // A resource's or template's key is its URI: its `name` ("item") is searched as well.
        const label = typeof entry.name === 'string' && entry.name !== name ? entry.name : '';
        const hay = `${name} ${label} ${title} ${description}`.toLowerCase();
        let score = 0;
        for (const w of words) {
          if (name.toLowerCase().includes(w)) score += 3;
          else if (hay.includes(w)) score += 1;
          else return;
        }
        scored.push({ kind, name, ...(title ? { title } : {}), description, backend, score });
      };
      const routes = gateway.routes();
      // The server's entries are what clients are shown (the backend's own list entries).
      for (const tool of gateway.server.listTools()) {
        consider(
          'tool',
          tool.name,
          tool.listEntry,
          routes.tools.get(tool.name)?.backend.name ?? 'gateway',
          tool.requiredScopes,
        );
      }
      for (const prompt of gateway.server.listPrompts()) {
        const backend = routes.prompts.get(prompt.name)?.backend.name ?? 'gateway';
        consider('prompt', prompt.name, prompt.listEntry, backend, prompt.requiredScopes);
      }
      for (const resource of gateway.server.listResources()) {
        const backend = routes.resources.get(resource.uri)?.backend.name ?? 'gateway';
        consider('resource', resource.uri, resource.listEntry, backend, resource.requiredScopes);
      }
      const templateOwners = templateBackends(gateway);
      for (const template of gateway.server.listResourceTemplates()) {
        const uriTemplate = template.template.template;
        const backend = templateOwners.get(uriTemplate) ?? 'gateway';
        consider(
          'resource_template',
          uriTemplate,
          template.listEntry,
          backend,
          template.requiredScopes,
        );
      }
      const results = scored
        .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
        .slice(0, limit)
        .map(({ score: _s, ...r }) => r);
      return {
        content: [
          { type: 'text' as const, text: `Results for: ${query}\n${JSON.stringify(results)}` },
        ],
        structuredContent: { query, results },
      };
    },
  });

/**
 * Which backend serves each URI template: the first, in config order, to list it — the one the
 * gateway's registry gives it to (a template two backends list is not renamed, unlike a tool).
 */
function templateBackends(gateway: Gateway): Map<string, string> {
  const owners = new Map<string, string>();
  for (const backend of gateway.backends.values()) {
    for (const entry of backend.listed?.templates ?? []) {
      const uriTemplate = entry.uriTemplate;
      if (typeof uriTemplate === 'string' && !owners.has(uriTemplate)) {
        owners.set(uriTemplate, backend.name);
      }
    }
  }
  return owners;
}
