import type { McpContext } from '@mcpkit/protocol';
import { caller, ownProject } from '../access.js';
import type { Block } from '../db/types.js';
import { notFound } from '../errors.js';
import type { ToolDeps } from './common.js';

/** A block the caller may touch: it exists and its project is theirs. */
export async function ownBlock(deps: ToolDeps, ctx: McpContext, blockId: string): Promise<Block> {
  // Who is asking comes first: an unauthenticated caller learns nothing about which ids exist.
  const who = caller(ctx);
  const block = await deps.store.getBlock(blockId);
  if (!block) throw notFound('block', blockId);
  await ownProject(deps.store, who, block.projectId);
  return block;
}
