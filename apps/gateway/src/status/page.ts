/**
 * The gateway's status page at `/`: backends, their charts and the latest events, live over
 * server-sent events. Plain HTML, CSS and JS from `assets/` (no build step, no CDN). Behind the
 * gateway's tokens: a browser logs in once with a token and gets a session cookie; without
 * tokens (loopback only) it is open, like the MCP endpoints.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { type HttpPage, isLoopback, type PageAuth } from '@mcpkit/node';
import { type AuthInfo, holdsScopes } from '@mcpkit/protocol';
import { EventQueryError, type EventStatus, type GatewayEvent } from '../events.js';
import type { Gateway } from '../gateway.js';
import { escapeHtml, readSmall } from '../html.js';
import { ADMIN_SCOPE } from '../tools/restart-backend.js';
import { type EventFeed, eventFeed } from './feed.js';
import { snapshot } from './snapshot.js';

/** Options of {@link statusPage}. */
export interface StatusPageOptions {
  /** How often the live stream sends the backends' state, ms. Default 1000. */
  intervalMs?: number;
  /** Browsers watching at once; more are answered 503. Default 32. */
  maxStreams?: number;
  /**
   * Of those, how many one caller (a token's subject) may hold; more are answered 503, while the
   * others still get theirs. Default 4. Without tokens (loopback only) only `maxStreams` applies.
   */
  maxStreamsPerCaller?: number;
  /**
   * Logins at once; beyond it a login is answered 429 (unless it ends its caller's own oldest):
   * nobody else is logged out to make room. Default 1024.
   */
  maxSessions?: number;
  /** Logins of one caller (a token's subject) at once; its next one ends its oldest. Default 16. */
  maxSessionsPerCaller?: number;
  /** How long a login lasts, ms. Default 12 hours. */
  sessionTtlMs?: number;
  /** The event feed (default: the gateway's event log). */
  feed?: EventFeed;
}

/** The cookie of a logged-in browser: a random session id, never the token itself. */
export const SESSION_COOKIE = 'mcpkit_status';
/**
 * Its name where the page is served over TLS. The `__Host-` prefix (RFC 6265bis §4.1.3.2) makes
 * the browser keep it only if it is `Secure`, `Path=/` and without `Domain`, set from an https
 * page: a plain-http page or a sibling host cannot plant one of their own under this name.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
const MAX_FORM_BYTES = 4096;
const ASSETS = new URL('../../assets/', import.meta.url);
const STATUSES: readonly EventStatus[] = ['success', 'failure', 'pending'];

/** Read once at start: the page's files are part of the package. */
function asset(name: string): Buffer {
  return readFileSync(new URL(name, ASSETS));
}

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the login
  // form's POST, which the Origin check refuses.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/**
 * The status page as an {@link HttpPage} for `createMcpHttpServer({ pages })`: `GET /` for a
 * browser (a request that accepts HTML; other clients of `/` are left to MCP) and `/status/…`:
 * `app.js`, `app.css`, `api/state`, `api/events`, `stream` (SSE), `login`, `logout` (POST), and
 * `POST api/backends/<name>/restart` (an operator's restart: `gateway:admin` where tokens have
 * scopes, as `restart_backend`), `POST api/backends/<name>/tools/<tool>/approve` (a held-back
 * tool approved, as `approve_tool`).
 * `api/events` takes the filters of `get_events` as query parameters: `event_type`, `status`,
 * `instance`, `since` and `limit`.
 */
