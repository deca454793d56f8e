/** JSON-RPC 2.0 message shapes (https://www.jsonrpc.org/specification). */

/** A request id: string, number or null. Null is legal JSON-RPC 2.0, though discouraged. */
export type JsonRpcId = string | number | null;

/** Structured params: by position (array) or by name (object). */
export type JsonRpcParams = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
