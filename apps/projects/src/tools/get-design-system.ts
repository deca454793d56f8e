import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { DESIGN_SYSTEM_TOOL_META } from '../design-system-view.js';
import { defaultTokens, tokenDocument } from '../dtcg.js';
import { projectId, READ, READ_ONLY, type ToolDeps } from './common.js';
import { contrastReport, modesOf } from './tokens-common.js';
import { modeAxisShape } from './update-design-token-modes.js';

export const getDesignSystem = (deps: ToolDeps) =>
  defineTool({
    name: 'get_design_system',
    title: 'Get design system',
    description: 'Returns a project’s design tokens as a W3C DTCG (2025.10) document.',
    inputSchema: z.object({ projectId }),
    outputSchema: z.object({
      projectId: z.string(),
      tokens: z.record(z.string(), z.unknown()),
      updatedAt: z.string(),
      version: z
        .number()
        .int()
        .describe('The version of the tokens (0: the starter tokens, never written)'),
      modes: z.array(modeAxisShape).describe('The modes’ modifiers and contexts (none: no modes)'),
      resolver: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('The DTCG resolver document of the modes, if any'),
      contrast: z
        .array(
          z.object({
            foreground: z.string(),
            background: z.string(),
            ratio: z.number(),
            aa: z.boolean(),
            aaLarge: z.boolean(),
            aaa: z.boolean(),
            aaaLarge: z.boolean(),
            mode: z.string().optional(),
            css: z.object({ foreground: z.string(), background: z.string() }),
          }),
        )
        .describe(
          'WCAG 2.2 contrast of every text colour on every surface colour (failing AA first); check_color_contrast checks any pair',
        ),
    }),
    annotations: READ_ONLY,
    // MCP Apps hosts draw the tokens beside the result; others ignore it.
    _meta: DESIGN_SYSTEM_TOOL_META,
    requiredScopes: READ,
    handler: async ({ projectId: id }, ctx) => {
      const project = await ownProject(deps.store, caller(ctx), id);
      const system = await deps.store.getDesignSystem(id);
      const updatedAt = system?.updatedAt ?? project.updatedAt;
      const tokens = system?.tokens ?? defaultTokens();
      return {
        projectId: id,
        tokens: tokenDocument(tokens, id, updatedAt),
        updatedAt,
        version: system?.version ?? 0,
        modes: modesOf(system?.resolver ?? null),
        ...(system?.resolver ? { resolver: system.resolver } : {}),
        contrast: await contrastReport(tokens, system?.resolver ?? null),
      };
    },
  });
