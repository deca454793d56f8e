import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonRpcClient } from '../jsonrpc/client.js';
import { decodeFrame, encodeResponse, type Frame, type Incoming } from '../jsonrpc/codec.js';
import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import { isPromiseLike } from '../jsonrpc/method.js';
import type { JsonRpcId, JsonRpcParams } from '../jsonrpc/types.js';
import { type AuthInfo, McpSession, type OutboundChannel } from '../mcp/session.js';
import type { ServerPort, ServerTransport } from '../mcp/transport.js';
import { isSupportedVersion } from '../mcp/versions.js';
import { answerByEra } from './modern.js';
import { sendEmpty, sendError, sendJson } from './respond.js';
import { parseEventId, StreamLog } from './resumable.js';
import { SseStream } from './sse.js';

/** Options of {@link StreamableHttpHandler}. */
export interface StreamableOptions {
  /** Issue `Mcp-Session-Id` and keep state between requests. Default true. */
  sessions?: boolean;
  /** Idle time after which a session is forgotten. Default 30 min. */
  sessionIdleMs?: number;
  /** Most sessions kept at once; initialize beyond it gets 503. Default 10 000. */
  maxSessions?: number;
  /**
   * Most sessions one caller keeps at once — its token's subject, or its remote address without
   * auth. An initialize beyond it ends that caller's longest-idle session without an open
   * stream; when every one has a stream, it gets 503. One client cannot take every session.
   * Default 100.
   */
  maxSessionsPerIdentity?: number;
  /** Keep-alive comment interval on GET streams. Default 25 s. */
  keepAliveMs?: number;
  /** Where dropped streams and misbehaving clients are logged. */
  logger?: EngineLogger;
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
}

/** How long a finished stream stays replayable, and the reconnection delay we advise. */
const LOG_TTL_MS = 60_000;
const RETRY_MS = 500;
let streamCounter = 0;

const notificationFrame = (method: string, params?: JsonRpcParams) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
  );

