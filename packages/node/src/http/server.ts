import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { type StateStore, StoreUnavailableError } from '@mcpkit/fleet';
import { bindActiveContext, type McpMetrics, withHttpContext } from '@mcpkit/observability';
import {
  type AuthInfo,
  type EngineLogger,
  ErrorCode,
  type JsonRpcErrorObject,
  McpErrorCode,
  type McpServer,
} from '@mcpkit/protocol';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { type Authenticator, bearerToken, type StaticToken, staticTokens } from './auth.js';
import { BodyTooLargeError, isJsonContentType, readBodyThen } from './body.js';
import { Health, type HealthOptions } from './health.js';
import { checkHostAndOrigin, isLoopback, type OriginPolicy } from './origin.js';
import { createExtras, type HttpPage } from './pages.js';
import { PlainHttpHandler } from './plain.js';
import { ANSWERED, sendEmpty, sendError } from './respond.js';
import { StreamableHttpHandler, type StreamableOptions } from './streamable.js';

/** Who may call: bearer tokens checked on every request (401 otherwise). */
export interface HttpAuthOptions {
  /** Fixed bearer tokens with their scopes. */
  tokens?: readonly StaticToken[];
  /** Or any lookup (API keys in a database …); return undefined to refuse. */
  authenticate?: Authenticator;
  /** The JSON-RPC error in a 401's body. Default -32001 "Authentication failed". */
  error?: (reason: string) => JsonRpcErrorObject;
  /**
   * Wrong tokens allowed per remote address per window before that address gets 429 for the
   * rest of the window — right token or not (else guessing would go on, just answered 429
   * until the right one). Default 20 per 60 s.
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

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** Strict UTF-8 (invalid bytes throw), keeping a BOM as text like `Buffer#toString` does. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Request headers a page of a CORS origin may send (the preflight's answer). */
const CORS_ALLOWED_HEADERS =
  'Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID';
/** Response headers such a page may read. */
const CORS_EXPOSED_HEADERS =
  'Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, WWW-Authenticate, Retry-After';

/**
 * Serve an McpServer over HTTP: plain JSON-RPC POST paths and the Streamable HTTP endpoint, behind
 * Host/Origin checks, bearer auth, a per-caller rate limit and body limits. Throws when asked to
 * bind a non-loopback host without auth.
 *
 * @example
 * ```ts
 * const http = createMcpHttpServer(server, {
 *   port: 3000,
 *   plainPaths: ['/messages/'],
 *   auth: { tokens: [{ token: process.env.TOKEN ?? '', scopes: ['core'] }] },
 * });
 * const { url } = await http.listen(); // Streamable HTTP at `${url}/mcp`
 * ```
 */
export function createMcpHttpServer(mcp: McpServer, options: McpHttpOptions = {}): McpHttpServer {
  const host = options.host ?? '127.0.0.1';
  const authOptions = options.auth;
  const authenticate: Authenticator | undefined =
    authOptions?.authenticate ??
    (authOptions?.tokens?.length ? staticTokens(authOptions.tokens) : undefined);
  if (!isLoopback(host) && !authenticate) {
    throw new Error(
      `refusing to listen on ${host} without auth: configure tokens or bind to 127.0.0.1`,
    );
  }
  const plainPaths = new Set(options.plainPaths ?? []);
  const plain = plainPaths.size > 0 ? mcp.connect(new PlainHttpHandler()) : undefined;
  const streamablePath = options.streamablePath === undefined ? '/mcp' : options.streamablePath;
  const streamable = streamablePath
    ? mcp.connect(
        new StreamableHttpHandler({
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.state ? { state: options.state } : {}),
          ...options.streamable,
        }),
      )
    : undefined;
  const maxBody = options.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
  const maxBatch = options.maxBatchSize ?? 100;
  const limiter = options.rateLimit
    ? (options.rateLimit.limiter ??
      options.state?.rateLimiter({
        keyPrefix: 'calls',
        points: options.rateLimit.points,
        durationSec: options.rateLimit.durationSec,
      }) ??
      memoryLimiter(options.rateLimit.points, options.rateLimit.durationSec))
    : undefined;
  const failurePoints = authOptions?.failures?.points ?? 20;
  const failures = authenticate
    ? memoryLimiter(failurePoints, authOptions?.failures?.durationSec ?? 60)
    : undefined;
  const authError =
    authOptions?.error ??
    ((reason: string) => ({
      code: McpErrorCode.AuthenticationFailed,
      message: 'Authentication failed',
      data: { reason },
    }));
  const rateError =
    options.rateLimit?.error ??
    ((retryAfter: number) => ({
      code: McpErrorCode.RateLimited,
      message: 'Rate limit exceeded',
      data: { retryAfter },
    }));
  const logger = options.logger;
  const health = new Health(options.health, logger);
  const state = options.state;
  if (state) health.addCheck('state', () => state.ping());
  // Requests whose response is not finished yet, but for GET streams (they last as long as the
  // client wants; a drain ends them after the calls).
  const inFlight = new Set<ServerResponse>();
  let drained: (() => void) | undefined;

