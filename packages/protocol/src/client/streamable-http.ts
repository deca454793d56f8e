import { createParser } from 'eventsource-parser';
import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import type { FrameSink } from '../jsonrpc/transport.js';
import type { JsonRpcId } from '../jsonrpc/types.js';
import type { HeaderParam } from '../mcp/tool.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../transports/stdio.js';
import { TransportError } from './errors.js';
import { requestHeaders, type ToolHeaderLookup } from './headers.js';
import type { OAuthClient } from './oauth/oauth-client.js';
import type { ClientTransport } from './transport.js';

/** How a dropped SSE stream is resumed (GET with `Last-Event-ID`). */
export interface ReconnectOptions {
  /** First delay when the server gave no `retry`. Default 1000 ms. */
  initialDelayMs?: number;
  /** Longest delay between attempts. Default 30 000 ms. */
  maxDelayMs?: number;
  /** Growth of the delay per failed attempt. Default 1.5. */
  factor?: number;
  /** Attempts in a row without receiving anything before giving up. Default 5. */
  maxRetries?: number;
}

/** Where a {@link StreamableHttpClientTransport} connects, and how. */
export interface StreamableHttpClientOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Readonly<Record<string, string>>;
  /** Open the GET stream for messages outside any call once initialized. Default true. */
  openStream?: boolean;
  /** How dropped SSE streams are resumed. */
  reconnect?: ReconnectOptions;
  /** Largest SSE event or JSON body accepted. Default 16 MiB. */
  maxFrameBytes?: number;
  /** Where dropped streams and retries are logged. */
  logger?: EngineLogger;
  /**
   * Sign in the MCP way (OAuth 2.1): its token goes with every request, and a 401 or a 403
   * `insufficient_scope` makes it sign in (or step up) and the request is sent once more.
   */
  oauth?: OAuthClient;
}

interface Outgoing {
  id: JsonRpcId | undefined;
  isRequest: boolean;
  method: string | undefined;
  params: Record<string, unknown> | undefined;
}

/** What one SSE stream left behind when it ended. */
interface StreamEnd {
  answered: boolean;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  received: boolean;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** The id and method of a frame we are about to send; undefined fields for what isn't ours. */
function outgoing(frame: string): Outgoing {
  try {
    const message = JSON.parse(frame) as { id?: JsonRpcId; method?: unknown; params?: unknown };
    const method = typeof message.method === 'string' ? message.method : undefined;
    const params =
      typeof message.params === 'object' &&
      message.params !== null &&
      !Array.isArray(message.params)
        ? (message.params as Record<string, unknown>)
        : undefined;
    return { id: message.id, isRequest: method !== undefined && 'id' in message, method, params };
  } catch {
    return { id: undefined, isRequest: false, method: undefined, params: undefined };
  }
}

/**
 * The client side of MCP Streamable HTTP (2025-03-26 and later): every message is a POST answered
 * with JSON or an SSE stream; the `Mcp-Session-Id` from initialize and the negotiated
 * `MCP-Protocol-Version` go with every later request; a GET stream carries the server's messages
 * outside any call; a stream that drops before its answer is resumed with `Last-Event-ID` after
 * the server's `retry` delay; close ends the session with DELETE.
 *
 * Every POST of a request or notification names its method in `Mcp-Method` (and its tool,
 * prompt or resource in `Mcp-Name`), in either era: the 2026-07-28 transport asks it of every
 * POST, and a 2025 server ignores it.
 *
 * In the modern era (MCP 2026-07-28, switched by the client with `setEra`) there is no session:
 * every request is a POST with `MCP-Protocol-Version` too, a `tools/call` carries the
 * `Mcp-Param-*` headers its tool declares (`x-mcp-header`, see `mirrorToolHeaders`), no GET
 * stream is opened, nothing is resumed or DELETEd, and a request is cancelled by aborting its
 * POST (the client's `notifications/cancelled` is not sent; spec
 * `basic/transports/streamable-http` §Cancellation).
 *
 * @example
 * ```ts
 * const client = await McpClient.connect(
 *   new StreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }),
 * );
 * ```
 */
export class StreamableHttpClientTransport implements ClientTransport {
  readonly #url: URL;
  readonly #options: StreamableHttpClientOptions;
  readonly #reconnect: Required<ReconnectOptions>;
  readonly #maxFrameBytes: number;
  readonly #abort = new AbortController();
  readonly #posting = new Set<Promise<void>>();
  #sink: FrameSink | undefined;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** Modern era: the version every request declares; undefined on a 2025-era session. */
  #modern: string | undefined;
  /** Modern era: the POSTs of requests in flight, by id, to cancel one by aborting it. */
  readonly #inflight = new Map<JsonRpcId, AbortController>();
  #ended = false;
  /** Modern era: the `x-mcp-header` declarations of a tool, from the client's last tools/list. */
  #toolHeaders: ToolHeaderLookup | undefined;
  /** A server's era shows in its HTTP answer to the probe, never in its silence. */
  readonly eraDetection = 'http';
  /** Set by McpClient: fail one request with an error that is not a JSON-RPC answer. */
  onRequestError: ((id: JsonRpcId, error: Error) => void) | undefined;