function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  if (!accept) return false;
  return accept.includes(type) || accept.includes('*/*');
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

  constructor(options: StreamableOptions = {}) {
    this.#stateful = options.sessions ?? true;
    this.#idleMs = options.sessionIdleMs ?? 30 * 60_000;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxPerIdentity = options.maxSessionsPerIdentity ?? 100;
    this.#keepAliveMs = options.keepAliveMs ?? 25_000;
    this.#logger = options.logger;
    if (this.#stateful) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, this.#idleMs));
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

  /** End every session and stop the idle sweeper. */
  close(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    for (const id of [...this.#sessions.keys()]) this.#end(id);
  }

  /**
   * Serve a POST whose body has been read (and the caller authenticated): JSON, or SSE while the
   * call sends notifications or requests; 202 when no reply is due.
   */
  async handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (!accepts(req, 'application/json') && !accepts(req, 'text/event-stream')) {
      sendError(res, 406, {
        code: ErrorCode.InvalidRequest,
        message: 'Not Acceptable: Accept must include application/json and text/event-stream',
      });
      return;
    }
    const frame = decodeFrame(body);
    if (frame.kind === 'empty') {
      sendError(res, 400, {
        code: ErrorCode.ParseError,
        message: 'Parse error',
        data: { detail: 'empty body' },
      });
      return;
    }
    if (frame.kind === 'invalid') {
      sendJson(res, 400, encodeResponse(frame.reply));
      return;
    }
    if (frame.kind === 'single' && frame.message.kind === 'invalid') {
      sendJson(res, 400, encodeResponse(frame.message.reply));
      return;
    }
    // The era is the body's to say, before any session is looked up: a request whose `_meta`
    // claims 2026-07-28 is served statelessly, whatever Mcp-Session-Id it carries.
    if (await answerByEra(this.#server, req, res, frame, auth, accepts(req, 'text/event-stream'))) {
      return;
    }
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

    let session: HttpSession | undefined;
    let created = false;
    if (!this.#stateful) {
      session = this.#newSession(auth);
    } else if (isInit) {
      const identity = identityOf(req, auth);
      if (!this.#makeRoomFor(identity)) {
        sendError(
          res,
          503,
          { code: -32000, message: 'Too many sessions for this client' },
          { 'Retry-After': '60' },
          replyId,
        );
        return;
      }
      if (this.#sessions.size >= this.#maxSessions) {
        sendError(
          res,
          503,
          { code: -32000, message: 'Too many sessions' },
          { 'Retry-After': '60' },
          replyId,
        );
        return;
      }
      session = this.#newSession(auth, identity);
      created = true;
    } else {
      session = this.#lookup(req, res, auth, replyId);
      if (!session) return;
    }
    const version = req.headers['mcp-protocol-version'];
    if (!isInit && typeof version === 'string' && !isSupportedVersion(version)) {
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
      return;
    }
    session.mcp.lastSeen = Date.now();

    const hasRequests = messages.some((m) => m.kind === 'request' || m.kind === 'invalid');
    const wantsSse = accepts(req, 'text/event-stream');
    // A new session's id is announced only once its initialize has succeeded (below).
    const sessionHeader: Record<string, string> =
      this.#stateful && !created ? { 'Mcp-Session-Id': session.mcp.id } : {};
    // Made on first use: most calls answer with plain JSON and never need a stream.
    let sse: SseStream | undefined;
    const stream = (): SseStream => {
      sse ??= new SseStream(res, sessionHeader);
      return sse;
    };
    const current = session;
    // Streams of sessions on 2025-11-25 are resumable: primed, logged, replayable by GET.
    const resumable = this.#stateful && current.mcp.protocolVersion >= '2025-11-25';
    let log: StreamLog | undefined;
    const ensureLog = (): StreamLog => {
      if (!log) {
        log = new StreamLog((++streamCounter).toString(36), stream());
        current.logs.set(log.id, log);
        log.prime(RETRY_MS);
      }
      return log;
    };
    const emit = (json: string): void => {
      if (resumable) ensureLog().send(json);
      else stream().send(json);
    };
    const open = () => wantsSse && hasRequests && (sse ? !sse.closed : !res.destroyed);
    // Messages the server sends while this POST's calls run travel on its own SSE stream.
    const channel: OutboundChannel = {
      notify: (method, params) => {
        if (open() || log) emit(notificationFrame(method, params));
      },
      request: (method, params, options) => {
        if (!open() && !log)
          return Promise.reject(new Error('no stream to the client for this request'));
        return current.client.request(method, params, { ...options, via: emit });
      },
      closeStream: () => {
        if (!resumable || !open()) return false;
        ensureLog().detach();
        return true;
      },
    };
    const reply = this.#server.dispatch(
      frame,
      { session: current.mcp, auth, channel },
      (response) => {
        if (!current.client.handleResponse(response))
          this.#logger?.debug({ id: response.id }, 'unmatched response');
      },
    );
    const text = isPromiseLike(reply) ? await reply : reply;

    if (created) {
      // Keep the session only if initialize succeeded.
      if (session.mcp.initializeAnswered) {
        this.#sessions.set(session.mcp.id, session);
        let ids = this.#byIdentity.get(session.identity);
        if (!ids) {
          ids = new Set();
          this.#byIdentity.set(session.identity, ids);
        }
        ids.add(session.mcp.id);
        sessionHeader['Mcp-Session-Id'] = session.mcp.id;
      } else {
        this.#server.closeSession(session.mcp);
      }
    } else if (!this.#stateful) {
      this.#server.closeSession(session.mcp);
    }
    if (!hasRequests) {
      sendEmpty(res, 202, sessionHeader);
      return;
    }
    if (log) {
      if (text !== undefined) log.send(text);
      log.finish();
      return;
    }
    if (sse?.started) {
      if (text !== undefined) sse.send(text);
      sse.end();
      return;
    }
    if (text === undefined) sendEmpty(res, 202, sessionHeader);
    else sendJson(res, 200, text, sessionHeader);
  }

  /** Serve a GET: the session's SSE stream, or a stream resumed from `Last-Event-ID`. */
  handleGet(req: IncomingMessage, res: ServerResponse, auth: AuthInfo | undefined): void {
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
    const session = this.#lookup(req, res, auth);
    if (!session) return;
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string') {
      const at = parseEventId(lastEventId);
      const log = at && session.logs.get(at.stream);
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
  handleDelete(req: IncomingMessage, res: ServerResponse, auth: AuthInfo | undefined): void {
    if (!this.#stateful) {
      sendEmpty(res, 405, { Allow: this.allowedMethods });
      return;
    }
    if (refuseSessionless(req, res)) return;
    const session = this.#lookup(req, res, auth);
    if (!session) return;
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
    return { mcp, client, subject: auth?.subject, identity, stream: undefined, logs: new Map() };
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
    this.#end(idlest.mcp.id);
    return true;
  }

  /** The session a request names, or an answer (400/404) already sent. */
  #lookup(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
    requestId: JsonRpcId = null,
  ): HttpSession | undefined {
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
    // A session is bound to the caller that opened it; to anyone else it does not exist.
    if (!session || session.subject !== auth?.subject) {
      sendError(res, 404, { code: -32001, message: 'Session not found' }, {}, requestId);
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
    }
  }
}

/** Whose session a new one is: the token's subject, or the remote address without auth. */
function identityOf(req: IncomingMessage, auth: AuthInfo | undefined): string {
  return auth?.subject !== undefined
    ? `subject:${auth.subject}`
    : `address:${req.socket.remoteAddress ?? ''}`;
}
