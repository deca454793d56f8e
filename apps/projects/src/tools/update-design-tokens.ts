import { defineTool, RpcError } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { defaultTokens, EXTENSION_KEY, tokenDocument, validateTokens } from '../dtcg.js';
import { Code } from '../errors.js';
import { designSystemUri, projectId, type ToolDeps, WRITE } from './common.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge of token groups: a key in `patch` replaces or extends the same key in `base`. */
function merge(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    // A token (has $value) is replaced whole; groups merge.
    out[key] =
      isObject(value) && isObject(current) && !('$value' in value) ? merge(current, value) : value;
  }
  return out;
}

export const updateDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'update_design_tokens',
    title: 'Update design tokens',
    description:
      'Replaces or merges a project’s design tokens (W3C DTCG 2025.10: $value, $type, {group.token} references). The result is validated before it is stored.',
    inputSchema: z.object({
      projectId,
      tokens: z.record(z.string(), z.unknown()).describe('A DTCG token document or part of one'),
      mode: z.enum(['merge', 'replace']).optional().describe('merge (default) or replace'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      tokens: z.record(z.string(), z.unknown()),
      updatedAt: z.string(),
    }),
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    requiredScopes: WRITE,
    handler: async ({ projectId: id, tokens, mode }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      // Our own extension data is derived, never stored from input.
      const { $extensions, ...rest } = tokens;
      const ext = isObject($extensions) ? { ...$extensions } : undefined;
      if (ext) delete ext[EXTENSION_KEY];
      const input = ext && Object.keys(ext).length > 0 ? { ...rest, $extensions: ext } : rest;
      const current = (await deps.store.getDesignSystem(id))?.tokens ?? defaultTokens();
      const next = mode === 'replace' ? input : merge(current, input);
      const problems = validateTokens(next);
      const first = problems[0];
      if (first) {
        throw new RpcError(Code.Validation, 'Validation error', {
          field: `tokens.${first.field}`,
          error: first.error,
          problems: problems.slice(0, 50),
        });
      }
      const saved = await deps.store.setDesignSystem(id, next);
      deps.changed(designSystemUri(id), who.userId);
      return {
        projectId: id,
        tokens: tokenDocument(saved.tokens, id, saved.updatedAt),
        updatedAt: saved.updatedAt,
      };
    },
  });
