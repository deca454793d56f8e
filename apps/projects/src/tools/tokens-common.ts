/**
 * What the design-token tools share: a project's current tokens (the starter document until the
 * first write), the URIs a token change is news for, and the -32004 answer to a document with
 * problems.
 */
import { RpcError } from '@mcpkit/protocol';
import type { Store } from '../db/types.js';
import { defaultTokens, type TokenProblem } from '../dtcg.js';
import { Code } from '../errors.js';
import { PLATFORMS, type Platform } from '../tokens/build.js';
import { designSystemUri } from './common.js';

/** A project's tokens as they are now: version 0 is the starter document, never written. */
export async function currentTokens(store: Store, projectId: string) {
  const system = await store.getDesignSystem(projectId);
  return system
    ? { tokens: system.tokens, version: system.version, updatedAt: system.updatedAt }
    : { tokens: defaultTokens(), version: 0, updatedAt: undefined };
}

/** `codefluss://projects/{projectId}/tokens/{platform}`: a project's tokens built for a platform. */
export const tokenBuildUri = (projectId: string, platform: Platform) =>
  `codefluss://projects/${projectId}/tokens/${platform}`;

/** Every resource a change of a project's tokens changes: the document and each platform's build. */
export const tokenUris = (projectId: string) => [
  designSystemUri(projectId),
  ...PLATFORMS.map((platform) => tokenBuildUri(projectId, platform)),
];

/** -32004 for a document with problems: the first as `field` and `error`, up to 50 in `problems`. */
export function invalidTokens(problems: TokenProblem[]): RpcError {
  const first = problems[0] as TokenProblem;
  return new RpcError(Code.Validation, 'Validation error', {
    field: first.field === '(root)' ? 'tokens' : `tokens.${first.field}`,
    error: first.error,
    problems: problems.slice(0, 50),
  });
}
