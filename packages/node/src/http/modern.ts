/**
 * MCP 2026-07-28 requests over HTTP (spec `basic/transports/streamable-http`), on the
 * Streamable HTTP endpoint and the plain POST paths alike: no session (`Mcp-Session-Id` and
 * `Last-Event-ID` are ignored, none is issued), the request metadata headers checked against the
 * body before anything runs, statuses by where an answer comes from, JSON or a stream scoped to
 * the request, and a client that goes away cancels its call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  CancellationRegistry,
  ErrorCode,
  type Frame,
  type Incoming,
  isPromiseLike,
  type JsonRpcId,
  type JsonRpcParams,
  legacyRefusal,
  McpErrorCode,
  McpSession,
  META,
  type ModernOutcome,
  modernClaim,
  modernRefusal,
  type OutboundChannel,
  paramHeaderRefusal,
  type ServerPort,
} from '@mcpkit/protocol';
import { anonymousCaller, clientNameOf } from './caller.js';
import { sendEmpty, sendError, sendJson } from './respond.js';
import { notificationFrame, SseStream } from './sse.js';

/** A message that may claim the modern era (responses and invalid ones never do). */
export type ModernCandidate = Extract<Incoming, { kind: 'request' | 'notification' }>;

/** Whether a batch element claims the modern era (which batches cannot carry). */
const claimsModern = (message: Incoming): boolean =>
  (message.kind === 'request' || message.kind === 'notification') &&
  modernClaim(message.params) !== undefined;

/** -32600 for a batch holding a modern request: 2026-07-28 sends one message per POST. */
function refuseModernBatch(res: ServerResponse): void {
  sendError(res, 400, {
    code: ErrorCode.InvalidRequest,
    message: 'Invalid Request: 2026-07-28 requests cannot be batched',
  });
}

/**
 * The calls of one modern request, and whether its handler was reached. The server port reports
 * every request a handler answered (`settled`, success or failure); an error without that report
 * came from the era router itself — a method the modern era does not have — which HTTP answers
 * 404, where a handler's errors stay in-band (200).
 */
class RequestCalls extends CancellationRegistry {
  reached = false;

  constructor() {
    // An MCP session's registry: a cancelled call gets no response (see McpSession).
    super({ withholdReplies: true });
  }

  override settled(id: JsonRpcId | undefined): boolean {
    this.reached = true;
    return super.settled(id);
  }
}

/**
 * The HTTP status of a modern answer, by where it came from (spec `basic/index` §Error Codes and
 * streamable-http §Protocol Version Header): a capability the request did not declare is 400
 * wherever it is noticed; an error of the router itself — the request never reached a handler —
 * is 404 for a method the era does not have, else 400; a handler's other errors stay in-band.
 */
function statusOf(code: number | undefined, reached: boolean): number {
  if (code === undefined) return 200;
  if (code === McpErrorCode.MissingRequiredClientCapability || code === McpErrorCode.HeaderMismatch)
    return 400;
  if (reached) return 200;
  return code === ErrorCode.MethodNotFound ? 404 : 400;
}

const noRequests = <R>(): Promise<R> =>
  Promise.reject(new Error('2026-07-28 requests get no server-to-client requests'));

/**
 * What both POST handlers do first, before any session: serve a body that claims the modern era
 * (a single message — `serveModern`), refuse a batch that holds one, and refuse a 2025-era
 * request whose headers claim the modern era (`legacyRefusal`). False leaves the body to the
 * 2025-era path; true says it was answered, a promise that it is being answered (a call that
 * did not complete synchronously) — no promise for a cheap call, the hot path.
 */
export function answerByEra(
  port: ServerPort,
  req: IncomingMessage,
  res: ServerResponse,
  frame: Frame,
  auth: AuthInfo | undefined,
  stream: boolean,
): boolean | Promise<void> {
  if (frame.kind === 'batch') {
    if (!frame.messages.some(claimsModern)) return false;
    refuseModernBatch(res);
    return true;
  }
  if (frame.kind !== 'single') return false;
  const message = frame.message;
  if (message.kind !== 'request' && message.kind !== 'notification') return false;
  const meta = modernClaim(message.params);
  if (meta !== undefined) {
    return serveModern(port, req, res, frame, message, meta, auth, stream) ?? true;
  }
  if (message.kind !== 'request') return false;
  const refused = legacyRefusal(req.headers, message);
  if (!refused) return false;
  sendError(res, 400, refused.toJSON(), {}, message.id);
  return true;
}

