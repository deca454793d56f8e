/**
 * W3C Design Tokens Community Group format, 2025.10: tokens carry `$value` and `$type` (or
 * inherit `$type` from a group), groups nest, `{group.token}` references another token, and
 * product data lives under `$extensions`. This module validates a document before it is stored
 * and builds the document a project starts with.
 */
import { drain, isObject, jsonOverLimitSteps } from './json.js';
import { expandDocument, usesExpansionSteps } from './tokens/expand.js';
import { checkValue, REFERENCE, type SubReference, TOKEN_TYPES } from './tokens/values.js';
import { runSliced } from './turns.js';

export const EXTENSION_KEY = 'io.codefluss';
export const MEDIA_TYPE = 'application/design-tokens+json';

const GROUP_KEYS = new Set([
  '$type',
  '$description',
  '$extensions',
  '$deprecated',
  '$schema',
  '$extends',
]);
const TOKEN_KEYS = new Set(['$value', '$type', '$description', '$extensions', '$deprecated']);
/** §6.2: the reserved name of a group's own token, e.g. `{color.accent.$root}`. */
const ROOT_TOKEN = '$root';

/** Why `$description` or `$deprecated` (of a token or group) is malformed, if it is. */
function metaProblem(key: '$description' | '$deprecated', value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (key === '$description') {
    return typeof value === 'string' ? undefined : '$description is a string';
  }
  return typeof value === 'boolean' || typeof value === 'string'
    ? undefined
    : '$deprecated is true, false or a string';
}
const NAME_BREAKER = /[{}.]/;

/**
 * What a token document may hold. Validation is linear in the document's size and these bound the
 * size: the largest legal document is validated, stored and merged into in steps of a few
 * milliseconds each (bench/src/tokens-bench.ts measures another caller's ping meanwhile). Nesting,
 * size and token count are checked first, at a cost bounded by these ({@link tokenLimitProblem}).
 */
export const TOKEN_LIMITS = {
  /** Tokens in a document. */
  tokens: 10_000,
  /** Groups nested in groups. */
  groupDepth: 32,
  /** References followed from a token to a value: `{a}` → `{b}` → value is 2. */
  aliasChain: 32,
  /** Objects and arrays nested in each other anywhere, `$value` and `$extensions` included. */
  jsonDepth: 64,
  /** The document as JSON text, in bytes. */
  bytes: 1024 * 1024,
} as const;

export interface TokenProblem {
  /** Dotted path of the token or group, e.g. `color.brand.primary`; `(root)` for the document. */
  field: string;
  error: string;
}

/** 10000 → `10,000`, as in the messages (without the cost of toLocaleString, per problem). */
const count = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The tokens of a document, counted as {@link validation} walks them (the members of groups up to
 * {@link TOKEN_LIMITS.groupDepth} deep that hold a `$value`), without looking into any token:
 * the first one past {@link TOKEN_LIMITS.tokens}, or undefined. Recursion bounded by groupDepth.
 * Yields every {@link STEP} tokens.
 */
function* tooManyTokensSteps(
  node: Record<string, unknown>,
  prefix: string,
  depth: number,
  counted: { tokens: number },
): Generator<void, TokenProblem | undefined, void> {
  if (depth > TOKEN_LIMITS.groupDepth) return undefined;
  for (const name of Object.keys(node)) {
    if ((name.charCodeAt(0) === 0x24 /* $ */ && name !== ROOT_TOKEN) || NAME_BREAKER.test(name)) {
      continue;
    }
    const child = node[name];
    if (!isObject(child)) continue;
    const field = prefix === '' ? name : `${prefix}.${name}`;
    if (!('$value' in child)) {
      const problem = yield* tooManyTokensSteps(child, field, depth + 1, counted);
      if (problem) return problem;
      continue;
    }
    if (++counted.tokens > TOKEN_LIMITS.tokens) {
      return {
        field,
        error: `a token document holds at most ${count(TOKEN_LIMITS.tokens)} tokens`,
      };
    }
    if (counted.tokens % STEP === 0) yield;
  }
  return undefined;
}

