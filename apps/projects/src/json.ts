/**
 * Bounds of a JSON value, measured without recursion and without writing it out. A value nested
 * deeper than the stack allows (`{"a":{"a":…}}` 100,000 levels, which `JSON.parse` accepts) makes
 * every recursive walk — `JSON.stringify`, `structuredClone`, a merge — throw a RangeError, and a
 * value of megabytes costs milliseconds per megabyte in each of them. Input is measured with this
 * first, so that such a value is refused as a validation error before anything recursive or
 * proportional to its size touches it.
 */

/** Why a value is out of bounds: the first bound {@link jsonOverLimit} found crossed. */
export type JsonOverLimit =
  /** A container nests deeper than allowed; `path` leads to it (keys and array indices, root first). */
  | { limit: 'depth'; path: string[] }
  /** Its JSON text would be longer than allowed. */
  | { limit: 'bytes' };

/** One container on the walk's explicit stack: where in it the walk is, and the way back up. */
interface Cursor {
  value: object;
  /** An object's own keys; undefined for an array. */
  keys: string[] | undefined;
  /** The next key (or index) to visit. */
  next: number;
  /** Whether a member was written yet (the next one needs a comma). */
  wrote: boolean;
  depth: number;
  /** Its key (or index) in `parent`. */
  key: string | number;
  parent: Cursor | undefined;
}

/** Anything but printable ASCII that JSON.stringify writes as it is. */
const NOT_PLAIN = /[^\u0020\u0021\u0023-\u005b\u005d-\u007e]/;
/** What JSON.stringify escapes, and surrogates (a lone one is escaped, a pair is 4 bytes). */
const NEEDS_CARE = /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/**
 * Bytes of `s` as a JSON string in UTF-8, quotes included, as `JSON.stringify` writes it (short
 * escapes, `\u00XX` for other control characters, lone surrogates as `\uDXXX`) — or `budget + 1`
 * as soon as it is known to be more than `budget`, so that a long string costs no more than the
 * budget to refuse.
 */
function stringBytes(s: string, budget: number): number {
  // Every UTF-16 unit is at least one byte of JSON.
  if (s.length + 2 > budget) return budget + 1;
  // Most strings are printable ASCII that needs no escape: a byte a character.
  if (!NOT_PLAIN.test(s)) return s.length + 2;
  // Others mostly need no escape and hold no surrogate: their UTF-8 length, counted natively.
  if (!NEEDS_CARE.test(s)) return Buffer.byteLength(s) + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) n += c === 0x22 || c === 0x5c ? 2 : 1;
      else n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    } else if (c < 0x800) {
      n += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else {
      n += c >= 0xd800 && c <= 0xdfff ? 6 : 3;
    }
    if (n > budget) return budget + 1;
  }
  return n;
}

/** Bytes of a non-container as JSON; undefined for what an object leaves out (undefined, functions). */
function scalarBytes(v: unknown, budget: number, inArray: boolean): number | undefined {
  switch (typeof v) {
    case 'string':
      return stringBytes(v, budget);
    case 'number':
      return Number.isFinite(v) ? String(v).length : 4; // null
    case 'boolean':
      return v ? 4 : 5;
    case 'bigint':
      return String(v).length;
    case 'undefined':
    case 'function':
    case 'symbol':
      return inArray ? 4 : undefined; // null in an array, left out of an object
    default:
      return 4; // null
  }
}

/**
 * The first bound a value (as `JSON.parse` makes it) crosses: a container nested more than
 * `maxDepth` deep, or JSON text longer than `maxBytes` (UTF-8, as `JSON.stringify` writes it) —
 * undefined when it crosses none. Depth counts containers: `1` is 0 deep, `{}` and `[]` 1,
 * `{"a":[]}` 2. The walk goes in document order, adds up the bytes as it goes and stops at the
 * first bound crossed, so measuring costs about as much as the part of the value up to there:
 * refusing a value costs about `maxBytes` of work however large it is.
 */
export function jsonOverLimit(
  value: unknown,
  maxDepth: number,
  maxBytes: number,
): JsonOverLimit | undefined {
  const walk = new Measure(value, maxDepth, maxBytes);
  if (walk.done) return walk.result;
  // An unbounded budget never pauses.
  return walk.run(Number.POSITIVE_INFINITY) as JsonOverLimit | undefined;
}

