/**
 * The two DTCG 2025.10 forms that stand for other parts of the document, expanded into the plain
 * form the rest of the validator and the builds read: group extension (`"$extends": "{button}"`,
 * §6.4 — the target group's tokens and properties, with the group's own laid over them: a token
 * replaced whole, groups merged) and JSON Pointer references (`{"$ref": "#/colors/blue"}`, §6.6.2 /
 * §7.1.2 — a token-level `$ref` to a whole token is an alias of it, `{colors.blue}`; a `$ref`
 * inside a value, e.g. `…/$value/components/0`, is the value it points at). The stored document
 * keeps its references (§7.2: tools SHOULD preserve them); this is what they stand for.
 *
 * Bounded: what the expansion makes is counted, and stops past {@link EXPANSION_LIMIT} nodes, so
 * a group extended by groups extended in turn cannot multiply a document past its limits.
 */

import { drain, isObject } from '../json.js';
import { mergeTokens } from './merge.js';
import { REFERENCE } from './values.js';

type Json = Record<string, unknown>;

/** A problem of the expansion: the dotted path of the group or token, and why. */
export interface ExpandProblem {
  field: string;
  error: string;
}

/** Objects and arrays the expansion may make in all: a few times what the limits allow. */
export const EXPANSION_LIMIT = 200_000;

