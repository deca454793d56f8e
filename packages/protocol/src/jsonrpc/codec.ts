import { ErrorCode } from './errors.js';
import { resultText } from './result-text.js';
import type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcParams,
  JsonRpcResponse,
} from './types.js';

/** One classified element of a frame. */
export type Incoming =
  | { kind: 'request'; id: JsonRpcId; method: string; params: JsonRpcParams | undefined }
  | { kind: 'notification'; method: string; params: JsonRpcParams | undefined }
  | { kind: 'response'; response: JsonRpcResponse }
  | { kind: 'invalid'; reply: JsonRpcFailure };

/** One frame: a single message, a batch, or something that is not JSON-RPC at all. */
export type Frame =
  | { kind: 'single'; message: Incoming }
  | { kind: 'batch'; messages: Incoming[] }
  /** Answer with `reply` and nothing else: unparsable JSON or an empty batch. */
  | { kind: 'invalid'; reply: JsonRpcFailure }
  /** Nothing to do: an empty or whitespace-only frame. */
  | { kind: 'empty' };

/** A failed response: `{ jsonrpc: '2.0', id, error }`. */
export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}

function invalid(id: JsonRpcId, message: string): Incoming {
  return {
    kind: 'invalid',
    reply: errorResponse(id, {
      code: ErrorCode.InvalidRequest,
      message: 'Invalid Request',
      data: { detail: message },
    }),
  };
}

function isId(value: unknown): value is JsonRpcId {
  return (
    typeof value === 'string' ||
    value === null ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function isErrorObject(value: unknown): value is JsonRpcErrorObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  return Number.isInteger(e.code) && typeof e.message === 'string';
}

const hasOwn = Object.prototype.hasOwnProperty;

const INTEGER_TOKEN = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Classify one decoded JSON value as a request, notification, response or invalid request.
 * `rawId` is the id's number token as it appeared in the text (see {@link decodeFrame}): an
 * integer beyond 2^53 becomes a `bigint`, echoed digit for digit.
 *
 * Ids: a string, an integer or null. Null stays legal as JSON-RPC 2.0 §4 allows it (that
 * specification is the compatibility target of `createJsonRpcServer`, and 2025-era MCP
 * clients may send it). A fraction (`1.5`, which JSON-RPC 2.0 says SHOULD NOT be sent and no MCP
 * client sends) is answered -32600 "id must be an integer", echoing the id.
 */
export function classify(value: unknown, rawId?: string): Incoming {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'a JSON-RPC message must be an object');
  }
  const msg = value as Record<string, unknown>;
  const hasId = hasOwn.call(msg, 'id');
  // The id is echoed whenever it can be: a request that is wrong in another way still gets
  // its answer correlated (JSON-RPC 2.0 §5: null only if the id could not be detected).
  let id: JsonRpcId = hasId && isId(msg.id) ? msg.id : null;
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    if (rawId !== undefined && INTEGER_TOKEN.test(rawId)) id = BigInt(rawId);
    else if (!Number.isInteger(id)) return invalid(id, 'id must be an integer');
  }

  if (msg.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be exactly "2.0"');
  if (hasId && !isId(msg.id)) return invalid(null, 'id must be a string, a number or null');

  if (hasOwn.call(msg, 'method')) {
    const method = msg.method;
    if (typeof method !== 'string') return invalid(id, 'method must be a string');
    const params = msg.params;
    if (params !== undefined && (typeof params !== 'object' || params === null)) {
      return invalid(id, 'params must be an array or an object');
    }
    const p = params as JsonRpcParams | undefined;
    return hasId
      ? { kind: 'request', id, method, params: p }
      : { kind: 'notification', method, params: p };
  }

  const hasResult = hasOwn.call(msg, 'result');
  const hasError = hasOwn.call(msg, 'error');
  if (hasId && hasResult !== hasError) {
    if (hasResult)
      return { kind: 'response', response: { jsonrpc: '2.0', id, result: msg.result } };
    if (isErrorObject(msg.error)) {
      const { code, message, data } = msg.error;
      const error: JsonRpcErrorObject =
        data === undefined ? { code, message } : { code, message, data };
      return { kind: 'response', response: { jsonrpc: '2.0', id, error } };
    }
    return invalid(id, 'error must be an object with an integer code and a string message');
  }
  if (hasResult && hasError) return invalid(id, 'a response must not carry both result and error');
  return invalid(id, 'Missing required field: method');
}

const PARSE_ERROR = (detail: string): JsonRpcFailure =>
  errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error', data: { detail } });

/** Whether `text` is only JSON whitespace (and byte-order marks). */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON whitespace (RFC 8259 §2) plus a byte-order mark some writers emit.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0xfeff) return false;
  }
  return true;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The number tokens, as they appear in a message's text, where it carries an integer a peer chose
 * and its receiver echoes or matches: the request id (`id`), the id a cancellation names
 * (`params.requestId`, MCP `notifications/cancelled`) and a request's progress token
 * (`params._meta.progressToken`). `JSON.parse` rounds an integer beyond
 * 2^53 to the nearest double, which may be another value a peer chose: a cancellation naming an
 * id never sent would stop the call whose id it rounds to.
 */