/** Members and items measured between two chances to pause in {@link jsonOverLimitSteps}. */
const MEASURE_STEP = 2048;
/** What {@link Measure.run} returns when its budget ran out before the walk ended. */
const PAUSED = Symbol('paused');

/**
 * {@link jsonOverLimit} as a generator that yields every {@link MEASURE_STEP} members: a caller
 * that must not hold the event loop (a server measuring a megabyte document, #35) pauses there.
 * The walk itself is a plain loop (a generator's own loop runs slower), resumed after each yield.
 */
export function* jsonOverLimitSteps(
  value: unknown,
  maxDepth: number,
  maxBytes: number,
): Generator<void, JsonOverLimit | undefined, void> {
  const walk = new Measure(value, maxDepth, maxBytes);
  if (walk.done) return walk.result;
  for (;;) {
    const result = walk.run(MEASURE_STEP);
    if (result !== PAUSED) return result;
    yield;
  }
}

const container = (value: object, depth: number, key: string | number, parent?: Cursor) => ({
  value,
  keys: Array.isArray(value) ? undefined : Object.keys(value),
  next: 0,
  wrote: false,
  depth,
  key,
  parent,
});

/** The walk of {@link jsonOverLimit}: its explicit stack and the bytes so far, resumable. */
class Measure {
  readonly #maxDepth: number;
  readonly #maxBytes: number;
  readonly #stack: Cursor[] = [];
  #bytes = 2;
  /** Decided before any walk: a scalar, or a limit below one container. */
  readonly done: boolean;
  readonly result: JsonOverLimit | undefined;

  constructor(value: unknown, maxDepth: number, maxBytes: number) {
    this.#maxDepth = maxDepth;
    this.#maxBytes = maxBytes;
    if (typeof value !== 'object' || value === null) {
      const bytes = scalarBytes(value, maxBytes, true) ?? 0;
      this.done = true;
      this.result = bytes > maxBytes ? { limit: 'bytes' } : undefined;
    } else if (maxDepth < 1) {
      this.done = true;
      this.result = { limit: 'depth', path: [] };
    } else if (this.#bytes > maxBytes) {
      this.done = true;
      this.result = { limit: 'bytes' };
    } else {
      this.done = false;
      this.result = undefined;
      this.#stack.push(container(value, 1, ''));
    }
  }

  /** Up to `budget` steps of the walk: its result, or PAUSED. */
  run(budget: number): JsonOverLimit | undefined | typeof PAUSED {
    const stack = this.#stack;
    const maxBytes = this.#maxBytes;
    let bytes = this.#bytes;
    for (let steps = 0; stack.length > 0; steps++) {
      if (steps >= budget) {
        this.#bytes = bytes;
        return PAUSED;
      }
      const top = stack[stack.length - 1] as Cursor;
      let key: string | number;
      let child: unknown;
      if (top.keys === undefined) {
        const items = top.value as unknown[];
        if (top.next >= items.length) {
          stack.pop();
          continue;
        }
        key = top.next++;
        child = items[key];
        if (top.wrote) bytes += 1;
      } else {
        if (top.next >= top.keys.length) {
          stack.pop();
          continue;
        }
        key = top.keys[top.next++] as string;
        child = (top.value as Record<string, unknown>)[key];
        const t = typeof child;
        if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
        // `"key":`, after a comma unless it is the first member.
        bytes += (top.wrote ? 1 : 0) + stringBytes(key, maxBytes - bytes) + 1;
      }
      top.wrote = true;
      if (typeof child === 'object' && child !== null) {
        if (top.depth >= this.#maxDepth) {
          const path = [String(key)];
          for (let c: Cursor | undefined = top; c?.parent !== undefined; c = c.parent) {
            path.push(String(c.key));
          }
          return { limit: 'depth', path: path.reverse() };
        }
        bytes += 2;
        stack.push(container(child, top.depth + 1, key, top));
      } else {
        bytes += scalarBytes(child, maxBytes - bytes, top.keys === undefined) ?? 0;
      }
      if (bytes > maxBytes) return { limit: 'bytes' };
    }
    return undefined;
  }
}

/** A generator run to its end at once: its return value. */
export function drain<R>(steps: Generator<void, R, void>): R {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Whether `v` is a JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
