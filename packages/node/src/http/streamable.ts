import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionRecord, StateStore } from '@mcpkit/fleet';
import {
  type AuthInfo,
  decodeFrame,
  type EngineLogger,
  ErrorCode,
  encodeResponse,
  type Frame,
  type Incoming,
  isPromiseLike,
  isSupportedVersion,
  JsonRpcClient,
  type JsonRpcId,
  type JsonRpcResponse,
  McpErrorCode,
  McpSession,
  type ProtocolVersion,
  type ServerPort,
  type ServerTransport,
} from '@mcpkit/protocol';
import { acceptsMediaType } from './accept.js';
import { anonymousCaller, clientNameOf } from './caller.js';
import { LegacyPostReply } from './legacy-post.js';
import { answerByEra } from './modern.js';
import { ANSWERED, sendEmpty, sendError, sendJson } from './respond.js';
import { MAX_REPLAY_EVENTS, parseEventId, StreamLog, type StreamMirror } from './resumable.js';
import { notificationFrame, SseStream } from './sse.js';

/** Options of {@link StreamableHttpHandler}. */
export interface StreamableOptions {
  /** Issue `Mcp-Session-Id` and keep state between requests. Default true. */
  sessions?: boolean;
  /** Idle time after which a session is forgotten. Default 30 min. */
  sessionIdleMs?: number;
  /** Most sessions kept at once; initialize beyond it gets 503. Default 10 000. */
  maxSessions?: number;
  /**
   * Most sessions one caller keeps at once — its token's subject; without auth, its remote
   * address and the `clientInfo.name` it initializes with (every local client shares
   * 127.0.0.1). An initialize beyond it ends that caller's longest-idle session without an open
   * stream; when every one has a stream, it gets 503. One client cannot take every session.
   * Default 100.
   */
  maxSessionsPerIdentity?: number;
  /** Keep-alive comment interval on GET streams. Default 25 s. */
  keepAliveMs?: number;
  /** Where dropped streams and misbehaving clients are logged. */
  logger?: EngineLogger;
  /**
   * A fleet's shared state (`createRedisStateStore`): sessions are written there, so any
   * instance serves any session's POST, GET and DELETE, and resumable streams are replayable
   * from any instance. Session caps (`maxSessions`, `maxSessionsPerIdentity`) stay per instance.
   */
  state?: StateStore;
}

interface HttpSession {
  readonly mcp: McpSession;
  /** Correlates our requests to the client (sampling, elicitation) with its answers. */
  readonly client: JsonRpcClient;
  readonly subject: string | undefined;
  /** Whose session it counts as (see {@link StreamableOptions.maxSessionsPerIdentity}). */
  readonly identity: string;
  stream: SseStream | undefined;
  /** POST streams kept for resumption, by stream id. */
  readonly logs: Map<string, StreamLog>;
  /** With a state store: the record last written or read (JSON), so only changes are written. */
  stored: string | undefined;
  /** With a state store: when its expiry there was last pushed back. */
  touchedAt: number;
}

/** A session's change, as instances tell each other (`record: null`: it ended). */
interface SessionNews {
  id: string;
  origin: string;
  record: SessionRecord | null;
}

/** A client's answer to a server request, for the instance that sent the request. */
interface ForwardedResponse {
  id: string;
  origin: string;
  response: JsonRpcResponse;
}

/** How long a finished stream stays replayable. */
const LOG_TTL_MS = 60_000;
let streamCounter = 0;

/** Whether the request's `Accept` admits `type` (a parsed media-range list, see accept.ts). */
function accepts(req: IncomingMessage, type: string): boolean {
  return acceptsMediaType(req.headers.accept, type);
}

/**
 * A 2025-era request (not initialize) under an `MCP-Protocol-Version` this server does not speak:
 * 400 (spec 2025-11-25 `basic/transports` §Protocol Version Header). True when it was refused.
 */
