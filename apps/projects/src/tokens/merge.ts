/**
 * Token documents laid over each other: a group merges member by member, a token (an object with
 * `$value`) is replaced whole — how `update_design_tokens` merges a patch and how the DTCG
 * Resolver Module combines sources ("the last occurrence … will be the final value").
 */

import { isObject } from '../json.js';

/**
 * `patch` laid over `base`; neither is changed. Recursive: `patch` must have passed
 * `tokenLimitProblem` (bounded nesting) first.
 */
export function mergeTokens(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] =
      isObject(value) && isObject(current) && !('$value' in value)
        ? mergeTokens(current, value)
        : value;
  }
  return out;
}