/**
 * Serve one message whose `_meta` claims the modern era (`meta`, from `modernClaim`): refused
 * with 400 when its headers disagree with it, 202 for a notification (none is defined over HTTP:
 * accepted and ignored), else dispatched through the server's era router in a scope of its own.
 * With `stream`, notifications the call sends (progress, log messages) turn the answer into an
 * SSE stream scoped to the request — no event ids, not resumable; without it they are dropped
 * and the answer is JSON.
 */
export function serveModern(
  port: ServerPort,
  req: IncomingMessage,
  res: ServerResponse,
  frame: Frame & { kind: 'single' },
  message: ModernCandidate,
  meta: Record<string, unknown>,
  auth: AuthInfo | undefined,
  stream: boolean,
): Promise<void> | undefined {
  const id = message.kind === 'request' ? message.id : null;
  const refused = modernRefusal(req.headers, message, meta);
  if (refused) {
    sendError(res, 400, refused.toJSON(), {}, id);
    return undefined;
  }
  if (message.kind === 'notification') {
    sendEmpty(res, 202);
    return undefined;
  }
  const call = new ModernCall(res, stream);
  // The router builds the request's scope from its envelope; this session only carries the
  // request's cancellations to it (no channel, never registered with the server).
  const reply = port.dispatch(frame, {
    session: new McpSession(undefined, call.calls),
    auth,
    // Every modern request is a connection of its own: without auth, per-caller limits key on
    // the address and the client's name, as a 2025 session's identity does.
    ...(auth ? {} : { caller: anonymousCaller(req, clientNameOf(meta[META.clientInfo])) }),
    channel: call,
    // Classified here already: the router takes this claim, and tells how it answered.
    claim: meta,
    outcome: call,
    checkToolCall: (tool, args) =>
      tool.headerParams ? paramHeaderRefusal(req.headers, tool.headerParams, args) : undefined,
  });
  if (!isPromiseLike(reply)) {
    // Answered before anything could close the response: nothing to cancel, no listener.
    call.finish(reply);
    return undefined;
  }
  // Closing the response is the cancellation (spec §Cancellation): abort the call's signal.
  res.once('close', () => call.cancel());
  return Promise.resolve(reply).then((text) => call.finish(text));
}

/**
 * One modern request's way back: JSON, or an SSE stream scoped to the request once the call
 * sends a notification (with `stream`; without it notifications are dropped). A class rather
 * than closures: one object per call.
 */
class ModernCall implements OutboundChannel, ModernOutcome {
  readonly calls = new RequestCalls();
  /** The code of the error answer, as the era router tells it; undefined for a result. */
  errorCode: number | undefined = undefined;
  #done = false;
  #sse: SseStream | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly stream: boolean,
  ) {}

  notify(method: string, params?: JsonRpcParams): void {
    const res = this.res;
    if (!this.stream || this.#done || res.destroyed || this.#sse?.closed) return;
    this.#sse ??= new SseStream(res, { 'X-Accel-Buffering': 'no' });
    this.#sse.send(notificationFrame(method, params));
  }

  request<R>(): Promise<R> {
    return noRequests();
  }

  cancel(): void {
    if (!this.#done) this.calls.abortAll(() => new Error('the client closed the request'));
  }

  finish(text: string | undefined): void {
    this.#done = true;
    const sse = this.#sse;
    if (sse?.started) {
      if (text !== undefined) sse.send(text);
      sse.end();
      return;
    }
    if (text === undefined) {
      sendEmpty(this.res, 202);
      return;
    }
    sendJson(this.res, statusOf(this.errorCode, this.calls.reached), text);
  }
}
