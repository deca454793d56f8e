export {
  type ClientOptions,
  ConnectionClosedError,
  JsonRpcClient,
  type RequestOptions,
  RequestTimeoutError,
} from './jsonrpc/client.js';
export {
  classify,
  decodeFrame,
  encodeBatch,
  encodeResponse,
  errorResponse,
  type Frame,
  type Incoming,
} from './jsonrpc/codec.js';
export { type ConnectionOptions, JsonRpcConnection } from './jsonrpc/connection.js';
export {
  Dispatcher,
  type DispatcherOptions,
  type DispatchOptions,
  type EngineLogger,
  NO_REPLY,
} from './jsonrpc/dispatcher.js';
export {
  ErrorCode,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  RpcError,
  toErrorObject,
} from './jsonrpc/errors.js';
export {
  type MaybePromise,
  type MethodDefinition,
  method,
  type NamedParams,
  type RequestContext,
} from './jsonrpc/method.js';
export { createServer, createServerWith } from './jsonrpc/server.js';
export type { FrameSink, FrameTransport } from './jsonrpc/transport.js';
export type * from './jsonrpc/types.js';
export {
  type CreateLoggerOptions,
  createLogger,
  guardStdout,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
} from './logging/logger.js';
export { LineFramer, type LineSink } from './transports/line-framer.js';
export {
  DEFAULT_MAX_FRAME_BYTES,
  type ServeStdioOptions,
  StdioTransport,
  type StdioTransportOptions,
  serveStdio,
} from './transports/stdio.js';
