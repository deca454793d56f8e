/**
 * Which era a request belongs to, and the modern request envelope (MCP 2026-07-28,
 * `basic/index` §_meta and `basic/versioning`): a request whose `_meta` carries
 * `io.modelcontextprotocol/protocolVersion` or `…/clientCapabilities` claims the modern era and
 * is validated as such; everything else is 2025-era traffic, served as the 2025 revisions say.
 */
import { ErrorCode, McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';
import { MCP_LOGGING_LEVELS } from './types.js';
import {
  isModernVersion,
  type ModernProtocolVersion,
  SERVED_PROTOCOL_VERSIONS,
} from './versions.js';

/** The reserved `_meta` keys of a modern request (spec `schema.ts`, `RequestMetaObject`). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** What a modern request says about its client, from its `_meta`. */
export interface Envelope {
  /** `io.modelcontextprotocol/protocolVersion`: the revision the request is written in. */
  readonly protocolVersion: ModernProtocolVersion;
  /** `io.modelcontextprotocol/clientCapabilities`: what the client can do, for this request only. */
  readonly clientCapabilities: ClientCapabilities;
  /** `io.modelcontextprotocol/clientInfo`: who the client is, when it says. */
  readonly clientInfo: Implementation | undefined;
  /** Absent: the server sends no `notifications/message` for this request. */
  readonly logLevel: LoggingLevel | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `_meta` of params that claim the modern era, or undefined for 2025-era traffic. Cheap on
 * the hot path: params without `_meta` (most calls) are answered by one property read.
 */
export function modernClaim(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  if (!isObject(meta)) return undefined;
  return META.protocolVersion in meta || META.clientCapabilities in meta ? meta : undefined;
}

/** -32602 for a malformed envelope, naming the key and what is wrong (HTTP 400 in the spec). */
function badEnvelope(key: string, problem: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid _meta: ${key} ${problem}`, {
    envelope: { key, problem },
  });
}

/**
 * Validate a claimed envelope: the version must be a string this server speaks (else -32022
 * with the supported ones), the capabilities an object, client info and log level well-formed
 * when present (else -32602). Throws the RpcError to answer with.
 */
export function parseEnvelope(meta: Record<string, unknown>): Envelope {
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') {
    throw badEnvelope(
      META.protocolVersion,
      version === undefined ? 'is missing' : 'must be a string',
    );
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) {
    throw badEnvelope(
      META.clientCapabilities,
      capabilities === undefined ? 'is missing' : 'must be an object',
    );
  }
  const info = meta[META.clientInfo];
  if (
    info !== undefined &&
    !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')
  ) {
    throw badEnvelope(META.clientInfo, 'must be an object with string name and version');
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !MCP_LOGGING_LEVELS.includes(level as LoggingLevel)) {
    throw badEnvelope(META.logLevel, `must be one of ${MCP_LOGGING_LEVELS.join(', ')}`);
  }
  if (!isModernVersion(version)) {
    throw new RpcError(
      McpErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${version}`,
      { supported: [...SERVED_PROTOCOL_VERSIONS], requested: version },
    );
  }
  return {
    protocolVersion: version,
    clientCapabilities: capabilities as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level as LoggingLevel | undefined,
  };
}

/**
 * Whether a `_meta` key is reserved for MCP itself: its prefix's second label is
 * `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/…`, `dev.mcp/…`; spec `basic/index`
 * §_meta).
 */
export function isReservedMetaKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return false;
  // The prefix's second label, found in place: a gateway checks the keys of every result it
  // forwards, and slicing and splitting each key cost it ~1 % of a call.
  const dot = key.indexOf('.');
  if (dot === -1 || dot > slash) return false;
  let end = key.indexOf('.', dot + 1);
  if (end === -1 || end > slash) end = slash;
  const length = end - dot - 1;
  return (
    (length === 20 && key.startsWith('modelcontextprotocol', dot + 1)) ||
    (length === 3 && key.startsWith('mcp', dot + 1))
  );
}

/**
 * `_meta` without MCP's reserved keys: what a proxy forwards on the next hop, whose own client
 * states the protocol version, capabilities and client info (a backend must not receive the
 * front client's envelope). Every other key (`progressToken`, `traceparent` …) passes untouched.
 */
export function withoutReservedMeta(
  meta: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) if (!isReservedMetaKey(key)) out[key] = value;
  return out;
}