  constructor(options: StreamableHttpClientOptions) {
    this.#url = new URL(options.url);
    this.#options = options;
    this.#reconnect = {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 1000,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
      factor: options.reconnect?.factor ?? 1.5,
      maxRetries: options.reconnect?.maxRetries ?? 5,
    };
    this.#maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** The session id the server issued, if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Called by the client: messages from the server go to `sink`. Nothing is sent yet. */
  start(sink: FrameSink): void {
    if (this.#sink) throw new Error('transport already started');
    this.#sink = sink;
  }

  /** Called by the client after initialize: sent as `MCP-Protocol-Version` from now on. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * Called by the client: `'modern'` before its first modern request (every POST then carries
   * `MCP-Protocol-Version: version`, `Mcp-Method` and `Mcp-Name`; no session, GET stream or
   * DELETE), `'legacy'` when it falls back to initialize.
   */
  setEra(era: 'legacy' | 'modern', version?: string): void {
    this.#modern = era === 'modern' ? (version ?? this.#protocolVersion) : undefined;
    this.#protocolVersion = this.#modern;
  }

  /**
   * Called by the client: a modern `tools/call` carries the `Mcp-Param-*` headers its tool
   * declares, as `lookup` gives them (see {@link ClientTransport.mirrorToolHeaders}).
   */
  mirrorToolHeaders(lookup: (tool: string) => readonly HeaderParam[] | undefined): void {
    this.#toolHeaders = lookup;
  }

  /** POST one frame; its answer (JSON or SSE) goes to the sink. */
  send(frame: string): void {
    if (this.#ended) throw new TransportError('transport closed');
    const message = outgoing(frame);
    if (this.#modern !== undefined && message.method === 'notifications/cancelled') {
      // Modern HTTP: closing the request's stream is the cancellation; nothing is POSTed.
      const requestId = message.params?.requestId as JsonRpcId | undefined;
      if (requestId !== undefined) this.#inflight.get(requestId)?.abort();
      return;
    }
    const posted = this.#post(frame, message).catch((err: unknown) => this.#failed(message, err));
    if (message.isRequest) return;
    // Notifications and responses: remembered until the server accepted them, for flush().
    this.#posting.add(posted);
    void posted.finally(() => this.#posting.delete(posted));
  }

  /** Resolves once every notification and response sent so far has been accepted. */
  async flush(): Promise<void> {
    while (this.#posting.size > 0) await Promise.all([...this.#posting]);
  }

  /** Called by the client once initialized: opens the GET stream (unless `openStream: false`). */
  opened(): void {
    if (this.#options.openStream === false || this.#modern !== undefined) return;
    void this.#listen();
  }

  /** Abort every request and stream, and end the session with DELETE. */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#abort.abort(new TransportError('transport closed'));
    if (this.#sessionId !== undefined) {
      // A server that does not let clients end sessions answers 405; that is fine.
      await this.#fetch({
        method: 'DELETE',
        headers: this.#headers(),
        signal: AbortSignal.timeout(5000),
      }).catch(() => {});
    }
    this.#sink?.end();
  }

  /**
   * One request to the server, with the OAuth token when there is one; after a 401 or a 403
   * `insufficient_scope` that the OAuth client answers with a new token, sent once more.
   */
  async #fetch(init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    const oauth = this.#options.oauth;
    if (!oauth) return fetch(this.#url, init);
    const url = this.#url;
    const withToken = async () => {
      const authorization = await oauth.header(url);
      return authorization ? { ...init, headers: { ...init.headers, authorization } } : init;
    };
    let res = await fetch(url, await withToken());
    if (
      (res.status === 401 || res.status === 403) &&
      (await oauth.handle(url, res.status, res.headers.get('www-authenticate')))
    ) {
      await res.body?.cancel();
      res = await fetch(url, await withToken());
    }
    if (res.ok) oauth.succeeded(url);
    return res;
  }

  #headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.#options.headers, ...extra };
    if (this.#sessionId !== undefined && this.#modern === undefined) {
      headers['mcp-session-id'] = this.#sessionId;
    }
    if (this.#protocolVersion !== undefined)
      headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }

  async #post(frame: string, message: Outgoing): Promise<void> {
    if (this.#modern !== undefined && message.isRequest && message.id !== undefined) {
      const id = message.id;
      const controller = new AbortController();
      this.#inflight.set(id, controller);
      try {
        await this.#postModern(frame, message, controller.signal);
      } catch (err) {
        // Cancelled by the client, which has already given the request up.
        if (!controller.signal.aborted) throw err;
      } finally {
        this.#inflight.delete(id);
      }
      return;
    }
    const { signal, release } = this.#requestSignal();
    try {
      await this.#postLegacy(frame, message, signal);
    } finally {
      release();
    }
  }

  /**
   * A signal for one request that closing the transport aborts. Not the transport's own signal:
   * fetch (undici) hangs an abort listener on the signal it is given and lets go of it only when
   * the request is garbage-collected, so a long-lived client sharing one signal piles up
   * thousands of listeners (Node's MaxListenersExceededWarning under a dashboard's polling).
   * Here the one listener is removed as soon as the request is done.
   */
  #requestSignal(): { signal: AbortSignal; release: () => void } {
    const parent = this.#abort.signal;
    const controller = new AbortController();
    const abort = () => controller.abort(parent.reason);
    if (parent.aborted) abort();
    else parent.addEventListener('abort', abort, { once: true });
    return { signal: controller.signal, release: () => parent.removeEventListener('abort', abort) };
  }

