import { RpcError } from '@mcpkit/protocol';

/** The seed's error table (CODEFLUSS-specific codes). */
export const Code = {
  RateLimited: -32000,
  AuthenticationFailed: -32001,
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

/** Arguments that do not fit a tool's schema: the seed's -32602 with field and error. */
export const invalidParams = (field: string, error: string) =>
  new RpcError(-32602, 'Invalid params', { field, error });
