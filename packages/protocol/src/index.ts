// MCP client half: McpClient and its transports (stdio child, Streamable HTTP)
export * from './client/index.js';
// JSON-RPC engine: codec, dispatcher and methods, errors, client, two-way connection
export { hasBrand } from './jsonrpc/brand.js';
export {
  type CancelListener,
  type CancellationOptions,
  CancellationRegistry,
} from './jsonrpc/cancellation.js';
export { ChurnMap } from './jsonrpc/churn-map.js';
export {
  type CancelSource,
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
  encodeMessage,
  encodeResponse,
  errorResponse,
  type Frame,
  type Incoming,
} from './jsonrpc/codec.js';
export { JsonRpcConnection, type JsonRpcConnectionOptions } from './jsonrpc/connection.js';
export {
  Dispatcher,
  type DispatcherOptions,
  type DispatchInputs,
  type DispatchObserver,
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
export { IdMap } from './jsonrpc/id-map.js';
export {
  isPromiseLike,
  type MaybePromise,
  type MethodDefinition,
  method,
  type NamedParams,
  type RequestContext,
} from './jsonrpc/method.js';
export { editResultText, resultText } from './jsonrpc/result-text.js';
export { createJsonRpcServer, createJsonRpcServerWith } from './jsonrpc/server.js';
export type { FrameSink, FrameTransport } from './jsonrpc/transport.js';
export type * from './jsonrpc/types.js';
// MCP server: McpServer, its tools, resources and prompts, sessions, what handlers are given
export {
  type AskOptions,
  type McpCallExtra,
  McpContext,
  type ModernOutcome,
} from './mcp/context.js';
export {
  type Envelope,
  isReservedMetaKey,
  META,
  modernClaim,
  parseEnvelope,
  withoutReservedMeta,
} from './mcp/era.js';
export type { CacheableMethod, CacheHint } from './mcp/handlers/discover.js';
export {
  decodeHeaderValue,
  encodeHeaderValue,
  legacyRefusal,
  modernRefusal,
  paramHeaderRefusal,
  paramHeaders,
} from './mcp/http-headers.js';
export type { SharedClaim } from './mcp/input-rounds.js';
export {
  type ArgumentIssue,
  type JsonSchema,
  type SchemaIssue,
  toJsonSchema,
} from './mcp/json-schema.js';
export type { McpCall, McpCallOutcome, McpObserver } from './mcp/observe.js';
export { definePrompt, type Prompt, type PromptSpec } from './mcp/prompt.js';
export {
  type Completer,
  defineResource,
  defineResourceTemplate,
  type ReadOutput,
  type Resource,
  type ResourceListEntry,
  type ResourceMeta,
  type ResourceSpec,
  type ResourceTemplate,
  type ResourceTemplateSpec,
  toReadResult,
} from './mcp/resource.js';
export {
  type McpErrorOptions,
  McpServer,
  type McpServerOptions,
  type ScopeDeniedBy,
} from './mcp/server.js';
export {
  type AuthInfo,
  holdsScopes,
  McpSession,
  type OutboundChannel,
} from './mcp/session.js';
export { type ServeMcpStdioOptions, serveMcpStdio } from './mcp/stdio.js';
export { type RunningTask, TaskRunner, type TaskRunnerOptions } from './mcp/tasks/runner.js';
export {
  applyAnswer,
  applyAsk,
  applyChange,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type NewTask,
  newTaskId,
  newTaskRecord,
  type TaskChange,
  type TaskError,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  TERMINAL_STATUSES,
} from './mcp/tasks/store.js';
export { createTaskResult, detailedTask, TASKS_EXTENSION } from './mcp/tasks/wire.js';
export {
  defineTool,
  type HeaderParam,
  headerParamsOf,
  isCallToolResult,
  type ObjectSchema,
  type TaskSupport,
  TOOL_NAME,
  type Tool,
  ToolError,
  type ToolSpec,
  text,
  toCallToolResult,
  toolErrorResult,
} from './mcp/tool.js';
export type {
  McpConnection,
  McpConnectionOptions,
  ServerPort,
  ServerTransport,
} from './mcp/transport.js';
export type * from './mcp/types.js';
export { MCP_LOGGING_LEVELS } from './mcp/types.js';
export { UriTemplate } from './mcp/uri-template.js';
export {
  DEFAULT_HTTP_PROTOCOL_VERSION,
  isModernVersion,
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
  negotiateVersion,
  type ProtocolVersion,
  SERVED_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp/versions.js';
// Processes: ending a child and everything it started
export { killGroup } from './process/kill-group.js';
export { pollTurn } from './process/poll-turn.js';
export { parentDeathSignalMissing, resolveCommand } from './process/tree.js';
// Transports: channels a JsonRpcConnection or `McpServer.connect` runs over
export { guardStdout } from './transports/guard-stdout.js';
export { LineFramer, type LineSink } from './transports/line-framer.js';
export { createLinkedTransports } from './transports/memory.js';
export {
  connectJsonRpcStdio,
  DEFAULT_MAX_FRAME_BYTES,
  type JsonRpcStdioOptions,
  StdioTransport,
  type StdioTransportOptions,
  serveJsonRpcStdio,
} from './transports/stdio.js';
