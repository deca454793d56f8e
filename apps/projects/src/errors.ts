import { ErrorCode, McpErrorCode, RpcError } from '@mcpkit/protocol';

/**
 * The error table of the CODEFLUSS MCP server's JSON-RPC protocol page (-32001…-32004, -32000).
 * The first two are mcpkit's own codes; the rest are CODEFLUSS-specific (its -32002 is an
 * authorization failure, not MCP's "resource not found"). They are the contract of 2025-era
 * sessions; a 2026-07-28 request hears {@link MODERN_CODE}'s instead.
 */
export const Code = {
  RateLimited: McpErrorCode.RateLimited,
  AuthenticationFailed: McpErrorCode.AuthenticationFailed,
  AuthorizationFailed: -32002,
  NotFound: -32003,
  Validation: -32004,
} as const;

/**
 * What each CODEFLUSS code is for a 2026-07-28 request (`basic/index` §Error Codes): that revision
 * forbids -32002 — a client may read it as "resource not found" — and says implementations SHOULD
 * NOT use -32000…-32019, so each condition gets the JSON-RPC code the spec gives it. Missing or
 * foreign things and bad input are invalid params (the spec's code for an unknown resource, tool
 * or prompt and for bad arguments); a key that may not do what it asks is an invalid request, as
 * the engine's own scope refusal is. Message and data stay as they are.
 */
export const MODERN_CODE: ReadonlyMap<number, number> = new Map([
  [Code.AuthenticationFailed, ErrorCode.InvalidRequest],
  [Code.AuthorizationFailed, ErrorCode.InvalidRequest],
  [Code.NotFound, ErrorCode.InvalidParams],
  [Code.Validation, ErrorCode.InvalidParams],
]);

/** An error as a 2026-07-28 request hears it (`McpServerOptions.errors.modernEra`). */
export function modernError(error: RpcError): RpcError {
  const code = MODERN_CODE.get(error.code);
  return code === undefined
    ? error
    : new RpcError(code, error.message, error.data, { cause: error });
}

export const authenticationFailed = (reason = 'Invalid or missing API key') =>
  new RpcError(Code.AuthenticationFailed, 'Authentication failed', { reason });

export const authorizationFailed = (reason: string) =>
  new RpcError(Code.AuthorizationFailed, 'Authorization failed', { reason });

export const notFound = (kind: 'project' | 'block' | 'asset' | 'resource', id: string) =>
  new RpcError(Code.NotFound, 'Resource not found', { kind, id });

export const validationError = (field: string, error: string) =>
  new RpcError(Code.Validation, 'Validation error', { field, error });

/** Arguments that do not fit a tool's schema: CODEFLUSS's -32602 with field and error. */
export const invalidParams = (field: string, error: string) =>
  new RpcError(ErrorCode.InvalidParams, 'Invalid params', { field, error });
