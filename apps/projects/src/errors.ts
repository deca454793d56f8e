import { ErrorCode, McpErrorCode, RpcError } from '@mcpkit/protocol';

/**
 * The error table of the CODEFLUSS MCP server's JSON-RPC protocol page (-32001…-32004, -32000).
 * The first two are mcpkit's own codes; the rest are CODEFLUSS-specific (its -32002 is an
 * authorization failure, not MCP's "resource not found").
 */
export const Code = {
  RateLimited: McpErrorCode.RateLimited,
  AuthenticationFailed: McpErrorCode.AuthenticationFailed,
  AuthorizationFailed: -32002,
  NotFound: -32003,
  Validation: -32004,
} as const;

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
