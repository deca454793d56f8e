/**
 * The request metadata headers of MCP 2026-07-28 over HTTP (spec `basic/transports/
 * streamable-http` §Request Metadata): `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * mirror the body so intermediaries can route without parsing it, and a server that processes
 * the body "MUST reject requests where the values specified in the headers do not match" — with
 * HTTP 400 and -32020 (HeaderMismatch) — before anything runs: a load balancer routing on the
 * header and a server executing the body must never disagree about what is called.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Incoming } from '../jsonrpc/codec.js';
import { ErrorCode, McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import { META, parseEnvelope } from './era.js';
import type { HeaderParam } from './tool.js';
import { isModernVersion } from './versions.js';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Canonical, padded base64 (RFC 4648 §4): what a value between the sentinel markers must be. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/**
 * What a sender puts in a header as is: visible ASCII with inner spaces, or nothing. A tab is a
 * control character ("contains … control characters" is the spec's first reason to encode),
 * although a receiver accepts one (`isPlain`).
 */
const SEND_PLAIN = /^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the spec's Value Encoding sends it: as is when it is visible ASCII (inner
 * spaces allowed) without leading or trailing whitespace, else the sentinel form
 * `=?base64?…?=` (the base64 of its UTF-8 bytes inside) — which is also how a plain value that looks like the sentinel itself travels.
 * The one encoder of both sides: the client's `Mcp-Name` and `Mcp-Param-*` headers, the tests.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    SEND_PLAIN.test(value) &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  return plain
    ? value
    : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * The value a header carries: a sentinel-encoded one decoded, a plain one as is. Undefined when
 * it cannot be right: a sentinel around something that is not canonical base64 of UTF-8, or a
 * plain value with characters a header must not carry (the spec's "invalid characters").
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)) {
    const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
    if (!BASE64.test(b64)) return undefined;
    try {
      return UTF8.decode(Buffer.from(b64, 'base64'));
    } catch {
      return undefined;
    }
  }
  return isPlain(value) ? value : undefined;
}

/**
 * What a header may carry as is (RFC 9110 field values: visible ASCII, space, tab). A loop, not
 * a regular expression: every modern request's `Mcp-Name` passes here.
 */
function isPlain(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x7e || (c < 0x20 && c !== 0x09)) return false;
  }
  return true;
}

/** The body field `Mcp-Name` mirrors, for the methods that have one. */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension (SEP-2663 §Streamable HTTP: Routing Headers): a task's requests name it.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * -32020, naming the header, what it said (decoded; null when absent) and what the body says.
 * `problem` tells missing, mismatching and undecodable values apart.
 */
function mismatch(
  header: string,
  headerValue: string | undefined,
  bodyValue: unknown,
  problem: 'missing' | 'mismatch' | 'invalid',
): RpcError {
  const said = headerValue === undefined ? 'is missing' : `'${headerValue}'`;
  const message =
    problem === 'missing'
      ? `Header mismatch: ${header} header is missing (body: '${String(bodyValue)}')`
      : problem === 'invalid'
        ? `Header mismatch: ${header} header value ${said} is not a valid header value`
        : `Header mismatch: ${header} header value ${said} does not match body value '${String(bodyValue)}'`;
  return new RpcError(McpErrorCode.HeaderMismatch, message, {
    header,
    headerValue: headerValue ?? null,
    bodyValue: bodyValue ?? null,
    problem,
  });
}

/** One header's value as node gives it (repeated headers arrive joined, and mismatch). */
const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/**
 * Why a modern request (or notification) must be refused before it runs, or undefined to serve
 * it. In the order the spec's checks build on each other (design memo §2.2):
 * 1. the envelope's shape (-32602: nothing to compare the headers with otherwise);
 * 2. `MCP-Protocol-Version` present and equal to the envelope's version, `Mcp-Method` present and
 *    equal to the body's method (-32020) — before the version is judged, so a body naming an
 *    unknown version under a header naming another is a mismatch, not an unsupported version;
 * 3. the version one this server speaks (-32022, with the supported ones);
 * 4. `Mcp-Name` present and, decoded, equal to `params.name` (`tools/call`, `prompts/get`) or
 *    `params.uri` (`resources/read`) (-32020).
 * Notifications need no headers ("not defined by this revision"); ones they carry must agree.
 * The era router validates the envelope again when it serves the request: the rules live in
 * `mcp/era.ts`, this adds only what HTTP has (headers).
 */
export function modernRefusal(
  headers: IncomingHttpHeaders,
  message: Extract<Incoming, { kind: 'request' | 'notification' }>,
  meta: Record<string, unknown>,
): RpcError | undefined {
  let unsupported: RpcError | undefined;
  try {
    parseEnvelope(meta);
  } catch (err) {
    const error = err as RpcError;
    if (error.code !== McpErrorCode.UnsupportedProtocolVersion) return error;
    unsupported = error;
  }
  const isRequest = message.kind === 'request';
  const bodyVersion = meta[META.protocolVersion];
  const version = single(headers['mcp-protocol-version']);
  if (version === undefined ? isRequest : version !== bodyVersion) {
    return mismatch(
      'MCP-Protocol-Version',
      version,
      bodyVersion,
      version === undefined ? 'missing' : 'mismatch',
    );
  }
  const method = single(headers['mcp-method']);
  if (method === undefined ? isRequest : method !== message.method) {
    return mismatch(
      'Mcp-Method',
      method,
      message.method,
      method === undefined ? 'missing' : 'mismatch',
    );
  }
  if (unsupported) return unsupported;
  const field = NAME_SOURCE[message.method];
  if (field === undefined || !isRequest) return undefined;
  const bodyName = (message.params as Record<string, unknown>)[field];
  // A body without the field is the handler's to refuse (-32602 naming it), headers or not.
  if (typeof bodyName !== 'string') return undefined;
  const raw = single(headers['mcp-name']);
  if (raw === undefined) return mismatch('Mcp-Name', undefined, bodyName, 'missing');
  const name = decodeHeaderValue(raw);
  if (name === undefined) return mismatch('Mcp-Name', raw, bodyName, 'invalid');
  return name === bodyName ? undefined : mismatch('Mcp-Name', name, bodyName, 'mismatch');
}