/**
 * The first of the document's bounds it crosses — JSON nesting ({@link TOKEN_LIMITS.jsonDepth}),
 * size ({@link TOKEN_LIMITS.bytes}), then token count ({@link TOKEN_LIMITS.tokens}) — or
 * undefined. The cheap refusals, checked before anything else touches a document: without
 * recursion (so a document deeper than the stack is refused, not a RangeError), without writing
 * it out, and stopping at the first bound crossed, so that refusing costs about as much as the
 * limits allow, however large the document is. Only what passes is merged, validated and stored.
 */
export function tokenLimitProblem(doc: unknown): TokenProblem | undefined {
  return drain(tokenLimitSteps(doc));
}

/**
 * {@link tokenLimitProblem} as a generator that yields every few thousand members and every
 * {@link STEP} tokens: measuring a megabyte document held a server's event loop ~10–20 ms in one
 * piece (#35); {@link validateTokensSliced} pauses at each yield.
 */
export function* tokenLimitSteps(doc: unknown): Generator<void, TokenProblem | undefined, void> {
  const over = yield* jsonOverLimitSteps(doc, TOKEN_LIMITS.jsonDepth, TOKEN_LIMITS.bytes);
  if (over?.limit === 'depth') {
    return {
      field: over.path.join('.') || '(root)',
      error: `a token document nests objects and arrays at most ${TOKEN_LIMITS.jsonDepth} deep`,
    };
  }
  if (over) {
    return {
      field: '(root)',
      error: `a token document is at most ${count(TOKEN_LIMITS.bytes)} bytes of JSON; this one is longer`,
    };
  }
  // Within the byte limit, so this walk is short.
  return isObject(doc) ? yield* tooManyTokensSteps(doc, '', 0, { tokens: 0 }) : undefined;
}

/** A token as validation sees it, with where following its references ends. */
interface TokenEntry {
  field: string;
  type: string | undefined;
  /** The token its `{group.token}` value names, if it is a reference. */
  ref: string | undefined;
  /** The token `ref` names, once resolved. */
  target: TokenEntry | undefined;
  /** 0 not resolved yet, 1 on the chain being followed, 2 resolved. */
  state: 0 | 1 | 2;
  /** Resolved: references followed to reach a value (0 for a value). */
  hops: number;
  /** Resolved: why its references do not reach a value. */
  error: string | undefined;
  /** Resolved: the token whose value its references reach (itself, for a value). */
  end: TokenEntry | undefined;
}

const NEW = 0;
const ON_CHAIN = 1;
const RESOLVED = 2;

/** Tokens (or references) validated between two chances to pause. */
const STEP = 128;

/**
 * Every problem of a token document: size, structure, names, types, values, references, alias
 * chains and cycles. Linear in the document's size and free of unbounded recursion: each token's
 * references are followed once (memoised), iteratively, and cycles are found on the way. Yields
 * every {@link STEP} tokens, so a caller may pause there ({@link validateTokensSliced}).
 */