  const cors = options.corsOrigins?.length ? new Set(options.corsOrigins) : undefined;
  const metrics = options.metrics;
  const extras = createExtras({
    metrics,
    metricsPath: options.metricsPath ?? '/metrics',
    metricsToken: options.metricsToken,
    pages: options.pages ?? [],
    authenticate,
    failures,
    failurePoints,
    // Not the CORS origins: they are let in for MCP, not for the app's pages (a login form's
    // cookie must not be usable by another origin's page) nor /metrics.
    origin: { allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
    host,
    logger,
  });

  // The Allow header's value and its methods, once (not split on every request).
  const streamableAllowed = streamable?.allowedMethods ?? 'POST';
  const streamableMethods = new Set(streamableAllowed.split(', '));
  // Compared one by one: a Set would hash every request's fresh path string.
  const plainList = [...plainPaths];
  const isPlainPath = (path: string): boolean => {
    for (const p of plainList) if (p === path) return true;
    return false;
  };

  /**
   * Everything decided from the request line and headers, without an await: probes, pages,
   * 404, Host/Origin, CORS, 405. With auth or a rate limit the rest is async; without, a POST
   * goes on from its body's 'end' event and a cheap call is answered there — no promise at all
   * (what `handle` gets back is then undefined).
   */
  function route(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    // Probes come from load balancers, before auth and Host checks: they carry neither, and
    // say nothing but which checks pass.
    if (health.handle(req, res, path)) return undefined;
    // /metrics and the app's pages: decided without an await (MCP requests pay nothing).
    const extra = extras?.(req, res, path);
    if (extra) return extra;
    const isStreamable = streamable !== undefined && path === streamablePath;
    const isPlain = !isStreamable && plain !== undefined && isPlainPath(path);
    if (!isPlain && !isStreamable) {
      sendError(res, 404, { code: ErrorCode.MethodNotFound, message: `Not Found: ${path}` });
      return undefined;
    }
    const refused = checkHostAndOrigin(req, options, host);
    if (refused) {
      sendError(res, 403, { code: ErrorCode.InvalidRequest, message: `Forbidden: ${refused}` });
      return undefined;
    }
    const method = req.method ?? 'GET';
    const allowed = isPlain ? 'POST' : streamableAllowed;
    if (cors) {
      res.setHeader('Vary', 'Origin');
      const origin = req.headers.origin;
      if (origin !== undefined && cors.has(origin)) {
        // On every answer from here on, refusals included: a page reads a 401 or 429 too.
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
        if (method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
          // The preflight: before auth (a browser sends it without credentials).
          sendEmpty(res, 204, {
            'Access-Control-Allow-Methods': allowed,
            'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
            'Access-Control-Max-Age': '600',
          });
          return undefined;
        }
      }
    }
    if (method !== 'POST' && (isPlain || !streamableMethods.has(method))) {
      sendEmpty(res, 405, { Allow: allowed });
      return undefined;
    }
    if (authenticate || limiter) return admit(req, res, method, isPlain);
    return serve(req, res, method, isPlain, undefined, '');
  }

  /** Bearer auth and the rate limit, then {@link serve}. */
  async function admit(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    isPlain: boolean,
  ): Promise<void> {
    let auth: AuthInfo | undefined;
    if (authenticate && failures) {
      const address = req.socket.remoteAddress ?? 'unknown';
      const record = await failures.get(address);
      if (record && record.consumedPoints >= failurePoints) {
        const retryAfter = Math.max(1, Math.ceil(record.msBeforeNext / 1000));
        sendError(res, 429, rateError(retryAfter), { 'Retry-After': String(retryAfter) });
        metrics?.rejected('rate_limit');
        return;
      }
      const parsed = bearerToken(req.headers.authorization);
      if ('reason' in parsed) {
        sendError(res, 401, authError(parsed.reason), { 'WWW-Authenticate': 'Bearer' });
        metrics?.rejected('auth');
        return;
      }
      auth = await authenticate(parsed.token, req);
      if (!auth) {
        // Counted per address: a caller guessing keys is slowed to a stop (see `failures`).
        await failures.consume(address).catch(() => undefined);
        sendError(res, 401, authError('invalid or revoked token'), {
          'WWW-Authenticate': 'Bearer error="invalid_token"',
        });
        metrics?.rejected('auth');
        return;
      }
    }

    // Without a limiter nothing is charged, and the hot path pays nothing for it.
    const rateKey = limiter ? (auth?.subject ?? req.socket.remoteAddress ?? 'unknown') : '';
    if (limiter && !(await charge(limiter, rateKey, 1, res, rateError, logger, metrics))) return;
    await serve(req, res, method, isPlain, auth, rateKey);
  }

  /**
   * An admitted request: GET and DELETE to the Streamable handler, a POST's body read, checked
   * (media type, size, UTF-8, batch size and its rate-limit points) and handed to its handler.
   * Undefined when the request was answered, or will be from its body's events (failures there
   * go to `fail`); a promise while something is awaited.
   */
  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    isPlain: boolean,
    auth: AuthInfo | undefined,
    rateKey: string,
  ): Promise<void> | undefined {
    if (method === 'GET') {
      return (streamable as StreamableHttpHandler).handleGet(req, res, auth);
    }
    if (method === 'DELETE') {
      return (streamable as StreamableHttpHandler).handleDelete(req, res, auth);
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendError(res, 415, {
        code: ErrorCode.InvalidRequest,
        message: 'Unsupported Media Type: Content-Type must be application/json',
      });
      return undefined;
    }
    // With tracing on, the body's events must run in the request's trace (an event listener
    // does not carry the context it was added in).
    const onBody = (err: Error | undefined, bytes?: Buffer): void => {
      let served: Promise<void> | undefined;
      try {
        served = err
          ? refuseBody(res, err)
          : post(req, res, bytes as Buffer, isPlain, auth, rateKey);
      } catch (thrown) {
        fail(req, res, thrown);
        return;
      }
      served?.catch((thrown: unknown) => fail(req, res, thrown));
    };
    readBodyThen(req, maxBody, bindActiveContext(onBody));
    return undefined;
  }