/**
 * Why a request without a modern envelope must be refused, or undefined to serve it on the 2025
 * path. Under a modern `MCP-Protocol-Version` it contradicts its own header: `initialize` is a
 * -32020, anything else lacks the envelope the header promises (-32602 naming the missing key).
 * Without one, the request metadata headers it carries anyway (`Mcp-Method`, `Mcp-Name`) must
 * still agree with the body (-32020): an intermediary that routes or authorizes on them cannot
 * tell the eras apart, so a 2025-era body must not be a way to call one thing under another's name.
 */
export function legacyRefusal(
  headers: IncomingHttpHeaders,
  message: Extract<Incoming, { kind: 'request' }>,
): RpcError | undefined {
  const version = headers['mcp-protocol-version'];
  if (typeof version === 'string' && isModernVersion(version)) {
    if (message.method === 'initialize') {
      const params = message.params as Record<string, unknown> | undefined;
      return mismatch('MCP-Protocol-Version', version, params?.protocolVersion, 'mismatch');
    }
    return new RpcError(
      ErrorCode.InvalidParams,
      `Invalid _meta: ${META.protocolVersion} is missing (the MCP-Protocol-Version header names ${version})`,
      { envelope: { key: META.protocolVersion, problem: 'is missing' } },
    );
  }
  const method = single(headers['mcp-method']);
  if (method !== undefined && method !== message.method) {
    return mismatch('Mcp-Method', method, message.method, 'mismatch');
  }
  const raw = single(headers['mcp-name']);
  const field = NAME_SOURCE[message.method];
  if (raw === undefined || field === undefined) return undefined;
  // As in the modern era: a body without the field is the handler's to refuse.
  const bodyName = (message.params as Record<string, unknown> | undefined)?.[field];
  if (typeof bodyName !== 'string') return undefined;
  const name = decodeHeaderValue(raw);
  if (name === undefined) return mismatch('Mcp-Name', raw, bodyName, 'invalid');
  return name === bodyName ? undefined : mismatch('Mcp-Name', name, bodyName, 'mismatch');
}

/** The argument at `path` (a chain of `properties` keys), or undefined. */
function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/**
 * The `Mcp-Param-<name>` headers of a `tools/call` whose tool declares `params` (`x-mcp-header`,
 * spec streamable-http §Client Behavior): the argument at each declaration's path, as text
 * (strings as they are, integers in decimal, booleans as `true`/`false`) and encoded like any
 * header value; none for an argument that is absent or null, nor for one that is no string,
 * number or boolean (the tool's own validation refuses that). What {@link paramHeaderRefusal}
 * checks on the server's side.
 */
export function paramHeaders(
  params: readonly HeaderParam[],
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (args === undefined) return headers;
  for (const param of params) {
    const value = valueAt(args, param.path);
    const header = `mcp-param-${param.name.toLowerCase()}`;
    if (typeof value === 'string') headers[header] = encodeHeaderValue(value);
    else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      headers[header] = String(value);
    }
  }
  return headers;
}

/** Whether a header's decoded text stands for the body's value of a parameter of `type`. */
function sameValue(type: HeaderParam['type'], header: string, body: unknown): boolean {
  if (type === 'integer' && typeof body === 'number') {
    // Compared numerically (spec §Server Validation): `42.0` is `42`.
    const n = header.trim() === '' ? Number.NaN : Number(header);
    return n === body;
  }
  if (type === 'boolean' && typeof body === 'boolean') return header === String(body);
  return typeof body === 'string' ? header === body : header === String(body);
}

/**
 * Why a modern `tools/call` must be refused before its tool runs (-32020), or undefined: each
 * `Mcp-Param-<name>` the tool declares (`x-mcp-header`, spec streamable-http §Custom Headers
 * from Tool Parameters) must be present when its argument is (and not null), decode (the
 * base64 sentinel) and equal it; a header for an argument the body does not carry is a mismatch
 * too — an intermediary routing on it and the tool would disagree.
 */
export function paramHeaderRefusal(
  headers: IncomingHttpHeaders,
  params: readonly HeaderParam[],
  args: Record<string, unknown>,
): RpcError | undefined {
  for (const param of params) {
    const header = `Mcp-Param-${param.name}`;
    const raw = single(headers[header.toLowerCase()]);
    const body = valueAt(args, param.path);
    const absent = body === undefined || body === null;
    if (raw === undefined) {
      if (absent) continue;
      return mismatch(header, undefined, body, 'missing');
    }
    const value = decodeHeaderValue(raw);
    if (value === undefined) return mismatch(header, raw, body, 'invalid');
    if (absent || !sameValue(param.type, value, body)) {
      return mismatch(header, value, body, 'mismatch');
    }
  }
  return undefined;
}
