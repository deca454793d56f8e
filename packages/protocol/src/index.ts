export {
  type CliOption,
  CliUsageError,
  type CliValues,
  resolveOptions,
  usage,
} from './cli/options.js';
// CLI
export {
  type CliApp,
  COMMON_OPTIONS,
  type RunContext,
  type RunOptions,
  runCli,
} from './cli/runner.js';
export { type Authenticator, bearerToken, type StaticToken, staticTokens } from './http/auth.js';
export { checkHostAndOrigin, isLoopback, type OriginPolicy } from './http/origin.js';
// HTTP
export {
  createMcpHttpServer,
  type HttpAuthOptions,
  type McpHttpOptions,
  type McpHttpServer,
  type RateLimitOptions,
} from './http/server.js';
export { StreamableHttpHandler, type StreamableOptions } from './http/streamable.js';
export { CancellationRegistry } from './jsonrpc/cancellation.js';
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
  McpErrorCode,
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
export { type McpCallExtra, McpContext } from './mcp/context.js';
export { type ArgumentIssue, type JsonSchema, toJsonSchema } from './mcp/json-schema.js';
export { definePrompt, type Prompt, type PromptSpec } from './mcp/prompt.js';
export {
  type Completer,
  defineResource,
  defineResourceTemplate,
  type ReadOutput,
  type Resource,
  type ResourceListEntry,
  type ResourceSpec,
  type ResourceTemplate,
  type ResourceTemplateSpec,
  toReadResult,
} from './mcp/resource.js';
// MCP server core
export { McpServer, type McpServerOptions } from './mcp/server.js';
export { type AuthInfo, McpSession, type OutboundChannel } from './mcp/session.js';
export { type ServeMcpStdioOptions, serveMcpStdio } from './mcp/stdio.js';
export {
  defineTool,
  isCallToolResult,
  type ObjectSchema,
  TOOL_NAME,
  type Tool,
  ToolError,
  type ToolSpec,
  text,
  toCallToolResult,
  toolErrorResult,
} from './mcp/tool.js';
export type * from './mcp/types.js';
export { LOGGING_LEVELS } from './mcp/types.js';
export { UriTemplate } from './mcp/uri-template.js';
export {
  DEFAULT_HTTP_PROTOCOL_VERSION,
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  negotiateVersion,
  type ProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp/versions.js';
export { LineFramer, type LineSink } from './transports/line-framer.js';
export { createLinkedTransports } from './transports/memory.js';
export {
  connectStdio,
  DEFAULT_MAX_FRAME_BYTES,
  type ServeStdioOptions,
  StdioTransport,
  type StdioTransportOptions,
  serveStdio,
} from './transports/stdio.js';
// MCP client half
export * from './client/index.js';