  /** A body that could not be read: 413 when too large, else the stream's error. */
  function refuseBody(res: ServerResponse, err: Error): undefined {
    if (err instanceof BodyTooLargeError) {
      sendError(res, 413, {
        code: ErrorCode.InvalidRequest,
        message: 'Payload Too Large',
        data: { maxBytes: err.limit },
      });
      return undefined;
    }
    throw err;
  }

  /** A POST's body, read: checked, charged, then served by its handler. */
  function post(
    req: IncomingMessage,
    res: ServerResponse,
    bytes: Buffer,
    isPlain: boolean,
    auth: AuthInfo | undefined,
    rateKey: string,
  ): Promise<void> | undefined {
    let body: string;
    try {
      // Validates and decodes in one pass; a BOM is kept (the JSON-RPC decoder skips it).
      body = UTF8.decode(bytes);
    } catch {
      sendError(res, isPlain ? 200 : 400, {
        code: ErrorCode.ParseError,
        message: 'Parse error',
        data: { detail: 'body is not valid UTF-8' },
      });
      return undefined;
    }
    const batch = batchSize(body);
    if (batch > maxBatch) {
      sendError(res, isPlain ? 200 : 400, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: a batch holds at most ${maxBatch} messages`,
        data: { maxBatchSize: maxBatch, size: batch },
      });
      return undefined;
    }
    // The request itself paid one point; the rest of a batch pays one per message.
    if (batch > 1 && limiter) {
      return charge(limiter, rateKey, batch - 1, res, rateError, logger, metrics).then((ok) =>
        ok ? handOver(req, res, body, isPlain, auth) : undefined,
      );
    }
    return handOver(req, res, body, isPlain, auth);
  }

  function handOver(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    isPlain: boolean,
    auth: AuthInfo | undefined,
  ): Promise<void> | undefined {
    const served = isPlain
      ? (plain as PlainHttpHandler).handlePost(req, res, body, auth)
      : (streamable as StreamableHttpHandler).handlePost(req, res, body, auth);
    // A call answered synchronously (most cheap ones) leaves nothing to wait for.
    return served === ANSWERED ? undefined : served;
  }

  /** A request that failed after it was routed: logged by kind, answered if it still can be. */
  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    // A client that hung up mid-body is routine, and anyone can do it in a loop: one debug
    // line without a stack, never an error with one (which would let a client flood the log).
    // Its connection tells, not `req.destroyed`: a request whose body was read to the end is
    // destroyed too (autoDestroy), and an error after that still owes the client an answer.
    if (res.destroyed || req.socket.destroyed || isClientAbort(err)) {
      logger?.debug({ url: req.url, code: (err as { code?: unknown }).code }, 'client aborted');
      return;
    }
    if (StoreUnavailableError.is(err)) {
      // The shared store is away: a clear, retryable 503, not a 500 with nothing to act on.
      logger?.warn({ err: (err as Error).message, url: req.url }, 'state store unavailable');
      if (!res.headersSent) sendUnavailable(res);
      else res.end();
      return;
    }
    logger?.error({ err, url: req.url }, 'http request failed');
    if (!res.headersSent)
      sendError(res, 500, { code: ErrorCode.InternalError, message: 'Internal error' });
    else res.end();
  }

  // One function for every response (emitted once, with the response as `this`): no closure
  // per request.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
    if (inFlight.size === 0) drained?.();
  }

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // A draining server tells every client to take its next request elsewhere.
    if (health.draining) res.shouldKeepAlive = false;
    if (req.method !== 'GET') {
      inFlight.add(res);
      res.on('close', settled);
    }
    // With tracing on, the request runs in the trace of its `traceparent` header (a request whose
    // `_meta` carries one continues that instead).
    let routed: Promise<void> | undefined;
    try {
      routed = withHttpContext(req.headers, () => route(req, res));
    } catch (err) {
      fail(req, res, err);
      return;
    }
    routed?.catch((err: unknown) => fail(req, res, err));
  };

  const server = createServer(handle);
  // Slow-loris protection: a client gets this long to send its headers and body.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  // Idle keep-alive sockets are closed by the client (undici: 4 s), not raced by the server: a
  // server closing first can reset a request the client just sent on that socket.
  server.keepAliveTimeout = 65_000;

  const close = (): Promise<void> =>
    new Promise((resolve) => {
      streamable?.close();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  return {
    server,
    streamable,
    handle,
    health,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({
            url: `http://${shownHost}:${address.port}`,
            port: address.port,
            host: address.address,
          });
        });
      }),
    close,
    drain: async (timeoutMs = options.drainTimeoutMs ?? 10_000) => {
      health.startDraining();
      // Calls already running answer with `Connection: close` too.
      for (const res of inFlight) res.shouldKeepAlive = false;
      mcp.closeSubscriptions();
      // Still serving while the balancer learns from /readyz: a connection closed under it now
      // could carry a request it has just sent (a 502 it would not retry).
      const delay = options.drainDelayMs ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
      // No new connections; idle keep-alive ones go now, busy ones after their response.
      server.close();
      server.closeIdleConnections();
      if (inFlight.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          timer.unref();
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await close();
    },
  };
}

