import type { FleetMember, StateStore } from '@mcpkit/fleet';
import {
  type AuthInfo,
  type CacheableMethod,
  type CacheHint,
  type CallToolResult,
  type EngineLogger,
  ErrorCode,
  headerParamsOf,
  holdsScopes,
  IdMap,
  type JsonRpcParams,
  type LoggingLevel,
  type McpContext,
  McpServer,
  type McpServerOptions,
  type McpSession,
  RpcError,
  TASKS_EXTENSION,
  type TaskInfo,
  type TaskRunnerOptions,
  type Tool,
  withoutReservedMeta,
} from '@mcpkit/protocol';
import { Backend, type BackendHooks, type BackendState } from './backends/backend.js';
import {
  callThrough,
  clientSink,
  InputBridge,
  type InputSink,
  noLongerWaiting,
  Park,
} from './bridge.js';
import { BridgeRelay } from './bridge-relay.js';
import type { BackendConfig, GatewayConfig } from './config.js';
import type { EventLog } from './events.js';
import { Hooks, type InstalledHook } from './governance/hooks.js';
import type { PinRows } from './governance/pins.js';
import { Policy } from './governance/policy.js';
import { ToolQuarantine } from './governance/quarantine.js';
import { Quotas } from './governance/quotas.js';
import { modernGatewayError } from './modern-errors.js';
import { advertisedName, disambiguate, gatewayTemplate, gatewayUri } from './names.js';
import {
  clientError,
  proxyPrompt,
  proxyResource,
  proxyTemplate,
  type Route,
  type RouteEntry,
} from './proxies.js';
import { applyChanges } from './servers/registry.js';
import { VirtualServers } from './servers/virtual-servers.js';
import { TaskCall } from './task-call.js';
import { approveTool } from './tools/approve-tool.js';
import { gatewayStatus } from './tools/gateway-status.js';
import { getEvents } from './tools/get-events.js';
import { restartBackend } from './tools/restart-backend.js';
import { search } from './tools/search.js';
import { askForUrls, refusedUrls, urlElicitationsOf } from './url-elicitation.js';
import { type CallTarget, PersonalLinks, type PersonalLinksOptions } from './vault/personal.js';
import { VERSION } from './version.js';

export { VERSION };

const OWN_TOOLS = new Set(['gateway_status', 'get_events', 'search']);

/** The lists a modern client may cache, and the capability a backend contributes to each with. */
const LISTS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
} as const satisfies Partial<Record<CacheableMethod, string>>;

/**
 * The gateway's cache hints for its lists (MCP 2026-07-28 `ttlMs`/`cacheScope`): a list is as
 * fresh as its most short-lived part and as private as its most private one, so the shortest
 * time and the narrowest scope of the running backends that contribute to it win. A backend
 * that gave no hint (every 2025 one) makes the list uncacheable.
 */
export function listHints(
  backends: Iterable<Backend>,
): Partial<Record<CacheableMethod, CacheHint>> {
  const hints: Partial<Record<CacheableMethod, CacheHint>> = {};
  const running = [...backends].filter((b) => b.state === 'running' && b.discovered);
  for (const [method, capability] of Object.entries(LISTS) as [keyof typeof LISTS, string][]) {
    let hint: CacheHint | undefined;
    for (const backend of running) {
      const d = backend.discovered as NonNullable<Backend['discovered']>;
      if (d.capabilities[capability] === undefined) continue;
      const own = d.hints[method];
      if (!own) {
        hint = undefined;
        break;
      }
      hint = hint
        ? {
            ttlMs: Math.min(hint.ttlMs, own.ttlMs),
            cacheScope:
              hint.cacheScope === 'private' || own.cacheScope === 'private' ? 'private' : 'public',
          }
        : own;
    }
    if (hint) hints[method] = hint;
  }
  return hints;
}

/** The answer to a call of a tool no endpoint lists (mcp-n8n's: -32601 "Tool not found"). */
const notFound = (name: string) =>
  new RpcError(ErrorCode.MethodNotFound, `Tool not found: ${name}`);

/** How an operator's restart of a backend went ({@link Gateway.restartBackend}). */
export interface RestartOutcome {
  /** Its name in the config. */
  backend: string;
  /** Its state afterwards: `running`, or `failed` with `last_error`. */
  state: BackendState;
  /** Restarts so far, this one included. */
  restarts: number;
  /** Why it last failed, if it did. */
  last_error: string | null;
}

/** What {@link Gateway.reload} did, by backend name. */
export interface ReloadSummary {
  added: string[];
  removed: string[];
  changed: string[];
  /** Sections that changed but are read at start only. */
  ignored: string[];
}