function refuseUnsupportedVersion(
  req: IncomingMessage,
  res: ServerResponse,
  replyId: JsonRpcId,
): boolean {
  const version = req.headers['mcp-protocol-version'];
  if (typeof version !== 'string' || isSupportedVersion(version)) return false;
  sendError(
    res,
    400,
    {
      code: ErrorCode.InvalidRequest,
      message: `Bad Request: unsupported MCP-Protocol-Version '${version}'`,
    },
    {},
    replyId,
  );
  return true;
}

/**
 * GET and DELETE belong to 2025-era sessions; without a session id they are a 2026-07-28
 * client's (or a stray one's), which this revision answers 405 (spec streamable-http, Backward
 * Compatibility: "HTTP GET or DELETE to the MCP endpoint: respond with 405").
 */
function refuseSessionless(req: IncomingMessage, res: ServerResponse): boolean {
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string' && id.length > 0) return false;
  sendEmpty(res, 405, { Allow: 'POST' });
  return true;
}

const messagesOf = (frame: Frame & { kind: 'single' | 'batch' }): Incoming[] =>
  frame.kind === 'single' ? [frame.message] : frame.messages;

/**
 * MCP Streamable HTTP (2025-03-26 and later) on one path: POST carries client messages and is
 * answered with JSON — or with an SSE stream when the server has notifications or requests to
 * send while a call runs; GET opens the stream for messages outside any call; DELETE ends a
 * session. One McpServer serves every client; nothing is rebuilt per request.
 *
 * `server.connect(new StreamableHttpHandler(options))` attaches it; `createMcpHttpServer` does
 * that, and mounts it behind auth, rate limits and Host/Origin checks.
 */
export class StreamableHttpHandler implements ServerTransport {
  #port: ServerPort | undefined;
  readonly #stateful: boolean;
  readonly #idleMs: number;
  readonly #maxSessions: number;
  readonly #maxPerIdentity: number;
  /** Session ids by identity, oldest first. */
  readonly #byIdentity = new Map<string, Set<string>>();
  readonly #keepAliveMs: number;
  readonly #logger: EngineLogger | undefined;
  readonly #sessions = new Map<string, HttpSession>();
  readonly #sweeper: ReturnType<typeof setInterval> | undefined;
  readonly #state: StateStore | undefined;
  /** This handler's name among the fleet's (its own news is not news to it). */
  readonly #origin = randomBytes(6).toString('hex');
  /** Stream ids are unique across the fleet: this prefix, then a counter. */
  readonly #streamPrefix: string;
  #unsubscribe: Promise<(() => Promise<void>) | undefined> | undefined;
  #unsubscribeResponses: Promise<(() => Promise<void>) | undefined> | undefined;

  constructor(options: StreamableOptions = {}) {
    this.#stateful = options.sessions ?? true;
    this.#idleMs = options.sessionIdleMs ?? 30 * 60_000;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxPerIdentity = options.maxSessionsPerIdentity ?? 100;
    this.#keepAliveMs = options.keepAliveMs ?? 25_000;
    this.#logger = options.logger;
    this.#state = this.#stateful ? options.state : undefined;
    this.#streamPrefix = this.#state ? this.#origin.slice(0, 8) : '';
    if (this.#state) {
      this.#unsubscribe = this.#state
        .subscribe('sessions', (message) => this.#onNews(message))
        .catch((err: unknown) => {
          this.#logger?.error({ err }, 'cannot hear session changes of the other instances');
          return undefined;
        });
      this.#unsubscribeResponses = this.#state
        .subscribe('responses', (message) => this.#onForwarded(message))
        .catch((err: unknown) => {
          this.#logger?.error({ err }, 'cannot hear client answers given to other instances');
          return undefined;
        });
    }
    if (this.#stateful) {
      // With a store, often enough to keep the stored copies of streaming sessions alive.
      const every = this.#state ? this.#idleMs / 4 : this.#idleMs;
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, every));
      this.#sweeper.unref();
    }
  }