  /** A 2025-era POST: its reply as JSON or as an SSE stream, resumed if it breaks off. */
  async #postLegacy(frame: string, message: Outgoing, signal: AbortSignal): Promise<void> {
    const res = await this.#fetch({
      method: 'POST',
      headers: this.#headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        // Harmless to a 2025 server, and what the 2026-07-28 transport asks of every POST.
        ...(message.method === undefined ? {} : requestHeaders(message.method, message.params)),
      }),
      body: frame,
      signal,
    });
    if (message.method === 'initialize') {
      this.#sessionId = res.headers.get('mcp-session-id') ?? undefined;
    }
    if (res.ok && (res.status === 202 || !message.isRequest)) {
      await res.body?.cancel();
      return;
    }
    const first = await this.#receive(res, message);
    if (first === undefined) return;
    let end = first;
    // The stream ended before our answer: resume it where it stopped, as the server advised.
    let attempt = 0;
    while (!end.answered && !this.#ended) {
      if (end.lastEventId === undefined) {
        throw new TransportError('the server closed the stream without answering');
      }
      attempt = end.received ? 0 : attempt + 1;
      if (attempt >= this.#reconnect.maxRetries) {
        throw new TransportError(`gave up resuming the stream after ${attempt} attempts`);
      }
      await sleep(this.#delay(attempt, end.retryMs), this.#abort.signal);
      if (this.#ended) return;
      const resumed = await this.#get(end.lastEventId);
      if (!resumed) {
        end = { ...end, received: false };
        continue;
      }
      const next = await this.#readSse(resumed, message.id, true);
      end = {
        answered: next.answered,
        lastEventId: next.lastEventId ?? end.lastEventId,
        retryMs: next.retryMs ?? end.retryMs,
        received: next.received,
      };
    }
  }

  /**
   * Read a request's reply: an HTTP error or a JSON body is handed over at once (undefined); an
   * SSE stream is read to its end, which is returned for the caller to resume or not.
   */
  async #receive(res: Response, message: Outgoing): Promise<StreamEnd | undefined> {
    if (!res.ok) {
      await this.#httpError(res, message);
      return undefined;
    }
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('application/json')) {
      this.#deliver(await this.#text(res));
      return undefined;
    }
    if (!type.startsWith('text/event-stream')) {
      await res.body?.cancel();
      throw new TransportError(
        `server answered ${res.status} with '${type || 'no content type'}'`,
        res.status,
      );
    }
    return this.#readSse(res, message.id);
  }

  /**
   * One modern request: its own POST with the per-request headers, answered by JSON or by an
   * SSE stream that is never resumed; aborting `cancel` cancels it.
   */
  async #postModern(frame: string, message: Outgoing, cancel: AbortSignal): Promise<void> {
    const res = await this.#fetch({
      method: 'POST',
      headers: this.#headers({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...requestHeaders(message.method as string, message.params, this.#toolHeaders),
      }),
      body: frame,
      // A signal of its own (fetch's listener stays on it, not on the transport's): AbortSignal.any
      // follows its sources without listeners of their own.
      signal: AbortSignal.any([this.#abort.signal, cancel]),
    });
    const end = await this.#receive(res, message);
    if (end === undefined) return;
    if (!end.answered && !this.#ended && !cancel.aborted) {
      throw new TransportError('the server closed the stream without answering');
    }
  }

  /** The server's message stream outside calls; reopened (with `Last-Event-ID`) when it drops. */
  async #listen(): Promise<void> {
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    let attempt = 0;
    while (!this.#ended) {
      let res: Response | null | undefined;
      try {
        res = await this.#get(lastEventId, true);
      } catch (err) {
        this.#options.logger?.debug({ err }, 'GET stream failed');
      }
      if (res === null) return; // the server offers no GET stream (405)
      if (res) {
        const end = await this.#readSse(res, undefined).catch(() => undefined);
        if (end) {
          lastEventId = end.lastEventId ?? lastEventId;
          retryMs = end.retryMs ?? retryMs;
          if (end.received) attempt = 0;
        }
      }
      if (this.#ended) return;
      attempt++;
      if (attempt > this.#reconnect.maxRetries) {
        this.#options.logger?.warn({ attempts: attempt - 1 }, 'GET stream given up');
        return;
      }
      await sleep(this.#delay(attempt - 1, retryMs), this.#abort.signal);
    }
  }

  /**
   * GET the session's stream (resuming after `lastEventId`). Null: the server has no GET stream
   * (405). Undefined: this attempt failed and may be retried.
   */
  async #get(
    lastEventId: string | undefined,
    standalone = false,
  ): Promise<Response | null | undefined> {
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) extra['last-event-id'] = lastEventId;
    let res: Response;
    try {
      res = await this.#fetch({
        method: 'GET',
        headers: this.#headers(extra),
        signal: this.#abort.signal,
      });
    } catch {
      return undefined;
    }
    if (res.status === 405 && standalone) {
      await res.body?.cancel();
      return null;
    }
    if (res.status === 404 && this.#sessionId !== undefined && lastEventId === undefined) {
      await res.body?.cancel();
      this.#sessionLost();
      return null;
    }
    if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel();
      return undefined;
    }
    return res;
  }

  /** Read one SSE response to its end, handing every message to the sink. */
  async #readSse(
    res: Response,
    answering: JsonRpcId | undefined,
    untilAnswered = false,
  ): Promise<StreamEnd> {
    const end: StreamEnd = {
      answered: false,
      lastEventId: undefined,
      retryMs: undefined,
      received: false,
    };
    if (!res.body) return end;
    const parser = createParser({
      maxBufferSize: this.#maxFrameBytes,
      onEvent: (event) => {
        if (event.id !== undefined) end.lastEventId = event.id;
        end.received = true;
        // Priming events (an id and no data) only mark a place to resume from.
        if (event.data.length === 0 || (event.event !== undefined && event.event !== 'message'))
          return;
        if (answering !== undefined && !end.answered && answers(event.data, answering))
          end.answered = true;
        this.#sink?.frame(event.data);
      },
      onRetry: (ms) => {
        end.retryMs = ms;
      },
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded')
          this.#sink?.rejected('too_large', this.#maxFrameBytes);
      },
    });
    try {
      for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) {
        parser.feed(chunk);
        // A resumed stream may stay open after the answer (it is the session's GET): let it go.
        if (untilAnswered && end.answered) break;
      }
    } catch (err) {
      // A dropped connection ends the stream like a close does; resumption decides what next.
      if (this.#ended) return { ...end, answered: true };
      this.#options.logger?.debug({ err }, 'SSE stream broke');
    }
    return end;
  }

  async #text(res: Response): Promise<string> {
    const text = await res.text();
    if (text.length > this.#maxFrameBytes) throw new TransportError('reply exceeds the size limit');
    return text;
  }

  #deliver(text: string): void {
    if (text.length > 0) this.#sink?.frame(text);
  }

  /** A non-2xx answer: the server's JSON-RPC error when it sent one, else the HTTP status. */
  async #httpError(res: Response, message: Outgoing): Promise<void> {
    const body = await res.text().catch(() => '');
    if (res.status === 404 && this.#sessionId !== undefined && message.method !== 'initialize') {
      // The session is gone (expired, or the server restarted): this connection is over; a new
      // initialize starts the next one (MCP Streamable HTTP, "Session Management").
      this.#fail(
        message,
        new TransportError('session not found: the server ended the session', 404),
      );
      this.#sessionLost();
      return;
    }
    if (!message.isRequest || message.id === undefined) {
      this.#options.logger?.debug(
        { status: res.status, method: message.method },
        'message refused',
      );
      return;
    }
    let error: unknown;
    try {
      error = (JSON.parse(body) as { error?: unknown }).error;
    } catch {
      error = undefined;
    }
    if (isErrorObject(error)) {
      // Answer the request with the server's own error, whatever id the HTTP layer put on it.
      this.#deliver(JSON.stringify({ jsonrpc: '2.0', id: message.id, error }));
      return;
    }
    this.#fail(
      message,
      new TransportError(`HTTP ${res.status} ${res.statusText}`.trim(), res.status),
    );
  }

  #failed(message: Outgoing, err: unknown): void {
    if (this.#ended) return;
    const error = err instanceof Error ? err : new TransportError(String(err));
    if (!message.isRequest) {
      this.#options.logger?.debug({ err: error, method: message.method }, 'POST failed');
      return;
    }
    this.#fail(
      message,
      TransportError.is(error)
        ? error
        : new TransportError(error.message, undefined, { cause: error }),
    );
  }

  #fail(message: Outgoing, error: Error): void {
    if (message.isRequest && message.id !== undefined) this.onRequestError?.(message.id, error);
  }

  #sessionLost(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abort.abort(new TransportError('session lost'));
    this.#sink?.end(new TransportError('session not found', 404));
  }

  #delay(attempt: number, retryMs: number | undefined): number {
    const base = retryMs ?? this.#reconnect.initialDelayMs;
    return Math.min(this.#reconnect.maxDelayMs, base * this.#reconnect.factor ** attempt);
  }
}

const isErrorObject = (value: unknown): value is { code: number; message: string } =>
  typeof value === 'object' &&
  value !== null &&
  Number.isInteger((value as { code?: unknown }).code) &&
  typeof (value as { message?: unknown }).message === 'string';

/** Whether an SSE event's data is the response to request `id` (not a request of the server's). */
function answers(data: string, id: JsonRpcId): boolean {
  try {
    const message = JSON.parse(data) as { id?: unknown; method?: unknown };
    return message.id === id && message.method === undefined;
  } catch {
    return false;
  }
}