/** What a {@link Gateway} needs besides its config. */
export interface GatewayOptions {
  /**
   * How 2026-07-28 `requestState` tokens are signed (`McpServerOptions.requestState`): a fleet
   * passes runCli's `RunContext.requestState`, so a multi round-trip retry is good on every
   * instance. Default: a random key of this process.
   */
  requestState?: McpServerOptions['requestState'];
  /**
   * How long a call of a client that declared the tasks extension may run before it becomes a
   * task (the backend call going on underneath), ms; null: the gateway offers no tasks. Default
   * 5000.
   */
  taskAfterMs?: number | null;
  /**
   * Where tasks are kept (`McpServerOptions.tasks`): a fleet passes runCli's `RunContext.tasks`,
   * so a task made through one instance is read and cancelled through any. Default: memory.
   */
  tasks?: TaskRunnerOptions;
  /** Where lifecycle events and tool calls are recorded. */
  events: EventLog;
  /** Where the gateway's McpServer logs. */
  logger?: EngineLogger;
  /**
   * Where a backend's `notifications/resources/updated` goes, by advertised URI. Default: this
   * gateway's subscribers. A fleet passes its `FleetNotifier` (`shareNotifications` over Redis):
   * a client subscribed through one instance hears a change seen by another (see cli.ts).
   */
  announce?: (uri: string) => void;
  /** The instances of the gateway's fleet (`joinFleet`), for gateway_status; none alone. */
  fleet?: () => Promise<FleetMember[]>;
  /**
   * The fleet's shared store (runCli's `RunContext.state`): a modern client's retry of a call
   * parked on another instance is handed to that instance over its pub/sub (see BridgeRelay).
   * Alone, such a retry is answered -32602 (no longer waiting).
   */
  state?: StateStore;
  /** Where approved tool definitions are kept (backends with `pin`). Default: memory. */
  pinsPath?: string;
  /** Approved definitions already open (a fleet's: `openPostgresPins`); wins over the paths. */
  pins?: PinRows;
  /** The hooks around every backend tool call (`loadHooks` of `gateway.hooks`). */
  hooks?: readonly InstalledHook[];
  /** Where a backend's relative `server_json` is read from: the config file's directory. */
  configDir?: string;
}

/**
 * Many backend MCP servers behind one McpServer. Backend tools, prompts and resources are
 * registered under advertised names through a registry map (never by splitting names); calls
 * are forwarded with the backend's own names, results come back untouched.
 */
export class Gateway {
  /** The validated config. */
  config: GatewayConfig;
  /** The McpServer clients talk to: connect it to a transport (`runCli` does). */
  readonly server: McpServer;
  /** Every configured backend, by name. */
  readonly backends = new Map<string, Backend>();
  /** The event log. */
  readonly events: EventLog;
  /** When the gateway was made (ms since the epoch). */
  readonly startedAt = Date.now();
  /** Tools held back because their definitions changed since approved (backends with `pin`). */
  readonly quarantine: ToolQuarantine;
  /** The fleet's instances, when the gateway is one of several (see GatewayOptions.fleet). */
  readonly fleet: (() => Promise<FleetMember[]>) | undefined;
  /** Advertised name collisions seen while building the registry. */
  collisions: string[] = [];
  readonly #tools = new Map<string, RouteEntry>();
  readonly #announce: (uri: string) => void;
  readonly #aliases = new Map<string, string>();
  readonly #prompts = new Map<string, RouteEntry>();
  readonly #resources = new Map<string, RouteEntry>();
  readonly #templates = new Map<string, RouteEntry>();
  /** Progress of forwarded calls by the backend's token: the context of the client's round. */
  readonly #progressTokens = new Map<string, McpContext[]>();
  readonly #progress = new Map<Park, McpContext[]>();
  /**
   * Calls in flight per backend, by a number of their own: where a backend's sampling or
   * elicitation request belongs. An IdMap, not a Set: an entry comes and goes per call.
   */
  readonly #inflight = new Map<Backend, IdMap<InputSink>>();
  #nextCall = 0;
  /** Calls of clients that declared the tasks extension, by their park (see TaskCall). */
  readonly #taskCalls = new Map<Park, TaskCall>();
  /** The calls whose backend is waiting for an answer to an ask of theirs (see #onBackendRequest). */
  readonly #asking = new Map<InputSink, number>();
  readonly #bridge: InputBridge;
  readonly #relay: BridgeRelay | undefined;
  readonly #hooks: BackendHooks;
  #stopped: Promise<void> | undefined;
  readonly #subscribed = new Set<string>();
  readonly #logger: EngineLogger | undefined;
  #progressCounter = 0;
  #syncQueued = false;
  /** People's own links to backends that need their credential (see {@link usePersonalLinks}). */
  #personal: PersonalLinks | undefined;
  /** The virtual servers (`gateway.servers`): endpoints of their own, each a chosen set. */
  readonly virtual: VirtualServers;
  readonly #requestState: McpServerOptions['requestState'];
  readonly #configDir: string | undefined;
  /** See {@link GatewayOptions.taskAfterMs}. */
  readonly #taskAfterMs: number | null;
  readonly #taskOptions: TaskRunnerOptions | undefined;
  /** The rules on calls (`gateway.rules`), when the config has any at start. */
  readonly policy: Policy | undefined;
  /** Calls per identity per window (`gateway.quotas`), when the config has any at start. */
  readonly quotas: Quotas | undefined;
  /** The checks around every backend tool call (`gateway.hooks`), when there are any. */
  readonly hooks: Hooks | undefined;

