import { randomUUID } from 'node:crypto';
import { CancellationRegistry } from '../jsonrpc/cancellation.js';
import type { RequestOptions } from '../jsonrpc/client.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';
import { DEFAULT_HTTP_PROTOCOL_VERSION, type ProtocolVersion } from './versions.js';

/** A way to reach the client: notifications, and requests whose answers come back. */
export interface OutboundChannel {
  notify(method: string, params?: JsonRpcParams): void;
  request<R = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<R>;
  /**
   * End the transport's stream for this request while the call goes on (SSE polling): the
   * client resumes with `Last-Event-ID`. Returns false where the transport cannot.
   */
  closeStream?(): boolean;
}

/** Who is calling, as an HTTP auth layer established it. */
export interface AuthInfo {
  /** A stable, non-secret name for the caller (token label, key prefix, user id). */
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  /** Anything else the app's authenticator knows (user id, key id …). */
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * The key of a session's in-flight calls (for `notifications/cancelled`): the server core and its
 * transports reach them through it; it is not exported from the package, so nothing else does.
 */
export const CANCELLATION: unique symbol = Symbol('mcpkit.session.cancellation');

/**
 * What the server remembers about one client between requests: the negotiated version and
 * capabilities, its log level, its resource subscriptions, and how to reach it. A stdio
 * connection is one session; Streamable HTTP has one per `Mcp-Session-Id`; a stateless HTTP POST
 * gets a throwaway one.
 */
export class McpSession {
  #id: string | undefined;
  protocolVersion: ProtocolVersion = DEFAULT_HTTP_PROTOCOL_VERSION;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  /** initialize answered. */
  initializeAnswered = false;
  /** The client said `notifications/initialized` (or the pre-2025 bare `initialized`). */
  initialized = false;
  logLevel: LoggingLevel | undefined;
  readonly subscriptions = new Set<string>();
  /** Who subscribed (the caller of the latest resources/subscribe), for audience checks. */
  subscriber: AuthInfo | undefined;
  /** The calls in flight, by request id: what `notifications/cancelled` aborts. */
  readonly [CANCELLATION] = new CancellationRegistry();
  /** A long-lived path to the client for notifications outside any request. */
  channel: OutboundChannel | undefined;
  lastSeen = Date.now();
  closed = false;

  constructor(channel?: OutboundChannel) {
    this.channel = channel;
  }

  /** A random id, made on first use: throwaway sessions of stateless requests never need one. */
  get id(): string {
    this.#id ??= randomUUID();
    return this.#id;
  }
}
