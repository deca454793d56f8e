import type { JsonRpcErrorObject } from './types.js';

/** The codes JSON-RPC 2.0 reserves (§5.1). -32000…-32099 are left to implementations. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * Codes from the implementation-defined range (-32000…-32099) that MCP or mcpkit give a
 * meaning. Some share a value: the name says why at the place an error is made, the number is
 * what clients already expect.
 */
export const McpErrorCode = {
  /** A server-side failure: a backend or collector that failed, a limit that was reached. */
  ServerError: -32000,
  /** Too many requests for the caller's budget (HTTP 429); `data.retryAfter` in seconds. */
  RateLimited: -32000,
  /** Too many open Streamable HTTP sessions to start another. */
  TooManySessions: -32000,
  /** Missing or invalid credentials (HTTP 401). */
  AuthenticationFailed: -32001,
  /** A Streamable HTTP session id the server does not know (HTTP 404). */
  SessionNotFound: -32001,
  /** MCP (2025 era): `resources/read` of a URI the server does not have. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: an HTTP header disagrees with the body (or is missing). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is one the server does not speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

// A registry-wide brand instead of `instanceof`, so errors thrown by a second copy of this
// package (two versions in one node_modules tree) are still recognised.
const BRAND = Symbol.for('mcpkit.RpcError');

/**
 * An error that becomes a JSON-RPC error object. Throw it from a handler to answer with your own
 * code, message and data; any other thrown value is answered as -32603 without details.
 */
export class RpcError extends Error {
  /** The JSON-RPC error code: an integer ({@link ErrorCode}, {@link McpErrorCode} or your own). */
  readonly code: number;
  /** Sent as the error object's `data` when defined. */
  readonly data: unknown;
  /** Marks an RpcError from any copy of this package (see {@link RpcError.is}). */
  readonly [BRAND] = true;

  /** Throws a `TypeError` when `code` is not an integer. */
  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    if (!Number.isInteger(code)) throw new TypeError(`JSON-RPC error code must be an integer`);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  /** The error object as sent: `{ code, message, data? }`. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Whether `value` is an RpcError (or a subclass) from any copy of this package. */
  static is(value: unknown): value is RpcError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [BRAND]?: unknown })[BRAND] === true
    );
  }

  /** The error a peer answered with; a malformed code becomes -32603 rather than a throw. */
  static fromObject(error: JsonRpcErrorObject): RpcError {
    const code = Number.isInteger(error.code) ? error.code : ErrorCode.InternalError;
    return new RpcError(code, String(error.message), error.data);
  }
}

/** -32700 "Parse error": the text was not JSON. */
export class ParseError extends RpcError {
  constructor(data?: unknown) {
    super(ErrorCode.ParseError, 'Parse error', data);
    this.name = 'ParseError';
  }
}

/** -32600 "Invalid Request": JSON, but not a valid request object. */
export class InvalidRequestError extends RpcError {
  constructor(message = 'Invalid Request', data?: unknown) {
    super(ErrorCode.InvalidRequest, message, data);
    this.name = 'InvalidRequestError';
  }
}

/** -32601 "Method not found", with the method in `data.method`. */
export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    super(ErrorCode.MethodNotFound, 'Method not found', { method });
    this.name = 'MethodNotFoundError';
  }
}

/** -32602 "Invalid params": the params do not fit the method. */
export class InvalidParamsError extends RpcError {
  constructor(message = 'Invalid params', data?: unknown) {
    super(ErrorCode.InvalidParams, message, data);
    this.name = 'InvalidParamsError';
  }
}

/** -32603 "Internal error". */
export class InternalError extends RpcError {
  constructor(message = 'Internal error', data?: unknown) {
    super(ErrorCode.InternalError, message, data);
    this.name = 'InternalError';
  }
}

/** The error object sent for a value a handler threw. Only RpcErrors reveal anything. */
export function toErrorObject(thrown: unknown): JsonRpcErrorObject {
  if (RpcError.is(thrown)) return thrown.toJSON();
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}
