import { CancellationRegistry } from '../jsonrpc/cancellation.js';
import {
  type CancelSource,
  ConnectionClosedError,
  type RequestOptions,
  RequestTimeoutError,
} from '../jsonrpc/client.js';
import { encodeMessage } from '../jsonrpc/codec.js';
import { JsonRpcConnection } from '../jsonrpc/connection.js';
import { Dispatcher, type EngineLogger } from '../jsonrpc/dispatcher.js';
import { McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import { method, type RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import { META, withoutReservedMeta } from '../mcp/era.js';
import type { CacheableMethod, CacheHint } from '../mcp/handlers/discover.js';
import { TASKS_EXTENSION } from '../mcp/tasks/wire.js';
import { type HeaderParam, headerParamsOf } from '../mcp/tool.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageResult,
  ElicitResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ReadResourceResult,
} from '../mcp/types.js';
import {
  isModernVersion,
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  type ModernProtocolVersion,
} from '../mcp/versions.js';
import {
  InputRequiredError,
  TransportError,
  UnsupportedInEraError,
  UnsupportedVersionError,
} from './errors.js';
import { type AwaitTaskOptions, awaitTask, type TaskOps } from './tasks.js';
import type { ClientTransport } from './transport.js';
import type {
  CompleteResult,
  CompletionRef,
  CreateMessageRequest,
  DiscoverResult,
  ElicitRequest,
  InitializeResult,
  ListenFilter,
  Progress,
  PromptInfo,
  ResourceInfo,
  ResourceTemplateInfo,
  Root,
  ServerCapabilities,
  TaskInfo,
  ToolInfo,
} from './types.js';

/** Context of a request the server sent us: aborted when the server cancels it. */
export interface ServerRequestContext {
  /** Aborted when the server cancels the request (`notifications/cancelled`) or the link closes. */
  readonly signal: AbortSignal;
}

/** Answers to the requests a server may send its client; each one declares a capability. */
export interface ClientHandlers {
  /** `sampling/createMessage`: run the model for the server. Declares `sampling`. */
  sampling?: (
    params: CreateMessageRequest,
    ctx: ServerRequestContext,
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  /** `elicitation/create`: ask the user. Declares `elicitation`. */
  elicitation?: (
    params: ElicitRequest,
    ctx: ServerRequestContext,
  ) => ElicitResult | Promise<ElicitResult>;
  /** `roots/list`: the roots the server may work in. Declares `roots` with `listChanged`. */
  roots?: (ctx: ServerRequestContext) => Root[] | Promise<Root[]>;
}

/** How an {@link McpClient} introduces itself, what it answers, and how long it waits. */
export interface McpClientOptions {
  /**
   * Sent as `clientInfo` (modern era: `io.modelcontextprotocol/clientInfo` on every request).
   * Default `{ name: 'mcpkit-client', version: '0' }`.
   */
  clientInfo?: Implementation;
  /** The version asked for in initialize. Default: the newest 2025-era one this package speaks. */
  protocolVersion?: string;
  /**
   * Which protocol era to speak (MCP 2026-07-28, `basic/versioning`):
   *
   * - `'legacy'` (default): the `initialize` handshake, a 2025-era session.
   * - `'2026-07-28'`: modern only — no initialize; `connect` asks `server/discover`, and every
   *   request carries the version, capabilities and client info in `params._meta`. A server that
   *   does not speak it fails `connect` (an {@link UnsupportedVersionError} or its error).
   * - `'auto'`: probe with `server/discover`; a discover result or a modern error (`-32022`
   *   naming a version we speak) means modern, anything else (`-32601` from a 2025 server, an
   *   HTTP 4xx without a modern error, on stdio no answer within `probeTimeoutMs`) falls back to
   *   initialize on the same connection. Over HTTP a slow answer is waited for, as long as
   *   initialize would be (see {@link ClientTransport.eraDetection}).
   *
   * The default stays `'legacy'`: a modern connection hears `notifications/…/list_changed`
   * only through a `subscriptions/listen` ({@link McpClient.listen}, or `listChanged: true`),
   * while callers that keep a server's lists fresh (the gateway's backend links) expect them
   * unasked, as a 2025 session sends them. `subscribe`/`unsubscribe` work in both eras.
   */
  protocol?: 'legacy' | 'auto' | ModernProtocolVersion;
  /**
   * Modern era, a result with `resultType: 'input_required'` (multi round-trip requests):
   * `'auto'` (default) answers each of its `inputRequests` with `handlers` and sends the
   * request again (a new id, `inputResponses`, the `requestState` as it came) until it
   * completes; `'manual'` rejects with an {@link InputRequiredError} whose `retry` the caller
   * uses. A request no handler can answer rejects with an InputRequiredError in either mode.
   */
  inputRequired?: 'auto' | 'manual';
  /**
   * Called with the params of every request this client sends, before they go out; returns the
   * params to send. The hook through which a platform adds what the server should carry on, such
   * as the current trace in `_meta.traceparent` (`withTraceContext` from `@mcpkit/observability`,
   * which returns the params unchanged while tracing is off). Default: params sent as given.
   */
  propagate?: <P extends JsonRpcParams | undefined>(params: P) => P;
  /** Modern era: how many times one request is sent again for input before it rejects. Default 10. */
  maxInputRounds?: number;
  /**
   * Modern era: hear `notifications/tools/list_changed` (and prompts, resources) unasked, as a
   * 2025 session does: `connect` opens the client's managed `subscriptions/listen` (the one
   * `subscribe` uses) for every list the server declares. Default false.
   */
  listChanged?: boolean;
  /**
   * `protocol: 'auto'` over stdio: how long the `server/discover` probe may go unanswered before
   * the server is taken for a 2025 one. Not over HTTP, where every probe is answered. Default 5000.
   */
  probeTimeoutMs?: number;
  /** Answers to the server's own requests; each one declares its capability. */
  handlers?: ClientHandlers;
  /**
   * Modern era: declare the tasks extension (`io.modelcontextprotocol/tasks`), so a server may
   * answer a long tool call with a task instead of holding the request open. `callTool` (and
   * `request`) then wait for the task's end for you — polling `tasks/get` at the server's
   * interval, answering its input requests with `handlers`, cancelling it on the call's signal
   * — and resolve with its result; `startToolCall` hands you the task instead. Default false.
   */
  tasks?: boolean;
  /**
   * Capabilities to declare instead of the ones derived from `handlers` (a gateway declares what
   * the clients behind it can do).
   */
  capabilities?: ClientCapabilities;
  /** Default deadline per request in ms; 0 waits forever. Default 60 000. */
  timeoutMs?: number;
  /** Deadline of initialize (and of `server/discover` when modern is pinned). Default `timeoutMs`. */
  initializeTimeoutMs?: number;
  /** Where noise from the server and listener crashes are logged. */
  logger?: EngineLogger;
  /**
   * What the server sent that is not JSON-RPC (a banner on a child's stdout). Default: logged at
   * debug and ignored — a client never answers noise with more noise.
   */
  onInvalidFrame?: (text: string, reason: 'invalid' | 'too_large' | 'not_utf8') => void;
  /**
   * Results are relayed, not read: each large result keeps the JSON text it came as, and a server
   * that answers with the very object writes that text — the server's bytes, without serializing
   * them again (a gateway). The results must then not be changed. Default false.
   */
  relayResults?: boolean;
}

/** The narrower of two cache hints (the shorter time, the more private scope); null when the page has none. */
function narrower(
  hint: CacheHint | undefined,
  result: Record<string, unknown> | undefined,
): CacheHint | null {
  const ttlMs = result?.ttlMs;
  const scope = result?.cacheScope;
  if (typeof ttlMs !== 'number' || !(ttlMs >= 0) || (scope !== 'public' && scope !== 'private')) {
    return null;
  }
  if (!hint) return { ttlMs, cacheScope: scope };
  return {
    ttlMs: Math.min(hint.ttlMs, ttlMs),
    cacheScope: hint.cacheScope === 'private' || scope === 'private' ? 'private' : 'public',
  };
}

/** Per-call options: a deadline, an abort signal, and for tools a progress callback. */
export interface CallOptions {
  /** Overrides the client's default deadline; 0 waits forever. */
  timeoutMs?: number;
  /** Abort the call: the server is told with `notifications/cancelled`. */
  signal?: AbortSignal;
  /**
   * Abort the call as `signal` does when this source says so (`RequestOptions.cancelledBy`):
   * e.g. the `McpContext` of the call a handler serves, cheaper than its signal.
   */
  cancelledBy?: CancelSource;
  /** Receive `notifications/progress` for this call (a progress token is attached for you). */
  onProgress?: (progress: Progress) => void;
  /** Extra `_meta` for the request (e.g. `traceparent`). */
  meta?: Record<string, unknown>;
  /**
   * A call that became a task (tasks extension, {@link McpClientOptions.tasks}): every change of
   * the task seen while its result is awaited — its status and its status message.
   */
  onTaskStatus?: (task: TaskInfo) => void;
}

/** How a request treats a task it gets for an answer (tasks extension). */
export interface TaskHandling {
  /** Declare the extension on this request, or not, whatever {@link McpClientOptions.tasks} says. */
  declare?: boolean;
  /** Hand the task to the caller instead of waiting for its end. */
  keep?: boolean;
  /**
   * Called once the server answered with a task, before it is waited for (a gateway turns its
   * own call into a task then); the wait begins when what it returns settles.
   */
  onCreated?: ((task: TaskInfo) => void | Promise<void>) | undefined;
  /** See {@link CallOptions.onTaskStatus}. */
  onTaskStatus?: ((task: TaskInfo) => void) | undefined;
}

/** {@link McpClient.request}'s options: the JSON-RPC ones, and what to do with a task. */
export interface McpRequestOptions extends RequestOptions {
  /** How a task for an answer is treated: by default, waited out (declared per the client's option). */
  task?: TaskHandling;
}

/** Options of {@link McpClient.listen}. */
export interface ListenOptions {
  /** How long to wait for the server's acknowledgment; 0 waits forever. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /**
   * Every notification of this subscription (besides the `on` listeners, which get them
   * too), the acknowledgment excepted.
   */
  onNotification?: (method: string, params: Record<string, unknown> | undefined) => void;
  /** Extra `_meta` for the listen request. */
  meta?: Record<string, unknown>;
}

/**
 * An open `subscriptions/listen` (MCP 2026-07-28): its notifications reach the client's `on`
 * listeners until it is closed, by the caller or gracefully by the server.
 */
export interface Subscription {
  /** The JSON-RPC id of the listen request; its notifications carry it as their subscription id. */
  readonly id: string | number;
  /** What the server honours of the filter asked for (refused URIs are left out). */
  readonly acknowledged: ListenFilter;
  /** Resolves when the subscription has ended, from either side or with the connection. */
  readonly closed: Promise<void>;
  /**
   * End it: `notifications/cancelled` for the listen request (HTTP: its POST is aborted).
   * Resolves once it is closed.
   */
  close(): Promise<void>;
}

/** A notification from the server, as listeners receive it. */
export type NotificationListener = (params: Record<string, unknown> | undefined) => void;

const DEFAULT_INFO: Implementation = { name: 'mcpkit-client', version: '0' };
const DEFAULT_PROBE_TIMEOUT_MS = 5000;
/** How the `server/discover` probe ended: stay modern (with another version), or initialize. */
type ProbeVerdict =
  | { next: 'retry'; version: ModernProtocolVersion }
  | { next: 'initialize'; version?: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A modern result as the caller gets it: absent `resultType` means complete (spec `basic/index`
 * §ResultType); `input_required` is handled before this by the multi round-trip exchange.
 */
function completed<R>(name: string, result: R): R {
  if (!isObject(result)) return result;
  const type = result.resultType;
  if (type === undefined || type === 'complete') return result;
  throw new TypeError(`'${name}' answered with resultType '${String(type)}', which is not defined`);
}
const DEFAULT_MAX_INPUT_ROUNDS = 10;
/** The tasks extension's own methods. */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
/** The signal of an input handler whose request has none. */
const NEVER = new AbortController().signal;

/**
 * One signal for a request's `signal` and `cancelledBy` together, for the input handlers of an
 * `input_required` round (they take a signal). Made only there: a request's wire path listens
 * to its source without any AbortController. `release` forgets the listeners it added.
 */
function abortSignalOf(options: RequestOptions): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  const source = options.cancelledBy;
  const signal = options.signal;
  if (source === undefined) return { signal, release: () => {} };
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', abort, { once: true });
  const dispose = source.onCancel((reason) => controller.abort(reason));
  return {
    signal: controller.signal,
    release: () => {
      signal?.removeEventListener('abort', abort);
      if (typeof dispose === 'function') dispose();
    },
  };
}

/** An open listen, by its request id: what its notifications go to. */
interface ListenEntry {
  onNotification: ListenOptions['onNotification'];
}
/** Pages followed by the list helpers: a server that pages forever must not hang its client. */
const MAX_PAGES = 1000;

/**
 * The client half of MCP over any transport: initialize and version negotiation, typed calls for
 * every server feature, progress, cancellation and deadlines per call, answers to the server's
 * own requests (sampling, elicitation, roots), and notifications as events.
 *
 * @example
 * ```ts
 * const client = await McpClient.connect(
 *   new StdioClientTransport({ command: 'node', args: ['server.js'] }),
 * );
 * const tools = await client.listTools();
 * const result = await client.callTool('add', { a: 1, b: 2 });
 * await client.close();
 * ```
 */
export class McpClient {
  readonly #options: McpClientOptions;
  readonly #listeners = new Map<string, Set<NotificationListener>>();
  readonly #progress = new Map<string, (progress: Progress) => void>();
  #nextProgress = 1;
  #connection: JsonRpcConnection | undefined;
  #init: InitializeResult | undefined;
  #closed: Promise<void> | undefined;
  /** Modern era: what every request carries in `_meta`. Undefined on a legacy connection. */
  #envelope: Record<string, unknown> | undefined;
  /** {@link #envelope} as JSON, encoded once: what most requests' `_meta` is on the wire. */
  #envelopeJson: string | undefined;
  #era: 'legacy' | 'modern' | undefined;
  #discover: DiscoverResult | undefined;
  #serverInfo: Implementation | undefined;
  #logLevel: LoggingLevel | undefined;
  /** Open subscriptions (modern era), by the id of their listen request. */
  readonly #subscriptions = new Map<string | number, ListenEntry>();
  /** The listen waiting for its acknowledgment: listens open one at a time to match it. */
  #opening: ((id: string | number, filter: ListenFilter) => void) | undefined;
  #listenQueue: Promise<unknown> = Promise.resolve();
  /** `subscribe` in the modern era: the URIs watched by one managed listen. */
  readonly #watched = new Set<string>();
  readonly #hints = new Map<string, CacheHint>();
  /**
   * Modern era over a transport that mirrors tool arguments into headers (HTTP): each listed
   * tool's `x-mcp-header` declarations from the last `listTools`, by tool name; only tools that
   * declare any. Undefined when the transport has no such headers.
   */
  #toolHeaders: Map<string, readonly HeaderParam[]> | undefined;
  /** The `listTools` a call refused for its headers waits for (see `#send`). */
  #relisting: Promise<unknown> | undefined;
  /** Consecutive drops of the managed listen (its reopening backs off by them). */
  #managedDrops = 0;
  #managedTimer: ReturnType<typeof setTimeout> | undefined;
  /** The connection has closed: nothing is reopened any more. */
  #ended = false;
  #managed: Subscription | undefined;
  #managedQueue: Promise<unknown> = Promise.resolve();

  constructor(options: McpClientOptions = {}) {
    this.#options = options;
  }

  /** Create a client and connect it: resolves once the server is initialized (or discovered). */
  static async connect(
    transport: ClientTransport,
    options: McpClientOptions = {},
  ): Promise<McpClient> {
    const client = new McpClient(options);
    await client.connect(transport);
    return client;
  }

  /**
   * Start the transport and settle the protocol: initialize and `notifications/initialized`
   * (legacy), `server/discover` (modern), or the probe that chooses between them (`'auto'`, see
   * {@link McpClientOptions.protocol}). Resolves with what the server said about itself; in the
   * modern era that is built from the discover result (`serverInfo` from its `_meta`, empty name
   * and version when the server sent none). On failure the transport is closed and the error
   * thrown: a {@link RpcError} the server answered, an {@link UnsupportedVersionError}, a timeout
   * or a closed connection.
   */
  async connect(
    transport: ClientTransport,
    options: { timeoutMs?: number } = {},
  ): Promise<InitializeResult> {
    if (this.#connection) throw new Error('client already connected');
    const initTimeoutMs = options.timeoutMs;
    const clientOptions = this.#options;
    const connection = new JsonRpcConnection({
      transport,
      dispatcher: this.#dispatcher(),
      // A request the server cancels (sampling, elicitation) gets no answer: MCP cancellation,
      // "the receiver SHOULD NOT send a response for the cancelled request".
      cancellation: new CancellationRegistry({ withholdReplies: true }),
      requestTimeoutMs: clientOptions.timeoutMs ?? 60_000,
      keepResultText: clientOptions.relayResults ?? false,
      ...(clientOptions.logger ? { logger: clientOptions.logger } : {}),
      onInvalidFrame:
        clientOptions.onInvalidFrame ??
        ((text, reason) =>
          clientOptions.logger?.debug({ reason, bytes: text.length }, 'noise ignored')),
      onAbandon: (id, name) => {
        // MCP: initialize must never be cancelled; everything else is, so the server stops work.
        // A discover that timed out while connecting is not either: the server may be a 2025
        // one about to be initialized, which must not see a notification first.
        if (name === 'initialize' || (name === 'server/discover' && this.#era === undefined)) {
          return;
        }
        try {
          connection.notify('notifications/cancelled', { requestId: id, reason: 'client gave up' });
        } catch {
          // the connection is already gone
        }
      },
    });
    this.#connection = connection;
    this.#closed = connection.closed;
    void connection.closed.then(() => {
      this.#ended = true;
      clearTimeout(this.#managedTimer);
    });
    transport.onRequestError = (id, error) => {
      connection.failRequest(id, error);
    };
    if (transport.mirrorToolHeaders) {
      const declared = new Map<string, readonly HeaderParam[]>();
      this.#toolHeaders = declared;
      transport.mirrorToolHeaders((tool) => declared.get(tool));
    }
    connection.start();
    const timeoutMs =
      initTimeoutMs ?? clientOptions.initializeTimeoutMs ?? clientOptions.timeoutMs ?? 60_000;
    try {
      const mode = clientOptions.protocol ?? 'legacy';
      if (mode === 'legacy') return await this.#initialize(connection, transport, timeoutMs);
      const init = await this.#negotiate(connection, transport, mode, timeoutMs);
      if (this.#era === 'modern' && clientOptions.listChanged) {
        // A server that cannot or will not listen still serves: only its changes go unheard.
        await this.#reopenManaged().catch((err: unknown) =>
          clientOptions.logger?.warn({ err }, 'subscriptions/listen failed: list changes unheard'),
        );
      }
      return init;
    } catch (err) {
      this.#era = undefined;
      this.#setEnvelope(undefined);
      await connection.close();
      throw err;
    }
  }

  async #initialize(
    connection: JsonRpcConnection,
    transport: ClientTransport,
    timeoutMs: number,
    requested = this.#options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
  ): Promise<InitializeResult> {
    const clientOptions = this.#options;
    const init = await connection.request<InitializeResult>(
      'initialize',
      {
        protocolVersion: requested,
        capabilities: clientOptions.capabilities ?? this.#derivedCapabilities(false),
        clientInfo: clientOptions.clientInfo ?? DEFAULT_INFO,
      },
      { timeoutMs },
    );
    if (typeof init?.protocolVersion !== 'string' || !isSupportedVersion(init.protocolVersion)) {
      throw new UnsupportedVersionError(requested, String(init?.protocolVersion));
    }
    this.#init = init;
    this.#serverInfo = init.serverInfo;
    this.#era = 'legacy';
    transport.setProtocolVersion?.(init.protocolVersion);
    connection.notify('notifications/initialized');
    // Over HTTP the notification is a POST of its own: let it land before the first request.
    await transport.flush?.();
    transport.opened?.();
    return init;
  }

  /**
   * The modern era (MCP 2026-07-28): `server/discover` with the envelope, pinned or as the
   * probe of `'auto'` (spec `basic/transports/stdio` §Backward Compatibility): a discover result
   * or a recognised modern error keeps the connection modern; in `'auto'` any other error, or on
   * stdio no answer in time, falls back to initialize — never keyed to one error code. Over HTTP
   * the answer decides (`basic/transports/streamable-http` §Backward Compatibility): the probe
   * waits for it under initialize's deadline, and a timeout fails `connect` as initialize's would.
   */
  async #negotiate(
    connection: JsonRpcConnection,
    transport: ClientTransport,
    mode: 'auto' | ModernProtocolVersion,
    timeoutMs: number,
  ): Promise<InitializeResult> {
    const auto = mode === 'auto';
    if (!auto && !isModernVersion(mode)) {
      throw new UnsupportedVersionError(mode, MODERN_PROTOCOL_VERSIONS.join(', '));
    }
    let version: ModernProtocolVersion = auto ? MODERN_PROTOCOL_VERSIONS[0] : mode;
    // Only stdio reads silence as an era (a 2025 server may ignore what precedes initialize).
    const silenceIsLegacy = auto && transport.eraDetection !== 'http';
    const probeTimeoutMs = silenceIsLegacy
      ? (this.#options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)
      : timeoutMs;
    for (let attempt = 0; ; attempt++) {
      this.#useModern(version, transport);
      let result: unknown;
      try {
        result = await this.request('server/discover', undefined, { timeoutMs: probeTimeoutMs });
      } catch (err) {
        const verdict = probeVerdict(err, version, auto, silenceIsLegacy, attempt);
        if (verdict.next === 'retry') {
          version = verdict.version;
          continue;
        }
        this.#setEnvelope(undefined);
        transport.setEra?.('legacy');
        return this.#initialize(connection, transport, timeoutMs, verdict.version);
      }
      if (!isObject(result) || !Array.isArray(result.supportedVersions)) {
        // Answered, but not with a DiscoverResult: no modern server does that.
        if (!auto) throw new UnsupportedVersionError(version, 'no supportedVersions');
        this.#setEnvelope(undefined);
        transport.setEra?.('legacy');
        return this.#initialize(connection, transport, timeoutMs);
      }
      const discovered = result as DiscoverResult;
      const supported = discovered.supportedVersions.filter(
        (v): v is string => typeof v === 'string',
      );
      if (!supported.includes(version)) {
        const mutual = auto && attempt === 0 ? supported.find(isModernVersion) : undefined;
        if (mutual !== undefined) {
          version = mutual;
          continue;
        }
        throw new UnsupportedVersionError(version, supported.join(', '));
      }
      return this.#modernOpened(discovered, version);
    }
  }

  /** From now on every request carries the envelope of `version` (HTTP: and its headers). */
  #useModern(version: ModernProtocolVersion, transport: ClientTransport): void {
    this.#setEnvelope(this.#buildEnvelope(version));
    transport.setEra?.('modern', version);
  }

  #modernOpened(discovered: DiscoverResult, version: ModernProtocolVersion): InitializeResult {
    const meta = discovered._meta;
    const info = isObject(meta) ? meta[META.serverInfo] : undefined;
    const serverInfo =
      isObject(info) && typeof info.name === 'string' && typeof info.version === 'string'
        ? (info as unknown as Implementation)
        : undefined;
    const capabilities = isObject(discovered.capabilities) ? discovered.capabilities : {};
    const init: InitializeResult = {
      protocolVersion: version,
      capabilities,
      serverInfo: serverInfo ?? { name: '', version: '' },
    };
    if (typeof discovered.instructions === 'string') init.instructions = discovered.instructions;
    this.#discover = discovered;
    this.#serverInfo = serverInfo;
    this.#init = init;
    this.#era = 'modern';
    return init;
  }

  #setEnvelope(envelope: Record<string, unknown> | undefined): void {
    this.#envelope = envelope;
    this.#envelopeJson = envelope === undefined ? undefined : encodeMessage(envelope);
  }

  #buildEnvelope(version: string): Record<string, unknown> {
    const envelope: Record<string, unknown> = {
      [META.protocolVersion]: version,
      [META.clientCapabilities]: this.#modernCapabilities(),
      [META.clientInfo]: this.#options.clientInfo ?? DEFAULT_INFO,
    };
    if (this.#logLevel !== undefined) envelope[META.logLevel] = this.#logLevel;
    return envelope;
  }

  /**
   * The initialize result (modern era: the same fields, built from `server/discover`); undefined
   * before `connect` resolves.
   */
  get initializeResult(): InitializeResult | undefined {
    return this.#init;
  }

  /** The `server/discover` result as it came, on a modern connection; otherwise undefined. */
  get discoverResult(): DiscoverResult | undefined {
    return this.#discover;
  }

  /**
   * The era of the connection: `'legacy'` (initialize) or `'modern'` (MCP 2026-07-28, no
   * handshake); undefined before `connect` resolves.
   */
  get era(): 'legacy' | 'modern' | undefined {
    return this.#era;
  }

  /**
   * Who the server said it is: `serverInfo` of initialize, or (modern era) the
   * `io.modelcontextprotocol/serverInfo` of its discover result; undefined before `connect`
   * resolves or when a modern server did not say.
   */
  get serverInfo(): Implementation | undefined {
    return this.#serverInfo;
  }

  /** What the server said it can do; undefined before `connect` resolves. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#init?.capabilities;
  }

  /**
   * The protocol version initialize settled on, or the modern one every request declares;
   * undefined before `connect` resolves.
   */
  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  /** The server's `instructions` for the model, if it sent any. */
  get instructions(): string | undefined {
    return this.#init?.instructions;
  }

  /** Resolves when the connection has closed, from either side. */
  get closed(): Promise<void> {
    return this.#closed ?? Promise.resolve();
  }

  /** Requests sent and not yet answered. */
  get pendingCount(): number {
    return this.#connection?.pendingCount ?? 0;
  }

  /**
   * Send any request and get its raw result (a gateway forwarding a call as it came). On a
   * modern connection the envelope is put into `params._meta` (reserved keys rebuilt, the
   * caller's other keys kept) and an `input_required` result is answered and retried (see
   * {@link McpClientOptions.inputRequired}; the deadline applies to each round, the signal to
   * all). Rejects with the server's {@link RpcError}, a {@link RequestTimeoutError}, the
   * signal's reason, an {@link InputRequiredError}, or a {@link ConnectionClosedError}. A
   * task for an answer (tasks extension) is waited out (see {@link McpRequestOptions.task}).
   */
  request<R = unknown>(
    name: string,
    params?: JsonRpcParams,
    options?: McpRequestOptions,
  ): Promise<R> {
    if (options?.task === undefined) return this.#request<R>(name, params, options, {});
    const { task, ...rest } = options;
    return this.#request<R>(name, params, rest, task);
  }

  #request<R>(
    name: string,
    params: JsonRpcParams | undefined,
    options: RequestOptions | undefined,
    task: TaskHandling,
  ): Promise<R> {
    const propagate = this.#options.propagate;
    if (propagate) {
      try {
        params = propagate(params);
      } catch (err) {
        // A hook's failure is this request's, as a rejection like any other.
        return Promise.reject(err);
      }
    }
    const connection = this.#connection;
    if (!connection) return Promise.reject(new ConnectionClosedError('client not connected'));
    const envelope = this.#envelope;
    if (envelope === undefined) return connection.request<R>(name, params, options);
    if (Array.isArray(params)) {
      return Promise.reject(new TypeError(`'${name}': MCP requests take named params`));
    }
    const own = (params as Record<string, unknown> | undefined)?._meta;
    // A task's own requests need the extension declared, whatever the client's option (the
    // task came from a call that declared it per request: a gateway's link does so).
    const declare = task.declare ?? (TASK_METHODS.has(name) ? true : undefined);
    if (own === undefined && declare === undefined) {
      // The common case (a gateway forwarding a call): the params go out as they came, not
      // copied, and the envelope as the JSON encoded once for the connection.
      const sent = (params ?? {}) as Record<string, unknown>;
      return this.#rounds<R>(connection, name, sent, options ?? {}, 0, task, this.#envelopeJson);
    }
    const declared = declare === undefined ? envelope : this.#declaring(envelope, declare);
    const sent = {
      ...params,
      _meta: isObject(own) ? { ...withoutReservedMeta(own), ...declared } : declared,
    };
    return this.#rounds<R>(connection, name, sent, options ?? {}, 0, task);
  }

  /**
   * One round of a modern request (spec `basic/patterns/mrtr`): a complete result is the
   * answer; `input_required` is answered by the handlers and sent again with a new id, the same
   * params, `inputResponses` and the `requestState` exactly as the server sent it. `metaJson`:
   * the envelope as JSON, the `_meta` of `sent`, which has none of its own (see #request).
   */
  async #rounds<R>(
    connection: JsonRpcConnection,
    name: string,
    sent: Record<string, unknown>,
    options: RequestOptions,
    round: number,
    task: TaskHandling,
    metaJson?: string,
  ): Promise<R> {
    const result = await this.#send(
      connection,
      name,
      sent,
      metaJson === undefined ? options : { ...options, metaJson },
    );
    if (isObject(result) && result.resultType === 'task' && typeof result.taskId === 'string') {
      // A task (tasks extension): the caller that asked for it gets it; any other, its end.
      if (task.keep) return result as R;
      await task.onCreated?.(result as unknown as TaskInfo);
      const wait: AwaitTaskOptions = {};
      const cancel = abortSignalOf(options);
      if (cancel.signal) wait.signal = cancel.signal;
      if (task.onTaskStatus) wait.onTaskStatus = task.onTaskStatus;
      try {
        return (await this.awaitTask(result.taskId, wait)) as R;
      } finally {
        cancel.release();
      }
    }
    if (!isObject(result) || result.resultType !== 'input_required') {
      return completed(name, result) as R;
    }
    const retry = (responses: Record<string, unknown>) => {
      const next: Record<string, unknown> = { ...sent, inputResponses: responses };
      if (metaJson !== undefined) next._meta = JSON.parse(metaJson);
      if (result.requestState === undefined) delete next.requestState;
      else next.requestState = result.requestState;
      return this.#rounds<R>(connection, name, next, options, round + 1, task);
    };
    if (this.#options.inputRequired === 'manual') {
      throw new InputRequiredError(name, result, undefined, retry);
    }
    const max = this.#options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (round >= max) {
      throw new InputRequiredError(
        name,
        result,
        `still asking after ${max} rounds (maxInputRounds)`,
      );
    }
    const responses = await this.#fulfil(name, result, options);
    return retry(responses);
  }

  /**
   * One modern request on the wire. A `tools/call` refused with -32020 (HeaderMismatch) over
   * HTTP may have gone out under declarations that changed since the last `listTools` (or before
   * any): the tools are listed again and, when the tool's `x-mcp-header` declarations are not
   * the ones the call went out with, it is sent once more with the new headers (spec
   * `basic/transports/streamable-http` §Client Behavior). Otherwise the error stands.
   */
  #send(
    connection: JsonRpcConnection,
    name: string,
    sent: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<unknown> {
    const declared = this.#toolHeaders;
    const tool = sent.name;
    // Not async: a request without header declarations (stdio, most calls) is the connection's
    // own promise, with no wrapper to settle after it.
    if (name !== 'tools/call' || declared === undefined || typeof tool !== 'string') {
      return connection.request<unknown>(name, sent, options);
    }
    return this.#sendWithHeaders(connection, name, sent, options, declared, tool);
  }

  async #sendWithHeaders(
    connection: JsonRpcConnection,
    name: string,
    sent: Record<string, unknown>,
    options: RequestOptions,
    declared: Map<string, readonly HeaderParam[]>,
    tool: string,
  ): Promise<unknown> {
    const sentWith = JSON.stringify(declared.get(tool) ?? []);
    try {
      return await connection.request<unknown>(name, sent, options);
    } catch (err) {
      if (!RpcError.is(err) || err.code !== McpErrorCode.HeaderMismatch) throw err;
      try {
        await this.#relist(options);
      } catch {
        throw err;
      }
      if (JSON.stringify(declared.get(tool) ?? []) === sentWith) throw err;
      return connection.request<unknown>(name, sent, options);
    }
  }

  /** `listTools` again, once for every call that needs it at the same time. */
  #relist(options: RequestOptions): Promise<unknown> {
    if (!this.#relisting) {
      const listOptions: CallOptions = {};
      if (options.timeoutMs !== undefined) listOptions.timeoutMs = options.timeoutMs;
      if (options.signal) listOptions.signal = options.signal;
      if (options.cancelledBy) listOptions.cancelledBy = options.cancelledBy;
      this.#relisting = this.listTools(listOptions).finally(() => {
        this.#relisting = undefined;
      });
    }
    return this.#relisting;
  }

  /** The answers to an `input_required` result's `inputRequests`, by key, from the handlers. */
  async #fulfil(
    name: string,
    result: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const cancel = abortSignalOf(options);
    try {
      return await this.#answer(name, result, cancel.signal);
    } finally {
      cancel.release();
    }
  }

  async #answer(
    name: string,
    result: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const handlers = this.#options.handlers ?? {};
    const asks = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
    const ctx: ServerRequestContext = { signal: signal ?? NEVER };
    // Every ask must have its handler before any runs: the user is not asked for half of it.
    const runs = asks.map(([key, ask]) => {
      const kind = isObject(ask) ? ask.method : undefined;
      const params = isObject(ask) && isObject(ask.params) ? ask.params : {};
      if (kind === 'elicitation/create' && handlers.elicitation) {
        const handler = handlers.elicitation;
        return async () => [key, await handler(params as ElicitRequest, ctx)] as const;
      }
      if (kind === 'sampling/createMessage' && handlers.sampling) {
        const handler = handlers.sampling;
        return async () => [key, await handler(params as CreateMessageRequest, ctx)] as const;
      }
      if (kind === 'roots/list' && handlers.roots) {
        const handler = handlers.roots;
        return async () => [key, { roots: await handler(ctx) }] as const;
      }
      throw new InputRequiredError(
        name,
        result,
        `no handler answers '${String(kind)}' (input request '${key}')`,
      );
    });
    const answers = await Promise.all(runs.map((run) => run()));
    signal?.throwIfAborted();
    return Object.fromEntries(answers);
  }

  /** Send a notification. Throws a ConnectionClosedError when the connection is gone. */
  notify(name: string, params?: JsonRpcParams): void {
    const connection = this.#connection;
    if (!connection) throw new ConnectionClosedError('client not connected');
    connection.notify(name, params);
  }

  /**
   * Listen to a notification method (`'notifications/resources/updated'`, …) or to every
   * notification with `'*'` (the listener then gets the method too). Returns the unsubscribe.
   */
  on(
    name: '*',
    listener: (method: string, params: Record<string, unknown> | undefined) => void,
  ): () => void;
  /** Listen to one notification method; returns the unsubscribe. */
  on(name: string, listener: NotificationListener): () => void;
  on(name: string, listener: (...args: never[]) => void): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    const entry = listener as NotificationListener;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** `ping`: resolves when the server answers. The modern era has no ping: `server/discover`. */
  ping(options?: CallOptions): Promise<Record<string, never>> {
    if (this.#envelope !== undefined) {
      return this.#call('server/discover', undefined, options).then(() => ({}));
    }
    return this.#call('ping', undefined, options);
  }

  /**
   * Every tool, following `nextCursor` to the end, each exactly as the server listed it (its
   * schemas untouched: `$schema`, `$defs`, `$ref`, composition and conditional keywords stay).
   *
   * On a modern connection over HTTP (MCP 2026-07-28) the tools' `x-mcp-header` declarations
   * are kept for the calls that follow (`callTool`, and `request('tools/call', …)` alike: each
   * declared argument travels in an `Mcp-Param-<name>` header too), and a tool whose
   * declarations are invalid (an empty or non-token name, a repeated one, a parameter that is
   * not a string, integer or boolean, one not reachable through `properties` alone) is left
   * out, with a warning to the logger naming it and why (spec `basic/transports/streamable-http`
   * §Custom Headers from Tool Parameters).
   */
  async listTools(options?: CallOptions): Promise<ToolInfo[]> {
    const tools = await this.#all<ToolInfo>('tools/list', 'tools', options);
    const declared = this.#toolHeaders;
    if (declared === undefined || this.#envelope === undefined) return tools;
    const kept: ToolInfo[] = [];
    const next = new Map<string, readonly HeaderParam[]>();
    for (const tool of tools) {
      let params: HeaderParam[];
      try {
        params = headerParamsOf(String(tool?.name), tool?.inputSchema);
      } catch (err) {
        this.#options.logger?.warn(
          { tool: tool?.name, reason: (err as Error).message },
          'tool left out: invalid x-mcp-header declaration',
        );
        continue;
      }
      if (params.length > 0) next.set(tool.name, params);
      kept.push(tool);
    }
    declared.clear();
    for (const [name, params] of next) declared.set(name, params);
    return kept;
  }

  /**
   * Call a tool. A tool's own failure is a result with `isError: true`, not a rejection; the
   * promise rejects only for protocol errors (unknown tool, bad params, timeout, abort).
   */
  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options?: CallOptions,
  ): Promise<CallToolResult> {
    return this.#call('tools/call', { name, arguments: args }, options);
  }

  /**
   * Call a tool and get what the server answered first: its result, or — for a tool that runs as
   * a task, with {@link McpClientOptions.tasks} on a modern connection — the task
   * (`resultType: 'task'`), for the caller to follow with `getTask`, `updateTask`, `cancelTask`
   * or `awaitTask`.
   */
  startToolCall(
    name: string,
    args: Record<string, unknown> = {},
    options?: CallOptions,
  ): Promise<(CallToolResult & { resultType?: 'complete' }) | (TaskInfo & { resultType: 'task' })> {
    return this.#call('tools/call', { name, arguments: args }, options ?? {}, true);
  }

  /** `tasks/get`: the task as it is now, its result or error inlined once it has one. */
  getTask(taskId: string, options?: CallOptions): Promise<TaskInfo> {
    return this.#call('tasks/get', { taskId }, options);
  }

  /** `tasks/update`: answers to the task's input requests, by their keys. */
  async updateTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<void> {
    await this.#call('tasks/update', { taskId, inputResponses }, options);
  }

  /** `tasks/cancel`: ask the server to stop the task (acknowledged also when it has ended). */
  async cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    await this.#call('tasks/cancel', { taskId }, options);
  }

  /**
   * Wait for a task's end: resolves with its result once `completed` (a tool error too, as
   * `isError`), rejects with its error once `failed` (an {@link RpcError}) or with a
   * {@link TaskCancelledError}. Polls at the task's `pollIntervalMs`; its input requests are
   * answered with `handlers`; aborting `signal` cancels the task.
   */
  awaitTask(taskId: string, options: AwaitTaskOptions = {}): Promise<CallToolResult> {
    const ops: TaskOps = {
      get: (id) => this.getTask(id),
      update: (id, responses) => this.updateTask(id, responses),
      cancel: (id) => this.cancelTask(id),
      answer: (task, signal) =>
        this.#answer('tasks/get', task as unknown as Record<string, unknown>, signal),
    };
    return awaitTask(ops, taskId, options) as Promise<unknown> as Promise<CallToolResult>;
  }

  /** Every resource, following `nextCursor` to the end. */
  async listResources(options?: CallOptions): Promise<ResourceInfo[]> {
    return this.#all<ResourceInfo>('resources/list', 'resources', options);
  }

  /** Every resource template, following `nextCursor` to the end. */
  async listResourceTemplates(options?: CallOptions): Promise<ResourceTemplateInfo[]> {
    return this.#all<ResourceTemplateInfo>(
      'resources/templates/list',
      'resourceTemplates',
      options,
    );
  }

  /** Read a resource (`resources/read`). */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.#call('resources/read', { uri }, options);
  }

  /**
   * Subscribe to a resource; changes arrive as `notifications/resources/updated`. On a modern
   * connection one `subscriptions/listen` managed by the client carries every subscribed URI:
   * it is opened again with the new set (the old one closed once the new one is acknowledged,
   * so an update may come twice, never not at all). Rejects when the server does not honour
   * the URI.
   */
  async subscribe(uri: string, options?: CallOptions): Promise<void> {
    if (this.#envelope === undefined) {
      await this.#call('resources/subscribe', { uri }, options);
      return;
    }
    if (this.#watched.has(uri) && this.#managed) return;
    this.#watched.add(uri);
    const subscription = await this.#reopenManaged();
    if (!subscription?.acknowledged.resourceSubscriptions?.includes(uri)) {
      this.#watched.delete(uri);
      throw new RpcError(McpErrorCode.ResourceNotFound, `subscription to '${uri}' refused`, {
        uri,
      });
    }
  }

  /** Stop the updates of a resource (`resources/unsubscribe`; modern: the managed listen reopened). */
  async unsubscribe(uri: string, options?: CallOptions): Promise<void> {
    if (this.#envelope === undefined) {
      await this.#call('resources/unsubscribe', { uri }, options);
      return;
    }
    if (!this.#watched.delete(uri)) return;
    await this.#reopenManaged();
  }

  /** The managed listen of `subscribe`, opened again with the URIs watched now. */
  #reopenManaged(): Promise<Subscription | undefined> {
    const run = this.#managedQueue.then(async () => {
      const old = this.#managed;
      const filter = this.#managedFilter();
      const next = Object.keys(filter).length > 0 ? await this.listen(filter) : undefined;
      this.#managed = next;
      if (next) {
        this.#managedDrops = 0;
        void next.closed.then(() => {
          if (this.#managed !== next) return; // replaced, or closed on purpose
          this.#managed = undefined;
          this.#managedDropped();
        });
      }
      await old?.close();
      return next;
    });
    this.#managedQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * The managed listen ended while the connection lives on (a stream that dropped, a server that
   * ended it before a restart): it is opened again after a backoff (0.5 s doubling to 30 s), and
   * since notifications may have been missed in between, every list it watches and every
   * subscribed resource is reported changed once (a synthetic notification, no `_meta`).
   */
  #managedDropped(): void {
    if (this.#ended) return;
    const delay = Math.min(30_000, 500 * 2 ** this.#managedDrops++);
    this.#managedTimer = setTimeout(() => {
      this.#managedTimer = undefined;
      if (this.#ended || this.#managed) return;
      this.#reopenManaged().then(
        (subscription) => {
          if (!subscription) return;
          const honoured = subscription.acknowledged;
          if (honoured.toolsListChanged) this.#emit('notifications/tools/list_changed', undefined);
          if (honoured.promptsListChanged) {
            this.#emit('notifications/prompts/list_changed', undefined);
          }
          if (honoured.resourcesListChanged) {
            this.#emit('notifications/resources/list_changed', undefined);
          }
          for (const uri of honoured.resourceSubscriptions ?? []) {
            this.#emit('notifications/resources/updated', { uri });
          }
        },
        () => this.#managedDropped(),
      );
    }, delay);
    this.#managedTimer.unref?.();
  }

  /** What the managed listen asks for: the lists (`listChanged`) and the subscribed URIs. */
  #managedFilter(): ListenFilter {
    const filter: ListenFilter = {};
    if (this.#options.listChanged) {
      const caps = this.#init?.capabilities ?? {};
      // Only the lists the server says change (`listChanged: true`): asking a server for
      // notifications it never sends would hold a stream open for nothing.
      if (caps.tools?.listChanged) filter.toolsListChanged = true;
      if (caps.prompts?.listChanged) filter.promptsListChanged = true;
      if (caps.resources?.listChanged) filter.resourcesListChanged = true;
    }
    if (this.#watched.size > 0) filter.resourceSubscriptions = [...this.#watched];
    return filter;
  }

  /**
   * Open a `subscriptions/listen` (MCP 2026-07-28): resolves with the {@link Subscription}
   * once the server acknowledged it; its notifications (`notifications/tools/list_changed`,
   * `notifications/resources/updated` …, stamped with the subscription id) go to the `on`
   * listeners and `options.onNotification`. The request stays pending until `close()`, a
   * graceful end by the server, or the connection's end. Rejects with an
   * {@link UnsupportedInEraError} on a legacy connection, the server's error, or a
   * {@link RequestTimeoutError} when no acknowledgment comes in time.
   */
  listen(filter: ListenFilter, options: ListenOptions = {}): Promise<Subscription> {
    if (this.#envelope === undefined) {
      return Promise.reject(
        new UnsupportedInEraError(
          'subscriptions/listen',
          'legacy',
          "a 2025 session sends its notifications unasked; use subscribe() for resources, or connect with protocol: 'auto'",
        ),
      );
    }
    // One listen at a time waits for its acknowledgment: that is how it is matched to its id.
    const run = this.#listenQueue.then(() => this.#openListen(filter, options));
    this.#listenQueue = run.catch(() => undefined);
    return run;
  }

  async #openListen(filter: ListenFilter, options: ListenOptions): Promise<Subscription> {
    const controller = new AbortController();
    let acknowledge!: (value: { id: string | number; filter: ListenFilter }) => void;
    const acked = new Promise<{ id: string | number; filter: ListenFilter }>((resolve) => {
      acknowledge = resolve;
    });
    this.#opening = (id, honoured) => {
      this.#subscriptions.set(id, { onNotification: options.onNotification });
      acknowledge({ id, filter: honoured });
    };
    const params: Record<string, unknown> = { notifications: filter };
    if (options.meta) params._meta = options.meta;
    const reply = this.request<unknown>('subscriptions/listen', params, {
      timeoutMs: 0,
      signal: controller.signal,
    });
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 60_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ack: { id: string | number; filter: ListenFilter };
    try {
      const racers: Promise<typeof ack>[] = [
        acked,
        reply.then(() => {
          throw new Error('subscriptions/listen ended before it was acknowledged');
        }),
      ];
      if (timeoutMs > 0) {
        racers.push(
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new RequestTimeoutError('subscriptions/listen', timeoutMs)),
              timeoutMs,
            );
          }),
        );
      }
      ack = await Promise.race(racers);
    } catch (err) {
      controller.abort(err);
      void reply.catch(() => undefined);
      throw err;
    } finally {
      this.#opening = undefined;
      clearTimeout(timer);
    }
    const id = ack.id;
    const closed = reply.then(
      () => undefined,
      () => undefined,
    );
    void closed.then(() => this.#subscriptions.delete(id));
    return {
      id,
      acknowledged: ack.filter,
      closed,
      close: () => {
        controller.abort(new Error('subscription closed'));
        return closed;
      },
    };
  }

  /** Every prompt, following `nextCursor` to the end. */
  async listPrompts(options?: CallOptions): Promise<PromptInfo[]> {
    return this.#all<PromptInfo>('prompts/list', 'prompts', options);
  }

  /** A prompt's messages for the given arguments (`prompts/get`). */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    return this.#call('prompts/get', { name, arguments: args }, options);
  }

  /** Suggestions for one argument of a prompt or resource template (`completion/complete`). */
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: CallOptions,
  ): Promise<CompleteResult> {
    return this.#call(
      'completion/complete',
      context ? { ref, argument, context } : { ref, argument },
      options,
    );
  }

  /**
   * Ask the server to send log messages at `level` and above (`logging/setLevel`). On a modern
   * connection nothing is sent: every later request carries `io.modelcontextprotocol/logLevel`
   * (without it a modern server sends no log messages at all).
   */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    const envelope = this.#envelope;
    if (envelope !== undefined) {
      this.#logLevel = level;
      this.#setEnvelope(this.#buildEnvelope(envelope[META.protocolVersion] as string));
      return;
    }
    await this.#call('logging/setLevel', { level }, options);
  }

  /**
   * Tell the server the roots changed (`notifications/roots/list_changed`). A modern
   * connection sends nothing: that era has no such notification, a server asks for the roots
   * within the request that needs them.
   */
  rootsChanged(): void {
    if (this.#envelope !== undefined) return;
    this.notify('notifications/roots/list_changed');
  }

  /** Close the connection: in-flight requests reject, the transport is released. */
  async close(): Promise<void> {
    await this.#connection?.close();
  }

  #call<R>(
    name: string,
    params: Record<string, unknown> | undefined,
    options?: CallOptions,
    keepTask = false,
  ) {
    if (!options) return this.#request<R>(name, params, undefined, { keep: keepTask });
    let sent = params;
    let token: string | undefined;
    if (options.onProgress || options.meta) {
      const meta: Record<string, unknown> = { ...options.meta };
      if (options.onProgress) {
        token = `${this.#nextProgress++}`;
        meta.progressToken = token;
        this.#progress.set(token, options.onProgress);
      }
      sent = { ...params, _meta: meta };
    }
    const requestOptions: RequestOptions = {};
    if (options.timeoutMs !== undefined) requestOptions.timeoutMs = options.timeoutMs;
    if (options.signal) requestOptions.signal = options.signal;
    if (options.cancelledBy) requestOptions.cancelledBy = options.cancelledBy;
    const reply = this.#request<R>(name, sent, requestOptions, {
      keep: keepTask,
      onTaskStatus: options.onTaskStatus,
    });
    if (token === undefined) return reply;
    const done = token;
    return reply.finally(() => this.#progress.delete(done));
  }

  async #all<T>(name: string, key: string, options?: CallOptions): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    // undefined: no page yet; null: a page without a hint (then the list has none).
    let hint: CacheHint | null | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#call<Record<string, unknown>>(
        name,
        cursor === undefined ? undefined : { cursor },
        options,
      );
      const items = result?.[key];
      if (Array.isArray(items)) out.push(...(items as T[]));
      hint = hint === null ? null : narrower(hint, result);
      cursor = typeof result?.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    if (hint) this.#hints.set(name, hint);
    else this.#hints.delete(name);
    return out;
  }

  /**
   * The cache hint (MCP 2026-07-28 `ttlMs`, `cacheScope`) of the last complete list of `method`
   * (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) — over all its
   * pages, the shortest time and the most private scope; undefined when the server gave none
   * (a 2025 server never does). A gateway derives its own hints from these.
   */
  cacheHint(method: CacheableMethod): CacheHint | undefined {
    return this.#hints.get(method);
  }

  #emit(name: string, params: Record<string, unknown> | undefined): void {
    const meta = params?._meta;
    const id = isObject(meta) ? meta[META.subscriptionId] : undefined;
    if (id !== undefined && (typeof id === 'string' || typeof id === 'number')) {
      if (name === 'notifications/subscriptions/acknowledged' && !this.#subscriptions.has(id)) {
        const honoured = isObject(params?.notifications) ? params.notifications : {};
        this.#opening?.(id, honoured as ListenFilter);
      } else {
        const entry = this.#subscriptions.get(id);
        const own = entry?.onNotification;
        if (own) this.#safely(() => own(name, params));
      }
    }
    for (const listener of this.#listeners.get(name) ?? []) this.#safely(() => listener(params));
    for (const listener of this.#listeners.get('*') ?? []) {
      this.#safely(() =>
        (listener as unknown as (m: string, p: typeof params) => void)(name, params),
      );
    }
  }

  #safely(run: () => void): void {
    try {
      run();
    } catch (err) {
      // A listener's bug must not break the connection that delivered the notification.
      this.#options.logger?.error({ err }, 'notification listener threw');
    }
  }

  /** `envelope` with the tasks extension declared, or not, whatever the client's option. */
  #declaring(envelope: Record<string, unknown>, tasks: boolean): Record<string, unknown> {
    const caps = envelope[META.clientCapabilities] as ClientCapabilities;
    const extensions = { ...(isObject(caps.extensions) ? caps.extensions : {}) };
    if (tasks) extensions[TASKS_EXTENSION] = {};
    else delete extensions[TASKS_EXTENSION];
    const { extensions: _, ...rest } = caps;
    const next = Object.keys(extensions).length > 0 ? { ...rest, extensions } : rest;
    return { ...envelope, [META.clientCapabilities]: next };
  }

  /** A modern request's capabilities: the given or derived ones, and the tasks extension if asked. */
  #modernCapabilities(): ClientCapabilities {
    const given = this.#options.capabilities;
    if (!given) return this.#derivedCapabilities(true);
    if (!this.#options.tasks) return given;
    const extensions = isObject(given.extensions) ? given.extensions : {};
    return { ...given, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  }

  #derivedCapabilities(modern: boolean): ClientCapabilities {
    const handlers = this.#options.handlers ?? {};
    const caps: ClientCapabilities = {};
    if (handlers.sampling) caps.sampling = {};
    if (handlers.elicitation) caps.elicitation = {};
    // The modern era has no roots/list_changed notification: `roots` is an empty object there.
    if (handlers.roots) caps.roots = modern ? {} : { listChanged: true };
    // Declared per request, as the modern era has it (the extension exists only there).
    if (modern && this.#options.tasks) caps.extensions = { [TASKS_EXTENSION]: {} };
    return caps;
  }

  #dispatcher(): Dispatcher {
    const handlers = this.#options.handlers ?? {};
    const asParams = (p: unknown) => p as Record<string, unknown> | undefined;
    const dispatcher = new Dispatcher({
      ...(this.#options.logger ? { logger: this.#options.logger } : {}),
      onUnknownNotification: (name, params) => this.#emit(name, asParams(params)),
    });
    const ctx = (c: RequestContext) => ({ signal: c.signal });
    dispatcher.register(
      method('ping', () => ({})),
      method('notifications/progress', (params) => {
        const progress = params as unknown as Progress;
        const callback = this.#progress.get(String(progress?.progressToken));
        if (callback) this.#safely(() => callback(progress));
        this.#emit('notifications/progress', asParams(params));
      }),
      method('notifications/cancelled', (params, c) => {
        const requestId = (params as { requestId?: unknown }).requestId;
        // Sent as a request naming itself (see the server's handler): nothing else to cancel. A
        // bigint is an id beyond 2^53, as the codec decodes one exactly.
        if (
          (typeof requestId === 'string' ||
            typeof requestId === 'number' ||
            typeof requestId === 'bigint') &&
          requestId !== c.id
        ) {
          this.#connection?.cancel(requestId, (params as { reason?: unknown }).reason);
        }
        this.#emit('notifications/cancelled', asParams(params));
      }),
    );
    if (handlers.sampling) {
      const sampling = handlers.sampling;
      dispatcher.register(
        method('sampling/createMessage', (params, c) =>
          sampling(params as unknown as CreateMessageRequest, ctx(c)),
        ),
      );
    }
    if (handlers.elicitation) {
      const elicitation = handlers.elicitation;
      dispatcher.register(
        method('elicitation/create', (params, c) =>
          elicitation(params as unknown as ElicitRequest, ctx(c)),
        ),
      );
    }
    if (handlers.roots) {
      const roots = handlers.roots;
      dispatcher.register(
        method('roots/list', async (_params, c) => ({ roots: await roots(ctx(c)) })),
      );
    }
    return dispatcher;
  }
}

