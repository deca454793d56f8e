/**
 * An McpServer over HTTP: the plain JSON-RPC POST paths and the Streamable HTTP endpoint behind
 * probes, the app's pages, Host/Origin checks, CORS, the {@link Gate} (auth, rate limits) and
 * body limits. Every request is classified once from its request line (which endpoint, which
 * method) and handed down; a cheap call on a server without auth is answered from its body's
 * 'end' event with no promise at all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StoreUnavailableError } from '@mcpkit/fleet';
import { bindActiveContext, tracingActive, withHttpContext } from '@mcpkit/observability';
import {
  type AuthInfo,
  ErrorCode,
  type JsonRpcId,
  type McpServer,
  pollTurn,
} from '@mcpkit/protocol';
import { BodyTooLargeError, isJsonContentType, readBodyThen } from './body.js';
import { Cors } from './cors.js';
import { type Admitted, Gate, PROTECTED_RESOURCE_PATH } from './gate.js';
import { Health } from './health.js';
import type { McpHttpOptions, McpHttpServer } from './options.js';
import { checkHostAndOrigin, isLoopback, parsedPublic } from './origin.js';
import { createExtras } from './pages.js';
import { PlainHttpHandler } from './plain.js';
import { ANSWERED, sendEmpty, sendError, sendJson, sendUnavailable } from './respond.js';
import { StreamableHttpHandler } from './streamable.js';

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** Strict UTF-8 (invalid bytes throw), keeping a BOM as text like `Buffer#toString` does. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The MCP endpoint a request is for, and its method: what the request line alone decides. */
interface Routed {
  /** The plain JSON-RPC POST path (else the Streamable HTTP endpoint). */
  plain: boolean;
  method: string;
  /** Its path (a mounted server's endpoint, or the main one). */
  path: string;
}

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
  return new HttpHost(mcp, options);
}

class HttpHost implements McpHttpServer {
  readonly server: Server;
  readonly streamable: StreamableHttpHandler | undefined;
  readonly health: Health;
  readonly #mcp: McpServer;
  readonly #options: McpHttpOptions;
  readonly #host: string;
  readonly #gate: Gate;
  readonly #plain: PlainHttpHandler | undefined;
  /** The plain paths, compared one by one: a Set would hash every request's fresh path string. */
  readonly #plainPaths: readonly string[];
  readonly #streamablePath: string | false;
  /** The Streamable endpoint's Allow header, and its methods (not split on every request). */
  readonly #streamableAllowed: string;
  readonly #streamableMethods: ReadonlySet<string>;
  readonly #maxBody: number;
  readonly #maxBatch: number;
  readonly #cors: Cors | undefined;
  /** `/metrics` and the app's pages; undefined when there are none. */
  readonly #extras: ReturnType<typeof createExtras>;
  /** Responses not finished yet, but for GET streams (a drain ends those after the calls). */
  readonly #inFlight = new Set<ServerResponse>();
  /** Called when the last in-flight response of a drain has finished. */
  #drained: (() => void) | undefined;
  /** The Streamable HTTP handlers of mounted servers (`options.mounts`), made at first use. */
  readonly #mounted = new Map<McpServer, StreamableHttpHandler>();

