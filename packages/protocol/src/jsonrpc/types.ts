/** JSON-RPC 2.0 message shapes (https://www.jsonrpc.org/specification). */

/**
 * A request id: string, number or null. Null is legal JSON-RPC 2.0, though discouraged. An
 * integer id beyond `Number.MAX_SAFE_INTEGER` is decoded as a `bigint`, so that the reply echoes
 * it exactly as received.
 */
export type JsonRpcId = string | number | bigint | null;

/** Structured params: by position (array) or by name (object). */
export type JsonRpcParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** A call that wants an answer: the response carries the same `id`. */
export interface JsonRpcRequest {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** Chosen by the caller; the response echoes it. */
  id: JsonRpcId;
  /** The method to call. */
  method: string;
  /** Its params, by position or by name; may be omitted. */
  params?: JsonRpcParams;
}

/** A call that wants no answer (no `id`): the receiver never replies, not even with an error. */
export interface JsonRpcNotification {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The method to call. */
  method: string;
  /** Its params, by position or by name; may be omitted. */
  params?: JsonRpcParams;
}

/** The `error` member of a failed response. */
export interface JsonRpcErrorObject {
  /** An integer: -32700…-32600 are JSON-RPC's own, -32099…-32000 the server's (see `ErrorCode`). */
  code: number;
  /** One short sentence. */
  message: string;
  /** Anything more the server tells: the field at fault, a reason. */
  data?: unknown;
}

/** A response that carries the method's result. */
export interface JsonRpcSuccess {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The request's id. */
  id: JsonRpcId;
  /** What the method returned. */
  result: unknown;
}

/** A response that carries an error. */
export interface JsonRpcFailure {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The request's id, or null when it could not be read (invalid JSON, not a request). */
  id: JsonRpcId;
  /** What went wrong. */
  error: JsonRpcErrorObject;
}

/** A response: success or failure. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** Any single JSON-RPC 2.0 message (a batch is an array of these). */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
