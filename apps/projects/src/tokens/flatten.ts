/**
 * A DTCG token document as a flat table — dotted path → token, with the `$type` each token has
 * once group types are inherited — and the values its references stand for. What builds,
 * contrast checks and diffs work on. Documents reach this module validated (`validateTokens`), so
 * references resolve, chains are bounded and cycles absent; the resolver still stops at a cycle or
 * a missing target (it returns undefined) rather than trusting that.
 */

import { isObject } from '../json.js';
import { expandDocument } from './expand.js';
import { REFERENCE } from './values.js';

/** `{group.token}`: the whole string is a reference. */
/** One token of a flattened document. */
export interface FlatToken {
  /** Dotted path, e.g. `color.brand.primary`. */
  path: string;
  /** Its own `$type`, or the nearest group's; for an alias without either, its target's. */
  type: string | undefined;
  /** `$value` as written (a reference stays a reference). */
  value: unknown;
  /** `$description`, if a string. */
  description: string | undefined;
  /** Whether `$deprecated` is set (true or a message). */
  deprecated: boolean;
}

/** Every token of a document, in document order. Recursion is bounded by validation's group depth. */
export function flattenTokens(written: Record<string, unknown>): Map<string, FlatToken> {
  // $extends and $ref as what they stand for.
  const doc = expandDocument(written).doc;
  const out = new Map<string, FlatToken>();
  const walk = (node: Record<string, unknown>, prefix: string, inherited: string | undefined) => {
    const groupType = typeof node.$type === 'string' ? node.$type : inherited;
    for (const [name, child] of Object.entries(node)) {
      if ((name.startsWith('$') && name !== '$root') || !isObject(child)) continue;
      const path = prefix === '' ? name : `${prefix}.${name}`;
      if (!('$value' in child)) {
        walk(child, path, groupType);
        continue;
      }
      out.set(path, {
        path,
        type: typeof child.$type === 'string' ? child.$type : groupType,
        value: child.$value,
        description: typeof child.$description === 'string' ? child.$description : undefined,
        deprecated: child.$deprecated !== undefined && child.$deprecated !== false,
      });
    }
  };
  walk(doc, '', undefined);
  // An alias without a type of its own or its group's has its target's.
  for (const token of out.values()) {
    if (token.type === undefined) token.type = aliasTarget(out, token)?.type;
  }
  return out;
}

/** The token at the end of an alias chain (the token itself if it is no alias). */
export function aliasTarget(
  tokens: Map<string, FlatToken>,
  token: FlatToken,
): FlatToken | undefined {
  let current: FlatToken | undefined = token;
  for (let hops = 0; current && hops <= tokens.size; hops++) {
    const ref = typeof current.value === 'string' ? REFERENCE.exec(current.value)?.[1] : undefined;
    if (ref === undefined) return current;
    current = tokens.get(ref);
  }
  return undefined;
}

/**
 * The value `value` stands for with every reference in it — whole, or inside a composite
 * (`{color: "{color.ink}", width: …}`) — replaced by the DTCG value of its target, resolved the
 * same way. Undefined if a reference does not resolve.
 */
export function resolveValue(tokens: Map<string, FlatToken>, value: unknown, depth = 0): unknown {
  if (depth > 64) return undefined;
  if (typeof value === 'string') {
    const ref = REFERENCE.exec(value)?.[1];
    if (ref === undefined) return value;
    const target = tokens.get(ref);
    return target ? resolveValue(tokens, target.value, depth + 1) : undefined;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => resolveValue(tokens, item, depth + 1));
    return items.includes(undefined) ? undefined : items;
  }
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      const resolved = resolveValue(tokens, member, depth + 1);
      if (resolved === undefined) return undefined;
      out[key] = resolved;
    }
    return out;
  }
  return value;
}
