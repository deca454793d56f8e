import { ConnectionClosedError, type RequestOptions } from '../jsonrpc/client.js';
import { JsonRpcConnection } from '../jsonrpc/connection.js';
import { Dispatcher, type EngineLogger } from '../jsonrpc/dispatcher.js';
import { method, type RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
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
import { isSupportedVersion, LATEST_PROTOCOL_VERSION } from '../mcp/versions.js';
import { UnsupportedVersionError } from './errors.js';
import type { ClientTransport } from './transport.js';
import type {
  CompleteResult,
  CompletionRef,
  CreateMessageRequest,
  ElicitRequest,
  InitializeResult,
  Progress,
  PromptInfo,
  ResourceInfo,
  ResourceTemplateInfo,
  Root,
  ServerCapabilities,
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
  /** Sent as `clientInfo`. Default `{ name: 'mcpkit-client', version: '0' }`. */
  clientInfo?: Implementation;
  /** The version asked for in initialize. Default: the newest this package speaks. */
  protocolVersion?: string;
  /** Answers to the server's own requests; each one declares its capability. */
  handlers?: ClientHandlers;
  /**
   * Capabilities to declare instead of the ones derived from `handlers` (a gateway declares what
   * the clients behind it can do).
   */
  capabilities?: ClientCapabilities;
  /** Default deadline per request in ms; 0 waits forever. Default 60 000. */
  timeoutMs?: number;
  /** Deadline of initialize. Default `timeoutMs`. */
  initializeTimeoutMs?: number;
  /** Where noise from the server and listener crashes are logged. */
  logger?: EngineLogger;
  /**
   * What the server sent that is not JSON-RPC (a banner on a child's stdout). Default: logged at
   * debug and ignored — a client never answers noise with more noise.
   */
  onInvalidFrame?: (text: string, reason: 'invalid' | 'too_large' | 'not_utf8') => void;
}

/** Per-call options: a deadline, an abort signal, and for tools a progress callback. */
export interface CallOptions {
  /** Overrides the client's default deadline; 0 waits forever. */
  timeoutMs?: number;
  /** Abort the call: the server is told with `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Receive `notifications/progress` for this call (a progress token is attached for you). */
  onProgress?: (progress: Progress) => void;
  /** Extra `_meta` for the request (e.g. `traceparent`). */
  meta?: Record<string, unknown>;
}

/** A notification from the server, as listeners receive it. */
export type NotificationListener = (params: Record<string, unknown> | undefined) => void;

const DEFAULT_INFO: Implementation = { name: 'mcpkit-client', version: '0' };
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

  constructor(options: McpClientOptions = {}) {
    this.#options = options;
  }

  /** Create a client and connect it: resolves once the server is initialized. */
  static async connect(
    transport: ClientTransport,
    options: McpClientOptions = {},
  ): Promise<McpClient> {
    const client = new McpClient(options);
    await client.connect(transport);
    return client;
  }

  /**
   * Start the transport, negotiate the protocol version and say `notifications/initialized`.
   * On failure the transport is closed and the error thrown: a {@link RpcError} the server
   * answered, an {@link UnsupportedVersionError}, a timeout or a closed connection.
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
      requestTimeoutMs: clientOptions.timeoutMs ?? 60_000,
      ...(clientOptions.logger ? { logger: clientOptions.logger } : {}),
      onInvalidFrame:
        clientOptions.onInvalidFrame ??
        ((text, reason) =>
          clientOptions.logger?.debug({ reason, bytes: text.length }, 'noise ignored')),
      onAbandon: (id, name) => {
        // MCP: initialize must never be cancelled; everything else is, so the server stops work.
        if (name === 'initialize') return;
        try {
          connection.notify('notifications/cancelled', { requestId: id, reason: 'client gave up' });
        } catch {
          // the connection is already gone
        }
      },
    });
    this.#connection = connection;
    this.#closed = connection.closed;
    transport.onRequestError = (id, error) => {
      connection.failRequest(id, error);
    };
    connection.start();
    const requested = clientOptions.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    try {
      const init = await connection.request<InitializeResult>(
        'initialize',
        {
          protocolVersion: requested,
          capabilities: clientOptions.capabilities ?? this.#derivedCapabilities(),
          clientInfo: clientOptions.clientInfo ?? DEFAULT_INFO,
        },
        {
          timeoutMs:
            initTimeoutMs ?? clientOptions.initializeTimeoutMs ?? clientOptions.timeoutMs ?? 60_000,
        },
      );
      if (typeof init?.protocolVersion !== 'string' || !isSupportedVersion(init.protocolVersion)) {
        throw new UnsupportedVersionError(requested, String(init?.protocolVersion));
      }
      this.#init = init;
      transport.setProtocolVersion?.(init.protocolVersion);
      connection.notify('notifications/initialized');
      // Over HTTP the notification is a POST of its own: let it land before the first request.
      await transport.flush?.();
      transport.opened?.();
      return init;
    } catch (err) {
      await connection.close();
      throw err;
    }
  }

  /** The initialize result; undefined before `connect` resolves. */
  get initializeResult(): InitializeResult | undefined {
    return this.#init;
  }

  /** Who the server said it is (`serverInfo`); undefined before `connect` resolves. */
  get serverInfo(): Implementation | undefined {
    return this.#init?.serverInfo;
  }

  /** What the server said it can do; undefined before `connect` resolves. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#init?.capabilities;
  }

  /** The protocol version initialize settled on; undefined before `connect` resolves. */
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
   * Send any request and get its raw result (a gateway forwarding a call as it came).
   * Rejects with the server's {@link RpcError}, a {@link RequestTimeoutError}, the signal's
   * reason, or a {@link ConnectionClosedError}.
   */
  request<R = unknown>(name: string, params?: JsonRpcParams, options?: RequestOptions): Promise<R> {
    const connection = this.#connection;
    if (!connection) return Promise.reject(new ConnectionClosedError('client not connected'));
    return connection.request<R>(name, params, options);
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

  /** `ping`: resolves when the server answers. */
  ping(options?: CallOptions): Promise<Record<string, never>> {
    return this.#call('ping', undefined, options);
  }

  /** Every tool, following `nextCursor` to the end. */
  async listTools(options?: CallOptions): Promise<ToolInfo[]> {
    return this.#all<ToolInfo>('tools/list', 'tools', options);
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

  /** Subscribe to a resource; changes arrive as `notifications/resources/updated`. */
  async subscribe(uri: string, options?: CallOptions): Promise<void> {
    await this.#call('resources/subscribe', { uri }, options);
  }

  /** Stop the updates of a resource (`resources/unsubscribe`). */
  async unsubscribe(uri: string, options?: CallOptions): Promise<void> {
    await this.#call('resources/unsubscribe', { uri }, options);
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

  /** Ask the server to send log messages at `level` and above (`logging/setLevel`). */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    await this.#call('logging/setLevel', { level }, options);
  }

  /** Tell the server the roots changed (`notifications/roots/list_changed`). */
  rootsChanged(): void {
    this.notify('notifications/roots/list_changed');
  }

  /** Close the connection: in-flight requests reject, the transport is released. */
  async close(): Promise<void> {
    await this.#connection?.close();
  }

  #call<R>(name: string, params: Record<string, unknown> | undefined, options?: CallOptions) {
    if (!options) return this.request<R>(name, params);
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
    const reply = this.request<R>(name, sent, requestOptions);
    if (token === undefined) return reply;
    const done = token;
    return reply.finally(() => this.#progress.delete(done));
  }

  async #all<T>(name: string, key: string, options?: CallOptions): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#call<Record<string, unknown>>(
        name,
        cursor === undefined ? undefined : { cursor },
        options,
      );
      const items = result?.[key];
      if (Array.isArray(items)) out.push(...(items as T[]));
      cursor = typeof result?.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) return out;
    }
    return out;
  }

  #emit(name: string, params: Record<string, unknown> | undefined): void {
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

  #derivedCapabilities(): ClientCapabilities {
    const handlers = this.#options.handlers ?? {};
    const caps: ClientCapabilities = {};
    if (handlers.sampling) caps.sampling = {};
    if (handlers.elicitation) caps.elicitation = {};
    if (handlers.roots) caps.roots = { listChanged: true };
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
      method('notifications/cancelled', (params) => {
        const requestId = (params as { requestId?: unknown }).requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number') {
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
