import type { ServerResponse } from 'node:http';
import {
  encodeResponse,
  errorResponse,
  type JsonRpcErrorObject,
  type JsonRpcId,
  McpErrorCode,
} from '@mcpkit/protocol';

/**
 * What a POST handler returns when it answered synchronously: one shared, resolved promise, so a
 * cheap call allocates none (`await` on it, or compare with it and skip the await).
 */
export const ANSWERED: Promise<void> = Promise.resolve();

export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const length = String(Buffer.byteLength(body));
  // Without extra headers (every answered call) one literal object, no spread of an empty one.
  res.writeHead(
    status,
    headers === undefined
      ? { 'Content-Type': 'application/json', 'Content-Length': length }
      : { 'Content-Type': 'application/json', 'Content-Length': length, ...headers },
  );
  res.end(body);
}

/**
 * An HTTP-level refusal whose body is a JSON-RPC error: without an id unless the body was read
 * far enough to know the request's (then it is echoed).
 */
export function sendError(
  res: ServerResponse,
  status: number,
  error: JsonRpcErrorObject,
  headers?: Record<string, string>,
  id: JsonRpcId = null,
): void {
  sendJson(res, status, encodeResponse(errorResponse(id, error)), headers);
}

export function sendEmpty(
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, headers);
  res.end();
}

/** The shared store is unreachable: 503, retry in a second (another instance may have it). */
export function sendUnavailable(res: ServerResponse): void {
  sendError(
    res,
    503,
    {
      code: McpErrorCode.ServerError,
      message: 'Service unavailable: shared state store unreachable',
    },
    { 'Retry-After': '1' },
  );
}
