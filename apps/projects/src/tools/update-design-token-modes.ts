import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { tokenLimitProblem } from '../dtcg.js';
import { MAX_MODES, modeAxes, readResolver } from '../tokens/resolver.js';
import { projectId, SETS, type ToolDeps, WRITE } from './common.js';
import {
  checkTokens,
  currentTokens,
  invalidModes,
  invalidTokens,
  tokenUris,
} from './tokens-common.js';

export const modeAxisShape = z.object({
  name: z.string(),
  contexts: z.array(z.string()),
  default: z.string().optional(),
});

export const updateDesignTokenModes = (deps: ToolDeps) =>
  defineTool({
    name: 'update_design_token_modes',
    title: 'Update design token modes',
    description: `Sets a project’s modes (light/dark, brands, densities) as a DTCG Resolver Module 2025.10 document: {"version": "2025.10", "sets": {…}, "modifiers": {"theme": {"contexts": {"light": [tokens…], "dark": [tokens…]}, "default": "light"}}, "resolutionOrder": [{"$ref": "#/modifiers/theme"}]}. The project’s tokens come first; each mode lays the sets and its contexts over them (later wins). Sources are inline token documents or {"$ref": "#/sets/<name>"}. At most ${MAX_MODES} modes; every mode must validate. null removes the modes. Builds and contrast checks then take a mode, e.g. {"theme": "dark"}.`,
    inputSchema: z.object({
      projectId,
      resolver: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe('A DTCG resolver document, or null for no modes'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      version: z.number().int().describe('The version this write made'),
      modes: z.array(modeAxisShape).describe('The modifiers and their contexts'),
    }),
    annotations: SETS,
    requiredScopes: WRITE,
    handler: async ({ projectId: id, resolver }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      let axes: z.infer<typeof modeAxisShape>[] = [];
      if (resolver !== null) {
        // Its inline token documents are bounded as a token document is.
        const over = tokenLimitProblem(resolver);
        if (over) throw invalidTokens([over]);
        const read = readResolver(resolver);
        if ('problems' in read) throw invalidModes(read.problems);
        axes = modeAxes(read.layers).map((a) =>
          a.default === undefined
            ? { name: a.name, contexts: a.contexts }
            : { ...a, default: a.default },
        );
      }
      const saved = await deps.tokenWrites(id, async () => {
        const { tokens } = await currentTokens(deps.store, id);
        await checkTokens(tokens, resolver);
        return deps.store.setDesignSystem(id, tokens, {
          author: who.userId,
          note: resolver === null ? 'modes removed' : 'modes changed',
          resolver,
        });
      });
      for (const uri of tokenUris(id)) deps.changed(uri, who.userId);
      return { projectId: id, version: saved.version, modes: axes };
    },
  });