function* validation(written: unknown): Generator<void, TokenProblem[], void> {
  if (!isObject(written)) return [{ field: '(root)', error: 'a token document is a JSON object' }];
  let doc: Record<string, unknown> = written;
  const over = yield* tokenLimitSteps(doc);
  if (over) return [over];
  yield;
  // $extends and $ref stand for parts of the document: validated as what they stand for.
  const expanded = expandDocument(doc, yield* usesExpansionSteps(doc));
  if (expanded.problems.length > 0) return expanded.problems;
  if (expanded.doc !== doc) {
    const more = yield* tooManyTokensSteps(expanded.doc, '', 0, { tokens: 0 });
    if (more) return [more];
    doc = expanded.doc;
    yield;
  }

  const problems: TokenProblem[] = [];
  // At most TOKEN_LIMITS.tokens, counted above.
  const tokens = new Map<string, TokenEntry>();
  /** Group paths: a reference to one names no token. */
  const groups = new Set<string>();
  /** References inside composite values, each with the token it is in (`field`). */
  const subRefs: (SubReference & { field?: string })[] = [];
  let subRefsChecked = 0;

  let steps = 0;
  // Recursion bounded by TOKEN_LIMITS.groupDepth.
  const walk = function* (
    node: Record<string, unknown>,
    prefix: string,
    depth: number,
    inheritedType: string | undefined,
  ): Generator<void, void, void> {
    if (depth > TOKEN_LIMITS.groupDepth) {
      problems.push({
        field: prefix,
        error: `groups nest at most ${TOKEN_LIMITS.groupDepth} deep`,
      });
      return;
    }
    const groupType = typeof node.$type === 'string' ? node.$type : inheritedType;
    if (
      node.$type !== undefined &&
      (typeof node.$type !== 'string' || !TOKEN_TYPES.has(node.$type))
    ) {
      problems.push({ field: prefix || '(root)', error: `unknown $type '${String(node.$type)}'` });
    }
    if (prefix !== '') groups.add(prefix);
    for (const key of ['$description', '$deprecated'] as const) {
      const problem = metaProblem(key, node[key]);
      if (problem) problems.push({ field: prefix || '(root)', error: problem });
    }
    for (const name of Object.keys(node)) {
      const field = prefix === '' ? name : `${prefix}.${name}`;
      if (name.charCodeAt(0) === 0x24 /* $ */ && name !== ROOT_TOKEN) {
        if (!GROUP_KEYS.has(name))
          problems.push({ field, error: `unknown group property ${name}` });
        continue;
      }
      if (NAME_BREAKER.test(name)) {
        problems.push({ field, error: 'names cannot contain {, } or .' });
        continue;
      }
      const child = node[name];
      if (!isObject(child)) {
        problems.push({ field, error: 'a token or group is a JSON object' });
        continue;
      }
      if (!('$value' in child)) {
        if (name === ROOT_TOKEN)
          problems.push({ field, error: `${ROOT_TOKEN} is a token: it needs $value` });
        else yield* walk(child, field, depth + 1, groupType);
        continue;
      }
      if (++steps % STEP === 0) yield;
      for (const key of Object.keys(child)) {
        if (TOKEN_KEYS.has(key)) continue;
        problems.push({
          field,
          error:
            key.charCodeAt(0) === 0x24
              ? `unknown token property ${key}`
              : `a token cannot also be a group (it holds '${key}')`,
        });
      }
      for (const key of ['$description', '$deprecated'] as const) {
        const problem = metaProblem(key, child[key]);
        if (problem) problems.push({ field, error: problem });
      }
      if (
        child.$type !== undefined &&
        (typeof child.$type !== 'string' || !TOKEN_TYPES.has(child.$type))
      ) {
        problems.push({ field, error: `unknown $type '${String(child.$type)}'` });
      }
      const ownType =
        typeof child.$type === 'string' && TOKEN_TYPES.has(child.$type) ? child.$type : groupType;
      const type = ownType !== undefined && TOKEN_TYPES.has(ownType) ? ownType : undefined;
      const value = child.$value;
      const ref = typeof value === 'string' ? REFERENCE.exec(value)?.[1] : undefined;
      if (ref === undefined) {
        if (type === undefined) {
          // §5.2.2: a token whose type cannot be determined MUST be considered invalid.
          if (ownType === undefined) {
            problems.push({ field, error: 'no $type: give the token or a group above it one' });
          }
        } else {
          const bad = checkValue(type, value, '', subRefs);
          if (bad) problems.push({ field, error: bad });
          for (; subRefsChecked < subRefs.length; subRefsChecked++) {
            (subRefs[subRefsChecked] as SubReference & { field?: string }).field = field;
          }
        }
      }
      subRefsChecked = subRefs.length;
      tokens.set(field, {
        field,
        type,
        ref,
        target: undefined,
        state: ref === undefined ? RESOLVED : NEW,
        hops: 0,
        error: undefined,
        end: undefined,
      });
    }
  };
  yield* walk(doc, '', 0, undefined);

  // References must resolve, within the alias chain limit, to a token of the same type where
  // both are known, without cycles. Each token is resolved once: its chain is followed until a
  // value, a token resolved before, a missing target or a token already on the chain (a cycle),
  // and every token on the chain is then resolved from that end, last first.
  const chain: TokenEntry[] = [];
  const resolve = (start: TokenEntry) => {
    chain.length = 0;
    let hops = 0;
    let error: string | undefined;
    let end: TokenEntry | undefined;
    for (let token = start; ; ) {
      if (token.state === RESOLVED) {
        ({ hops, error } = token);
        end = token.ref === undefined ? token : token.end;
        break;
      }
      if (token.state === ON_CHAIN) {
        error = `reference cycle through {${token.field}}`;
        break;
      }
      token.state = ON_CHAIN;
      chain.push(token);
      const target = tokens.get(token.ref as string);
      if (target === undefined) {
        error = missing(token.ref as string);
        break;
      }
      token.target = target;
      token = target;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const token = chain[i] as TokenEntry;
      token.state = RESOLVED;
      token.end = end;
      if (error === undefined) token.hops = ++hops;
      else token.error = error;
    }
  };
  const missing = (ref: string) =>
    groups.has(ref)
      ? `references the group {${ref}}; a reference names a token`
      : `references {${ref}}, which does not exist`;
  /** The type a token's value has: its own, or that of the token its references reach. */
  const typeOf = (token: TokenEntry) => {
    if (token.state !== RESOLVED) resolve(token);
    return token.type ?? token.end?.type;
  };

  for (const token of tokens.values()) {
    if (token.ref === undefined) continue;
    if (++steps % STEP === 0) yield;
    if (token.state !== RESOLVED) resolve(token);
    const { field, error, hops, target } = token;
    if (error !== undefined) {
      problems.push({ field, error });
    } else if (hops > TOKEN_LIMITS.aliasChain) {
      problems.push({
        field,
        error: `an alias chain is at most ${TOKEN_LIMITS.aliasChain} references long; this one is ${count(hops)}`,
      });
    } else if (token.type === undefined && target && typeOf(target) === undefined) {
      // §5.2.2: its type is its target's, and that has none.
      problems.push({ field, error: `no $type: nor has {${token.ref}}, which it references` });
    } else if (token.type && target && typeOf(target) && token.type !== typeOf(target)) {
      problems.push({
        field,
        error: `a ${token.type} token cannot reference the ${typeOf(target)} token {${token.ref}}`,
      });
    }
  }
  // §9: a reference inside a composite value names a token of that sub-value's type.
  for (const { field = '', at, ref, type } of subRefs) {
    if (++steps % STEP === 0) yield;
    const target = tokens.get(ref);
    if (target === undefined) {
      problems.push({ field, error: `${at}: ${missing(ref)}` });
      continue;
    }
    const targetType = typeOf(target);
    if (target.error === undefined && targetType !== undefined && targetType !== type) {
      problems.push({
        field,
        error: `${at}: a ${type} goes here; {${ref}} is a ${targetType} token`,
      });
    }
  }
  return problems;
}

