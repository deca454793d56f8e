import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpMetrics } from '@mcpkit/observability';
import type { AuthInfo, EngineLogger } from '@mcpkit/protocol';
import { type Authenticator, bearerToken, staticTokens } from './auth.js';
import type { Gate } from './gate.js';
import { checkHostAndOrigin, type OriginPolicy } from './origin.js';
import { sendEmpty } from './respond.js';

/**
 * What an {@link HttpPage} gets to decide who is asking: the server's own authenticator (the
 * app's tokens), with the throttle of wrong tokens.
 */
export interface PageAuth {
  /** False when the app has no auth (loopback only): every caller may see every page. */
  readonly required: boolean;
  /**
   * Check a token as the MCP endpoints would: the caller's AuthInfo, `undefined` for a wrong
   * token (it counts towards the throttle of wrong tokens), or `'locked'` for a wrong token while
   * its credential or address is throttled after too many. A valid token is never `'locked'`.
   */
  check(token: string, req: IncomingMessage): Promise<AuthInfo | undefined | 'locked'>;
}

/**
 * A page of the app's own served beside MCP (a status page, a dashboard), after the Host/Origin
 * checks and before the MCP paths. It authenticates callers itself through `auth` (a cookie, a
 * login form), since a browser sends no bearer token.
 */
export interface HttpPage {
  /** Where a person opens it and what to call it, for the app's start-up lines. */
  readonly shown?: { readonly label: string; readonly path: string };
  /**
   * Paths any web origin may call (an OAuth authorization server's token, registration and
   * metadata endpoints: browser-based clients live on other origins). The Host check still
   * applies; everything else is held to the server's Origin policy.
   */
  anyOrigin?(path: string): boolean;
  /** Whether this page serves `path` (the URL's path, without the query) for this request. */
  matches(path: string, req: IncomingMessage): boolean;
  /** Answer the request. A throw is answered 500 and logged. */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    auth: PageAuth,
  ): void | Promise<void>;
}

/** How {@link createMcpHttpServer} serves `/metrics` and pages (internal). */
export interface ExtrasOptions {
  metrics: McpMetrics | undefined;
  metricsPath: string;
  metricsToken: string | undefined;
  pages: readonly HttpPage[];
  /** The MCP paths' gate: the same tokens and the same throttle of wrong ones. */
  gate: Gate;
  origin: OriginPolicy;
  host: string;
  logger: EngineLogger | undefined;
}

/**
 * `/metrics` and the app's pages, tried before the MCP paths: a promise when the request is
 * theirs, else undefined — decided without an await, so MCP requests pay nothing for them.
 * Undefined altogether when there is nothing to serve.
 */
export function createExtras(
  options: ExtrasOptions,
):
  | ((req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | undefined)
  | undefined {
  const { metrics, pages, gate } = options;
  if (!metrics && pages.length === 0) return undefined;
  const metricsToken = options.metricsToken
    ? staticTokens([{ token: options.metricsToken, subject: 'metrics' }])
    : undefined;
  const auth: PageAuth = {
    required: gate.authenticates,
    check: async (token, req) => {
      const checked = await gate.check(token, req);
      if (!('refused' in checked)) return checked;
      return checked.refused === 'throttled' ? 'locked' : undefined;
    },
  };
  return (req, res, path) => {
    const isMetrics = metrics !== undefined && path === options.metricsPath;
    const page = isMetrics ? undefined : pages.find((p) => p.matches(path, req));
    if (!isMetrics && !page) return undefined;
    // A page's own forms and scripts post from its origin: a request whose Origin is its own
    // scheme and Host is accepted (the Host check still applies), so the login form works on a
    // gateway bound to a public name without listing that name in allowedOrigins.
    const origin = req.headers.origin;
    const own =
      page !== undefined &&
      origin !== undefined &&
      (isOwnOrigin(origin, req) || page.anyOrigin?.(path) === true);
    const refused = checkHostAndOrigin(
      req,
      own ? { ...options.origin, allowedOrigins: [origin as string] } : options.origin,
      options.host,
    );
    if (refused) {
      sendText(res, 403, `Forbidden: ${refused}\n`);
      return Promise.resolve();
    }
    if (isMetrics) return serveMetrics(req, res, metrics as McpMetrics, auth, metricsToken);
    return Promise.resolve((page as HttpPage).handle(req, res, path, auth));
  };
}

async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: McpMetrics,
  auth: PageAuth,
  metricsToken: Authenticator | undefined,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendEmpty(res, 405, { Allow: 'GET, HEAD' });
    return;
  }
  if (auth.required || metricsToken) {
    const parsed = bearerToken(req.headers.authorization);
    if ('reason' in parsed) {
      metrics.rejected('auth');
      sendText(res, 401, `${parsed.reason}\n`, { 'WWW-Authenticate': 'Bearer' });
      return;
    }
    // The metrics token reads /metrics only; the app's tokens read it too.
    const ok =
      (metricsToken && (await metricsToken(parsed.token, req))) ||
      (auth.required && (await auth.check(parsed.token, req)));
    if (ok === 'locked') {
      sendText(res, 429, 'too many failed attempts\n', { 'Retry-After': '60' });
      return;
    }
    if (!ok) {
      sendText(res, 401, 'invalid or revoked token\n', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
      return;
    }
  }
  const body = await metrics.text();
  res.writeHead(200, {
    'Content-Type': metrics.contentType,
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Whether `origin` is the request's own: http(s):// and exactly its Host header. */
function isOwnOrigin(origin: string, req: IncomingMessage): boolean {
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}