interface RawNumbers {
  /** The token of the message's `id`. */
  id?: string;
  /** The token of `params.requestId`. */
  requestId?: string;
  /** The token of `params._meta.progressToken` (echoed in the request's progress notifications). */
  progressToken?: string;
}

/** Which member of {@link RawNumbers} a member is: `path` from the message down, then `key`. */
function echoedAt(path: readonly (string | null)[], key: string): keyof RawNumbers | undefined {
  // path[0] is the message itself (its own name, if any, is not part of the path).
  if (path.length === 1) return key === 'id' ? 'id' : undefined;
  if (path.length === 2 && path[1] === 'params')
    return key === 'requestId' ? 'requestId' : undefined;
  if (path.length === 3 && path[1] === 'params' && path[2] === '_meta')
    return key === 'progressToken' ? 'progressToken' : undefined;
  return undefined;
}

/**
 * The {@link RawNumbers} of the messages in valid JSON `text`, by message (0
 * for a single message, the element's index in a batch). Called only when such a number lost
 * precision in `JSON.parse`, so the common frame pays a type check or two per message and
 * nothing else.
 */
function rawNumbers(text: string): Map<number, RawNumbers> {
  const found = new Map<number, RawNumbers>();
  const n = text.length;
  // The member names from the message down to the container being read (`null`: an array).
  const path: (string | null)[] = [];
  let batch = false;
  let element = 0;
  // The member name just read, until its value has been.
  let key: string | undefined;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      const token = text.slice(start, ++i);
      let j = i;
      while (j < n && isWhitespace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 0x3a && path[path.length - 1] !== null) {
        key = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
        i = j + 1;
      } else key = undefined;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (path.length === 0 && c === 0x5b) batch = true;
      else path.push(c === 0x5b ? null : (key ?? ''));
      key = undefined;
    } else if (c === 0x7d || c === 0x5d) {
      path.pop();
      key = undefined;
    } else if (c === 0x2c) {
      if (batch && path.length === 0) element++;
      key = undefined;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i;
      for (; end < n; end++) {
        const d = text.charCodeAt(end);
        // - + . 0-9 e E
        if (
          !(
            d === 0x2d ||
            d === 0x2b ||
            d === 0x2e ||
            (d >= 0x30 && d <= 0x39) ||
            d === 0x65 ||
            d === 0x45
          )
        )
          break;
      }
      const at = key === undefined ? undefined : echoedAt(path, key);
      if (at !== undefined) {
        let numbers = found.get(element);
        if (numbers === undefined) {
          numbers = {};
          found.set(element, numbers);
        }
        numbers[at] = text.slice(i, end);
      }
      key = undefined;
      i = end;
      continue;
    }
    i++;
  }
  return found;
}

const isUnsafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);

/** The params of a cancellation, when it names the request by a number JSON.parse may have rounded. */
function roundedCancellation(value: unknown): Record<string, unknown> | undefined {
  const msg = value as { method?: unknown; params?: unknown };
  if (msg.method !== 'notifications/cancelled') return undefined;
  const params = msg.params;
  if (typeof params !== 'object' || params === null) return undefined;
  return isUnsafeInteger((params as { requestId?: unknown }).requestId)
    ? (params as Record<string, unknown>)
    : undefined;
}

/** Whether a decoded message holds one of its {@link RawNumbers} as a double that may be rounded. */
function lostPrecision(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return (
    isUnsafeInteger((value as { id?: unknown }).id) ||
    roundedCancellation(value) !== undefined ||
    roundedProgressToken(value) !== undefined
  );
}

