/*
 * Results relayed as the bytes they came in. A gateway answers a client's call with the result a
 * backend sent: decoding that result and serializing it again costs more than anything else the
 * gateway does with a large reply (a 1 MB text result: ~4 ms to parse, ~5 ms to serialize), and
 * it would not even send what the backend sent (`1.0` becomes `1`, `\u00e9` becomes `é`). A
 * connection that keeps result texts (`JsonRpcConnectionOptions.keepResultText`) remembers, for each
 * decoded result object, the exact JSON text it came from; the encoders write that text instead
 * of serializing the object again — as long as it is the very object decoded, unchanged.
 */

/** Decoded results and the text each came from; weak: a result nobody holds is gone. */
const texts = new WeakMap<object, string>();

/**
 * Replies below this many characters are cheaper to serialize again than to scan for the result
 * (a scan of a ~200-byte reply costs about what its serialization does).
 */
export const RESULT_TEXT_MIN = 1024;

/**
 * The JSON text `result` was decoded from, if it was decoded by a connection that keeps result
 * texts. The object must not have been changed since: whoever keeps texts promises that.
 */
export function resultText(result: unknown): string | undefined {
  return typeof result === 'object' && result !== null ? texts.get(result) : undefined;
}

/**
 * Remember the text of `result`, the object `JSON.parse` made of the `result` member of
 * `frame` (a single response, valid JSON). Returns whether it could: see {@link resultSpan}.
 */
export function keepResultText(frame: string, result: object): boolean {
  const span = resultSpan(frame);
  if (span === undefined) return false;
  texts.set(result, frame.slice(span[0], span[1]));
  return true;
}

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index of the quote that closes the string opening at `open`, in valid JSON. */
function stringEnd(text: string, open: number): number {
  let j = open + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return text.length;
    // A quote preceded by an odd run of backslashes is escaped.
    let k = j - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if ((j - 1 - k) % 2 === 0) return j;
    j++;
  }
}

/** One member of a JSON object in a text: its key (free of escapes) and where it stands. */
interface Member {
  readonly key: string;
  /** Where the member starts (its key's opening quote). */
  readonly start: number;
  /** Where its value starts and ends (`[valueStart, end)`, no whitespace around). */
  readonly valueStart: number;
  readonly end: number;
}

/**
 * The members of the JSON object that opens at `open` in `text`, valid JSON (`JSON.parse`
 * accepted it); undefined when a key is written with escapes, as it may then spell any name.
 * Strings are skipped with `indexOf`, so a large text value costs a fraction of parsing it.
 */
function objectMembers(text: string, open: number): Member[] | undefined {
  const members: Member[] = [];
  const n = text.length;
  let i = open + 1;
  let depth = 1;
  let key: string | undefined;
  let keyStart = 0;
  let valueStart = -1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const close = stringEnd(text, i);
      if (depth === 1 && key === undefined) {
        const backslash = text.indexOf('\\', i);
        if (backslash >= 0 && backslash < close) return undefined;
        key = text.slice(i + 1, close);
        keyStart = i;
      }
      i = close + 1;
      continue;
    }
    if (depth === 1) {
      if (c === 0x3a) {
        i++;
        while (i < n && isWhitespace(text.charCodeAt(i))) i++;
        valueStart = i;
        continue;
      }
      if (c === 0x2c || c === 0x7d) {
        if (key !== undefined) {
          let end = i;
          while (isWhitespace(text.charCodeAt(end - 1))) end--;
          members.push({ key, start: keyStart, valueStart, end });
          key = undefined;
        }
        if (c === 0x7d) return members;
      }
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return members;
}

/**
 * Where the value of the top-level `result` member lies in `text`, a JSON-RPC response known to
 * be valid JSON: `[start, end)`, whitespace around it excluded, the value an object. Undefined
 * when it cannot be told for sure: not an object, a top-level key written with escapes (it could
 * spell `result`), or `result` twice (`JSON.parse` keeps the last one; what is relayed must be
 * what was decoded).
 */
export function resultSpan(text: string): [number, number] | undefined {
  let i = 0;
  // A byte-order mark some writers emit (decodeFrame skips it too).
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  const members = objectMembers(text, i);
  if (members === undefined) return undefined;
  let found: Member | undefined;
  for (const member of members) {
    if (member.key !== 'result') continue;
    if (found) return undefined;
    found = member;
  }
  if (!found || text.charCodeAt(found.valueStart) !== 0x7b) return undefined;
  return [found.valueStart, found.end];
}

/**
 * `edited` is the relayed result `original` without its members named in `drop`, plus the
 * members of `add` (a relay taking out what is not the client's, such as a modern backend's
 * `resultType`): give it the text of `original` so edited, every member left as it came.
 * Nothing happens when `original` has no text, or its members cannot be told for sure.
 */
export function editResultText(
  original: object,
  edited: object,
  drop: ReadonlySet<string>,
  add?: Readonly<Record<string, unknown>>,
): void {
  const text = texts.get(original);
  if (text === undefined) return;
  const members = objectMembers(text, 0);
  if (members === undefined) return;
  let out = '{';
  for (const member of members) {
    if (drop.has(member.key)) continue;
    if (out.length > 1) out += ',';
    out += text.slice(member.start, member.end);
  }
  if (add) {
    for (const [key, value] of Object.entries(add)) {
      if (out.length > 1) out += ',';
      out += `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    }
  }
  texts.set(edited, `${out}}`);
}
