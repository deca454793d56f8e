// CLI: the runner every app's bin is (flags = environment variables, --help, stdio | http)
export {
  type CliOption,
  CliUsageError,
  type CliValues,
  resolveOptions,
  usage,
} from './cli/options.js';
export {
  type CliApp,
  COMMON_OPTIONS,
  type RunContext,
  type RunOptions,
  runCli,
} from './cli/runner.js';
// MCP client half: McpClient and its transports (stdio child, Streamable HTTP)
export * from './client/index.js';
// Fleet: what several instances share — state stores (memory, Redis), membership, notifications
export { type FleetNotifier, type SubscriberMatch, shareNotifications } from './fleet/notify.js';
export {
  createRedisStateStore,
  RedisStateStore,
  type RedisStateStoreOptions,
} from './fleet/redis.js';
export {
  type FleetMember,
  type FleetMembership,
  type JoinFleetOptions,
  joinFleet,
} from './fleet/registry.js';
export {
  type AppendOptions,
  MemoryStateStore,
  type SessionRecord,
  type StateStore,
  type StoredEvents,
  type StoreRateLimitOptions,
  StoreUnavailableError,
} from './fleet/store.js';
// HTTP: plain POST and Streamable HTTP, behind auth, rate limits and Host/Origin checks
export { type Authenticator, bearerToken, type StaticToken, staticTokens } from './http/auth.js';
export {
  Health,
  type HealthOptions,
  type ReadinessCheck,
  type ReadinessReport,
} from './http/health.js';
export { checkHostAndOrigin, isLoopback, type OriginPolicy } from './http/origin.js';
export type { HttpPage, PageAuth } from './http/pages.js';
export {
  createMcpHttpServer,
  type HttpAuthOptions,
  type McpHttpOptions,
  type McpHttpServer,
  type RateLimitOptions,
} from './http/server.js';
export { StreamableHttpHandler, type StreamableOptions } from './http/streamable.js';
// JSON-RPC engine: codec, dispatcher and methods, errors, client, two-way connection
export {
  type CancelListener,
  type CancellationOptions,
  CancellationRegistry,
} from './jsonrpc/cancellation.js';
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
  encodeResponse,
  errorResponse,
  type Frame,
  type Incoming,
} from './jsonrpc/codec.js';
export { type ConnectionOptions, JsonRpcConnection } from './jsonrpc/connection.js';
export {
  Dispatcher,
  type DispatcherOptions,
  type DispatchObserver,
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
export { editResultText, resultText } from './jsonrpc/result-text.js';
export { createJsonRpcServer, createJsonRpcServerWith } from './jsonrpc/server.js';
export type { FrameSink, FrameTransport } from './jsonrpc/transport.js';
export type * from './jsonrpc/types.js';
// Logging: the process's own log (pino, on stderr) — MCP log messages are McpContext.log
export {
  type CreateLoggerOptions,
  createLogger,
  guardStdout,
  type LogFormat,
  type Logger,
  PINO_LOG_LEVELS,
  type PinoLogLevel,
  resolveLogFormat,
} from './logging/logger.js';
// MCP server: McpServer, its tools, resources and prompts, sessions, what handlers are given
export { type AskOptions, type McpCallExtra, McpContext } from './mcp/context.js';
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
export { type AuthInfo, McpSession, type OutboundChannel } from './mcp/session.js';
export { type ServeMcpStdioOptions, serveMcpStdio } from './mcp/stdio.js';
export {
  defineTool,
  type HeaderParam,
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
export type {
  ConnectOptions,
  McpConnection,
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
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp/versions.js';
// Observability: Prometheus metrics (at /metrics) and OpenTelemetry traces (off unless OTEL_* ask)
export {
  DEFAULT_BUCKETS,
  McpMetrics,
  type McpMetricsOptions,
} from './observability/metrics.js';
export {
  CounterSeries,
  HistogramSeries,
  SeriesCounter,
  SeriesHistogram,
  type SeriesOptions,
} from './observability/series.js';
export {
  type SamplerChoice,
  samplerFromEnv,
  startTracing,
  TRACE_META,
  type Tracing,
  type TracingOptions,
  traceServer,
  tracingActive,
  tracingRequested,
  withTraceContext,
} from './observability/tracing.js';
// Transports: channels a JsonRpcConnection or `McpServer.connect` runs over
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
