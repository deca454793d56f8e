import { randomUUID } from 'node:crypto';
import { CancellationRegistry } from '../jsonrpc/cancellation.js';
import type { RequestOptions } from '../jsonrpc/client.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import type { InputRound } from './input-rounds.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';
import {
  DEFAULT_HTTP_PROTOCOL_VERSION,
  type ModernProtocolVersion,
  type ProtocolVersion,
} from './versions.js';

/** A way to reach the client: notifications, and requests whose answers come back. */
export interface OutboundChannel {
  /** Send the client a notification. */
  notify(method: string, params?: JsonRpcParams): void;
  /** Send the client a request (sampling, elicitation, roots) and wait for its answer. */
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
  /** What the caller may do: a tool with `requiredScopes` needs every one of them here. */
  readonly scopes: ReadonlySet<string>;
  /**
   * Holds every scope, whatever `scopes` says: an operator's own token (the gateway's `--token`),
   * which no scope a config adds later may lock out.
   */
  readonly allScopes?: boolean;
  /** Anything else the app's authenticator knows (user id, key id …). */
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * Whether `auth` holds every scope in `required` — the rule of `requiredScopes` (tools,
 * resources, prompts), for code that guards something else the same way (a gateway's backend
 * activity). True without scopes to hold, without auth (stdio, loopback without tokens) and for
 * an operator's `allScopes`. A server's own `scopes` option narrows what its calls may use on
 * top of this.
 */
export function holdsScopes(
  auth: AuthInfo | undefined,
  required: readonly string[] | undefined,
): boolean {
  if (!required || required.length === 0 || !auth || auth.allScopes) return true;
  return required.every((scope) => auth.scopes.has(scope));
}

/**
 * The key of a session's in-flight calls (for `notifications/cancelled`): the server core and its
 * transports reach them through it; it is not exported from the package, so nothing else does.
 */
export const CANCELLATION: unique symbol = Symbol('mcpkit.session.cancellation');

/**
 * The key of a modern request's input round (multi round-trip, see input-rounds.ts): internal,
 * like {@link CANCELLATION}.
 */
export const INPUT: unique symbol = Symbol('mcpkit.session.input');

/**
 * What the server remembers about one client between requests: the negotiated version and
 * capabilities, its log level, its resource subscriptions, and how to reach it. A stdio
 * connection is one session; Streamable HTTP has one per `Mcp-Session-Id`; a stateless HTTP POST
 * gets a throwaway one.
 */
export class McpSession {
  #id: string | undefined;
  /**
   * `legacy`: a 2025-era session, state kept between requests. `modern`: the scope of one
   * 2026-07-28 request, built from its `_meta` and gone with it.
   */
  era: 'legacy' | 'modern' = 'legacy';
  /** The version initialize settled on (before it: what Streamable HTTP assumes), or a modern request's. */
  protocolVersion: ProtocolVersion | ModernProtocolVersion = DEFAULT_HTTP_PROTOCOL_VERSION;
  /** The client's `clientInfo` from initialize. */
  clientInfo: Implementation | undefined;
  /** What the client said it can do in initialize. */
  clientCapabilities: ClientCapabilities = {};
  /** initialize answered. */
  initializeAnswered = false;
  /** The client said `notifications/initialized` (or the pre-2025 bare `initialized`). */
  initialized = false;
  /** The level the client asked for with `logging/setLevel`; undefined (never set): every level. */
  logLevel: LoggingLevel | undefined;
  /** The resource URIs the client subscribed to. */
  readonly subscriptions = new Set<string>();
  /**
   * Who listens on this session — the caller of its `initialize`, `logging/setLevel`, latest
   * `resources/subscribe` (or, for a listen, its request) — for audience checks of what is sent
   * outside any request (resource updates, log messages).
   */
  subscriber: AuthInfo | undefined;
  /** The calls in flight, by request id: what `notifications/cancelled` aborts. */
  readonly [CANCELLATION]: CancellationRegistry;
  /** A modern request's answers and open asks (multi round-trip); undefined elsewhere. */
  [INPUT]: InputRound | undefined;
  /** A long-lived path to the client for notifications outside any request. */
  channel: OutboundChannel | undefined;
  /** When the client was last heard from (ms since the epoch): idle sessions expire by it. */
  lastSeen = Date.now();
  /** The session has ended; nothing more is sent to it. */
  closed = false;

  /**
   * A session reaching its client through `channel`, if it has one yet. A modern request's scope
   * shares the cancellation registry of the connection it arrived on, so the connection's
   * `notifications/cancelled` reaches it. `id`: a session opened elsewhere (another instance of
   * a fleet) keeps its id. A registry of its own withholds the response of a cancelled call
   * (MCP `basic/utilities/cancellation`: "SHOULD NOT send a response for the cancelled request").
   */
  constructor(
    channel?: OutboundChannel,
    cancellation = new CancellationRegistry({ withholdReplies: true }),
    id?: string,
  ) {
    this.channel = channel;
    this[CANCELLATION] = cancellation;
    this.#id = id;
  }

  /** A random id, made on first use: throwaway sessions of stateless requests never need one. */
  get id(): string {
    this.#id ??= randomUUID();
    return this.#id;
  }

  /**
   * Abort every call of this session still running, each signal with `reason()`: for a
   * transport whose client went away (an HTTP request closed before its answer), so a handler
   * stops working for nobody. Calls started later are not affected.
   */
  abortInFlight(reason: () => Error): void {
    this[CANCELLATION].abortAll(reason);
  }
}