/**
 * How a failed `server/discover` probe decides the era (spec `basic/versioning` §Backward
 * Compatibility). Throws when the connection must not go on: pinned modern, a modern server that
 * refused us (`-32020`, `-32021`, a `-32022` naming nothing we speak), an HTTP answer that is no
 * era signal (401/403, 5xx, no status), a timeout where silence is no era signal (HTTP), a
 * closed connection.
 */
function probeVerdict(
  err: unknown,
  version: ModernProtocolVersion,
  auto: boolean,
  silenceIsLegacy: boolean,
  attempt: number,
): ProbeVerdict {
  if (RpcError.is(err)) {
    if (err.code === McpErrorCode.UnsupportedProtocolVersion) {
      const data = err.data as { supported?: unknown } | undefined;
      const supported = Array.isArray(data?.supported)
        ? data.supported.filter((v): v is string => typeof v === 'string')
        : [];
      // Retried once with the first version of ours the server names — the one just refused
      // too, when the server names it: it said it speaks it (spec `basic/versioning`: "the
      // client retries with a supported version rather than falling back").
      const modern = MODERN_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
      if (modern !== undefined && attempt === 0) return { next: 'retry', version: modern };
      // A dual-era server naming a 2025 version we speak: that is the one to use.
      const legacy = auto ? supported.find(isSupportedVersion) : undefined;
      if (legacy !== undefined) return { next: 'initialize', version: legacy };
      throw new UnsupportedVersionError(version, supported.join(', ') || 'none');
    }
    if (
      !auto ||
      err.code === McpErrorCode.HeaderMismatch ||
      err.code === McpErrorCode.MissingRequiredClientCapability
    ) {
      throw err;
    }
    return { next: 'initialize' };
  }
  if (silenceIsLegacy && RequestTimeoutError.is(err)) {
    return { next: 'initialize' };
  }
  if (auto && TransportError.is(err)) {
    const status = err.status;
    if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
      return { next: 'initialize' };
    }
  }
  throw err;
}