/** The shared store is unreachable: 503, retry in a second (another instance may have it). */
function sendUnavailable(res: ServerResponse): void {
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

/** The error a request stream reports when its client went away (Node: 'aborted', ECONNRESET). */
function isClientAbort(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'EPIPE';
}

/**
 * How many messages a body holds: its array's length for a batch, else 1 (a parse error or a
 * single message; the handlers answer those). Only a body that starts with `[` is parsed here.
 */
function batchSize(body: string): number {
  let i = 0;
  // JSON whitespace: space, tab, LF, CR.
  while (i < body.length && ' \t\n\r'.includes(body.charAt(i))) i++;
  if (body.charCodeAt(i) !== 91 /* [ */) return 1;
  try {
    const parsed: unknown = JSON.parse(body);
    return Array.isArray(parsed) ? Math.max(1, parsed.length) : 1;
  } catch {
    return 1;
  }
}

const require = createRequire(import.meta.url);
/**
 * rate-limiter-flexible, loaded by the first limiter rather than with the package: every app
 * imports this module through runCli, and over stdio (no rate limits) the import would cost
 * ~50 ms of its start.
 */
const rateLimiterFlexible = (): typeof import('rate-limiter-flexible') =>
  require('rate-limiter-flexible');

/** An in-process limiter. */
function memoryLimiter(points: number, duration: number): RateLimiterAbstract {
  return new (rateLimiterFlexible().RateLimiterMemory)({ points, duration });
}

/**
 * Charge `points` to `key`; false (429 sent, and counted in `metrics`) when its budget is spent.
 * Refusals are counted where they are sent: a 'finish' listener on every response would charge
 * each request for the few that are refused.
 */
async function charge(
  limiter: RateLimiterAbstract,
  key: string,
  points: number,
  res: ServerResponse,
  rateError: (retryAfter: number) => JsonRpcErrorObject,
  logger: EngineLogger | undefined,
  metrics: McpMetrics | undefined,
): Promise<boolean> {
  try {
    await limiter.consume(key, points);
    return true;
  } catch (err) {
    if (!(err instanceof rateLimiterFlexible().RateLimiterRes)) {
      // A store-backed limiter whose store is away: nothing can be counted, so nothing is
      // served (failing open would lift the limit whenever Redis is down).
      logger?.warn({ err: (err as Error)?.message ?? err }, 'rate limiter unavailable');
      sendUnavailable(res);
      return false;
    }
    const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    sendError(res, 429, rateError(retryAfter), { 'Retry-After': String(retryAfter) });
    metrics?.rejected('rate_limit');
    return false;
  }
}