export function statusPage(
  gateway: Gateway,
  options: StatusPageOptions = {},
): HttpPage & {
  /** End the live streams (at shutdown). */
  close(): void;
} {
  const feed = options.feed ?? eventFeed(gateway.events);
  const intervalMs = options.intervalMs ?? 1000;
  const maxStreams = options.maxStreams ?? 32;
  const maxStreamsPerCaller = options.maxStreamsPerCaller ?? 4;
  const maxSessions = options.maxSessions ?? 1024;
  const maxSessionsPerCaller = options.maxSessionsPerCaller ?? 16;
  const ttl = options.sessionTtlMs ?? 12 * 3600_000;
  /** By session id, oldest first (a Map keeps insertion order); `secure`: a `__Host-` cookie. */
  const sessions = new Map<string, { auth: AuthInfo; expires: number; secure: boolean }>();
  const streams = new Set<ServerResponse>();
  /** Open streams by the subject of their caller's token. */
  const streamsOf = new Map<string, number>();
  const files = {
    html: asset('status.html'),
    login: asset('login.html').toString('utf8'),
    js: asset('status.js'),
    css: asset('status.css'),
  };

  /**
   * Who the browser is: its session cookie, or a bearer token (scripts, curl); `open` where the
   * gateway has no tokens (loopback only).
   */
  async function caller(
    req: IncomingMessage,
    auth: PageAuth,
  ): Promise<AuthInfo | 'open' | 'no' | 'locked'> {
    if (!auth.required) return 'open';
    for (const secure of [true, false]) {
      const sid = cookie(req.headers.cookie, secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);
      const session = sid ? sessions.get(sid) : undefined;
      if (!session) continue;
      if (session.expires <= Date.now()) sessions.delete(sid as string);
      // A session is good under the name it was given only: the id of a TLS login does not
      // work from a plain cookie.
      else if (session.secure === secure) return session.auth;
    }
    const header = req.headers.authorization;
    const match = header ? /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header) : null;
    if (!match) return 'no';
    const info = await auth.check(match[1] as string, req);
    return info === 'locked' ? 'locked' : (info ?? 'no');
  }

  /** 401/429 for a caller who is not logged in; true when it was answered. */
  function refused(res: ServerResponse, who: Awaited<ReturnType<typeof caller>>): boolean {
    if (who !== 'no' && who !== 'locked') return false;
    sendJson(res, who === 'locked' ? 429 : 401, {
      error: who === 'locked' ? 'too many wrong tokens' : 'log in at /status/login',
    });
    return true;
  }

  /**
   * An operator's action on one backend (restart it, approve its held-back tools). A POST with a
   * JSON body only: a cross-site form cannot send one (the session cookie is SameSite=Strict as
   * well). A token with scopes needs `gateway:admin`, as the `restart_backend` and `approve_tool`
   * tools do; one without (`--token`) may. `act` gets the decoded names and the caller.
   */
  async function operatorAction(
    req: IncomingMessage,
    res: ServerResponse,
    auth: PageAuth,
    what: string,
    encoded: readonly string[],
    act: (names: string[], by: string) => Promise<[number, unknown]>,
  ): Promise<void> {
    if (req.method !== 'POST') {
      send(res, 405, 'text/plain; charset=utf-8', 'POST only\n', { Allow: 'POST' });
      return;
    }
    const who = await caller(req, auth);
    if (refused(res, who)) return;
    if (typeof who === 'object' && !who.allScopes && !who.scopes.has(ADMIN_SCOPE)) {
      sendJson(res, 403, { error: `${what} needs the ${ADMIN_SCOPE} scope` });
      return;
    }
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
      sendJson(res, 415, { error: 'send it as application/json' });
      return;
    }
    if ((await readSmall(req, MAX_FORM_BYTES)) === undefined) {
      sendJson(res, 413, { error: `the body is at most ${MAX_FORM_BYTES} bytes` });
      return;
    }
    let names: string[];
    try {
      names = encoded.map((e) => decodeURIComponent(e));
    } catch {
      sendJson(res, 400, { error: 'a name is not valid percent-encoding' });
      return;
    }
    const [status, body] = await act(names, typeof who === 'object' ? who.subject : 'operator');
    sendJson(res, status, body);
  }

  const restart = (req: IncomingMessage, res: ServerResponse, auth: PageAuth, name: string) =>
    operatorAction(req, res, auth, 'restarting a backend', [name], async ([backend]) => {
      const outcome = await gateway.restartBackend(backend as string);
      return outcome === undefined
        ? [404, { error: 'no enabled backend of that name' }]
        : [200, outcome];
    });

  const approve = (
    req: IncomingMessage,
    res: ServerResponse,
    auth: PageAuth,
    name: string,
    tool: string,
  ) =>
    operatorAction(req, res, auth, 'approving a tool', [name, tool], async ([backend, t], by) => {
      const approved = gateway.approveTools(backend as string, `${by} (status page)`, t);
      if (approved === undefined) return [404, { error: 'no enabled backend of that name' }];
      if (approved.length === 0) return [409, { error: 'that tool is not held back' }];
      return [200, { approved }];
    });

  async function login(req: IncomingMessage, res: ServerResponse, auth: PageAuth): Promise<void> {
    if (req.method === 'GET' || req.method === 'HEAD') {
      sendLogin(res, 200, '');
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, 'text/plain; charset=utf-8', 'GET or POST\n', { Allow: 'GET, HEAD, POST' });
      return;
    }
    // Before the token is looked at: another page's POST learns nothing, and counts for nothing.
    const origin = formOrigin(req);
    if (!origin) {
      sendLogin(res, 403, 'This login was not sent from this page: open the page and log in here.');
      return;
    }
    const type = req.headers['content-type'] ?? '';
    if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      send(
        res,
        415,
        'text/plain; charset=utf-8',
        'the login form is application/x-www-form-urlencoded\n',
      );
      return;
    }
    const body = await readSmall(req, MAX_FORM_BYTES);
    if (body === undefined) {
      send(
        res,
        413,
        'text/plain; charset=utf-8',
        `the login form is at most ${MAX_FORM_BYTES} bytes\n`,
      );
      return;
    }
    const token = new URLSearchParams(body).get('token') ?? '';
    if (!auth.required) {
      redirect(res, '/');
      return;
    }
    const info = token ? await auth.check(token, req) : undefined;
    if (info === 'locked') {
      sendLogin(res, 429, 'Too many wrong tokens from this address: wait a minute and try again.');
      return;
    }
    if (!info) {
      sendLogin(res, 401, 'That token is not valid.');
      return;
    }
    // Room is made among this caller's own logins only: evicting the oldest of all would let one
    // token holder, logging in again and again, log every other operator out.
    const now = Date.now();
    const own: string[] = [];
    for (const [id, session] of sessions) {
      if (session.expires <= now) sessions.delete(id);
      else if (session.auth.subject === info.subject) own.push(id);
    }
    for (const id of own.slice(0, Math.max(0, own.length - maxSessionsPerCaller + 1))) {
      sessions.delete(id);
    }
    if (sessions.size >= maxSessions) {
      // Every login is someone else's and unexpired: the newcomer waits, nobody is logged out.
      sendLogin(res, 429, 'Too many browsers are logged in: try again later.');
      return;
    }
    // Secure where the browser reached the page over TLS: this socket, or a TLS proxy in front
    // (the documented deployment) — the form's Origin, checked above, is the page the browser
    // shows. This server has no list of trusted proxies, so X-Forwarded-Proto is not read.
    const secure = (req.socket as TLSSocket).encrypted === true || origin.startsWith('https:');
    const sid = randomBytes(32).toString('base64url');
    sessions.set(sid, { auth: info, expires: now + ttl, secure });
    const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
    redirect(res, '/', {
      'Set-Cookie': `${name}=${sid}; ${secure ? 'Secure; ' : ''}HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(ttl / 1000)}`,
    });
  }

  /**
   * Ends this browser's login. A POST from the page's own origin: as a GET (or from another
   * local page) it was a link any page could make the browser follow.
   */
  function logout(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') {
      send(res, 405, 'text/plain; charset=utf-8', 'POST only\n', { Allow: 'POST' });
      return;
    }
    if (!formOrigin(req)) {
      send(res, 403, 'text/plain; charset=utf-8', 'log out from the page itself\n');
      return;
    }
    for (const name of [SECURE_SESSION_COOKIE, SESSION_COOKIE]) {
      const sid = cookie(req.headers.cookie, name);
      if (sid) sessions.delete(sid);
    }
    res.setHeader('Set-Cookie', [
      `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
      // A __Host- cookie is only replaced by one that is Secure too.
      `${SECURE_SESSION_COOKIE}=; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
    ]);
    redirect(res, '/status/login');
  }

  function sendLogin(res: ServerResponse, status: number, error: string): void {
    const html = files.login.replace(
      '<!--error-->',
      error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '',
    );
    send(res, status, 'text/html; charset=utf-8', html, SECURITY_HEADERS);
  }

  /** Whether `who` may see `event`: not the activity of a backend whose scopes it lacks. */
  function visible(event: GatewayEvent, who: AuthInfo | undefined): boolean {
    return !event.backend || holdsScopes(who, gateway.config.mcpServers[event.backend]?.scopes);
  }

  async function events(
    req: IncomingMessage,
    res: ServerResponse,
    who: AuthInfo | undefined,
  ): Promise<void> {
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    const status = params.get('status') || undefined;
    if (status !== undefined && !STATUSES.includes(status as EventStatus)) {
      sendJson(res, 400, { error: `status must be one of ${STATUSES.join(', ')}` });
      return;
    }
    const limitText = params.get('limit');
    const limit = limitText ? Number(limitText) : 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      sendJson(res, 400, { error: 'limit must be an integer from 1 to 1000' });
      return;
    }
    const type = params.get('event_type') || undefined;
    const since = params.get('since') || undefined;
    // One gateway's events (its id, as the state's `gateway.instance` and each event show it).
    const instance = params.get('instance') || undefined;
    try {
      const list = await feed.query({
        ...(type ? { event_type: type } : {}),
        ...(status ? { status: status as EventStatus } : {}),
        ...(instance ? { instance } : {}),
        ...(since ? { since } : {}),
        limit,
      });
      sendJson(res, 200, { events: list.filter((e) => visible(e, who)) });
    } catch (err) {
      if (err instanceof EventQueryError) {
        sendJson(res, 400, { error: err.message });
        return;
      }
      throw err;
    }
  }

  function stream(req: IncomingMessage, res: ServerResponse, who: AuthInfo | undefined): void {
    // A share per caller under the global cap: one token holder cannot take every stream. (Open,
    // without tokens, everyone is the same loopback caller: the global cap alone.)
    const subject = who?.subject;
    const mine = subject === undefined ? 0 : (streamsOf.get(subject) ?? 0);
    if (streams.size >= maxStreams || mine >= maxStreamsPerCaller) {
      const error =
        mine >= maxStreamsPerCaller
          ? `you have ${maxStreamsPerCaller} status pages open: close one\n`
          : 'too many status pages open\n';
      send(res, 503, 'text/plain; charset=utf-8', error, { 'Retry-After': '5' });
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    streams.add(res);
    if (subject !== undefined) streamsOf.set(subject, mine + 1);
    // A browser that stops reading is dropped, not buffered for without end.
    const write = (text: string) => {
      if (res.writableLength > 1 << 20) {
        res.destroy();
        return;
      }
      res.write(text);
    };
    const sendState = () =>
      write(`event: state\ndata: ${JSON.stringify(snapshot(gateway, Date.now(), who))}\n\n`);
    sendState();
    const timer = setInterval(sendState, intervalMs);
    const unsubscribe = feed.subscribe((event: GatewayEvent) => {
      if (!visible(event, who)) return;
      write(`event: gateway-event\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const end = () => {
      clearInterval(timer);
      unsubscribe();
      // Once, though both the request and the response report their close.
      if (!streams.delete(res) || subject === undefined) return;
      const left = (streamsOf.get(subject) ?? 1) - 1;
      if (left > 0) streamsOf.set(subject, left);
      else streamsOf.delete(subject);
    };
    res.once('close', end);
    req.once('close', end);
  }

  return {
    shown: { label: 'status page', path: '/' },
    matches(path, req) {
      if (path.startsWith('/status/')) return true;
      // `/` is the page only for a browser: anything else there stays MCP's (or a 404).
      return (
        path === '/' &&
        (req.method === 'GET' || req.method === 'HEAD') &&
        (req.headers.accept ?? '').includes('text/html')
      );
    },
    async handle(req, res, path, auth) {
      if (path === '/status/login') return login(req, res, auth);
      if (path === '/status/logout') return logout(req, res);
      // The page's own files hold no data: served to anyone, so the login form is styled.
      if (path === '/status/app.css')
        return send(res, 200, 'text/css; charset=utf-8', files.css, CACHE);
      if (path === '/status/app.js')
        return send(res, 200, 'text/javascript; charset=utf-8', files.js, CACHE);
      const restartOf = RESTART_PATH.exec(path);
      if (restartOf) return restart(req, res, auth, restartOf[1] as string);
      const approveOf = APPROVE_PATH.exec(path);
      if (approveOf) return approve(req, res, auth, approveOf[1] as string, approveOf[2] as string);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, 'text/plain; charset=utf-8', 'GET only\n', { Allow: 'GET, HEAD' });
        return;
      }
      const who = await caller(req, auth);
      if (path === '/' && (who === 'no' || who === 'locked')) {
        return sendLogin(res, who === 'locked' ? 429 : 401, '');
      }
      if (refused(res, who)) return;
      if (path === '/')
        return send(res, 200, 'text/html; charset=utf-8', files.html, SECURITY_HEADERS);
      // What it shows is what this caller may see (a backend's scopes guard its activity too).
      const viewer = typeof who === 'object' ? who : undefined;
      if (path === '/status/api/state')
        return sendJson(res, 200, snapshot(gateway, Date.now(), viewer));
      if (path === '/status/api/events') return events(req, res, viewer);
      if (path === '/status/stream') return stream(req, res, viewer);
      sendJson(res, 404, { error: `no status page at ${path}` });
    },
    close() {
      for (const res of streams) res.end();
      streams.clear();
      streamsOf.clear();
    },
  };
}

const CACHE = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
/** `/status/api/backends/<name, percent-encoded>/restart`. */
const RESTART_PATH = /^\/status\/api\/backends\/([^/]{1,600})\/restart$/;
/** `/status/api/backends/<name>/tools/<tool>/approve` (both percent-encoded). */
const APPROVE_PATH = /^\/status\/api\/backends\/([^/]{1,600})\/tools\/([^/]{1,600})\/approve$/;

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value), { 'Cache-Control': 'no-store' });
}

function redirect(res: ServerResponse, to: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { Location: to, 'Content-Length': '0', ...headers });
  res.end();
}

/**
 * The Origin of a form POST (login, logout) that comes from the page itself, else undefined:
 * against login CSRF (OWASP CSRF Prevention Cheat Sheet, "Login CSRF"), where another page posts
 * its own token and the browser ends up logged in as the attacker. The server's Host/Origin check
 * in front lets every loopback origin through by default (any local port may call MCP), and
 * SameSite does not help: another port of localhost is the same site. So:
 * - `Sec-Fetch-Site`, where the browser sends it (Fetch Metadata), must be `same-origin`;
 * - the `Origin` must be there: every browser sends one on a POST (Fetch standard; Firefox since
 *   70), and a script has no use for the form — it sends its token as a bearer. Without one, the
 *   request is refused, as the cheat sheet advises where Origin is the defence;
 * - it must be the request's own scheme and Host, or one the operator listed in the server's
 *   `allowedOrigins` (a TLS proxy in front that rewrites Host): no other non-loopback origin gets
 *   past the check in front (the CORS origins do not, for pages). A loopback origin that is not
 *   this page's own is refused even if listed: the check in front lets them all through unlisted,
 *   so here a listed one cannot be told from the others.
 */
function formOrigin(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return undefined;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const host = req.headers.host;
  if (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)) {
    return origin;
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  const listed =
    (url.protocol === 'https:' || url.protocol === 'http:') && !isLoopback(url.hostname);
  return listed ? origin : undefined;
}

/** The value of one cookie, or undefined. */
export function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