  constructor(mcp: McpServer, options: McpHttpOptions) {
    this.#mcp = mcp;
    this.#options = options;
    this.#host = options.host ?? '127.0.0.1';
    this.#gate = new Gate(options);
    if (!isLoopback(this.#host) && !this.#gate.authenticates) {
      throw new Error(
        `refusing to listen on ${this.#host} without auth: configure tokens or bind to 127.0.0.1`,
      );
    }
    // A public URL that is not one is refused now, not on the first request it would fail.
    if (options.publicUrls) parsedPublic(options.publicUrls);
    this.#plainPaths = [...new Set(options.plainPaths ?? [])];
    this.#plain = this.#plainPaths.length > 0 ? mcp.connect(new PlainHttpHandler()) : undefined;
    this.#streamablePath = options.streamablePath === undefined ? '/mcp' : options.streamablePath;
    // The origin clients reach this server at: the first public URL's, else (at listen) the
    // address it listens on. OAuth names its metadata, and its tokens' audience, from it.
    const publicUrl = options.publicUrls?.[0];
    if (publicUrl !== undefined) this.#knowBase(new URL(publicUrl).origin);
    this.streamable = this.#streamablePath ? mcp.connect(this.#newHandler()) : undefined;
    this.#streamableAllowed = this.streamable?.allowedMethods ?? 'POST';
    this.#streamableMethods = new Set(this.#streamableAllowed.split(', '));
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
    this.#maxBatch = options.maxBatchSize ?? 100;
    this.health = new Health(options.health, options.logger);
    const state = options.state;
    if (state) this.health.addCheck('state', () => state.ping());
    this.#cors = options.corsOrigins?.length ? new Cors(options.corsOrigins) : undefined;
    this.#extras = createExtras({
      metrics: options.metrics,
      metricsPath: options.metricsPath ?? '/metrics',
      metricsToken: options.metricsToken,
      pages: options.pages ?? [],
      gate: this.#gate,
      // Not the CORS origins: they are let in for MCP, not for the app's pages (a login form's
      // cookie must not be usable by another origin's page) nor /metrics.
      origin: {
        allowedHosts: options.allowedHosts,
        allowedOrigins: options.allowedOrigins,
        publicUrls: options.publicUrls,
      },
      host: this.#host,
      logger: options.logger,
    });
    this.server = createServer(this.handle);
    // Slow-loris protection: a client gets this long to send its headers and body.
    this.server.headersTimeout = 30_000;
    this.server.requestTimeout = 120_000;
    // Idle keep-alive sockets are closed by the client (undici: 4 s), not raced by the server: a
    // server closing first can reset a request the client just sent on that socket.
    this.server.keepAliveTimeout = 65_000;
  }

  #newHandler(): StreamableHttpHandler {
    const options = this.#options;
    return new StreamableHttpHandler({
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.state ? { state: options.state } : {}),
      ...options.streamable,
    });
  }

  /**
   * The Streamable HTTP handler answering this caller at `path`: a mounted server's (its own,
   * made at first use), else the main one — or undefined, a mounted server that is gone.
   */
  #streamableFor(path: string, auth: AuthInfo | undefined): StreamableHttpHandler | undefined {
    const mounts = this.#options.mounts;
    const server = mounts?.select(path, auth);
    if (!server || server === this.#mcp) {
      return path === this.#streamablePath ? this.streamable : undefined;
    }
    let handler = this.#mounted.get(server);
    if (!handler) {
      handler = server.connect(this.#newHandler());
      this.#mounted.set(server, handler);
    }
    return handler;
  }

  /** The request handler (bound: `createServer(http.handle)` works). */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    // A draining server tells every client to take its next request elsewhere.
    if (this.health.draining) res.shouldKeepAlive = false;
    if (req.method !== 'GET') {
      this.#inFlight.add(res);
      res.on('close', this.#settled);
    }
    // With tracing on, the request runs in the trace of its `traceparent` header (a request whose
    // `_meta` carries one continues that instead).
    let routed: Promise<void> | undefined;
    try {
      // No closure per request while tracing is off (the usual case).
      routed = tracingActive()
        ? withHttpContext(req.headers, () => this.#route(req, res))
        : this.#route(req, res);
    } catch (err) {
      this.#fail(req, res, err);
      return;
    }
    routed?.catch((err: unknown) => this.#fail(req, res, err));
  };

  // listen, close and drain are bound, as `handle` is: `process.once('SIGTERM', http.drain)` and
  // `const { listen, close } = createMcpHttpServer(…)` work.
  readonly listen = (): Promise<{ url: string; port: number; host: string }> => {
    const server = this.server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port ?? 0, this.#host, () => {
        server.off('error', reject);
        const address = server.address() as AddressInfo;
        const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        const url = `http://${shownHost}:${address.port}`;
        if (this.#gate.base === undefined) this.#knowBase(url);
        resolve({
          url,
          port: address.port,
          host: address.address,
        });
      });
    });
  };

  readonly close = (): Promise<void> =>
    new Promise((resolve) => {
      this.streamable?.close();
      for (const handler of this.#mounted.values()) handler.close();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });

  readonly drain = async (timeoutMs = this.#options.drainTimeoutMs ?? 10_000): Promise<void> => {
    this.health.startDraining();
    // Calls already running answer with `Connection: close` too.
    for (const res of this.#inFlight) res.shouldKeepAlive = false;
    this.#mcp.closeSubscriptions();
    for (const server of this.#mounted.keys()) server.closeSubscriptions();
    // Still serving while the balancer learns from /readyz: a connection closed under it now
    // could carry a request it has just sent (a 502 it would not retry).
    const delay = this.#options.drainDelayMs ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
    // No new connections; idle keep-alive ones go now (Node's close() closes them), busy ones
    // after their response. "Idle" is what the parser has seen: a request whose bytes are in
    // the socket's receive buffer, not yet read, would be reset (ECONNRESET for a client that
    // sent it in good faith). A full turn of the event loop first reads them, and such a
    // connection is busy, not idle.
    await pollTurn();
    this.server.close();
    this.server.closeIdleConnections();
    if (this.#inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.close();
  };

  /** One listener for every response's 'close' (see {@link settledIn}): no closure per request. */
  readonly #settled = settledIn(this.#inFlight, () => this.#drained?.());

  /**
   * Everything decided from the request line and headers, without an await: probes, pages, 404,
   * Host/Origin, CORS, 405. With auth or a rate limit the rest is async; without, a POST goes on
   * from its body's 'end' event (what this returns is then undefined).
   */
  #route(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    // Probes come from load balancers, before auth and Host checks: they carry neither, and
    // say nothing but which checks pass.
    if (this.health.handle(req, res, path)) return undefined;
    // OAuth's Protected Resource Metadata: public, like the probes.
    if (this.#gate.oauth && path.startsWith(PROTECTED_RESOURCE_PATH)) {
      this.#resourceMetadata(req, res, path.slice(PROTECTED_RESOURCE_PATH.length));
      return undefined;
    }
    // /metrics and the app's pages: decided without an await (MCP requests pay nothing).
    const extra = this.#extras?.(req, res, path);
    if (extra) return extra;
    const plain = this.#endpoint(path);
    if (plain === undefined) {
      sendError(res, 404, { code: ErrorCode.MethodNotFound, message: `Not Found: ${path}` });
      return undefined;
    }
    const refused = checkHostAndOrigin(req, this.#options, this.#host);
    if (refused) {
      sendError(res, 403, { code: ErrorCode.InvalidRequest, message: `Forbidden: ${refused}` });
      return undefined;
    }
    const method = req.method ?? 'GET';
    const allowed = plain ? 'POST' : this.#streamableAllowed;
    if (this.#cors?.preflight(req, res, method, allowed)) return undefined;
    if (method !== 'POST' && (plain || !this.#streamableMethods.has(method))) {
      sendEmpty(res, 405, { Allow: allowed });
      return undefined;
    }
    const routed: Routed = { plain, method, path };
    if (!this.#gate.closed) return this.#serve(req, res, routed, undefined, '');
    // A mounted server is a protected resource of its own: its tokens are for its URL.
    const audience =
      plain || path === this.#streamablePath || this.#gate.base === undefined
        ? undefined
        : this.#gate.base + path;
    return this.#gate
      .admit(req, res, path, audience)
      .then((admitted) => this.#admitted(req, res, routed, admitted));
  }

  /** The MCP paths this server serves, the Streamable HTTP endpoint first. */
  get #mcpPaths(): string[] {
    return [...(this.#streamablePath ? [this.#streamablePath] : []), ...this.#plainPaths];
  }

  /** The base URL is known: OAuth's challenges name it, and tokens are for its MCP endpoint. */
  #knowBase(base: string): void {
    this.#gate.base = base;
    const oauth = this.#gate.oauth;
    const main = this.#mcpPaths[0];
    if (oauth && oauth.audience === undefined && main !== undefined) oauth.audience = base + main;
  }

  /**
   * RFC 9728 metadata at `/.well-known/oauth-protected-resource` + the MCP path it describes
   * (`suffix`), and at the root for the main endpoint. Every document names the same resource —
   * the one tokens are for (their audience) — since one server is one protected resource.
   */
  #resourceMetadata(req: IncomingMessage, res: ServerResponse, suffix: string): void {
    const method = req.method ?? 'GET';
    const cors = { 'Access-Control-Allow-Origin': '*' };
    if (method === 'OPTIONS') {
      sendEmpty(res, 204, { ...cors, 'Access-Control-Allow-Methods': 'GET', Allow: 'GET' });
      return;
    }
    const oauth = this.#gate.oauth;
    const main = suffix === '' || suffix === '/' || this.#mcpPaths.includes(suffix);
    const mounted = !main && this.#options.mounts?.serves(suffix) === true;
    if (!oauth || !(main || mounted) || oauth.audience === undefined) {
      sendError(res, 404, { code: ErrorCode.MethodNotFound, message: 'Not Found' });
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      sendEmpty(res, 405, { Allow: 'GET' });
      return;
    }
    // A mounted server names its own URL (RFC 9728 §3.3: the resource the metadata's URL was
    // made from), the main endpoint's documents the main one.
    const resource = mounted ? `${this.#gate.base}${suffix}` : oauth.audience;
    sendJson(res, 200, JSON.stringify(oauth.metadata(resource)), {
      ...cors,
      'Cache-Control': 'max-age=300',
    });
  }

  /**
   * True for a plain path, false for a Streamable HTTP endpoint (the main one, or a mounted
   * server's), undefined for neither.
   */
  #endpoint(path: string): boolean | undefined {
    if (this.streamable !== undefined && path === this.#streamablePath) return false;
    if (this.#plain !== undefined) for (const p of this.#plainPaths) if (p === path) return true;
    if (this.#options.mounts?.serves(path)) return false;
    return undefined;
  }

  /** A request the gate let through (or answered: `admitted` undefined). */
  #admitted(
    req: IncomingMessage,
    res: ServerResponse,
    routed: Routed,
    admitted: Admitted | undefined,
  ): Promise<void> | undefined {
    if (!admitted) return undefined;
    return this.#serve(req, res, routed, admitted.auth, admitted.rateKey);
  }

  /**
   * An admitted request: GET and DELETE to the Streamable handler, a POST's body read, checked
   * (media type, size, UTF-8, batch size and its rate-limit points) and handed to its handler.
   * Undefined when the request was answered, or will be from its body's events (failures there
   * go to `#fail`); a promise while something is awaited.
   */
  #serve(
    req: IncomingMessage,
    res: ServerResponse,
    { plain, method, path }: Routed,
    auth: AuthInfo | undefined,
    rateKey: string,
  ): Promise<void> | undefined {
    const streamable = plain
      ? undefined
      : this.#options.mounts
        ? this.#streamableFor(path, auth)
        : this.streamable;
    if (!plain && !streamable) {
      sendError(res, 404, { code: ErrorCode.MethodNotFound, message: `Not Found: ${path}` });
      return undefined;
    }
    if (method === 'GET') return (streamable as StreamableHttpHandler).handleGet(req, res, auth);
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
          : this.#post(req, res, bytes as Buffer, streamable, path, auth, rateKey);
      } catch (thrown) {
        this.#fail(req, res, thrown);
        return;
      }
      served?.catch((thrown: unknown) => this.#fail(req, res, thrown));
    };
    readBodyThen(req, this.#maxBody, bindActiveContext(onBody));
    return undefined;
  }

  /** A POST's body, read: checked, charged, then served by its handler. */
  #post(
    req: IncomingMessage,
    res: ServerResponse,
    bytes: Buffer,
    streamable: StreamableHttpHandler | undefined,
    path: string,
    auth: AuthInfo | undefined,
    rateKey: string,
  ): Promise<void> | undefined {
    const plain = streamable === undefined;
    let body: string;
    try {
      // Validates and decodes in one pass; a BOM is kept (the JSON-RPC decoder skips it).
      body = UTF8.decode(bytes);
    } catch {
      sendError(res, plain ? 200 : 400, {
        code: ErrorCode.ParseError,
        message: 'Parse error',
        data: { detail: 'body is not valid UTF-8' },
      });
      return undefined;
    }
    const batch = batchSize(body);
    if (batch > this.#maxBatch) {
      sendError(res, plain ? 200 : 400, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: a batch holds at most ${this.#maxBatch} messages`,
        data: { maxBatchSize: this.#maxBatch, size: batch },
      });
      return undefined;
    }
    // The request itself paid one point; the rest of a batch pays one per message.
    if (batch > 1 && this.#gate.charges) {
      return this.#gate
        .charge(rateKey, batch - 1, res)
        .then((ok) => (ok ? this.#handOver(req, res, body, streamable, path, auth) : undefined));
    }
    return this.#handOver(req, res, body, streamable, path, auth);
  }

  #handOver(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    streamable: StreamableHttpHandler | undefined,
    path: string,
    auth: AuthInfo | undefined,
  ): Promise<void> | undefined {
    if (this.#gate.oauth && auth && streamable && this.#stepUp(req, res, body, path, auth)) {
      return undefined;
    }
    const served = streamable
      ? streamable.handlePost(req, res, body, auth)
      : (this.#plain as PlainHttpHandler).handlePost(req, res, body, auth);
    // A call answered synchronously (most cheap ones) leaves nothing to wait for.
    return served === ANSWERED ? undefined : served;
  }

  /**
   * A signed-in `tools/call` of a tool whose scopes its token lacks: 403 `insufficient_scope`
   * naming every scope the tool needs, so the client asks for them once and retries (MCP
   * `basic/authorization` §Scope Challenge Handling; RFC 6750 §3.1). True when answered.
   */
  #stepUp(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    path: string,
    auth: AuthInfo,
  ): boolean {
    // A modern request names its method and tool in headers (the body is parsed only to refuse
    // it); a 2025 one only in its body.
    const header = req.headers['mcp-method'] === 'tools/call' ? req.headers['mcp-name'] : undefined;
    let message: ReturnType<typeof singleRequest>;
    let name: unknown = header;
    if (typeof header !== 'string') {
      message = singleRequest(body);
      if (message?.method !== 'tools/call') return false;
      name = (message.params as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') return false;
    }
    const server = this.#options.mounts?.select(path, auth) ?? this.#mcp;
    const scopes = server.scopesToCall(name as string, auth);
    if (!scopes) return false;
    const id = (message ?? singleRequest(body))?.id ?? null;
    sendError(
      res,
      403,
      {
        code: ErrorCode.InvalidRequest,
        message: `Insufficient scope: tool '${name}' needs ${scopes.join(', ')}`,
        data: { tool: name, requiredScopes: [...scopes] },
      },
      {
        'WWW-Authenticate': this.#gate.challenge(path, 'insufficient_scope', scopes),
      },
      id,
    );
    return true;
  }

  /** A request that failed after it was routed: logged by kind, answered if it still can be. */
  #fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    const logger = this.#options.logger;
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
}

/**
 * The 'close' listener of every in-flight response (called with the response as `this`): it
 * leaves `inFlight`, and the last one to leave calls `emptied`.
 */
function settledIn(
  inFlight: Set<ServerResponse>,
  emptied: () => void,
): (this: ServerResponse) => void {
  return function settled(this: ServerResponse): void {
    inFlight.delete(this);
    if (inFlight.size === 0) emptied();
  };
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

/** The error a request stream reports when its client went away (Node: 'aborted', ECONNRESET). */
function isClientAbort(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'EPIPE';
}

/**
 * How many messages a body holds: its array's length for a batch, else 1 (a parse error or a
 * single message; the handlers answer those). Only a body that starts with `[` is parsed here.
 */
/** The one request a body holds (not a batch), or undefined. */
function singleRequest(
  body: string,
): { id: JsonRpcId; method: unknown; params: unknown } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const m = message as { id?: unknown; method?: unknown; params?: unknown };
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  return { id, method: m.method, params: m.params };
}

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
