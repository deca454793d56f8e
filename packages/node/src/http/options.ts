/**
 * What {@link createMcpHttpServer} is asked to serve (auth, limits, paths, fleet state, health,
 * metrics, pages) and what it returns.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { StateStore } from '@mcpkit/fleet';
import type { McpMetrics } from '@mcpkit/observability';
import type { AuthInfo, EngineLogger, JsonRpcErrorObject, McpServer } from '@mcpkit/protocol';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Authenticator, StaticToken } from './auth.js';
import type { Health, HealthOptions } from './health.js';
import type { OAuthResourceServer } from './oauth/resource-server.js';
import type { OriginPolicy } from './origin.js';
import type { HttpPage } from './pages.js';
import type { StreamableHttpHandler, StreamableOptions } from './streamable.js';

/** Who may call: bearer tokens checked on every request (401 otherwise). */
export interface HttpAuthOptions {
  /** Fixed bearer tokens with their scopes. */
  tokens?: readonly StaticToken[];
  /** Or any lookup (API keys in a database …); return undefined to refuse. */
  authenticate?: Authenticator;
  /**
   * OAuth 2.1 sign-in (MCP `basic/authorization`): access tokens of an authorization server,
   * verified beside `tokens`/`authenticate` (either admits); the server then serves its Protected
   * Resource Metadata and names it in every 401. See `createOAuthResourceServer`.
   */
  oauth?: OAuthResourceServer;
  /** The JSON-RPC error in a 401's body. Default -32001 "Authentication failed". */
  error?: (reason: string) => JsonRpcErrorObject;
  /**
   * Wrong tokens allowed per window, per credential and per remote address, before further
   * wrong ones get 429 for the rest of the window (a credential that kept failing is not even
   * looked up). A valid token is always served: behind a balancer or TLS proxy every client
   * shares one address, and locking the address would let anyone lock out everyone. Tokens are
   * long random secrets; the throttle bounds the work and the noise of guessing, not the odds.
   * Default 20 per 60 s.
   */
  failures?: { points: number; durationSec: number };
}

/** A per-caller request budget (429 with `Retry-After` beyond it). */
export interface RateLimitOptions {
  /** Requests allowed per caller per window. */
  points: number;
  /** Window in seconds. */
  durationSec: number;
  /**
   * A limiter of your own (Redis, PostgreSQL …) instead of the in-memory one. Default: the
   * `state` store's (exact across a fleet when it is Redis), else one in memory.
   */
  limiter?: RateLimiterAbstract;
  /** The JSON-RPC error in a 429's body. Default -32000 "Rate limit exceeded". */
  error?: (retryAfterSec: number) => JsonRpcErrorObject;
}

/**
 * More MCP servers on one host, each at a Streamable HTTP path of its own (a gateway's virtual
 * servers), behind the same gate, origin checks and limits as the main one. With OAuth each is a
 * protected resource of its own: its tokens carry its URL as their audience (RFC 8707), and its
 * metadata is at `/.well-known/oauth-protected-resource<path>` (RFC 9728 §3.1).
 */
export interface HttpMounts {
  /** Whether `path` is the endpoint of one of them: asked before auth (other paths are 404). */
  serves(path: string): boolean;
  /**
   * The server answering this caller at `path`, once the caller is known — at the main path too
   * (a default server per identity). Undefined: the main server at the main path; at a mounted
   * path, 404 (a server removed since `serves`).
   */
  select(path: string, auth: AuthInfo | undefined): McpServer | undefined;
}

/** Options of {@link createMcpHttpServer}. */
export interface McpHttpOptions extends OriginPolicy {
  /** Default 127.0.0.1. Anything but loopback requires auth. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /**
   * Paths answering plain JSON-RPC POSTs (one message or a batch, every reply HTTP 200), the way
   * pre-Streamable servers take them: e.g. `['/', '/api/mcp', '/messages/']`.
   */
  plainPaths?: readonly string[];
  /** Path of the Streamable HTTP endpoint; false to disable. Default '/mcp'. */
  streamablePath?: string | false;
  /** Options of the Streamable HTTP handler (sessions, idle time, limits). */
  streamable?: StreamableOptions;
  /** More servers at paths of their own (see {@link HttpMounts}); each gets its own handler. */
  mounts?: HttpMounts;
  /** Bearer tokens or an authenticator; required to bind anything but loopback. */
  auth?: HttpAuthOptions;
  /** A request budget per caller. Default: none. */
  rateLimit?: RateLimitOptions;
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Most messages in one JSON-RPC batch; a larger one is refused whole with -32600 (plain paths
   * answer it 200, as they do every JSON-RPC error; /mcp 400). With `rateLimit`, each message of
   * a batch costs one point, as it would sent alone. Default 100.
   */
  maxBatchSize?: number;
  /** Where refusals and handler trouble are logged. */
  logger?: EngineLogger;
  /**
   * Shared state of a fleet (`createRedisStateStore`): Streamable HTTP sessions and replay, and
   * the rate-limit buckets, so any instance serves any session and a limit is exact across
   * instances. It becomes a readiness check (`state`). Default: each process on its own memory.
   */
  state?: StateStore;
  /** `/healthz` and `/readyz` (paths, readiness checks, timeout). Default both on. */
  health?: HealthOptions;
  /**
   * How long {@link McpHttpServer.drain} waits for in-flight requests before it closes what is
   * left. Default 10 000 ms.
   */
  drainTimeoutMs?: number;
  /**
   * How long {@link McpHttpServer.drain} keeps serving (every response `Connection: close`,
   * `/readyz` 503) before it stops accepting connections: the time a load balancer needs to see
   * the instance as down, so that it never sends a request on a connection being closed. Default
   * 0 (one process alone has nobody to tell).
   */
  drainDelayMs?: number;
  /**
   * Prometheus metrics served at `metricsPath` (`new McpMetrics()`; runCli makes one): behind
   * the same bearer auth as MCP when `auth` is set, or `metricsToken`. Default: none.
   */
  metrics?: McpMetrics;
  /** Where `metrics` are served. Default '/metrics'. */
  metricsPath?: string;
  /** A bearer token that reads `/metrics` only (a scraper's), besides the app's tokens. */
  metricsToken?: string;
  /** Pages of the app's own beside MCP (a status page), asked first; see {@link HttpPage}. */
  pages?: readonly HttpPage[];
}

/** What {@link createMcpHttpServer} returns: a Node HTTP server, not yet listening. */
export interface McpHttpServer {
  /** The underlying `node:http` server. */
  readonly server: Server;
  /** The Streamable HTTP handler, unless disabled (`streamablePath: false`). */
  readonly streamable: StreamableHttpHandler | undefined;
  /** Start listening; resolves with the URL of the Streamable endpoint's origin. */
  listen(): Promise<{ url: string; port: number; host: string }>;
  /** Stop listening, end the Streamable sessions and close open connections. */
  close(): Promise<void>;
  /**
   * Graceful stop (SIGTERM): `/readyz` answers 503 and every response says `Connection: close`;
   * open `subscriptions/listen` requests are answered; after `drainDelayMs` no new connection is
   * accepted; in-flight calls finish (at most `timeoutMs`, default the `drainTimeoutMs` option);
   * then `close()`.
   */
  drain(timeoutMs?: number): Promise<void>;
  /** `/healthz` and `/readyz`: add readiness checks here (`health.addCheck(name, check)`). */
  readonly health: Health;
  /** The request handler, to mount in a server of your own. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}