/** {@link validation}, at once. */
export function validateTokens(doc: unknown): TokenProblem[] {
  const run = validation(doc);
  for (;;) {
    const step = run.next();
    if (step.done) return step.value;
  }
}

/**
 * {@link validateTokens}, in slices of about `sliceMs` of the event loop: between slices other
 * callers' requests are served. What the server validates with.
 */
export function validateTokensSliced(doc: unknown, sliceMs = 2): Promise<TokenProblem[]> {
  return runSliced(validation(doc), sliceMs);
}

const srgb = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return {
    colorSpace: 'srgb',
    components: [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255].map(
      (c) => Math.round(c * 1000) / 1000,
    ),
    hex,
  };
};

/** The token document a new project starts with. */
export function defaultTokens(): Record<string, unknown> {
  return {
    color: {
      $type: 'color',
      brand: {
        primary: { $value: srgb('#2563eb'), $description: 'Buttons, links, focus rings' },
        secondary: { $value: srgb('#7c3aed') },
      },
      text: {
        default: { $value: srgb('#111827') },
        muted: { $value: srgb('#6b7280') },
        subtle: {
          $value: srgb('#9ca3af'),
          $description: 'Placeholders; below AA on white for body text',
        },
      },
      surface: { background: { $value: srgb('#ffffff') } },
      action: { $value: '{color.brand.primary}' },
    },
    spacing: {
      $type: 'dimension',
      sm: { $value: { value: 0.5, unit: 'rem' } },
      md: { $value: { value: 1, unit: 'rem' } },
      lg: { $value: { value: 2, unit: 'rem' } },
    },
    font: {
      family: { $type: 'fontFamily', body: { $value: ['Inter', 'system-ui', 'sans-serif'] } },
      weight: { $type: 'fontWeight', regular: { $value: 400 }, bold: { $value: 700 } },
    },
    motion: {
      $type: 'duration',
      fast: { $value: { value: 150, unit: 'ms' } },
      ease: { $type: 'cubicBezier', $value: [0.2, 0, 0, 1] },
    },
    radius: { $type: 'dimension', md: { $value: { value: 0.5, unit: 'rem' } } },
    shadow: {
      $type: 'shadow',
      card: {
        $value: {
          color: { colorSpace: 'srgb', components: [0, 0, 0], alpha: 0.1 },
          offsetX: { value: 0, unit: 'px' },
          offsetY: { value: 4, unit: 'px' },
          blur: { value: 12, unit: 'px' },
          spread: { value: 0, unit: 'px' },
        },
      },
    },
    border: {
      $type: 'border',
      focus: {
        $value: {
          color: '{color.brand.primary}',
          width: { value: 2, unit: 'px' },
          style: 'solid',
        },
      },
    },
    transition: {
      $type: 'transition',
      fade: {
        $value: {
          duration: '{motion.fast}',
          delay: { value: 0, unit: 'ms' },
          timingFunction: '{motion.ease}',
        },
      },
    },
    gradient: {
      $type: 'gradient',
      hero: {
        $value: [
          { color: '{color.brand.primary}', position: 0 },
          { color: '{color.brand.secondary}', position: 1 },
        ],
      },
    },
    typography: {
      $type: 'typography',
      body: {
        $value: {
          fontFamily: '{font.family.body}',
          fontSize: { value: 1, unit: 'rem' },
          fontWeight: '{font.weight.regular}',
          letterSpacing: { value: 0, unit: 'px' },
          lineHeight: 1.5,
        },
      },
      heading: {
        $value: {
          fontFamily: '{font.family.body}',
          fontSize: { value: 2, unit: 'rem' },
          fontWeight: '{font.weight.bold}',
          letterSpacing: { value: -0.5, unit: 'px' },
          lineHeight: 1.2,
        },
      },
    },
  };
}

/** The stored tokens with the product's data under `$extensions`, as clients read them. */
export function tokenDocument(
  tokens: Record<string, unknown>,
  projectId: string,
  updatedAt: string,
) {
  const own = isObject(tokens.$extensions) ? tokens.$extensions : {};
  return { ...tokens, $extensions: { ...own, [EXTENSION_KEY]: { projectId, updatedAt } } };
}
