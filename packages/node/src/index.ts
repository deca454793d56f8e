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
  TASK_RUNNER_BEAT_MS,
  TASK_RUNNER_TTL_MS,
} from './cli/runner.js';
// HTTP: plain POST and Streamable HTTP, behind auth, rate limits and Host/Origin checks
export { type Authenticator, bearerToken, type StaticToken, staticTokens } from './http/auth.js';
export {
  Health,
  type HealthOptions,
  NotReadyError,
  type ReadinessCheck,
  ReadinessDetail,
  type ReadinessOutcome,
  type ReadinessReport,
} from './http/health.js';
export { FileOAuthStore } from './http/oauth/file-store.js';
// ... and a command-line client's sign-in: the browser's redirect, received on 127.0.0.1.
export {
  type LoopbackAuthorization,
  type LoopbackOptions,
  loopbackAuthorization,
} from './http/oauth/loopback.js';
// OAuth 2.1 sign-in (MCP basic/authorization): the server as a resource server.
export {
  AuthorizationServerUnavailableError,
  createOAuthResourceServer,
  type OAuthResourceOptions,
  type OAuthResourceServer,
} from './http/oauth/resource-server.js';
export type {
  HttpAuthOptions,
  HttpMounts,
  McpHttpOptions,
  McpHttpServer,
  RateLimitOptions,
} from './http/options.js';
export { checkHostAndOrigin, isLoopback, type OriginPolicy } from './http/origin.js';
export type { HttpPage, PageAuth } from './http/pages.js';
export { type HttpClientOptions, type ServedHttp, serveHttp } from './http/serve.js';
export { createMcpHttpServer } from './http/server.js';
export { StreamableHttpHandler, type StreamableOptions } from './http/streamable.js';
// Logging: the process's own log (pino, on stderr) — MCP log messages are McpContext.log
export {
  type CreateLoggerOptions,
  createLogger,
  type LogFormat,
  type Logger,
  PINO_LOG_LEVELS,
  type PinoLogLevel,
  resolveLogFormat,
} from './logging/logger.js';
// Secrets in text a tool answers with (command lines, log lines, results): `[REDACTED]`
export { isSecretName, redact } from './redact/redact.js';
export { REDACTED } from './redact/redact-tools.js';