  constructor(config: GatewayConfig, options: GatewayOptions) {
    this.config = config;
    this.events = options.events;
    this.#logger = options.logger;
    this.#configDir = options.configDir;
    this.#announce = options.announce ?? ((uri) => void this.server.resourceUpdated(uri));
    this.fleet = options.fleet;
    this.policy = Policy.wanted(config) ? new Policy(config, options.events) : undefined;
    this.quotas = config.gateway.quotas?.length
      ? new Quotas(config.gateway.quotas, options.state, options.events, config.gateway.name)
      : undefined;
    this.hooks = options.hooks?.length
      ? new Hooks(options.hooks, options.events, config.gateway.name)
      : undefined;
    this.quarantine = new ToolQuarantine(
      options.pins ?? config.gateway.pins?.path ?? options.pinsPath ?? ':memory:',
      options.events,
      config.gateway.name,
      // Another instance approved or first saw a backend's tools: its list is decided again.
      () => this.#queueSync(),
    );
    this.#bridge = new InputBridge({
      ttlMs: config.gateway.bridge.park_ttl_ms,
      maxParked: config.gateway.bridge.max_parked,
      maxParkedPerCaller: config.gateway.bridge.max_parked_per_caller,
    });
    this.#relay = options.state
      ? new BridgeRelay(this.#bridge, options.state, options.logger)
      : undefined;
    this.#requestState = options.requestState;
    this.#taskAfterMs = options.taskAfterMs === undefined ? 5000 : options.taskAfterMs;
    this.#taskOptions = options.tasks;
    this.server = new McpServer({
      ...this.#serverOptions(
        (name) => this.#tools.get(name),
        '',
        (name) =>
          this.quarantine.refusal(name, this.backends.values(), config.gateway.tool_names) ??
          notFound(name),
      ),
      name: config.gateway.name,
      title: 'MCP gateway',
      instructions: `Tools of several MCP servers behind one endpoint, named <namespace>${
        config.gateway.tool_names === 'colon' ? ':' : '__'
      }<tool>. Use search to find a tool, gateway_status to see the backends.`,
      toolAlias: (name) => this.#aliases.get(name),
    });
    this.server.addTool(gatewayStatus(this), getEvents(this), search(this), restartBackend(this));
    this.virtual = new VirtualServers({
      newServer: (name, definition, lookup) =>
        new McpServer({
          ...this.#serverOptions(lookup, name, notFound),
          name,
          title: definition.title ?? name,
          ...(definition.instructions ? { instructions: definition.instructions } : {}),
        }),
      tool: (name, key, route, entry, server) => this.#proxyTool(name, key, route, entry, server),
      events: options.events,
      source: config.gateway.name,
    });
    this.virtual.define(config.gateway.servers ?? {});
    this.#hooks = {
      changed: () => this.#queueSync(),
      notification: (backend, method, params) => this.#onNotification(backend, method, params),
      request: (backend, method, params) => this.#onBackendRequest(backend, method, params),
      event: (backend, type, status, data) => {
        this.events.record({
          event_type: type,
          status,
          source: backend.name,
          backend: backend.name,
          data: data ?? null,
        });
        this.#logBackend(backend, type, data);
      },
    };
    for (const [name, backendConfig] of Object.entries(config.mcpServers)) {
      if (backendConfig.enabled === false) continue;
      this.backends.set(name, this.#backend(name, backendConfig));
    }
  }

  /**
   * What the gateway's endpoint and each virtual server are made with: `lookup` finds a listed
   * tool's route, `server` names the endpoint for the rules ('' for the gateway's own).
   */
  #serverOptions(
    lookup: (name: string) => Route | undefined,
    server: string,
    unknownTool: (name: string) => RpcError,
  ): Omit<McpServerOptions, 'name'> {
    const config = this.config;
    return {
      ...(this.#requestState ? { requestState: this.#requestState } : {}),
      // Every proxied tool may become a task (#proxyTool), each endpoint serving its own.
      ...(this.#taskAfterMs !== null ? { tasks: this.#taskOptions ?? {} } : {}),
      version: VERSION,
      // Served before its backends are in (see cli.ts): what they may bring is declared up front.
      declare: { resources: true, prompts: true, completions: true },
      // A client sees only the tools its token's scopes let it call (backends with `scopes`),
      // and restart_backend only to tokens that may call it (gateway:admin).
      listPermittedToolsOnly:
        (config.gateway.tokens?.length ?? 0) > 0 ||
        Object.values(config.mcpServers).some((b) => b.scopes?.length),
      // With rules, each caller's list shows only the backend tools some call of theirs could
      // be allowed (gateway.rules; a call is checked by the same rules in #proxyTool).
      ...(Policy.wanted(config)
        ? {
            listFilter: (tool: Tool, auth: AuthInfo | undefined) => {
              const route = lookup(tool.name);
              const policy = this.policy;
              if (!route || !policy) return true;
              return policy.listable(route.key ?? tool.name, route, auth, server);
            },
          }
        : {}),
      errors: {
        unknownTool,
        // The legacy-range codes of the gateway and of 2025 backends, for a 2026-07-28 client.
        modernEra: modernGatewayError,
      },
      onSubscribe: (uri) => this.#subscribeUpstream(uri),
      ...(this.#logger ? { logger: this.#logger } : {}),
    };
  }

  /**
   * Calls to backends with a `credential` or `per_identity` go through each person's own link,
   * with what the vault holds for them (serve.ts turns this on with the authorization server).
   */
  usePersonalLinks(options: Omit<PersonalLinksOptions, 'events' | 'onEvent'>): PersonalLinks {
    this.#personal = new PersonalLinks({
      ...options,
      events: (backend) => ({
        notification: (method, params) => this.#onNotification(backend, method, params),
        request: (method, params) => this.#onBackendRequest(backend, method, params),
        stderr: (text) => backend.stderr.push(text),
      }),
      onEvent: (backend, type, status, data) => this.#hooks.event(backend, type, status, data),
    });
    return this.#personal;
  }

  /** People's own links, when the vault is on. */
  get personal(): PersonalLinks | undefined {
    return this.#personal;
  }

  /** Approve the held-back definitions of `backend` (one tool, or all): listed again. */
  approveTools(backend: string, by: string, tool?: string): string[] | undefined {
    const b = this.backends.get(backend);
    if (!b) return undefined;
    const approved = this.quarantine.approve(b, by, tool);
    if (approved.length > 0) this.#sync();
    return approved;
  }

  /** Where a call to `backend` goes: its shared link, or the caller's own. */
  #target(backend: Backend, ctx: McpContext): CallTarget | Promise<CallTarget> {
    if (!backend.personal) return backend;
    if (!this.#personal) {
      return Promise.reject(
        new RpcError(
          ErrorCode.InternalError,
          `Backend '${backend.name}' needs each person's own credential, and this gateway has no sign-in (gateway.authorization_server over HTTP)`,
        ),
      );
    }
    return this.#personal.target(backend, ctx.auth?.subject);
  }

  #backend(name: string, config: BackendConfig): Backend {
    // approve_tool is offered once a backend is pinned (a list without it is one tool shorter).
    if (config.pin && config.pin !== 'off' && !this.server.getTool('approve_tool')) {
      this.server.addTool(approveTool(this));
    }
    const backend = new Backend(
      name,
      config,
      this.config.gateway.backend_timeout * 1000,
      this.#hooks,
      this.#configDir,
    );
    if (backend.personal) backend.via = (ctx) => this.#target(backend, ctx);
    return backend;
  }

  /**
   * Apply a new config's backends while serving (hot reload): added ones start, removed (or
   * disabled) ones stop, changed ones restart; the others — and the calls in flight on them —
   * are not touched. Clients hear `list_changed` as tools come and go. The `gateway` section is
   * read at start only — a change there is reported in `ignored`, not applied — but for its
   * `tokens`, which the HTTP layer applies (a removed token stops working).
   */
  async reload(next: GatewayConfig): Promise<ReloadSummary> {
    const summary: ReloadSummary = { added: [], removed: [], changed: [], ignored: [] };
    // The tokens are applied by the HTTP layer (serve.ts); the rest of the section at start only.
    const {
      tokens: nextTokens,
      rules: nextRules,
      rules_default: nextDefault,
      servers: nextServers,
      ...nextRest
    } = next.gateway;
    const {
      tokens: _tokens,
      rules: _rules,
      rules_default: _default,
      servers: _servers,
      ...rest
    } = this.config.gateway;
    if (JSON.stringify(nextRest) !== JSON.stringify(rest)) summary.ignored.push('gateway');
    // The rules are applied (parseConfig compiled them); turning them on or off takes a restart
    // (the lists' filter is chosen at start).
    if (this.policy && Policy.wanted(next)) this.policy.reload(next);
    else if (Policy.wanted(next) !== Boolean(this.policy)) summary.ignored.push('gateway.rules');
    const wanted = new Map(
      Object.entries(next.mcpServers).filter(([, backend]) => backend.enabled !== false),
    );
    const stopping: Promise<void>[] = [];
    const starting: Backend[] = [];
    for (const [name, backend] of this.backends) {
      const config = wanted.get(name);
      if (config && JSON.stringify(config) === JSON.stringify(backend.config)) continue;
      (config ? summary.changed : summary.removed).push(name);
      this.backends.delete(name);
      stopping.push(backend.stop());
    }
    for (const [name, config] of wanted) {
      if (this.backends.has(name)) continue;
      if (!summary.changed.includes(name)) summary.added.push(name);
      const backend = this.#backend(name, config);
      this.backends.set(name, backend);
      starting.push(backend);
    }
    // Virtual servers follow their definitions now (a title or instructions at the next start).
    const restart = this.virtual.define(nextServers ?? {});
    for (const name of restart) summary.ignored.push(`gateway.servers.${name}.title/instructions`);
    this.config = {
      gateway: {
        ...this.config.gateway,
        servers: nextServers,
        ...(nextTokens ? { tokens: nextTokens } : {}),
        ...(this.policy && Policy.wanted(next)
          ? { rules: nextRules, rules_default: nextDefault }
          : {}),
      },
      mcpServers: next.mcpServers,
    };
    // Stopped first: a changed backend must let go of what it holds (a port, a lock) before
    // its successor starts.
    await Promise.all(stopping);
    // People's links to a backend that went or changed are closed with it.
    await Promise.all(
      [...summary.removed, ...summary.changed].map((name) => this.#personal?.closeBackend(name)),
    );
    this.#sync();
    this.events.record({
      event_type: 'gateway.reloaded',
      status: 'success',
      source: this.config.gateway.name,
      data: { ...summary },
    });
    await Promise.all(starting.map((b) => b.start()));
    this.#sync();
    return summary;
  }

  /**
   * Start one backend again now (an operator's restart: the status page, `restart_backend`).
   * Resolves with how it went — what both show; undefined when no enabled backend has that name.
   */
  async restartBackend(name: string): Promise<RestartOutcome | undefined> {
    const backend = this.backends.get(name);
    if (!backend) return undefined;
    await backend.restart();
    this.#sync();
    return {
      backend: name,
      state: backend.state,
      restarts: backend.restarts,
      last_error: backend.lastError ?? null,
    };
  }

  /** Start again every backend that was given up (SIGHUP: `systemctl reload`); their names. */
  async retryFailed(): Promise<string[]> {
    const failed = [...this.backends.values()].filter((b) => b.state === 'failed');
    await Promise.all(failed.map((b) => b.restart()));
    if (failed.length > 0) this.#sync();
    return failed.map((b) => b.name);
  }

  /** Start every backend in parallel; one that fails leaves the others serving. */
  async start(): Promise<void> {
    this.events.record({
      event_type: 'gateway.started',
      status: 'success',
      source: this.config.gateway.name,
      data: { backends: [...this.backends.keys()], version: VERSION },
    });
    await Promise.all([this.#relay?.start(), ...[...this.backends.values()].map((b) => b.start())]);
    this.#sync();
  }

  /** Stop every backend and record `gateway.stopped`; later calls wait for the first. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    await this.#relay?.close().catch(() => undefined);
    await Promise.all([
      ...[...this.backends.values()].map((b) => b.stop()),
      this.#personal?.close(),
    ]);
    this.events.record({
      event_type: 'gateway.stopped',
      status: 'success',
      source: this.config.gateway.name,
    });
    await this.events.close();
    await this.quarantine.close();
  }

  /** Calls of modern clients parked until their retry brings the input a backend asked for. */
  get parkedCalls(): number {
    return this.#bridge.parked;
  }

  /** Tasks whose backend calls run in this process now, on every endpoint (tasks extension). */
  get runningTasks(): number {
    let running = this.server.tasks?.running ?? 0;
    for (const v of this.virtual.all()) running += v.server.tasks?.running ?? 0;
    return running;
  }

  /** Every advertised tool with its backend (for search and status). */
  routes(): {
    tools: Map<string, Route>;
    prompts: Map<string, Route>;
    resources: Map<string, Route>;
  } {
    return { tools: this.#tools, prompts: this.#prompts, resources: this.#resources };
  }

  #queueSync(): void {
    if (this.#syncQueued) return;
    this.#syncQueued = true;
    queueMicrotask(() => {
      this.#syncQueued = false;
      this.#sync();
    });
  }

  /** Rebuild the registry from the running backends and bring the server's lists in line. */
  #sync(): void {
    const mode = this.config.gateway.tool_names;
    const tools = new Map<string, Route & { entry: Record<string, unknown> }>();
    const prompts = new Map<string, Route & { entry: Record<string, unknown> }>();
    const resources = new Map<string, Route & { entry: Record<string, unknown> }>();
    const templates = new Map<string, Route & { entry: Record<string, unknown> }>();
    const aliases = new Map<string, string>();
    const collisions: string[] = [];
    const claim = <T>(map: Map<string, T>, name: string, backend: Backend, value: T): string => {
      let key = name;
      if (map.has(key) || OWN_TOOLS.has(key)) {
        key = disambiguate(name, backend.name);
        collisions.push(`${name} (${backend.name}) advertised as ${key}`);
      }
      map.set(key, value);
      return key;
    };
    for (const backend of this.backends.values()) {
      const d = backend.listed;
      if (!d) continue;
      const filter = backend.config.tools;
      // A definition changed since it was approved is held back (pinned backends).
      for (const entry of this.quarantine.allowed(backend, d.tools)) {
        const original = entry.name;
        if (typeof original !== 'string') continue;
        if (filter?.allow && !filter.allow.includes(original)) continue;
        if (filter?.deny?.includes(original)) continue;
        const key = claim(tools, advertisedName(backend.namespace, original, mode), backend, {
          backend,
          original,
          entry,
        });
        // The first backend to claim `ns:tool` keeps it, as it keeps `ns__tool`.
        const alias = `${backend.namespace}:${original}`;
        if (backend.namespace !== '' && !aliases.has(alias)) aliases.set(alias, key);
      }
      for (const entry of d.prompts) {
        if (typeof entry.name !== 'string') continue;
        claim(prompts, advertisedName(backend.namespace, entry.name, mode), backend, {
          backend,
          original: entry.name,
          entry,
        });
      }
      for (const entry of d.resources) {
        if (typeof entry.uri !== 'string') continue;
        // A URI two backends share is rewritten for the second: gateway://<ns>/<uri>.
        const uri = resources.has(entry.uri)
          ? gatewayUri(backend.namespace || backend.name, entry.uri)
          : entry.uri;
        resources.set(uri, { backend, original: entry.uri, entry });
      }
      for (const entry of d.templates) {
        if (typeof entry.uriTemplate !== 'string') continue;
        // A template two backends share is rewritten for the second as its URIs are (several
        // hosts of one server behind the gateway each keep theirs reachable).
        const template = templates.has(entry.uriTemplate)
          ? gatewayTemplate(backend.namespace || backend.name, entry.uriTemplate)
          : entry.uriTemplate;
        if (templates.has(template)) continue;
        templates.set(template, { backend, original: entry.uriTemplate, entry });
      }
    }
    // Recorded once, when a collision first appears, not on every rebuild.
    const fresh = collisions.filter((c) => !this.collisions.includes(c));
    this.collisions = collisions;
    for (const c of fresh) {
      this.events.record({
        event_type: 'registry.collision',
        status: 'failure',
        source: this.config.gateway.name,
        data: { detail: c },
      });
    }
    this.#aliases.clear();
    for (const [k, v] of aliases) this.#aliases.set(k, v);
    // A tool's facts (its annotations) may have changed: the rules plan their decisions anew.
    this.policy?.toolsChanged();
    this.server.setCacheHints(listHints(this.backends.values()));
    applyChanges(
      this.#tools,
      tools,
      (name) => this.server.removeTool(name),
      (name, r) => this.server.addTool(this.#proxyTool(name, name, r, r.entry, '')),
    );
    applyChanges(
      this.#prompts,
      prompts,
      (name) => this.server.removePrompt(name),
      (name, r) => this.server.addPrompt(proxyPrompt(name, r)),
    );
    applyChanges(
      this.#resources,
      resources,
      (uri) => this.server.removeResource(uri),
      (uri, r) => this.server.addResource(proxyResource(uri, r)),
    );
    applyChanges(
      this.#templates,
      templates,
      (t) => this.server.removeResourceTemplate(t),
      (t, r) => this.server.addResourceTemplate(proxyTemplate(t, r)),
    );
    // The virtual servers draw on the registry just made.
    this.virtual.sync({
      tools: this.#tools,
      prompts: this.#prompts,
      resources: this.#resources,
      templates: this.#templates,
    });
  }

  /**
   * A backend tool as `name` on an endpoint: `key` is the gateway's name of it (what rules,
   * quotas and events know it by), `entry` its listed definition there (a virtual server's
   * overrides applied), `server` the virtual server ('' for the gateway's own endpoint).
   */
  #proxyTool(
    name: string,
    key: string,
    route: Route,
    entry: Record<string, unknown>,
    server: string,
  ): Tool {
    return {
      name,
      // The backend's `x-mcp-header` declarations hold here too: a modern HTTP client's
      // `Mcp-Param-*` headers are checked against the arguments before the call is forwarded.
      ...headerParamsFor(name, entry.inputSchema),
      inputSchema: undefined,
      outputSchema: undefined,
      requiredScopes: route.backend.config.scopes ?? [],
      raw: true,
      // A task for a client that declared the extension, once the call has run taskAfterMs
      // (#forwardTask); the handler says when.
      ...(this.#taskAfterMs !== null
        ? { taskSupport: 'optional' as const, taskStart: 'handler' as const }
        : {}),
      listEntry: { ...entry, name },
      handler: (args, ctx) => {
        // The rule that let the call through, for its event (undefined: no rules).
        let rule: string | null | undefined;
        if (this.policy) {
          const decision = this.policy.decide(key, route, args, ctx.auth, server);
          if (!decision.allowed) throw this.policy.refusal(key, route, ctx.auth, server, decision);
          rule = decision.rule;
        }
        // Counted after the rules (a refused call spends no quota), then the hooks.
        if (this.quotas || this.hooks) return this.#governed(route, key, args, ctx, server, rule);
        return this.#forwardToolCall(route, key, args, ctx, rule);
      },
    };
  }

  /** A call the quotas count and the hooks wrap (the rules allowed it). */
  async #governed(
    route: Route,
    name: string,
    args: Record<string, unknown>,
    ctx: McpContext,
    server: string,
    rule: string | null | undefined,
  ): Promise<CallToolResult> {
    if (this.quotas) {
      const over = await this.quotas.charge(name, route.backend.name, ctx.auth, server);
      if (over) throw over;
    }
    if (!this.hooks) return this.#forwardToolCall(route, name, args, ctx, rule);
    const call = {
      tool: name,
      backend: route.backend.name,
      original: route.original,
      server,
      subject: ctx.auth?.subject ?? '',
      args,
    };
    return this.hooks.around(call, (sent) => this.#forwardToolCall(route, name, sent, ctx, rule));
  }

  /** `rule`: the rule that allowed the call (its event names it); undefined without rules. */
  #forwardToolCall(
    route: Route,
    name: string,
    args: Record<string, unknown>,
    ctx: McpContext,
    rule?: string | null,
  ): Promise<CallToolResult> {
    if (ctx.session.era === 'modern') {
      if (this.#taskAfterMs !== null && ctx.declaresExtension(TASKS_EXTENSION)) {
        return this.#forwardTask(route, name, args, ctx, rule);
      }
      return this.#forwardModern(route, name, args, ctx, rule);
    }
    // A 2025 client's call is the backend call itself: no wrapper promise on the hot path.
    return this.#forward(route, name, args, ctx, undefined, rule);
  }

  /** A 2026-07-28 client's call: parked while the backend asks for input (see InputBridge). */
  async #forwardModern(
    route: Route,
    name: string,
    args: Record<string, unknown>,
    ctx: McpContext,
    rule: string | null | undefined,
  ): Promise<CallToolResult> {
    // A retry of a call parked for input: the same backend call goes on, with the answers.
    const parked = this.#bridge.resume(ctx);
    if (parked instanceof Park) {
      this.#progress.get(parked)?.splice(0, 1, ctx);
      return (await this.#bridge.round(parked, ctx)) as CallToolResult;
    }
    if (parked) {
      // Held by another instance of the fleet: it gets the answers and says what next. Its
      // step takes at most the backend's deadline after the TTL (a call asking again parks).
      if (!this.#relay) throw noLongerWaiting();
      const ttl = this.#bridge.ttlMs;
      const waitMs = ttl + (route.backend.timeoutMs || ttl);
      return (await this.#relay.round(parked, ctx, waitMs)) as CallToolResult;
    }
    const refused = refusedUrls(ctx);
    if (refused) return refused;
    const park = this.#bridge.open(ctx.caller);
    this.#forward(route, name, args, ctx, park, rule).then(
      (value) => park.settle({ ok: true, value }),
      (error: unknown) => park.settle({ ok: false, error }),
    );
    try {
      return (await this.#bridge.round(park, ctx)) as CallToolResult;
    } catch (err) {
      // A 2025 backend's URL elicitation (-32042): input requests the client can answer.
      const urls = urlElicitationsOf(err);
      if (urls) return askForUrls(err, urls, ctx);
      throw err;
    }
  }

  /**
   * A call of a client that declared the tasks extension (2026-07-28): a modern call (input
   * rounds through the bridge) that becomes a task once the backend answers with one or once it
   * has run `taskAfterMs`, the backend call going on underneath (see TaskCall).
   */
  async #forwardTask(
    route: Route,
    name: string,
    args: Record<string, unknown>,
    ctx: McpContext,
    rule: string | null | undefined,
  ): Promise<CallToolResult> {
    const resumed = this.#bridge.resume(ctx);
    if (resumed instanceof Park) {
      this.#taskCalls.get(resumed)?.attach(ctx);
      this.#progress.get(resumed)?.splice(0, 1, ctx);
      return (await this.#bridge.round(resumed, ctx)) as CallToolResult;
    }
    // Held by another instance of the fleet (or no longer): the modern path relays or refuses.
    if (resumed) return this.#forwardModern(route, name, args, ctx, rule);
    const refused = refusedUrls(ctx);
    if (refused) return refused;
    const park = this.#bridge.open(ctx.caller);
    const call = new TaskCall(park, ctx, this.#taskAfterMs ?? 0);
    this.#taskCalls.set(park, call);
    this.#forward(route, name, args, ctx, park, rule, {
      sink: call.sink,
      signal: call.signal,
      // A backend task: ours at once, its status messages ours.
      onCreated: () => call.escalate(),
      onTaskStatus: (task) => {
        if (task.statusMessage !== undefined) call.ctx.progress(0, undefined, task.statusMessage);
      },
    })
      .then(
        (value) => park.settle({ ok: true, value }),
        (error: unknown) => park.settle({ ok: false, error }),
      )
      .finally(() => {
        call.done();
        this.#taskCalls.delete(park);
      });
    try {
      return (await this.#bridge.round(park, ctx)) as CallToolResult;
    } catch (err) {
      const urls = urlElicitationsOf(err);
      if (urls) return askForUrls(err, urls, ctx);
      throw err;
    }
  }

  /**
   * The backend call of a client's `tools/call`, recorded in the event log. `task`: a call that
   * may become a task — its input asks go to `sink`, its cancellation is `signal`, and the
   * backend's progress is always asked for (the task's status messages).
   */
  async #forward(
    route: Route,
    name: string,
    args: Record<string, unknown>,
    ctx: McpContext,
    park: Park | undefined,
    rule: string | null | undefined,
    task?: {
      sink: InputSink;
      signal: AbortSignal;
      onCreated: () => Promise<void>;
      onTaskStatus: (task: TaskInfo) => void;
    },
  ): Promise<CallToolResult> {
    const { backend, original } = route;
    const started = performance.now();
    const sink = task?.sink ?? park ?? clientSink(ctx);
    const clientToken = ctx.meta?.progressToken;
    let token: string | undefined;
    if (
      task ||
      typeof clientToken === 'string' ||
      typeof clientToken === 'number' ||
      typeof clientToken === 'bigint'
    ) {
      // Backend tokens are ours, unique per call: two clients may both use token 1 (and a
      // client's token beyond 2^53, a bigint, is echoed to it digit for digit by ctx.progress).
      token = `gw-${++this.#progressCounter}`;
      // The context progress goes to: a parked call's is the one of the client's latest round.
      const progressTo = [ctx];
      this.#progressTokens.set(token, progressTo);
      if (park) this.#progress.set(park, progressTo);
    }
    const params: Record<string, unknown> = { name: original, arguments: args };
    // The client's own envelope (2026-07-28 `_meta` keys) is not the backend's business: the
    // backend link states its own version and capabilities; `traceparent` and the like pass.
    const meta = ctx.meta ? withoutReservedMeta(ctx.meta) : undefined;
    if (meta) delete meta.progressToken;
    if (token || meta) params._meta = { ...meta, ...(token ? { progressToken: token } : {}) };
    let sinks = this.#inflight.get(backend);
    if (!sinks) {
      sinks = new IdMap();
      this.#inflight.set(backend, sinks);
    }
    const slot = this.#nextCall++;
    sinks.set(slot, sink);
    try {
      const target = backend.personal ? await backend.via(ctx) : backend;
      const result = await callThrough<CallToolResult>(
        target,
        'tools/call',
        params as JsonRpcParams,
        sink,
        // The cancellation reaches the backend call through a listener (no AbortController per
        // call: they cost ~6 % of a forwarded call): a 2025 client's request's, or the park's of
        // a modern call, which outlives the client request it started with.
        task
          ? {
              signal: task.signal,
              // Declared to the backend as the client declared it; a task it answers with is
              // waited out by the link (polled, its asks relayed), ours from its creation on.
              task: { declare: true, onCreated: task.onCreated, onTaskStatus: task.onTaskStatus },
            }
          : { cancelledBy: park ?? ctx },
      );
      this.#recordCall(backend, name, started, rule, 'success');
      return result;
    } catch (err) {
      this.#recordCall(backend, name, started, rule, 'failure', err);
      throw clientError(backend, err);
    } finally {
      sinks.delete(slot);
      if (token) this.#progressTokens.delete(token);
      if (park) this.#progress.delete(park);
    }
  }

  #recordCall(
    backend: Backend,
    tool: string,
    started: number,
    rule: string | null | undefined,
    status: 'success' | 'failure',
    err?: unknown,
  ) {
    const duration = Math.round((performance.now() - started) * 100) / 100;
    const error = err === undefined ? undefined : err instanceof Error ? err.message : String(err);
    // The rule that allowed the call: kept with the call's own row, not in an aggregate.
    const data = error === undefined ? null : rule === undefined ? { error } : { error, rule };
    this.events.note({
      event_type: 'gateway.tool_call',
      status,
      source: this.config.gateway.name,
      backend: backend.name,
      tool,
      duration_ms: duration,
      data,
      ...(rule !== undefined && error === undefined ? { detail: { rule } } : {}),
    });
    this.#logger?.debug(
      {
        method: 'tools/call',
        tool,
        backend: backend.name,
        duration_ms: duration,
        outcome: status,
        error,
      },
      'call',
    );
  }

  /**
   * A backend's trouble in the log, where an operator looks first (the event log keeps the
   * details): a failure or restart at warn with the reason (exit code or signal) and the last
   * stderr lines, a crash loop — the gateway gave up on it — at error.
   */
  #logBackend(backend: Backend, type: string, data: Record<string, unknown> | undefined): void {
    const logger = this.#logger;
    if (!logger) return;
    // The stderr lines the failure event carries: the cause is rarely the last line.
    const stderr = Array.isArray(data?.stderr) ? (data.stderr as string[]) : [];
    const fields = {
      backend: backend.name,
      state: backend.state,
      ...(stderr.length > 0 ? { stderr } : {}),
    };
    if (type === 'backend.failed') {
      logger.warn(
        { ...fields, error: data?.error },
        `backend '${backend.name}' failed: ${String(data?.error)}`,
      );
    } else if (type === 'backend.crash_loop') {
      logger.error(
        { ...fields, restarts: data?.restarts, windowMs: data?.windowMs },
        `backend '${backend.name}' keeps crashing: given up after ${String(data?.restarts)} restarts`,
      );
    } else if (type === 'backend.restarted') {
      logger.warn({ ...fields, restarts: backend.restarts }, `backend '${backend.name}' restarted`);
    }
  }

  async #subscribeUpstream(uri: string): Promise<void> {
    const route = this.#resources.get(uri);
    if (!route || this.#subscribed.has(uri) || !route.backend.discovered?.capabilities.resources)
      return;
    this.#subscribed.add(uri);
    // Either era: resources/subscribe on a 2025 link, the link's subscriptions/listen on a modern one.
    await route.backend.subscribe(route.original).catch(() => this.#subscribed.delete(uri));
  }

  /**
   * A backend asks for sampling or elicitation mid-call. A 2025 backend's request does not say
   * which call it belongs to, so it goes to the only call in flight on that backend that is not
   * already waiting for an answer of its own: a call whose ask is open (a modern client's call
   * parked for its retry, or a 2025 client still answering) is the backend waiting, not asking
   * again, so it does not block everyone else's asks until it is answered or expires. With no
   * such call, or several, it is refused rather than sent to the wrong client.
   */
  async #onBackendRequest(
    backend: Backend,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const sink = this.#askerOf(this.#inflight.get(backend));
    if (!sink) {
      throw new RpcError(
        ErrorCode.InternalError,
        `The gateway cannot tell which client '${method}' is for`,
        { callsInFlight: this.#inflight.get(backend)?.size ?? 0 },
      );
    }
    this.#asking.set(sink, (this.#asking.get(sink) ?? 0) + 1);
    try {
      return await sink.ask(method, params ?? {});
    } finally {
      const left = (this.#asking.get(sink) ?? 1) - 1;
      if (left > 0) this.#asking.set(sink, left);
      else this.#asking.delete(sink);
    }
  }

  /** The call a backend's ask belongs to, when only one can be its (see #onBackendRequest). */
  #askerOf(inflight: IdMap<InputSink> | undefined): InputSink | undefined {
    if (!inflight || inflight.size === 0) return undefined;
    const calls = inflight.values();
    if (calls.length === 1) return calls[0];
    let found: InputSink | undefined;
    for (const call of calls) {
      if (this.#asking.has(call)) continue;
      if (found) return undefined;
      found = call;
    }
    return found;
  }

  #onNotification(
    backend: Backend,
    method: string,
    params: Record<string, unknown> | undefined,
  ): void {
    if (method === 'notifications/progress') {
      const ctx = this.#progressTokens.get(String(params?.progressToken))?.[0];
      if (ctx && typeof params?.progress === 'number') {
        ctx.progress(
          params.progress,
          typeof params.total === 'number' ? params.total : undefined,
          typeof params.message === 'string' ? params.message : undefined,
        );
      }
      return;
    }
    if (method === 'notifications/message') {
      const level = (params?.level as LoggingLevel) ?? 'info';
      const logger = typeof params?.logger === 'string' ? params.logger : backend.name;
      // Only to the clients that may use the backend: its log lines are its activity.
      const scopes = backend.config.scopes;
      const to = scopes?.length
        ? (session: McpSession) => holdsScopes(session.subscriber, scopes)
        : undefined;
      this.server.sendLogMessage(level, params?.data, logger, to);
      // And to the virtual servers that list something of the backend's.
      for (const v of this.virtual.all()) {
        if (v.uses(backend)) v.server.sendLogMessage(level, params?.data, logger, to);
      }
      return;
    }
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      for (const [uri, route] of this.#resources) {
        if (route.backend !== backend || route.original !== params.uri) continue;
        this.#announce(uri);
        for (const v of this.virtual.all()) if (v.lists(uri)) void v.server.resourceUpdated(uri);
      }
    }
  }
}

/**
 * `headerParams` of a backend tool, when its schema declares any. Invalid declarations declare
 * nothing here: a modern client leaves such a tool out of its list (spec `server/tools`
 * §x-mcp-header), and a 2025 client never sends the headers.
 */
function headerParamsFor(name: string, schema: unknown): Pick<Tool, 'headerParams'> {
  try {
    const headerParams = headerParamsOf(name, schema);
    return headerParams.length > 0 ? { headerParams } : {};
  } catch {
    return {};
  }
}
