import { decodeFrame } from '../jsonrpc/codec.js';
import { JsonRpcConnection } from '../jsonrpc/connection.js';
import { Dispatcher, type EngineLogger } from '../jsonrpc/dispatcher.js';
import { ErrorCode, McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import { isPromiseLike, type MethodDefinition } from '../jsonrpc/method.js';
import type { FrameTransport } from '../jsonrpc/transport.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import { logLevelAdmits, type McpCallExtra, type McpContext } from './context.js';
import { META } from './era.js';
import { EraRouter } from './era-router.js';
import { completionMethods } from './handlers/completion.js';
import {
  type CacheableMethod,
  type CacheHint,
  decorateModernResult,
  discoverMethods,
  LEGACY_ONLY,
  modernResultSuffix,
} from './handlers/discover.js';
import { lifecycleMethods } from './handlers/lifecycle.js';
import { promptMethods } from './handlers/prompts.js';
import { resourceMethods } from './handlers/resources.js';
import { taskMethods } from './handlers/tasks.js';
import { toolMethods } from './handlers/tools.js';
import { RequestStateCodec, type SharedClaim } from './input-rounds.js';
import type { Scoped, ServerInternals } from './internals.js';
import type { ArgumentIssue } from './json-schema.js';
import { dispatchObserver, type McpObserver } from './observe.js';
import type { Prompt } from './prompt.js';
import type { Resource, ResourceTemplate } from './resource.js';
import { type AuthInfo, CANCELLATION, McpSession, type OutboundChannel } from './session.js';
import { SubscriptionHub } from './subscriptions.js';
import { TaskRunner, type TaskRunnerOptions } from './tasks/runner.js';
import { detailedTask, TASKS_EXTENSION } from './tasks/wire.js';
import type { Tool } from './tool.js';
import type {
  McpConnection,
  McpConnectionOptions,
  ServerPort,
  ServerTransport,
} from './transport.js';
import type { Icon, Implementation, LoggingLevel } from './types.js';

/** Whose scopes lack the one a tool requires: the server's enabled ones, or the caller's. */
export type ScopeDeniedBy = 'server' | 'caller';

/**
 * How core failures are answered. Each hook returns the error to send instead of the MCP default:
 * the one place where an app whose clients expect other codes (a server it replaces, a published
 * API it must match) maps the core's failures to them. Omit a hook to keep the default.
 */
export interface McpErrorOptions {
  /**
   * `tools/call` of a tool whose required scope the caller lacks. `deniedBy` says whose it is:
   * `'server'` when the server does not enable the scope at all, `'caller'` when the server does
   * but the caller's token does not hold it. Default -32600 "Tool '<tool>' requires scope
   * '<scope>' which is not granted" (plus " to this token" for the caller's).
   */
  scopeDenied?: (tool: string, scope: string, deniedBy: ScopeDeniedBy) => RpcError;
  /**
   * `tools/call` of a tool nobody registered, for 2025-era requests: a compatibility hook (the
   * gateway answers mcp-n8n's -32601 "Tool not found: <name>"). Default, and always in the
   * 2026-07-28 era: the spec's -32602 "Unknown tool: <name>".
   */
  unknownTool?: (name: string) => RpcError;
  /**
   * Tool arguments that fail the tool's schema. Default: no JSON-RPC error — the failure is a tool
   * result with `isError: true` (MCP 2025-11-25), which the model can read and fix. Return
   * undefined to keep that for a call.
   */
  invalidArguments?: (tool: string, issues: ArgumentIssue[]) => RpcError | undefined;
  /**
   * `resources/read` of a URI no resource or template serves. Default -32002 "Resource not
   * found" (-32602 for a 2026-07-28 request, see `modernEra`).
   */
  resourceNotFound?: (uri: string) => RpcError;
  /**
   * Every RpcError a 2026-07-28 request is about to be answered with — thrown by a handler or
   * returned by a hook above: return the error to send instead. The hooks and an app's handlers
   * speak its 2025-era contract; 2026-07-28 (`basic/index` §Error Codes) forbids -32002 and says
   * implementations SHOULD NOT use -32000…-32019, so an app whose contract uses them maps each to
   * the spec's code here, in one place. Default: sent as thrown. Either way a -32002 is then
   * sent as -32602 with its message and data: a modern server MUST NOT emit it.
   */
  modernEra?: (error: RpcError) => RpcError;
}

/** What `new McpServer(options)` takes: who the server is, and how it answers. */
export interface McpServerOptions {
  /** `serverInfo.name`: programmatic name, e.g. `system-info`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`: display name. */
  title?: string;
  /** `serverInfo.description`. */
  description?: string;
  /** `serverInfo.websiteUrl`. */
  websiteUrl?: string;
  /** `serverInfo.icons`. */
  icons?: Icon[];
  /** Sent in the initialize result: how a model should use this server. */
  instructions?: string;
  /** Items per page of every list. Default 100. */
  pageSize?: number;
  /**
   * Scopes this server enables. A caller's scopes (from its token) are intersected with them:
   * a token can hold fewer, never more. Undefined: no server-wide restriction.
   */
  scopes?: Iterable<string>;
  /** Errors other than MCP's defaults, for clients that expect other codes. */
  errors?: McpErrorOptions;
  /**
   * Another name a tool may be called by; return the registered name, or undefined. For a server
   * that re-exports tools under a second spelling (a gateway accepting `ns:tool` for `ns__tool`).
   */
  toolAlias?: (name: string) => string | undefined;
  /**
   * Told when a client subscribes to a resource, before the subscription is kept: throw (an
   * RpcError) to refuse it — for resources only some callers may read — or start watching an
   * upstream source (a gateway subscribes at its backend).
   */
  onSubscribe?: (uri: string, ctx: McpContext) => void | Promise<void>;
  /**
   * `tools/list` shows a caller only the tools its scopes let it call, for servers whose callers
   * should not learn what they cannot use. Default false: every tool is listed.
   */
  listPermittedToolsOnly?: boolean;
  /**
   * A caller's view of `tools/list` beyond scopes (a gateway's rules): a tool it answers false
   * for is not listed to that caller. The list is then private (each caller sees its own); a
   * call is not checked by this — refuse it in the tool's handler, by the same rule.
   */
  listFilter?: (tool: Tool, auth: AuthInfo | undefined) => boolean;
  /**
   * Capabilities to declare even while nothing of the kind is registered (by default each is
   * declared once something is): for a server whose resources, prompts or completions arrive
   * after `initialize` — a gateway whose backends are still starting — so a client does not
   * conclude from the handshake that there will never be any.
   */
  declare?: { resources?: boolean; prompts?: boolean; completions?: boolean };
  /** Open `subscriptions/listen` requests (MCP 2026-07-28) allowed at once. Default 1024. */
  maxSubscriptions?: number;
  /**
   * Open `subscriptions/listen` requests of one caller (its token's subject; without auth, its
   * connection) at once. Default 64: one caller cannot take every slot.
   */
  maxSubscriptionsPerCaller?: number;
  /**
   * How the `requestState` of 2026-07-28 multi round-trip input is signed: `key` (default random
   * per process — give every instance behind a load balancer the same one) and `ttlMs` (how long
   * a client has to answer; default 10 minutes). `claim` makes a state single use across those
   * instances, not only on each: every spent state is claimed there and refused if another
   * instance claimed it first (runCli with `--redis-url` passes the fleet store's `claimOnce`).
   */
  requestState?: { key?: string | Uint8Array; ttlMs?: number; claim?: SharedClaim };
  /**
   * Cache hints of 2026-07-28 results, by method: how long a modern client may reuse a list or a
   * read, and whether it is the same for every caller (`public`) or per caller (`private`).
   * Default: not cached, private. A hint the handler put in its result wins. With
   * `listPermittedToolsOnly` the tools/list hint is always private (each caller sees its own).
   */
  cache?: Partial<Record<CacheableMethod, CacheHint>>;
  /**
   * MCP extensions this server supports, by identifier (e.g. `io.modelcontextprotocol/ui`), with
   * their settings: declared as `capabilities.extensions` in `server/discover` and initialize.
   */
  extensions?: Readonly<Record<string, Record<string, unknown>>>;
  /** Where handler crashes and protocol trouble are logged (e.g. `createLogger`'s from `@mcpkit/node`). */
  logger?: EngineLogger;
  /**
   * The MCP tasks extension (`io.modelcontextprotocol/tasks`): where tasks are kept (default in
   * memory; a fleet's instances share a Redis or PostgreSQL store), their `ttlMs` and poll
   * interval. Served — and declared in `capabilities.extensions` — once this is given or a tool
   * with `taskSupport` is registered.
   */
  tasks?: TaskRunnerOptions;
}

const defaultScopeError = (tool: string, scope: string, deniedBy: ScopeDeniedBy) =>
  new RpcError(
    -32600,
    `Tool '${tool}' requires scope '${scope}' which is not granted${deniedBy === 'caller' ? ' to this token' : ''}`,
    { tool, scope, deniedBy },
  );
const defaultResourceNotFound = (uri: string) =>
  new RpcError(McpErrorCode.ResourceNotFound, 'Resource not found', { uri });
const defaultUnknownTool = (name: string) =>
  new RpcError(-32602, `Unknown tool: ${name}`, { tool: name });

type ListKind = 'tools' | 'resources' | 'prompts';

/** A capability declared only once there is something of its kind (or `declare` says so). */
type ServedKind = 'resources' | 'prompts' | 'completions';

/**
 * The methods each optional capability brings. A server serves them only while it declares the
 * capability: a client must not find a method the handshake (`initialize`, `server/discover`)
 * said is not there — it gets -32601, which HTTP answers 404 in the modern era.
 */
const METHODS_OF: Readonly<Record<ServedKind, ReadonlySet<string>>> = {
  resources: new Set([
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'resources/subscribe',
    'resources/unsubscribe',
  ]),
  prompts: new Set(['prompts/list', 'prompts/get']),
  completions: new Set(['completion/complete']),
};
const SERVED_KINDS = Object.keys(METHODS_OF) as ServedKind[];
const kindOf = (name: string): ServedKind | undefined =>
  SERVED_KINDS.find((kind) => METHODS_OF[kind].has(name));

/** Resource not found before 2026-07-28, which that revision forbids emitting. */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

/**
 * What a modern request's RpcErrors pass through: the app's own mapping (`errors.modernEra`),
 * then the rule every server of that era follows — 2026-07-28 (`basic/index` §Error Codes) says
 * -32002 MUST NOT be emitted, it became -32602. Whoever threw it (the default
 * `resourceNotFound`, an app written for 2025 sessions, a 2025 backend behind the gateway), a
 * modern client hears the new code with the same message and data.
 */
function modernErrors(app?: (error: RpcError) => RpcError): (error: RpcError) => RpcError {
  return (error) => {
    const mapped = app ? app(error) : error;
    return mapped.code === LEGACY_RESOURCE_NOT_FOUND
      ? new RpcError(ErrorCode.InvalidParams, mapped.message, mapped.data)
      : mapped;
  };
}

/** `definition` whose RpcErrors pass through `map` on their way out (see `errors.modernEra`). */
function mappingErrors<E>(
  definition: MethodDefinition<E>,
  map: (error: RpcError) => RpcError,
): MethodDefinition<E> {
  const mapped = (err: unknown): never => {
    throw RpcError.is(err) ? map(err) : err;
  };
  return {
    ...definition,
    handler: (params, ctx) => {
      let outcome: unknown;
      try {
        outcome = definition.handler(params, ctx);
      } catch (err) {
        return mapped(err);
      }
      // A synchronous answer stays synchronous (the hot path costs no promise).
      return isPromiseLike(outcome) ? Promise.resolve(outcome).then(undefined, mapped) : outcome;
    },
  };
}

/**
 * The MCP server core: the tools, resources and prompts it serves, the sessions of its clients,
 * and the methods that answer them. Create it once; every transport meets it through
 * `connect(transport)`, and it serves them all at the same time.
 *
 * The registries change only through `add*` / `remove*`, and every change tells the connected
 * clients (`notifications/<kind>/list_changed`).
 *
 * @example
 * ```ts
 * const server = new McpServer({ name: 'adder', version: '1.0.0' }).addTool(
 *   defineTool({
 *     name: 'add',
 *     description: 'Add two numbers',
 *     inputSchema: z.object({ a: z.number(), b: z.number() }),
 *     handler: ({ a, b }) => String(a + b),
 *   }),
 * );
 * await serveMcpStdio(server); // or server.connect(transport), createMcpHttpServer(server), runCli
 * ```
 */
export class McpServer {
  /** `serverInfo` of the initialize result. */
  readonly info: Implementation;
  /** Sent in the initialize result, if given. */
  readonly instructions: string | undefined;
  /** Items per page of every list. */
  readonly pageSize: number;
  /** Where the server logs, if anywhere. */
  readonly logger: EngineLogger | undefined;
  /**
   * Whether `requestState` tokens are signed with a key given in the options (one a fleet's
   * instances share) rather than a random key of this process.
   */
  readonly requestStateKeyed: boolean;
  readonly #scopes: ReadonlySet<string> | undefined;
  readonly #toolAlias: McpServerOptions['toolAlias'];
  readonly #extensions: McpServerOptions['extensions'];
  readonly #declare: McpServerOptions['declare'];
  readonly #tools = new Map<string, Tool>();
  readonly #resources = new Map<string, Resource>();
  readonly #templates: ResourceTemplate[] = [];
  readonly #prompts = new Map<string, Prompt>();
  readonly #sessions = new Set<McpSession>();
  readonly #dispatcher: Dispatcher<McpCallExtra>;
  readonly #modern: Dispatcher<McpCallExtra>;
  readonly #router: EraRouter;
  readonly #hub: SubscriptionHub;
  readonly #port: ServerPort;
  readonly #privateToolList: boolean;
  readonly #changedLists = new Set<ListKind>();
  /** `errors.modernEra`: what a modern request's RpcErrors pass through. */
  readonly #modernErrors: (error: RpcError) => RpcError;
  /**
   * The methods of each optional capability, per dispatcher, registered once the capability is
   * declared (see {@link METHODS_OF}).
   */
  readonly #servedMethods = new Map<
    ServedKind,
    [Dispatcher<McpCallExtra>, MethodDefinition<McpCallExtra>][]
  >();
  /**
   * The optional capabilities declared so far. One stays declared once it was — a 2025 session
   * told of it at initialize may list it again after its last entry is removed, and an empty
   * list is then the true answer.
   */
  readonly #served = new Set<ServedKind>();
  #held: Promise<unknown> | undefined;
  readonly #taskOptions: TaskRunnerOptions;
  #tasks: TaskRunner | undefined;
  /** The task methods are registered (and the extension declared). */
  #tasksServed = false;
  #observers: McpObserver[] = [];
  #hints: Partial<Record<CacheableMethod, CacheHint>>;

  constructor(options: McpServerOptions) {
    const info: Implementation = { name: options.name, version: options.version };
    if (options.title) info.title = options.title;
    if (options.description) info.description = options.description;
    if (options.websiteUrl) info.websiteUrl = options.websiteUrl;
    if (options.icons) info.icons = options.icons;
    this.info = info;
    this.instructions = options.instructions;
    this.pageSize = options.pageSize ?? 100;
    this.logger = options.logger;
    this.#scopes = options.scopes ? new Set(options.scopes) : undefined;
    this.#declare = options.declare;
    this.#toolAlias = options.toolAlias;
    this.#extensions = options.extensions;
    this.#taskOptions = options.tasks ?? {};
    const errors = options.errors ?? {};
    const internals: ServerInternals = {
      info,
      instructions: this.instructions,
      pageSize: this.pageSize,
      logger: this.logger,
      tools: this.#tools,
      resources: this.#resources,
      templates: this.#templates,
      prompts: this.#prompts,
      scopeError: errors.scopeDenied ?? defaultScopeError,
      resourceNotFound: errors.resourceNotFound ?? defaultResourceNotFound,
      unknownToolError: errors.unknownTool ?? defaultUnknownTool,
      argumentError: errors.invalidArguments,
      onSubscribe: options.onSubscribe,
      listPermittedToolsOnly: options.listPermittedToolsOnly ?? false,
      listFilter: options.listFilter,
      held: () => this.#held,
      capabilities: () => this.capabilities(),
      tasks: () => this.#taskRunner(),
      findTool: (name) => this.#findTool(name),
      missingScope: (tool, extra) => this.#missingScope(tool, extra),
      resourceAllowed: (uri, extra) => {
        const owner =
          this.#resources.get(uri) ?? this.#templates.find((t) => t.template.match(uri));
        return owner === undefined || this.#missingScope(owner, extra) === undefined;
      },
    };
    this.#dispatcher = new Dispatcher<McpCallExtra>(
      options.logger ? { logger: options.logger } : {},
    );
    this.#registerServed(this.#dispatcher, [
      ...lifecycleMethods(internals),
      ...toolMethods(internals),
      ...resourceMethods(internals),
      ...promptMethods(internals),
      ...completionMethods(internals),
    ]);
    // The modern era (2026-07-28) serves the same tools, resources, prompts and completions
    // without the session methods it dropped, and with the spec's codes where the 2025-era
    // hooks would say otherwise (every error passes through modernErrors).
    const modern: ServerInternals = {
      ...internals,
      // One policy per era: the hooks above keep 2025-era products' replies (mcp-n8n's -32601
      // "Tool not found"); a 2026-07-28 client gets the spec's -32602 "Unknown tool" from every
      // server alike — no product of that era asks otherwise, and in that era's HTTP binding a
      // -32601 reads as "this server has no tools/call".
      unknownToolError: defaultUnknownTool,
    };
    this.#hub = new SubscriptionHub({
      ...(options.maxSubscriptions === undefined ? {} : { max: options.maxSubscriptions }),
      ...(options.maxSubscriptionsPerCaller === undefined
        ? {}
        : { maxPerCaller: options.maxSubscriptionsPerCaller }),
    });
    this.#modern = new Dispatcher<McpCallExtra>(options.logger ? { logger: options.logger } : {});
    this.#modernErrors = modernErrors(errors.modernEra);
    this.#registerServed(
      this.#modern,
      [
        ...discoverMethods(modern, () => this.capabilities()),
        this.#hub.method(modern, () => (this.#tasksServed ? this.#taskRunner() : undefined)),
        ...toolMethods(modern),
        ...resourceMethods(modern).filter((m) => !LEGACY_ONLY.has(m.name)),
        ...promptMethods(modern),
        ...completionMethods(modern),
      ].map((m) => this.#forModern(m)),
    );
    this.#serveDeclared();
    if (options.tasks) this.#serveTasks();
    const serverInfo = { [META.serverInfo]: info };
    this.#privateToolList =
      options.listPermittedToolsOnly === true || options.listFilter !== undefined;
    this.requestStateKeyed = options.requestState?.key !== undefined;
    this.#hints = this.#narrowHints(options.cache);
    this.#router = new EraRouter(
      this.#dispatcher,
      this.#modern,
      (method, result) => decorateModernResult(method, result, serverInfo, this.#hints),
      new RequestStateCodec(
        options.requestState?.key,
        options.requestState?.ttlMs,
        options.requestState?.claim ? { claim: options.requestState.claim } : {},
      ),
      serverInfo,
      (method) => modernResultSuffix(method, serverInfo, this.#hints),
    );
    const dispatcher = this.#router;
    this.#port = {
      openSession: (channel, id) => this.#openSession(channel, id),
      closeSession: (session) => this.#closeSession(session),
      dispatch: (frame, extra, onResponse) => {
        const cancellation = extra.session[CANCELLATION];
        return dispatcher.handleDecoded(typeof frame === 'string' ? decodeFrame(frame) : frame, {
          extra,
          signalFor: (id) => cancellation.signalFor(id),
          settled: (id) => cancellation.settled(id),
          started: (id) => cancellation.started(id),
          onResponse,
        });
      },
    };
  }

  // --- Transports -----------------------------------------------------------------------------

  /**
   * Serve one client over a channel transport (stdio, an in-memory pair, a socket): a session for
   * the life of the channel, requests both ways, `notifications/cancelled` when the server gives
   * up on one of its own requests. Ends when the client closes its side, or on `close()`.
   *
   * @example
   * ```ts
   * const connection = server.connect(new StdioTransport(), { auth });
   * await connection.closed; // the client closed stdin; every reply is written
   * ```
   */
  connect(transport: FrameTransport, options?: McpConnectionOptions): McpConnection;
  /**
   * Attach a request-based transport (HTTP) that serves many clients; returns it. A transport is
   * attached to one server.
   *
   * @example
   * ```ts
   * const streamable = server.connect(new StreamableHttpHandler({ sessions: true }));
   * // in an http.Server's request listener, after reading and authenticating the body:
   * await streamable.handlePost(req, res, body, auth);
   * ```
   */
  connect<T extends ServerTransport>(transport: T): T;
  connect(
    transport: FrameTransport | ServerTransport,
    options: McpConnectionOptions = {},
  ): McpConnection | ServerTransport {
    if ('attach' in transport) {
      transport.attach(this.#port);
      return transport;
    }
    return this.#serve(transport, options);
  }

  #serve(transport: FrameTransport, options: McpConnectionOptions): McpConnection {
    const session = this.#openSession();
    const connection: JsonRpcConnection<McpCallExtra> = new JsonRpcConnection<McpCallExtra>({
      transport,
      dispatcher: this.#router,
      extra: options.auth ? { session, auth: options.auth } : { session },
      cancellation: session[CANCELLATION],
      logger: options.logger ?? this.logger,
      requestTimeoutMs: options.requestTimeoutMs,
      drainTimeoutMs: options.drainTimeoutMs,
      // Subscriptions last as long as their connection: they end when it starts closing.
      onEnd: () => this.#hub.endConnection(session[CANCELLATION]),
      // Tell the client when we stop waiting for its answer (sampling, elicitation).
      onAbandon: (id, _method, reason) => {
        try {
          connection.notify('notifications/cancelled', {
            requestId: id,
            reason: `request ${reason}`,
          });
        } catch {
          // The connection is already closed; nothing to tell.
        }
      },
    });
    session.channel = connection;
    try {
      connection.start();
    } catch (err) {
      this.#closeSession(session);
      throw err;
    }
    const closed = connection.closed.then(() => this.#closeSession(session));
    return {
      session,
      closed,
      close: () => {
        void connection.close();
        return closed;
      },
    };
  }

  /**
   * Watch every request this server answers, in both eras and on every transport (metrics,
   * tracing); returns the function that stops watching.
   *
   * @example
   * ```ts
   * const stop = server.observe({
   *   begin: (call) => performance.now(),
   *   end: (started, outcome) => console.log(outcome.status, performance.now() - (started as number)),
   * });
   * ```
   */
  observe(observer: McpObserver): () => void {
    this.#observers = [...this.#observers, observer];
    this.#applyObservers();
    return () => {
      this.#observers = this.#observers.filter((o) => o !== observer);
      this.#applyObservers();
    };
  }

  #applyObservers(): void {
    const observer = dispatchObserver(this.#observers, (name) => this.#findTool(name)?.name);
    this.#dispatcher.observe(observer);
    this.#modern.observe(observer);
  }

  /**
   * Add JSON-RPC methods of your own beside the MCP ones (they get the session as `ctx.extra`).
   * Throws for a name MCP already gives a meaning, served or not.
   */
  addMethods(...methods: MethodDefinition<McpCallExtra>[]): this {
    const taken = methods.find((m) => kindOf(m.name) !== undefined);
    if (taken) throw new Error(`method '${taken.name}' is an MCP method`);
    this.#dispatcher.register(...methods);
    this.#modern.register(...methods.map((m) => this.#forModern(m)));
    return this;
  }

  /** A modern-era method whose errors pass through `modernErrors`. */
  #forModern(definition: MethodDefinition<McpCallExtra>): MethodDefinition<McpCallExtra> {
    return mappingErrors(definition, this.#modernErrors);
  }

  /** Register `methods` now, except those of an optional capability: kept for its declaring. */
  #registerServed(
    dispatcher: Dispatcher<McpCallExtra>,
    methods: MethodDefinition<McpCallExtra>[],
  ): void {
    for (const definition of methods) {
      const kind = kindOf(definition.name);
      if (kind === undefined) dispatcher.register(definition);
      else {
        const held = this.#servedMethods.get(kind) ?? [];
        held.push([dispatcher, definition]);
        this.#servedMethods.set(kind, held);
      }
    }
  }

  /** Serve the methods of every optional capability that is now declared and was not before. */
  #serveDeclared(): void {
    const declared = this.#declare ?? {};
    const prompts = [...this.#prompts.values()];
    const now: Record<ServedKind, boolean> = {
      resources: !!declared.resources || this.#resources.size > 0 || this.#templates.length > 0,
      prompts: !!declared.prompts || prompts.length > 0,
      completions:
        !!declared.completions ||
        this.#templates.some((t) => Object.keys(t.complete).length > 0) ||
        prompts.some((p) => Object.keys(p.complete).length > 0),
    };
    for (const kind of SERVED_KINDS) {
      if (!now[kind] || this.#served.has(kind)) continue;
      this.#served.add(kind);
      for (const [dispatcher, definition] of this.#servedMethods.get(kind) ?? [])
        dispatcher.register(definition);
    }
  }

  // --- Registries -----------------------------------------------------------------------------

  /** Register tools; throws, registering none, when a name is taken. */
  addTool(...tools: Tool[]): this {
    checkNew(
      'tool',
      tools.map((t) => t.name),
      (name) => this.#tools.has(name),
    );
    for (const tool of tools) this.#tools.set(tool.name, tool);
    if (tools.some((t) => t.taskSupport !== undefined)) this.#serveTasks();
    return this.#changed('tools', tools.length > 0);
  }

  /** Unregister a tool and tell the clients; false when none had that name. */
  removeTool(name: string): boolean {
    return this.#remove('tools', this.#tools.delete(name));
  }

  /** The tool registered under `name` (aliases are not resolved). */
  getTool(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /**
   * Every scope a call of tool `name` needs, when `auth` lacks one it could be granted (an OAuth
   * host answers 403 `insufficient_scope` naming them all, so the client steps up once — MCP
   * `basic/authorization` §Scope Challenge Handling). Undefined when the caller may call it, or
   * when no scope would help (no such tool; a scope this server does not enable).
   */
  scopesToCall(name: string, auth: AuthInfo | undefined): readonly string[] | undefined {
    const tool = this.#findTool(name);
    if (!tool || !auth) return undefined;
    const missing = this.#missingScope(tool, { auth } as McpCallExtra);
    return missing?.deniedBy === 'caller' ? tool.requiredScopes : undefined;
  }

  /** The registered tools, in registration order (a copy: change them with add/removeTool). */
  listTools(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Register resources; throws, registering none, when a URI is taken. */
  addResource(...resources: Resource[]): this {
    checkNew(
      'resource',
      resources.map((r) => r.uri),
      (uri) => this.#resources.has(uri),
    );
    for (const resource of resources) this.#resources.set(resource.uri, resource);
    return this.#changed('resources', resources.length > 0);
  }

  /** Unregister a resource and tell the clients; false when none had that URI. */
  removeResource(uri: string): boolean {
    return this.#remove('resources', this.#resources.delete(uri));
  }

  /** The registered resources, in registration order (a copy). */
  listResources(): Resource[] {
    return [...this.#resources.values()];
  }

  /** Register resource templates; throws, registering none, when a URI template is taken. */
  addResourceTemplate(...templates: ResourceTemplate[]): this {
    checkNew(
      'resource template',
      templates.map((t) => t.template.template),
      (uriTemplate) => this.#templateIndex(uriTemplate) !== -1,
    );
    this.#templates.push(...templates);
    return this.#changed('resources', templates.length > 0);
  }

  /** Unregister a resource template and tell the clients; false when none had that template. */
  removeResourceTemplate(uriTemplate: string): boolean {
    const index = this.#templateIndex(uriTemplate);
    if (index !== -1) this.#templates.splice(index, 1);
    return this.#remove('resources', index !== -1);
  }

  /** The registered resource templates, in registration order (a copy). */
  listResourceTemplates(): ResourceTemplate[] {
    return [...this.#templates];
  }

  /** Register prompts; throws, registering none, when a name is taken. */
  addPrompt(...prompts: Prompt[]): this {
    checkNew(
      'prompt',
      prompts.map((p) => p.name),
      (name) => this.#prompts.has(name),
    );
    for (const prompt of prompts) this.#prompts.set(prompt.name, prompt);
    return this.#changed('prompts', prompts.length > 0);
  }

  /** Unregister a prompt and tell the clients; false when none had that name. */
  removePrompt(name: string): boolean {
    return this.#remove('prompts', this.#prompts.delete(name));
  }

  /** The registered prompts, in registration order (a copy). */
  listPrompts(): Prompt[] {
    return [...this.#prompts.values()];
  }

  /**
   * Capabilities derived from what is registered (the initialize result's): resources, prompts
   * and completions once there is something of the kind or `declare` says so, and from then on
   * — exactly the methods the server serves.
   */
  capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { logging: {} };
    caps.tools = { listChanged: true };
    if (this.#served.has('resources')) caps.resources = { subscribe: true, listChanged: true };
    if (this.#served.has('prompts')) caps.prompts = { listChanged: true };
    if (this.#served.has('completions')) caps.completions = {};
    if (this.#extensions && Object.keys(this.#extensions).length > 0) {
      caps.extensions = { ...this.#extensions };
    }
    if (this.#tasksServed) {
      caps.extensions = { ...(caps.extensions as object), [TASKS_EXTENSION]: {} };
    }
    return caps;
  }

  /**
   * The tasks of this server (MCP tasks extension): their store, and the work running here.
   * Undefined until tasks are served (`McpServerOptions.tasks`, or a tool with `taskSupport`).
   */
  get tasks(): TaskRunner | undefined {
    return this.#tasksServed ? this.#taskRunner() : undefined;
  }

  /**
   * Stop the work of every task running in this process (a shutdown): each is aborted; their
   * records stay as they are, for a fleet to fail once this instance is known gone.
   */
  closeTasks(): void {
    this.#tasks?.close();
  }

  #taskRunner(): TaskRunner {
    if (!this.#tasks) {
      const runner = new TaskRunner({
        ...(this.logger ? { logger: this.logger } : {}),
        ...this.#taskOptions,
      });
      this.#tasks = runner;
      // Every change of a task (a fleet's: of any instance's) to the listens that asked for it.
      runner.store.watch((task) =>
        this.#hub.taskChanged(task, async () => {
          const now = await runner.store.get(task.taskId, task.owner);
          if (!now) return undefined;
          const { resultType: _, ...detailed } = detailedTask(now);
          return detailed;
        }),
      );
    }
    return this.#tasks;
  }

  /** Serve the task methods to modern clients, from now on, and declare the extension. */
  #serveTasks(): void {
    if (this.#tasksServed) return;
    this.#tasksServed = true;
    this.#modern.register(...taskMethods(() => this.#taskRunner()).map((m) => this.#forModern(m)));
  }

  /**
   * Make lists (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) and
   * tool calls wait until `until` settles — for a server that answers `initialize` at once but
   * registers what it offers a moment later (a gateway starting its backends): a client that
   * lists right away gets the whole list, not an empty one, and its calls stay in order. Bound
   * `until` yourself (a timeout); it is never waited for longer than it takes. Everything else
   * is answered as usual meanwhile (initialize, ping, a stdin EOF).
   */
  holdLists(until: PromiseLike<unknown>): void {
    const held: Promise<unknown> = Promise.resolve(until).then(
      () => undefined,
      () => undefined,
    );
    this.#held = held;
    void held.then(() => {
      if (this.#held === held) this.#held = undefined;
    });
  }

  /**
   * Replace the cache hints of 2026-07-28 results (see {@link McpServerOptions.cache}) — for a
   * server whose lists change in ways only it knows, such as a gateway deriving its hints from
   * its backends'. Results already sent keep theirs.
   */
  setCacheHints(hints: Partial<Record<CacheableMethod, CacheHint>>): void {
    this.#hints = this.#narrowHints(hints);
    this.#router.hintsChanged();
  }

  #narrowHints(
    cache: Partial<Record<CacheableMethod, CacheHint>> | undefined,
  ): Partial<Record<CacheableMethod, CacheHint>> {
    const hints = { ...cache };
    // Each caller sees its own lists (scoped tools — and resources, templates and prompts,
    // whose scopes are always applied): never one cache entry for all of them.
    if (this.#privateToolList) {
      for (const method of Object.keys(hints) as CacheableMethod[]) {
        const hint = hints[method];
        if (hint) hints[method] = { ...hint, cacheScope: 'private' };
      }
    }
    return hints;
  }

  // --- Sessions -------------------------------------------------------------------------------

  /** Clients connected now: channel connections and Streamable HTTP sessions. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Open `subscriptions/listen` requests of modern (2026-07-28) clients. */
  get subscriptionCount(): number {
    return this.#hub.size;
  }

  /**
   * End every `subscriptions/listen` gracefully — each is answered with its result, which tells
   * the client the stream closed on purpose (before a shutdown).
   */
  closeSubscriptions(): void {
    this.#hub.closeAll();
  }

  /**
   * Tell the clients subscribed to `uri` that it changed — only those `audience` accepts, when
   * the same URI means different data to different callers (a user's own project list).
   */
  resourceUpdated(uri: string, audience?: (session: McpSession) => boolean): number {
    // Modern clients listening for it (their session: the listen request's scope, with its caller
    // as `subscriber`), then 2025 sessions subscribed to it.
    let told = this.#hub.resourceUpdated(uri, audience);
    for (const session of this.#sessions) {
      if (session.subscriptions.has(uri) && session.channel && (!audience || audience(session))) {
        this.#send(session, 'notifications/resources/updated', { uri });
        told++;
      }
    }
    return told;
  }

  /**
   * `notifications/message` to every connected client whose `logging/setLevel` lets `level`
   * through: a log line of the server's own, or one relayed from elsewhere (a gateway passes on
   * its backends'). Only to the sessions `audience` accepts, when given (a gateway's backend
   * whose scopes a caller lacks: its log lines are not that caller's to read). Returns how many
   * clients were told.
   */
  sendLogMessage(
    level: LoggingLevel,
    data: unknown,
    logger?: string,
    audience?: (session: McpSession) => boolean,
  ): number {
    let told = 0;
    const params = logger === undefined ? { level, data } : { level, logger, data };
    for (const session of this.#sessions) {
      if (
        session.channel &&
        logLevelAdmits(session.logLevel, level) &&
        (!audience || audience(session))
      ) {
        this.#send(session, 'notifications/message', params);
        told++;
      }
    }
    return told;
  }

  // --- Internals ------------------------------------------------------------------------------

  #openSession(channel?: OutboundChannel, id?: string): McpSession {
    const session = new McpSession(channel, undefined, id);
    this.#sessions.add(session);
    return session;
  }

  #closeSession(session: McpSession): void {
    session.closed = true;
    session[CANCELLATION].abortAll(() => new Error('session closed'));
    this.#sessions.delete(session);
  }

  #findTool(name: string): Tool | undefined {
    const tool = this.#tools.get(name);
    if (tool || !this.#toolAlias) return tool;
    const target = this.#toolAlias(name);
    return target === undefined ? undefined : this.#tools.get(target);
  }

  /** The scopes a call may use, or undefined when nothing restricts it. */
  #grantedScopes(extra: McpCallExtra): ReadonlySet<string> | undefined {
    const server = this.#scopes;
    const caller = extra.auth?.scopes;
    if (!caller || extra.auth?.allScopes) return server;
    if (!server) return caller;
    return new Set([...caller].filter((s) => server.has(s)));
  }

  #missingScope(
    entry: Scoped,
    extra: McpCallExtra,
  ): { scope: string; deniedBy: ScopeDeniedBy } | undefined {
    const required = entry.requiredScopes;
    if (!required || required.length === 0) return undefined;
    const granted = this.#grantedScopes(extra);
    if (!granted) return undefined;
    const scope = required.find((s) => !granted.has(s));
    if (scope === undefined) return undefined;
    const server = this.#scopes;
    return { scope, deniedBy: server && !server.has(scope) ? 'server' : 'caller' };
  }

  #templateIndex(uriTemplate: string): number {
    return this.#templates.findIndex((t) => t.template.template === uriTemplate);
  }

  /** After an add: serve what is now declared, and notify when something was added. */
  #changed(kind: ListKind, added: boolean): this {
    if (added) {
      this.#serveDeclared();
      this.#listChanged(kind);
    }
    return this;
  }

  /** After a remove: notify when something was removed; says whether it was. */
  #remove(kind: ListKind, removed: boolean): boolean {
    if (removed) this.#listChanged(kind);
    return removed;
  }

  /**
   * Tell the clients a list changed — once per list for all the changes made in one go (a
   * gateway swapping a backend's fifty tools sends one notification, not a hundred).
   */
  #listChanged(kind: ListKind): void {
    if (this.#changedLists.size === 0) queueMicrotask(() => this.#flushListChanged());
    this.#changedLists.add(kind);
  }

  #flushListChanged(): void {
    const kinds = [...this.#changedLists];
    this.#changedLists.clear();
    // While lists are held nobody has seen one yet: the held lists carry these changes.
    if (this.#held) return;
    for (const kind of kinds) {
      this.#hub.listChanged(kind);
      for (const session of this.#sessions) {
        if (session.initialized && session.channel)
          this.#send(session, `notifications/${kind}/list_changed`);
      }
    }
  }

  #send(session: McpSession, method: string, params?: JsonRpcParams): void {
    try {
      session.channel?.notify(method, params);
    } catch (err) {
      this.logger?.debug({ err, method }, 'notification to a closed session dropped');
    }
  }
}

/** Throw when a key is taken, or given twice: an add registers all of its items or none. */
function checkNew(kind: string, keys: string[], taken: (key: string) => boolean): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (taken(key) || seen.has(key)) throw new Error(`${kind} '${key}' is already registered`);
    seen.add(key);
  }
}