/** `#/a/b~1c` → ['a', 'b/c'] (RFC 6901), or undefined for anything but a same-document pointer. */
function pointerPath(ref: string): string[] | undefined {
  if (ref === '#') return [];
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** What a pointer points at in `doc`, or undefined. */
function at(doc: unknown, path: string[]): unknown {
  let node: unknown = doc;
  for (const key of path) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

class Expander {
  readonly problems: ExpandProblem[] = [];
  /** Objects and arrays made so far. */
  #made = 0;
  #over = false;

  constructor(readonly doc: Json) {}

  #count(): boolean {
    if (++this.#made <= EXPANSION_LIMIT) return true;
    if (!this.#over) {
      this.#over = true;
      this.problems.push({
        field: '(root)',
        error: `$extends and $ref expand this document past ${EXPANSION_LIMIT.toLocaleString('en-US')} objects and arrays`,
      });
    }
    return false;
  }

  /** A value with its `$ref`s replaced by what they point at (`seen`: pointers being followed). */
  value(value: unknown, field: string, seen: string[]): unknown {
    if (Array.isArray(value)) {
      if (!this.#count()) return value;
      return value.map((v) => this.value(v, field, seen));
    }
    if (!isObject(value)) return value;
    if (!this.#count()) return value;
    if (typeof value.$ref === 'string') return this.#deref(value.$ref, field, seen);
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.value(v, field, seen);
    return out;
  }

  #deref(ref: string, field: string, seen: string[]): unknown {
    const path = pointerPath(ref);
    if (path === undefined) {
      this.problems.push({ field, error: `$ref '${ref}': only same-document pointers (#/…)` });
      return undefined;
    }
    if (seen.includes(ref)) {
      this.problems.push({ field, error: `$ref cycle: ${[...seen, ref].join(' → ')}` });
      return undefined;
    }
    const target = at(this.doc, path);
    if (target === undefined) {
      this.problems.push({ field, error: `$ref '${ref}' points at nothing` });
      return undefined;
    }
    // A whole token's value (`…/$value`) is an alias of that token.
    const tokenPath = path.at(-1) === '$value' ? path.slice(0, -1) : undefined;
    if (tokenPath && tokenPath.length > 0 && tokenPath.every((p) => !/[{}.]/.test(p))) {
      return `{${tokenPath.join('.')}}`;
    }
    return this.value(target, field, [...seen, ref]);
  }

  /**
   * A group with its `$extends` laid under it and its children expanded. `chain` holds the
   * groups whose extension is being followed, to name a cycle.
   */
  group(node: Json, path: string[], chain: string[]): Json {
    if (!this.#count()) return node;
    const field = path.join('.') || '(root)';
    let base: Json = {};
    const ext = node.$extends;
    if (ext !== undefined) {
      const ref = typeof ext === 'string' ? REFERENCE.exec(ext)?.[1] : undefined;
      const target = ref === undefined ? undefined : at(this.doc, ref.split('.'));
      if (ref === undefined) {
        this.problems.push({ field, error: '$extends is a reference to a group, e.g. "{button}"' });
      } else if (chain.includes(ref)) {
        this.problems.push({
          field,
          error: `$extends cycle: ${[...chain, ref].map((g) => `{${g}}`).join(' → ')}`,
        });
      } else if (!isObject(target) || '$value' in target) {
        this.problems.push({
          field,
          error: isObject(target)
            ? `$extends names the token {${ref}}; it names a group`
            : `$extends names {${ref}}, which does not exist`,
        });
      } else {
        const { $extends: _, ...inherited } = this.group(target, ref.split('.'), [...chain, ref]);
        base = inherited;
      }
    }
    const out: Json = { ...base };
    for (const [key, child] of Object.entries(node)) {
      if (key === '$extends') continue;
      const childPath = [...path, key];
      const inherited = out[key];
      if (!isObject(child) || (key.startsWith('$') && key !== '$root')) {
        out[key] = child;
      } else if ('$value' in child || typeof child.$ref === 'string') {
        // A token, replaced whole (§6.4.3).
        out[key] = this.token(child, childPath.join('.'));
      } else {
        const own = this.group(child, childPath, chain);
        // Groups merge: the inherited group's members under the local ones.
        out[key] =
          isObject(inherited) && !('$value' in inherited) ? mergeTokens(inherited, own) : own;
      }
    }
    return out;
  }

  /** A token with its `$ref`s expanded: a token-level `$ref` to a whole token becomes an alias. */
  token(node: Json, field: string): Json {
    if (!('$value' in node) && typeof node.$ref === 'string') {
      const { $ref, ...rest } = node;
      const path = pointerPath($ref);
      const target = path === undefined ? undefined : at(this.doc, path);
      if (
        path !== undefined &&
        isObject(target) &&
        '$value' in target &&
        path.every((p) => !/[{}.]/.test(p))
      ) {
        return { ...rest, $value: `{${path.join('.')}}` };
      }
      this.problems.push({
        field,
        error: `$ref '${$ref}' of a token points at a whole token (#/group/token); a pointer into a value goes inside $value`,
      });
      return { ...rest, $value: undefined };
    }
    return { ...node, $value: this.value(node.$value, field, []) };
  }
}

/**
 * `doc` with `$extends` and `$ref` expanded, and the problems found (unresolvable, circular, a
 * group extending a token, a pointer to nothing). Unchanged if it uses neither; `uses`, when the
 * caller looked already ({@link usesExpansionSteps}), saves the look.
 */
export function expandDocument(
  doc: Json,
  uses: boolean = drain(usesExpansionSteps(doc)),
): { doc: Json; problems: ExpandProblem[] } {
  if (!uses) return { doc, problems: [] };
  const expander = new Expander(doc);
  const out = expander.group(doc, [], []);
  return { doc: out, problems: expander.problems };
}

/** Nodes looked at between two chances to pause. */
const LOOK_STEP = 2048;

/**
 * Whether any object of `doc` has a `$extends` or `$ref` member (iterative: depth is unbounded),
 * yielding every {@link LOOK_STEP} nodes: the look at a megabyte document that uses neither held
 * a server's event loop ~8 ms in one piece (#35); validation pauses at each yield.
 */
export function* usesExpansionSteps(doc: unknown): Generator<void, boolean, void> {
  const stack: unknown[] = [doc];
  let looked = 0;
  while (stack.length > 0) {
    if (++looked % LOOK_STEP === 0) yield;
    const node = stack.pop();
    // Not push(...node): an array of a few hundred thousand members overflows the call stack.
    if (Array.isArray(node)) for (const member of node) stack.push(member);
    else if (isObject(node)) {
      if ('$extends' in node || '$ref' in node) return true;
      for (const key in node) stack.push(node[key]);
    }
  }
  return false;
}