/** The `_meta` of a request whose progress token is a number JSON.parse may have rounded. */
function roundedProgressToken(value: unknown): Record<string, unknown> | undefined {
  const params = (value as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return isUnsafeInteger((meta as { progressToken?: unknown }).progressToken)
    ? (meta as Record<string, unknown>)
    : undefined;
}

/**
 * One decoded message, with its {@link RawNumbers} taken from its text. A request id beyond 2^53
 * becomes a `bigint` (see {@link classify}). The id a cancellation names becomes one when the
 * double JSON.parse made of it is another integer; a double that is the very integer stays a
 * number, which names the same call as a `bigint` id of its digits (the cancellation registry
 * keys both by their digits) and which the MCP layer's params schema takes.
 */
function classifyExact(value: unknown, raw: RawNumbers | undefined): Incoming {
  const token = raw?.requestId;
  const params = token === undefined ? undefined : roundedCancellation(value);
  if (params !== undefined && token !== undefined && INTEGER_TOKEN.test(token)) {
    const exact = BigInt(token);
    if (BigInt(params.requestId as number) !== exact) params.requestId = exact;
  }
  // A progress token is echoed in every notifications/progress of its request, which the client
  // matches by value: always its digits (String() of the double would be another number, or
  // 1e+21 for a long one).
  const progress = raw?.progressToken;
  const meta = progress === undefined ? undefined : roundedProgressToken(value);
  if (meta !== undefined && progress !== undefined && INTEGER_TOKEN.test(progress)) {
    meta.progressToken = BigInt(progress);
  }
  return classify(value, raw?.id);
}

/**
 * Decode one frame of text into a single message, a batch, or an invalid frame. Integers beyond
 * 2^53 where a peer's value is echoed or matched (see `RawNumbers`) are taken from
 * the text itself (as `bigint`), since `JSON.parse` rounds them.
 */
export function decodeFrame(text: string): Frame {
  let source = text;
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    if (isBlank(source)) return { kind: 'empty' };
    return {
      kind: 'invalid',
      reply: PARSE_ERROR(err instanceof Error ? err.message : 'invalid JSON'),
    };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return {
        kind: 'invalid',
        reply: errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid Request',
          data: { detail: 'a batch must contain at least one message' },
        }),
      };
    }
    const messages = new Array<Incoming>(value.length);
    let raw: Map<number, RawNumbers> | undefined;
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (lostPrecision(element)) raw ??= rawNumbers(source);
      messages[i] = raw === undefined ? classify(element) : classifyExact(element, raw.get(i));
    }
    return { kind: 'batch', messages };
  }
  return {
    kind: 'single',
    message: lostPrecision(value)
      ? classifyExact(value, rawNumbers(source).get(0))
      : classify(value),
  };
}

/**
 * Serialize a response. A result JSON cannot express (BigInt, cycles, nesting beyond the stack)
 * becomes a -32603 for that id instead of an exception in the transport.
 */
export function encodeResponse(response: JsonRpcResponse): string {
  try {
    // Assembled by hand: the envelope is fixed, and skipping a generic stringify of it is a
    // measurable share of a cheap call's cost.
    const id = encodeId(response.id);
    if ('error' in response)
      return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(response.error)}}`;
    // A relayed result that still is the object decoded from a backend's reply is written as the
    // backend wrote it (see result-text.ts).
    const result = resultText(response.result) ?? JSON.stringify(response.result);
    // undefined (and functions/symbols) have no JSON form; `result` must still be present.
    return `{"jsonrpc":"2.0","id":${id},"result":${result === undefined ? 'null' : result}}`;
  } catch {
    return `{"jsonrpc":"2.0","id":${encodeId(response.id)},"error":{"code":${ErrorCode.InternalError},"message":"Internal error","data":{"detail":"the result could not be serialized as JSON"}}}`;
  }
}

/**
 * A success response whose result is already JSON text (a transport that assembled it itself);
 * `resultJson` must be valid JSON.
 */
export function encodeResultJson(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${encodeId(id)},"result":${resultJson}}`;
}

/**
 * JSON text of a request or notification this side sends. A `bigint` in it — an integer beyond
 * 2^53 a peer chose, decoded as one and sent back — is written digit for digit as a JSON number,
 * where `JSON.stringify` would throw; anything else that has no JSON form still throws.
 */
export function encodeMessage(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  // Rare: each bigint goes through JSON.stringify as a string no value of the message can equal
  // (a fresh random tag), which is then replaced, quotes and all, by the bigint's digits.
  const tag = `bigint-${globalThis.crypto.randomUUID()}-`;
  const bigints: bigint[] = [];
  const text = JSON.stringify(message, (_key, value: unknown) =>
    typeof value === 'bigint' ? `${tag}${bigints.push(value) - 1}` : value,
  );
  return text.replace(new RegExp(`"${tag}(\\d+)"`, 'g'), (_match, at: string) =>
    String(bigints[Number(at)]),
  );
}

/**
 * A request whose `params._meta` is `metaJson`, JSON text written as it is (see
 * `RequestOptions.metaJson`); `params` is an object without `_meta` of its own, or undefined.
 */
export function encodeRequestWithMeta(
  id: JsonRpcId,
  method: string,
  params: JsonRpcParams | undefined,
  metaJson: string,
): string {
  if (Array.isArray(params)) throw new TypeError(`'${method}': _meta needs named params`);
  const rest = params === undefined ? '{}' : encodeMessage(params);
  const body = rest === '{}' ? `{"_meta":${metaJson}}` : `{"_meta":${metaJson},${rest.slice(1)}`;
  return `{"jsonrpc":"2.0","id":${encodeId(id)},"method":${JSON.stringify(method)},"params":${body}}`;
}

/** An id as JSON text; a `bigint` (an integer id beyond 2^53) is written digit for digit. */
function encodeId(id: JsonRpcId): string {
  return typeof id === 'number' || typeof id === 'bigint' ? String(id) : JSON.stringify(id);
}

/** The JSON array of a batch's responses, each encoded as {@link encodeResponse} does. */
export function encodeBatch(responses: readonly JsonRpcResponse[]): string {
  let out = '[';
  for (let i = 0; i < responses.length; i++) {
    if (i > 0) out += ',';
    out += encodeResponse(responses[i] as JsonRpcResponse);
  }
  return `${out}]`;
}
