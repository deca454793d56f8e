/**
 * The way back of one 2025-era POST on the Streamable HTTP endpoint (spec 2025-11-25
 * `basic/transports`): plain JSON when the calls send nothing on the way, else an SSE stream the
 * response turns into at the first message — made resumable (primed, logged, replayable by GET
 * with `Last-Event-ID`) for sessions on 2025-11-25. One object per POST rather than closures.
 */
import type { ServerResponse } from 'node:http';
import type {
  JsonRpcClient,
  JsonRpcParams,
  McpSession,
  OutboundChannel,
  RequestOptions,
} from '@mcpkit/protocol';
import { sendEmpty, sendJson } from './respond.js';
import type { StreamLog } from './resumable.js';
import { notificationFrame, SseStream } from './sse.js';

/** The reconnection delay a resumable stream advises (its `retry:` field), ms. */
const RETRY_MS = 500;

/** What a 2025-era POST's reply needs of its session. */
export interface PostSession {
  readonly mcp: McpSession;
  /** Correlates the server's requests to the client with its answers. */
  readonly client: JsonRpcClient;
  /** POST streams kept for resumption, by stream id. */
  readonly logs: Map<string, StreamLog>;
}

/** How a {@link LegacyPostReply} answers. */
export interface LegacyPostOptions {
  /** Headers of every answer (`Mcp-Session-Id`); a new session's id is added once it is kept. */
  headers: Record<string, string>;
  /** Whether the client accepts an SSE stream and the body holds a request to answer on it. */
  streamable: boolean;
  /** Whether the stream is resumable (sessions on 2025-11-25). */
  resumable: boolean;
  /** A new, empty log of a resumable stream over `sse` (its id made by the handler). */
  newLog: (sse: SseStream) => StreamLog;
}

export class LegacyPostReply implements OutboundChannel {
  readonly #res: ServerResponse;
  readonly #session: PostSession;
  readonly #options: LegacyPostOptions;
  /** Made on first use: most calls answer with plain JSON and never need a stream. */
  #sse: SseStream | undefined;
  /** The resumable log of the stream, once one is needed. */
  #log: StreamLog | undefined;

  constructor(res: ServerResponse, session: PostSession, options: LegacyPostOptions) {
    this.#res = res;
    this.#session = session;
    this.#options = options;
  }

  /** A notification the calls send on the way: on the POST's stream while it is open. */
  notify(method: string, params?: JsonRpcParams): void {
    if (this.#open() || this.#log) this.#emit(notificationFrame(method, params));
  }

  /** A request to the client (sampling, elicitation): on the POST's stream, else refused. */
  request<R>(method: string, params?: JsonRpcParams, options?: RequestOptions): Promise<R> {
    if (!this.#open() && !this.#log) {
      return Promise.reject(new Error('no stream to the client for this request'));
    }
    return this.#session.client.request<R>(method, params, {
      ...options,
      via: (frame) => this.#emit(frame),
    });
  }

  /** SEP-1699: close the stream now, the client resumes it by GET (resumable streams only). */
  closeStream(): boolean {
    if (!this.#options.resumable || !this.#open()) return false;
    this.#ensureLog().detach();
    return true;
  }

  /**
   * Send the reply `text` (undefined: nothing to answer) on whatever the response became: the
   * stream's last event, JSON, or 202 for a body without requests.
   */
  finish(text: string | undefined, hasRequests: boolean): void {
    const headers = this.#options.headers;
    if (!hasRequests) {
      sendEmpty(this.#res, 202, headers);
      return;
    }
    const log = this.#log;
    if (log) {
      if (text !== undefined) log.send(text, true);
      log.finish(text !== undefined);
      return;
    }
    const sse = this.#sse;
    if (sse?.started) {
      if (text !== undefined) sse.send(text);
      sse.end();
      return;
    }
    if (text === undefined) sendEmpty(this.#res, 202, headers);
    else sendJson(this.#res, 200, text, headers);
  }

  #open(): boolean {
    if (!this.#options.streamable) return false;
    return this.#sse ? !this.#sse.closed : !this.#res.destroyed;
  }

  #stream(): SseStream {
    this.#sse ??= new SseStream(this.#res, this.#options.headers);
    return this.#sse;
  }

  #ensureLog(): StreamLog {
    if (!this.#log) {
      const log = this.#options.newLog(this.#stream());
      this.#session.logs.set(log.id, log);
      log.prime(RETRY_MS);
      this.#log = log;
    }
    return this.#log;
  }

  #emit(json: string): void {
    if (this.#options.resumable) this.#ensureLog().send(json);
    else this.#stream().send(json);
  }
}
