import type { Frame } from '../jsonrpc/codec.js';
import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import type { MaybePromise } from '../jsonrpc/method.js';
import type { JsonRpcResponse } from '../jsonrpc/types.js';
import type { McpCallExtra } from './context.js';
import type { AuthInfo, McpSession, OutboundChannel } from './session.js';

/** How `server.connect(transport, options)` serves one client over a channel transport. */
export interface McpConnectionOptions {
  /** Who the client acts as: a channel carries no credentials (stdio: the app's local identity). */
  auth?: AuthInfo;
  /** Where the connection logs. Default: the server's logger. */
  logger?: EngineLogger;
  /** Deadline of requests the server sends the client (sampling, elicitation). Default 60 000 ms. */
  requestTimeoutMs?: number;
  /** After the client closes, how long in-flight calls may still finish. Default 10 000 ms. */
  drainTimeoutMs?: number;
}

/** One client served over a channel transport: what `server.connect(transport)` returns. */
export interface McpConnection {
  /** The client's session: negotiated version, capabilities, log level, subscriptions. */
  readonly session: McpSession;
  /**
   * Resolves once the connection is over — the client closed (EOF) or `close()` was called — and
   * every reply is written and the session is closed.
   */
  readonly closed: Promise<void>;
  /** Stop reading, let in-flight calls finish (up to `drainTimeoutMs`), flush, close. */
  close(): Promise<void>;
}

/**
 * The narrow way into an McpServer that a request-based transport is given when it is connected
 * (`server.connect(transport)` calls `transport.attach(port)`).
 */
export interface ServerPort {
  /**
   * A session the server keeps until `closeSession`: list changes, `resourceUpdated` and log
   * messages reach its client through `channel` (or one set on it later). `id`: the id of a
   * session opened elsewhere (another instance of a fleet); default a new random one.
   */
  openSession(channel?: OutboundChannel, id?: string): McpSession;
  /** Forget a session and abort its calls still in flight. */
  closeSession(session: McpSession): void;
  /**
   * Answer one frame (text, or already decoded) for `extra.session`: the serialized reply, or
   * undefined when none is due. `onResponse` receives the client's answers to the server's
   * own requests, when the frame carries some.
   */
  dispatch(
    frame: string | Frame,
    extra: McpCallExtra,
    onResponse?: (response: JsonRpcResponse) => void,
  ): MaybePromise<string | undefined>;
}

/**
 * A transport that serves many clients request by request (plain HTTP POST, Streamable HTTP)
 * rather than one client over a channel. `server.connect(transport)` attaches it.
 */
export interface ServerTransport {
  /** Called once by `server.connect(transport)`: serve every request through `port`. */
  attach(port: ServerPort): void;
}