  /** Called by `server.connect(handler)`; a handler serves one server. */
  attach(port: ServerPort): void {
    if (this.#port) throw new Error('this handler is already connected to a server');
    this.#port = port;
  }

  get #server(): ServerPort {
    if (!this.#port)
      throw new Error('StreamableHttpHandler is not connected: call server.connect(handler)');
    return this.#port;
  }

  /** Sessions open now. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The `Allow` header's value: `GET, POST, DELETE` with sessions, else `POST`. */
  get allowedMethods(): string {
    return this.#stateful ? 'GET, POST, DELETE' : 'POST';
  }

  /**
   * End every session and stop the idle sweeper. With a state store, sessions stay there for
   * the other instances; this one stops hearing of their changes.
   */
  close(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    for (const id of [...this.#sessions.keys()]) this.#end(id);
    void this.#unsubscribe?.then((off) => off?.()).catch(() => undefined);
    void this.#unsubscribeResponses?.then((off) => off?.()).catch(() => undefined);
  }

  /**
   * Serve a POST whose body has been read (and the caller authenticated): JSON, or SSE while the
   * call sends notifications or requests; 202 when no reply is due.
   */
  handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    // Not an async method: a modern call answered synchronously costs no promise of its own
    // (ANSWERED is one shared resolved promise). A throw still reaches the caller as a rejection.
    try {
      // Looked up once: whether a modern call may stream is the same question.
      const sse = accepts(req, 'text/event-stream');
      if (!sse && !accepts(req, 'application/json')) {
        sendError(res, 406, {
          code: ErrorCode.InvalidRequest,
          message: 'Not Acceptable: Accept must include application/json and text/event-stream',
        });
        return ANSWERED;
      }
      const frame = decodeFrame(body);
      if (frame.kind === 'empty') {
        sendError(res, 400, {
          code: ErrorCode.ParseError,
          message: 'Parse error',
          data: { detail: 'empty body' },
        });
        return ANSWERED;
      }
      if (frame.kind === 'invalid') {
        sendJson(res, 400, encodeResponse(frame.reply));
        return ANSWERED;
      }
      if (frame.kind === 'single' && frame.message.kind === 'invalid') {
        sendJson(res, 400, encodeResponse(frame.message.reply));
        return ANSWERED;
      }
      // The era is the body's to say, before any session is looked up: a request whose `_meta`
      // claims 2026-07-28 is served statelessly, whatever Mcp-Session-Id it carries.
      const modern = answerByEra(this.#server, req, res, frame, auth, sse);
      if (modern !== false) return modern === true ? ANSWERED : modern;
      return this.#postLegacy(req, res, frame, auth);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A POST of 2025-era messages: on its session (or a throwaway one, stateless). */
  async #postLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    frame: Frame & { kind: 'single' | 'batch' },
    auth: AuthInfo | undefined,
  ): Promise<void> {
    const messages = messagesOf(frame);
    // Refusals from here on come after the body was read: a single request's id is echoed.
    const replyId: JsonRpcId =
      frame.kind === 'single' && frame.message.kind === 'request' ? frame.message.id : null;
    const isInit = messages.some((m) => m.kind === 'request' && m.method === 'initialize');
    if (isInit && messages.length > 1) {
      sendError(res, 400, {
        code: ErrorCode.InvalidRequest,
        message: 'Invalid Request: initialize must not be part of a batch',
      });
      return;
    }
    const found = this.#sessionFor(
      req,
      res,
      auth,
      isInit ? initializeClientName(messages[0]) : undefined,
      replyId,
    );
    const opened = isPromiseLike(found) ? await found : found;
    if (!opened) return;
    if (!isInit && refuseUnsupportedVersion(req, res, replyId)) return;
    const { session, created } = opened;
    session.mcp.lastSeen = Date.now();

    const hasRequests = messages.some((m) => m.kind === 'request' || m.kind === 'invalid');
    // A new session's id is announced only once its initialize has succeeded (#keep).
    const headers: Record<string, string> =
      this.#stateful && !created ? { 'Mcp-Session-Id': session.mcp.id } : {};
    // Messages the server sends while this POST's calls run travel on its own SSE stream.
    const reply = new LegacyPostReply(res, session, {
      headers,
      streamable: hasRequests && accepts(req, 'text/event-stream'),
      resumable: this.#stateful && session.mcp.protocolVersion >= '2025-11-25',
      newLog: (sse) => {
        const id = this.#streamPrefix + (++streamCounter).toString(36);
        return new StreamLog(id, sse, this.#mirrorFor(session, id));
      },
    });
    const answered = this.#server.dispatch(
      frame,
      { session: session.mcp, auth, channel: reply },
      (response) => this.#onClientResponse(session, response),
    );
    const text = isPromiseLike(answered) ? await answered : answered;
    if (created) {
      if (!(await this.#keep(session))) this.#server.closeSession(session.mcp);
      else headers['Mcp-Session-Id'] = session.mcp.id;
    } else if (!this.#stateful) {
      this.#server.closeSession(session.mcp);
    } else if (this.#state) {
      // What this request changed (initialized, log level, subscriptions) is the fleet's before
      // the client hears back.
      await this.#save(session);
    }
    reply.finish(text, hasRequests);
  }

  /**
   * The session a 2025-era POST runs on: a throwaway one (stateless), a new one for an
   * initialize (`created`; 503 when this caller or the server has too many), else the one its
   * `Mcp-Session-Id` names (404 when unknown). Undefined when the request was answered.
   */
  #sessionFor(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
    /** The initialize's `clientInfo.name` ('' when it has none); undefined: not an initialize. */
    client: string | undefined,
    replyId: JsonRpcId,
  ):
    | { session: HttpSession; created: boolean }
    | undefined
    | Promise<{ session: HttpSession; created: boolean } | undefined> {
    if (!this.#stateful) return { session: this.#newSession(auth), created: false };
    if (client === undefined) {
      const found = this.#lookup(req, res, auth, replyId);
      const opened = (session: HttpSession | undefined) =>
        session ? { session, created: false } : undefined;
      return isPromiseLike(found) ? Promise.resolve(found).then(opened) : opened(found);
    }
    const identity = identityOf(req, auth, client);
    const full = !this.#makeRoomFor(identity)
      ? 'Too many sessions for this client'
      : this.#sessions.size >= this.#maxSessions
        ? 'Too many sessions'
        : undefined;
    if (full) {
      sendError(
        res,
        503,
        { code: McpErrorCode.TooManySessions, message: full },
        { 'Retry-After': '60' },
        replyId,
      );
      return undefined;
    }
    return { session: this.#newSession(auth, identity), created: true };
  }

  /**
   * Keep a session made for an initialize, if that succeeded: indexed by id and identity, and
   * written to the fleet's store. False when initialize failed (the caller closes it). A store
   * that cannot take it ends it again and throws: a session the fleet cannot see is none, and
   * the client is told (503) and retries.
   */
  async #keep(session: HttpSession): Promise<boolean> {
    if (!session.mcp.initializeAnswered) return false;
    this.#sessions.set(session.mcp.id, session);
    let ids = this.#byIdentity.get(session.identity);
    if (!ids) {
      ids = new Set();
      this.#byIdentity.set(session.identity, ids);
    }
    ids.add(session.mcp.id);
    try {
      await this.#save(session);
    } catch (err) {
      this.#end(session.mcp.id);
      throw err;
    }
    return true;
  }

  /**
   * A client's answer to a request the server sent on a session: to the request it answers; or,
   * when that went out from another instance (round-robin put the answer here), over pub/sub to
   * that one.
   */
  #onClientResponse(session: HttpSession, response: JsonRpcResponse): void {
    if (session.client.handleResponse(response)) return;
    if (this.#state) this.#forward(session.mcp.id, response);
    else this.#logger?.debug({ id: response.id }, 'unmatched response');
  }

  /** Serve a GET: the session's SSE stream, or a stream resumed from `Last-Event-ID`. */
  async handleGet(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (!this.#stateful) {
      sendEmpty(res, 405, { Allow: this.allowedMethods });
      return;
    }
    if (refuseSessionless(req, res)) return;
    if (!accepts(req, 'text/event-stream')) {
      sendError(res, 406, {
        code: ErrorCode.InvalidRequest,
        message: 'Not Acceptable: Accept must include text/event-stream',
      });
      return;
    }
    const found = this.#lookup(req, res, auth);
    const session = isPromiseLike(found) ? await found : found;
    if (!session) return;
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string') {
      const at = parseEventId(lastEventId);
      const log = at && session.logs.get(at.stream);
      // A stream of another instance: replayed from the store, then followed there.
      if (at && !log && this.#state && (await this.#resumeFromStore(session, at, res))) return;
      if (!at || !log) {
        sendError(res, 404, {
          code: ErrorCode.InvalidRequest,
          message: `Unknown Last-Event-ID '${lastEventId}'`,
        });
        return;
      }
      log.resume(new SseStream(res, { 'Mcp-Session-Id': session.mcp.id }), at.n);
      return;
    }
    if (session.stream && !session.stream.closed) {
      sendError(res, 409, {
        code: ErrorCode.InvalidRequest,
        message: 'Conflict: this session already has a stream open',
      });
      return;
    }
    const stream = new SseStream(res, { 'Mcp-Session-Id': session.mcp.id }, this.#keepAliveMs);
    stream.start();
    session.stream = stream;
    session.mcp.channel = {
      notify: (method, params) => {
        stream.send(notificationFrame(method, params));
      },
      request: (method, params, options) =>
        session.client.request(method, params, { ...options, via: (f) => stream.send(f) }),
    };
    res.once('close', () => {
      if (session.stream === stream) {
        session.stream = undefined;
        session.mcp.channel = undefined;
      }
    });
  }

  /** Serve a DELETE: end the session named by `Mcp-Session-Id`. */
  async handleDelete(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (!this.#stateful) {
      sendEmpty(res, 405, { Allow: this.allowedMethods });
      return;
    }
    if (refuseSessionless(req, res)) return;
    const found = this.#lookup(req, res, auth);
    const session = isPromiseLike(found) ? await found : found;
    if (!session) return;
    await this.#forget(session.mcp.id);
    this.#end(session.mcp.id);
    sendEmpty(res, 204);
  }

  #newSession(auth: AuthInfo | undefined, identity = ''): HttpSession {
    const mcp = this.#stateful ? this.#server.openSession() : new McpSession();
    const client = new JsonRpcClient({
      send: () => {
        throw new Error('no stream to the client');
      },
    });
    return {
      mcp,
      client,
      subject: auth?.subject,
      identity,
      stream: undefined,
      logs: new Map(),
      stored: undefined,
      touchedAt: 0,
    };
  }

  /**
   * Room for one more session of `identity`: below its cap, or after ending its longest-idle
   * session that has no open stream (logged). False when every one of them has a stream.
   */
  #makeRoomFor(identity: string): boolean {
    const ids = this.#byIdentity.get(identity);
    if (!ids || ids.size < this.#maxPerIdentity) return true;
    let idlest: HttpSession | undefined;
    for (const id of ids) {
      const session = this.#sessions.get(id);
      if (session && !session.stream && (!idlest || session.mcp.lastSeen < idlest.mcp.lastSeen)) {
        idlest = session;
      }
    }
    if (!idlest) return false;
    this.#logger?.debug({ identity, session: idlest.mcp.id }, 'session cap: idlest session ended');
    const ended = idlest.mcp.id;
    this.#end(ended);
    this.#forget(ended).catch((err: unknown) =>
      this.#logger?.warn({ err, session: ended }, 'ended session left in the state store'),
    );
    return true;
  }

  /**
   * The session a request names, or an answer (400/404) already sent. With a state store, a
   * session another instance opened is read from it (one round trip, then kept here).
   */
  #lookup(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
    requestId: JsonRpcId = null,
  ): HttpSession | undefined | Promise<HttpSession | undefined> {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || id.length === 0) {
      sendError(
        res,
        400,
        {
          code: ErrorCode.InvalidRequest,
          message: 'Bad Request: Mcp-Session-Id header is required',
        },
        {},
        requestId,
      );
      return undefined;
    }
    const session = this.#sessions.get(id);
    // Known here (the hot path): answered without a turn of the event loop.
    if (session || !this.#state) return this.#bound(session, res, auth, requestId);
    return this.#state.getSession(id).then((record) => {
      // Another request may have brought it here meanwhile.
      let found = this.#sessions.get(id);
      if (!found && record && record.subject === auth?.subject) found = this.#adopt(id, record);
      return this.#bound(found, res, auth, requestId);
    });
  }

  /** The session if `auth` is its caller's; else undefined, with the 404 sent. */
  #bound(
    session: HttpSession | undefined,
    res: ServerResponse,
    auth: AuthInfo | undefined,
    requestId: JsonRpcId,
  ): HttpSession | undefined {
    // A session is bound to the caller that opened it; to anyone else it does not exist.
    if (!session || session.subject !== auth?.subject) {
      sendError(
        res,
        404,
        { code: McpErrorCode.SessionNotFound, message: 'Session not found' },
        {},
        requestId,
      );
      return undefined;
    }
    return session;
  }

