import { defineTool, pollTurn } from '@mcpkit/protocol';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import {
  defaultTokens,
  EXTENSION_KEY,
  TOKEN_LIMITS,
  tokenDocument,
  tokenLimitSteps,
} from '../dtcg.js';
import { isObject } from '../json.js';
import { mergeTokens } from '../tokens/merge.js';
import { runSliced } from '../turns.js';
import { projectId, SETS, type ToolDeps, WRITE } from './common.js';
import { checkTokens, invalidTokens, modesOf, tokenUris } from './tokens-common.js';
import { modeAxisShape } from './update-design-token-modes.js';

export const updateDesignTokens = (deps: ToolDeps) =>
  defineTool({
    name: 'update_design_tokens',
    title: 'Update design tokens',
    description: `Replaces or merges a project’s design tokens (W3C DTCG 2025.10: $value, $type, {group.token} references). The result is validated before it is stored: at most ${TOKEN_LIMITS.tokens} tokens and ${TOKEN_LIMITS.bytes / 1024} KiB, alias chains of at most ${TOKEN_LIMITS.aliasChain} references, groups ${TOKEN_LIMITS.groupDepth} deep.`,
    inputSchema: z.object({
      projectId,
      tokens: z.record(z.string(), z.unknown()).describe('A DTCG token document or part of one'),
      mode: z.enum(['merge', 'replace']).optional().describe('merge (default) or replace'),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      tokens: z.record(z.string(), z.unknown()),
      updatedAt: z.string(),
      version: z
        .number()
        .int()
        .describe('The version this write made (see list_design_token_versions)'),
      modes: z.array(modeAxisShape).describe('The modes’ modifiers and contexts (none: no modes)'),
      resolver: z.record(z.string(), z.unknown()).optional(),
    }),
    annotations: SETS,
    requiredScopes: WRITE,
    handler: async ({ projectId: id, tokens, mode }, ctx) => {
      const who = caller(ctx);
      await ownProject(deps.store, who, id);
      // Our own extension data is derived, never stored from input.
      const { $extensions, ...rest } = tokens;
      const ext = isObject($extensions) ? { ...$extensions } : undefined;
      if (ext) delete ext[EXTENSION_KEY];
      const input = ext && Object.keys(ext).length > 0 ? { ...rest, $extensions: ext } : rest;
      // The cheap refusals first: nesting, size and token count, measured without recursion
      // (the merge recurses) and at a cost bounded by the limits, not by the input. An input past
      // a limit is refused here, before the stored document is read, merged into or validated: a
      // merge keeps every member of the input, so the result would be refused too. From the next
      // turn of the event loop on (this one parsed the request), in slices.
      await pollTurn();
      const over = await runSliced(tokenLimitSteps(input));
      if (over) throw invalidTokens([over]);
      // A large document is work for the event loop: each step below gets a turn of its own, and
      // validation pauses every few milliseconds, so that other callers are served meanwhile.
      const saved = await deps.tokenWrites(id, async () => {
        await pollTurn();
        let next = input;
        const current = await deps.store.getDesignSystem(id);
        if (mode !== 'replace') {
          await pollTurn();
          next = mergeTokens(current?.tokens ?? defaultTokens(), input);
        }
        // The document, or with modes each mode's document, must be valid.
        await checkTokens(next, current?.resolver ?? null);
        // Its text, and the transaction that stores it, in a turn each.
        await pollTurn();
        const json = JSON.stringify(next);
        await pollTurn();
        return deps.store.setDesignSystem(id, next, { author: who.userId, json });
      });
      for (const uri of tokenUris(id)) deps.changed(uri, who.userId);
      await pollTurn();
      const result = {
        projectId: id,
        tokens: tokenDocument(saved.tokens, id, saved.updatedAt),
        updatedAt: saved.updatedAt,
        version: saved.version,
        modes: modesOf(saved.resolver),
        ...(saved.resolver ? { resolver: saved.resolver } : {}),
      };
      // The JSON text of the result, as the engine would make it, in a turn of its own: the
      // reply is encoded in the next.
      const text = JSON.stringify(result);
      await pollTurn();
      return { content: [{ type: 'text' as const, text }], structuredContent: result };
    },
  });
