import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import type { Gateway } from '../gateway.js';

/**
 * The `search` tool (`query`: "Search query") of the `POST /messages/` endpoint's reference:
 * here it finds tools, prompts and resources across every backend.
 */
export const search = (gateway: Gateway) =>
  defineTool({
    name: 'search',
    description:
      'Search for information: find tools, prompts and resources of every backend by name or description',
    inputSchema: z.object({
      query: z.string().min(1).max(200).describe('Search query'),
      limit: z.number().int().min(1).max(100).default(20),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ query, limit }) => {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const scored: {
        kind: string;
        name: string;
        description: string;
        backend: string;
        score: number;
      }[] = [];
      const consider = (
        kind: string,
        name: string,
        entry: Record<string, unknown>,
        backend: string,
      ) => {
        const description = typeof entry.description === 'string' ? entry.description : '';
        const title = typeof entry.title === 'string' ? entry.title : '';
        const hay = `${name} ${title} ${description}`.toLowerCase();
        let score = 0;
        for (const w of words) {
          if (name.toLowerCase().includes(w)) score += 3;
          else if (hay.includes(w)) score += 1;
          else return;
        }
        scored.push({ kind, name, description, backend, score });
      };
      for (const tool of gateway.server.listTools()) {
        const backend = gateway.routes().tools.get(tool.name)?.backend.name ?? 'gateway';
        consider('tool', tool.name, tool.listEntry, backend);
      }
      for (const [name, route] of gateway.routes().prompts)
        consider('prompt', name, {}, route.backend.name);
      for (const [uri, route] of gateway.routes().resources)
        consider('resource', uri, {}, route.backend.name);
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