  #end(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const ids = this.#byIdentity.get(session.identity);
    ids?.delete(id);
    if (ids?.size === 0) this.#byIdentity.delete(session.identity);
    session.client.close();
    session.stream?.end();
    this.#server.closeSession(session.mcp);
  }

  /** A session another instance opened, served here from now on. */
  #adopt(id: string, record: SessionRecord): HttpSession {
    const session = this.#newSessionShell(this.#server.openSession(undefined, id), record);
    applyRecord(session, record);
    this.#sessions.set(id, session);
    let ids = this.#byIdentity.get(session.identity);
    if (!ids) {
      ids = new Set();
      this.#byIdentity.set(session.identity, ids);
    }
    ids.add(id);
    return session;
  }

  #newSessionShell(mcp: McpSession, record: SessionRecord): HttpSession {
    const client = new JsonRpcClient({
      send: () => {
        throw new Error('no stream to the client');
      },
    });
    return {
      mcp,
      client,
      subject: record.subject,
      identity: record.identity,
      stream: undefined,
      logs: new Map(),
      stored: undefined,
      touchedAt: Date.now(),
    };
  }

  /**
   * Write what changed in `session` to the store and tell the other instances; when nothing
   * did, push its expiry back now and then (not on every request: that would be a round trip
   * per call).
   */
  async #save(session: HttpSession): Promise<void> {
    const state = this.#state;
    if (!state) return;
    const record = recordOf(session);
    const json = JSON.stringify(record);
    const now = Date.now();
    const id = session.mcp.id;
    if (json === session.stored) {
      if (now - session.touchedAt < this.#idleMs / 10) return;
      session.touchedAt = now;
      await state.touchSession(id, this.#idleMs);
      return;
    }
    await state.putSession(id, record, this.#idleMs);
    session.stored = json;
    session.touchedAt = now;
    const news: SessionNews = { id, origin: this.#origin, record };
    await state.publish('sessions', JSON.stringify(news));
  }

  /** Remove a session from the store, and from every instance that holds it. */
  async #forget(id: string): Promise<void> {
    const state = this.#state;
    if (!state) return;
    await state.deleteSession(id);
    const news: SessionNews = { id, origin: this.#origin, record: null };
    await state.publish('sessions', JSON.stringify(news));
  }

  /** Another instance changed or ended a session: this one's copy follows. */
  #onNews(message: string): void {
    let news: SessionNews;
    try {
      news = JSON.parse(message) as SessionNews;
    } catch {
      this.#logger?.warn({ message: message.slice(0, 200) }, 'unreadable session news dropped');
      return;
    }
    // Anything on the channel may be read, not only what instances wrote: the shape is checked.
    if (typeof news?.id !== 'string' || typeof news.origin !== 'string') return;
    if (news.record !== null && !isSessionRecord(news.record)) return;
    if (news.origin === this.#origin) return;
    const session = this.#sessions.get(news.id);
    if (!session) return;
    if (news.record === null) this.#end(news.id);
    else applyRecord(session, news.record);
  }

  /** Publish a client's answer that no request of this instance awaits. */
  #forward(id: string, response: JsonRpcResponse): void {
    const forwarded: ForwardedResponse = { id, origin: this.#origin, response };
    (this.#state as StateStore)
      .publish('responses', JSON.stringify(forwarded))
      .catch((err: unknown) =>
        this.#logger?.warn({ err, id: response.id }, 'client answer not forwarded'),
      );
  }

  /** Another instance got an answer to one of this instance's requests to its client. */
  #onForwarded(message: string): void {
    let forwarded: ForwardedResponse;
    try {
      forwarded = JSON.parse(message) as ForwardedResponse;
    } catch {
      this.#logger?.warn({ message: message.slice(0, 200) }, 'unreadable forwarded answer dropped');
      return;
    }
    const response = forwarded?.response as unknown;
    if (typeof forwarded?.id !== 'string' || typeof response !== 'object' || response === null)
      return;
    if (forwarded.origin === this.#origin) return;
    this.#sessions.get(forwarded.id)?.client.handleResponse(forwarded.response);
  }

  /** A resumable stream's messages, also written to the store for the other instances. */
  #mirrorFor(session: HttpSession, streamId: string): StreamMirror | undefined {
    const state = this.#state;
    if (!state) return undefined;
    const key = `${session.mcp.id}:${streamId}`;
    let tail: Promise<unknown> = state
      .openStream(key, LOG_TTL_MS)
      .catch((err: unknown) =>
        this.#logger?.warn({ err, stream: streamId }, 'stream not stored for replay'),
      );
    return (json, done) => {
      // In order, off the response's path: the client is never kept waiting for the store.
      tail = tail
        .then(() =>
          state.appendEvent(key, json, { max: MAX_REPLAY_EVENTS, ttlMs: LOG_TTL_MS, done }),
        )
        .catch((err: unknown) =>
          this.#logger?.warn({ err, stream: streamId }, 'stream message not stored for replay'),
        );
    };
  }

  /**
   * Resume a stream another instance served: follow it first (nothing said meanwhile is
   * missed), then replay what the store kept after `at.n`, then go on live until its last
   * message. False when the store does not know the stream.
   */
  async #resumeFromStore(
    session: HttpSession,
    at: { stream: string; n: number },
    res: ServerResponse,
  ): Promise<boolean> {
    const state = this.#state as StateStore;
    const key = `${session.mcp.id}:${at.stream}`;
    const stream = new SseStream(res, { 'Mcp-Session-Id': session.mcp.id });
    let last = at.n;
    let replaying = true;
    const pending: { n: number; json: string; done: boolean }[] = [];
    let off: (() => Promise<void>) | undefined;
    const stop = () => {
      const unsubscribe = off;
      off = undefined;
      unsubscribe?.().catch(() => undefined);
    };
    const deliver = (n: number, json: string, done: boolean) => {
      if (n <= last || stream.closed) return;
      last = n;
      if (json !== '') stream.send(json, `${at.stream}-${n}`);
      if (done) {
        stream.end();
        stop();
      }
    };
    off = await state.subscribe(`stream:${key}`, (message) => {
      const event = JSON.parse(message) as { n: number; json: string; done: boolean };
      if (replaying) pending.push(event);
      else deliver(event.n, event.json, event.done);
    });
    let stored: Awaited<ReturnType<StateStore['readEvents']>>;
    try {
      stored = await state.readEvents(key, at.n);
    } catch (err) {
      stop();
      throw err;
    }
    if (!stored) {
      stop();
      return false;
    }
    res.once('close', stop);
    stream.start();
    const count = stored.events.length;
    stored.events.forEach((json, i) => {
      deliver(stored.first + i, json, stored.done && i === count - 1);
    });
    if (stored.done && count === 0) {
      stream.end();
      stop();
    }
    replaying = false;
    for (const event of pending) deliver(event.n, event.json, event.done);
    return true;
  }

  #sweep(): void {
    const cutoff = Date.now() - this.#idleMs;
    const logCutoff = Date.now() - LOG_TTL_MS;
    for (const [id, session] of this.#sessions) {
      if (session.mcp.lastSeen < cutoff && !session.stream) {
        this.#end(id);
        continue;
      }
      for (const [streamId, log] of session.logs) {
        if (log.done && log.finishedAt < logCutoff) session.logs.delete(streamId);
      }
      // A client listening on its GET stream but sending nothing is still there: its stored
      // session must not expire under it (a POST on another instance would find nothing).
      if (this.#state && session.stream && Date.now() - session.touchedAt > this.#idleMs / 10) {
        session.touchedAt = Date.now();
        this.#state
          .touchSession(id, this.#idleMs)
          .catch((err: unknown) =>
            this.#logger?.warn({ err, session: id }, 'stored session not kept alive'),
          );
      }
    }
  }
}

/** Whose session a new one is: the token's subject; without auth, see anonymousCaller. */
function identityOf(req: IncomingMessage, auth: AuthInfo | undefined, client: string): string {
  return auth?.subject !== undefined ? `subject:${auth.subject}` : anonymousCaller(req, client);
}

/** The `clientInfo.name` of an initialize request, '' when it names none. */
function initializeClientName(message: Incoming | undefined): string {
  if (message?.kind !== 'request') return '';
  return clientNameOf((message.params as { clientInfo?: unknown } | undefined)?.clientInfo);
}

/** A session record as this package writes them (anything else on the channel is ignored). */
function isSessionRecord(value: unknown): value is SessionRecord {
  const r = value as Partial<SessionRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.identity === 'string' &&
    typeof r.protocolVersion === 'string' &&
    typeof r.initialized === 'boolean' &&
    typeof r.clientCapabilities === 'object' &&
    Array.isArray(r.subscriptions) &&
    r.subscriptions.every((uri) => typeof uri === 'string')
  );
}

