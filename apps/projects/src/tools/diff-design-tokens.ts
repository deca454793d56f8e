import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import type { Store } from '../db/types.js';
import { defaultTokens } from '../dtcg.js';
import { notFound } from '../errors.js';
import { diffTokens } from '../tokens/diff.js';
import { projectId, READ, READ_ONLY, type ToolDeps } from './common.js';
import { currentTokens } from './tokens-common.js';

/** Entries per list in a diff's result. */
const LISTED = 500;

const version = z.number().int().min(0);
const sideShape = z.object({ type: z.string().optional(), value: z.unknown() });

/** The tokens of `version` (0: the starter tokens every project begins with). */
async function tokensAt(store: Store, id: string, at: number) {
  if (at === 0) return defaultTokens();
  const found = await store.getDesignTokenVersion(id, at);
  // A version past the history's bound, or never written: the same answer as a missing thing.
  if (!found) throw notFound('resource', `${id} design tokens version ${at}`);
  return found.tokens;
}

export const diffDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'diff_design_tokens',
    title: 'Diff design tokens',
    description: `Lists what changed in a project’s design tokens between two versions (see list_design_token_versions; 0 is the starter tokens, \`to\` defaults to the current version): added, removed and changed tokens by path, with old and new values — at most ${LISTED} of each, with the full counts.`,
    inputSchema: z.object({
      projectId,
      from: version.describe('The older version'),
      to: version.optional().describe('The newer version (default: the current one)'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      from: z.number().int(),
      to: z.number().int(),
      added: z.array(
        z.object({ path: z.string(), type: z.string().optional(), value: z.unknown() }),
      ),
      removed: z.array(
        z.object({ path: z.string(), type: z.string().optional(), value: z.unknown() }),
      ),
      changed: z.array(
        z.object({
          path: z.string(),
          changes: z.array(z.string()),
          from: sideShape.extend({ description: z.string().optional() }),
          to: sideShape.extend({ description: z.string().optional() }),
        }),
      ),
      counts: z.object({
        added: z.number().int(),
        removed: z.number().int(),
        changed: z.number().int(),
        unchanged: z.number().int(),
      }),
    }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, from, to }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const current = await currentTokens(deps.store, id);
      const target = to ?? current.version;
      const before = await tokensAt(deps.store, id, from);
      const after =
        target === current.version ? current.tokens : await tokensAt(deps.store, id, target);
      // JSON drops the undefined members (a token without a type or description).
      const diff = JSON.parse(JSON.stringify(diffTokens(before, after, LISTED)));
      return { projectId: id, from, to: target, ...diff };
    },
  });