/** What the store keeps of a session. */
function recordOf(session: HttpSession): SessionRecord {
  const mcp = session.mcp;
  const record: SessionRecord = {
    identity: session.identity,
    protocolVersion: mcp.protocolVersion,
    clientCapabilities: mcp.clientCapabilities,
    initialized: mcp.initialized,
    subscriptions: [...mcp.subscriptions],
  };
  if (session.subject !== undefined) record.subject = session.subject;
  if (mcp.clientInfo) record.clientInfo = mcp.clientInfo;
  if (mcp.logLevel) record.logLevel = mcp.logLevel;
  if (mcp.subscriber) {
    record.subscriber = { subject: mcp.subscriber.subject, scopes: [...mcp.subscriber.scopes] };
    if (mcp.subscriber.allScopes) record.subscriber.allScopes = true;
    if (mcp.subscriber.data) record.subscriber.data = { ...mcp.subscriber.data };
  }
  return record;
}

/** A stored session's state onto this instance's copy. */
function applyRecord(session: HttpSession, record: SessionRecord): void {
  const mcp = session.mcp;
  mcp.protocolVersion = record.protocolVersion as ProtocolVersion;
  mcp.clientInfo = record.clientInfo;
  mcp.clientCapabilities = record.clientCapabilities;
  mcp.initializeAnswered = true;
  mcp.initialized = record.initialized;
  mcp.logLevel = record.logLevel;
  mcp.subscriptions.clear();
  for (const uri of record.subscriptions) mcp.subscriptions.add(uri);
  mcp.subscriber = record.subscriber
    ? {
        subject: record.subscriber.subject,
        scopes: new Set(record.subscriber.scopes),
        ...(record.subscriber.allScopes ? { allScopes: true } : {}),
        ...(record.subscriber.data ? { data: record.subscriber.data } : {}),
      }
    : undefined;
  session.stored = JSON.stringify(record);
}
