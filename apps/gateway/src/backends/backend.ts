import {
  type CacheableMethod,
  type CacheHint,
  type CallOptions,
  type JsonRpcParams,
  type McpClient,
  type McpContext,
  McpErrorCode,
  type McpRequestOptions,
  RpcError,
  resolveCommand,
} from '@mcpkit/protocol';
import {
  type BackendConfig,
  DEFAULT_RESTART,
  isPersonal,
  isRegistry,
  isStdio,
  type RestartPolicy,
  type RunnableBackendConfig,
} from '../config.js';
import { takePrestarted } from '../prestart.js';
import { type RegistryOrigin, resolveRegistryBackend } from '../registry/install.js';
import { RegistryEntryError } from '../registry/server-json.js';
import type { CallTarget } from '../vault/personal.js';
import { type BackendLink, type LinkEvents, openLink, RingBuffer } from './link.js';
import { stdioSpec } from './spawn.js';

/**
 * Where a backend is in its life: `backoff` waits to restart after a crash; `failed` gave up
 * (crash loop, or a start that could not succeed).
 */
export type BackendState = 'stopped' | 'starting' | 'running' | 'backoff' | 'failed';

type Entry = Record<string, unknown> & { name?: string; uri?: string; uriTemplate?: string };

export interface Discovered {
  capabilities: Record<string, unknown>;
  /** The cache hints of its lists (a modern backend's `ttlMs`/`cacheScope`; none from a 2025 one). */
  hints: Partial<Record<CacheableMethod, CacheHint>>;
  serverInfo: Record<string, unknown>;
  tools: Entry[];
  resources: Entry[];
  templates: Entry[];
  prompts: Entry[];
}

export interface BackendHooks {
  /** The backend's advertised set changed (started, restarted, list_changed, stopped). */
  changed(backend: Backend): void;
  notification(backend: Backend, method: string, params: Record<string, unknown> | undefined): void;
  /** A request from the backend to route to a client (sampling, elicitation). */
  request(
    backend: Backend,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown>;
  event(
    backend: Backend,
    type: string,
    status: 'success' | 'failure' | 'pending',
    data?: Record<string, unknown>,
  ): void;
}

const LATENCY_SAMPLES = 512;
/** The stderr lines a failure carries (event and log line). */
export const FAILURE_STDERR_LINES = 20;
const LISTS = [
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
] as const satisfies CacheableMethod[];

/**
 * One configured backend and its supervisor: stopped → starting → running → backoff/failed.
 * A crash fails the calls in flight at once; restarts back off exponentially with jitter, reset
 * after sustained uptime, and stop after `maxRestarts` within `windowMs` (crash loop).
 */
export class Backend {
  /** Its key in the config's `backends`. */
  readonly name: string;
  /** The prefix of its tools and prompts (default: its name; `''`: none, `namespace: false`). */
  readonly namespace: string;
  /** Its configuration, as declared. */
  readonly config: BackendConfig;
  /**
   * What it runs as: its config, or — declared by a registry entry — the stdio or HTTP backend
   * the entry resolved to (undefined until its first start has looked it up).
   */
  runnable: RunnableBackendConfig | undefined;
  /** The registry entry it was installed from (a `registry` or `server_json` backend). */
  origin: RegistryOrigin | undefined;
  /** Deadline of each call forwarded to it, in ms. */
  readonly timeoutMs: number;
  /** Its calls go through each person's own link (a `credential`, or `per_identity`). */
  readonly personal: boolean;
  /**
   * Where a client's request to it goes: this backend's own link, or — for a personal backend,
   * once the gateway sets it — the caller's (prompts, resources and completions as well as tools).
   */
  via: (ctx: McpContext) => CallTarget | Promise<CallTarget> = () => this;
  /** The last lines it wrote to stderr (stdio backends). */
  readonly stderr = new RingBuffer();
  /** Where it is in its life. */
  state: BackendState = 'stopped';
  /** What it offered when it last started: capabilities, tools, resources, prompts. */
  discovered: Discovered | undefined;
  /** What it offered before it crashed, while it is being restarted. */
  #lastGood: Discovered | undefined;
  /** When the restart waiting in backoff is due (ms since the epoch). */
  #restartAt: number | undefined;
  /** Why it last failed or stopped, if it did. */
  lastError: string | undefined;
  /** Restarts so far (after crashes, and asked for: {@link restart}). */
  restarts = 0;
  /**
   * Its first start is over: it ran, or failed (and is restarting or given up). Until then a
   * gateway is not ready; after, one backend down does not hold the others back.
   */
  settled = false;
  /** When it last reached `running` (ms since the epoch). */
  startedAt: number | undefined;
  /** Calls forwarded to it. */
  calls = 0;
  /** Calls that failed (errors, timeouts, crashes). */
  errors = 0;
  /** Lines on its stdout that were not JSON-RPC. */
  noise = 0;
  /** The last LATENCY_SAMPLES call latencies, a ring: O(1) per call (no array shift). */
  readonly #latencies = new Float64Array(LATENCY_SAMPLES);
  #latencyCount = 0;
  readonly #policy: RestartPolicy;
  readonly #hooks: BackendHooks;
  #link: BackendLink | undefined;
  #restartTimes: number[] = [];
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopping = false;
  #generation = 0;
  /** Where a relative `server_json` is read from (the config file's directory). */
  readonly #configDir: string;

  constructor(
    name: string,
    config: BackendConfig,
    defaultTimeoutMs: number,
    hooks: BackendHooks,
    configDir: string = process.cwd(),
  ) {
    this.name = name;
    this.namespace = config.namespace === false ? '' : (config.namespace ?? name);
    this.config = config;
    this.runnable = isRegistry(config) ? undefined : config;
    this.#configDir = configDir;
    this.timeoutMs = config.timeoutMs ?? defaultTimeoutMs;
    this.personal = isPersonal(config);
    this.#policy = config.restart ?? DEFAULT_RESTART;
    this.#hooks = hooks;
  }

  /**
   * What the gateway advertises for it: what it offers while running, and what it offered before
   * it crashed while it is restarted (its tools stay listed, and a call gets "restarting, retry
   * in ~N s" rather than "tool not found"); nothing once it is stopped or has given up.
   */
  get listed(): Discovered | undefined {
    if (this.state === 'running') return this.discovered;
    if (this.state === 'backoff' || this.state === 'starting') return this.#lastGood;
    return undefined;
  }

  /** The process id of a running stdio backend. */
  get pid(): number | undefined {
    return this.#link?.pid;
  }

  /** Call latency in ms over the last 512 calls; null before the first. */
  latencyPercentiles(): { p50: number; p95: number; p99: number } | null {
    if (this.#latencyCount === 0) return null;
    const sorted = this.#latencies.slice(0, Math.min(this.#latencyCount, LATENCY_SAMPLES)).sort();
    const at = (q: number) =>
      Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) /
      10;
    return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
  }

  /** Start (or restart) the backend; resolves when it runs or has failed. Never throws. */
  async start(): Promise<void> {
    this.#stopping = false;
    const generation = ++this.#generation;
    this.state = 'starting';
    const config = this.runnable ?? (await this.#resolve(generation));
    if (!config || generation !== this.#generation || this.#stopping) return;
    // A program that is not there fails the same way every time: said once, in one line, and
    // not retried (a reload or a restart asks again).
    const missing = this.#missingCommand(config);
    if (missing) {
      this.#failed(generation, missing, { permanent: true });
      return;
    }
    const events: LinkEvents = {
      notification: (method, params) => this.#onNotification(generation, method, params),
      request: (method, params) => this.#hooks.request(this, method, params),
      noise: (text) => {
        this.noise++;
        // Reported, rate-limited: a chatty backend must not flood the event log.
        if (this.noise <= 20 || this.noise % 1000 === 0) {
          this.#hooks.event(this, 'backend.stdout_noise', 'failure', {
            line: text.slice(0, 200),
            count: this.noise,
          });
        }
      },
      stderr: (text) => this.stderr.push(text),
    };
    let opened: ReturnType<typeof openLink>;
    try {
      // The child the CLI spawned for this backend before the gateway loaded, if it is the one
      // this config asks for (first start only: takePrestarted hands each out once).
      const early = isStdio(config)
        ? await takePrestarted(this.name, stdioSpec(config))
        : undefined;
      if (generation !== this.#generation || this.#stopping) {
        // Stopped or started again while another early child was being stopped.
        void early?.process.close();
        return;
      }
      opened = openLink(config, events, early);
    } catch (err) {
      this.#failed(generation, `could not start: ${(err as Error).message}`);
      return;
    }
    const link = opened.link;
    this.#link = link;
    void link.exited.then((exit) => {
      if (generation !== this.#generation || this.#stopping) return;
      const why = exit.error ?? `exited with ${exit.signal ?? `code ${exit.code}`}`;
      this.#failed(generation, why, {
        clean: exit.code === 0 && exit.signal === null && !exit.error,
      });
    });
    try {
      const init = await opened.connect(this.timeoutMs);
      // A 2025 session sends every log message until told otherwise; a modern request only
      // those its envelope's level admits, none without one. The gateway wants them all and
      // filters per client (McpServer.sendLogMessage).
      if (link.client.era === 'modern') await link.client.setLoggingLevel('debug');
      this.discovered = await this.#discover(link.client, init.capabilities, {
        ...init.serverInfo,
      });
    } catch (err) {
      if (generation === this.#generation && !this.#stopping) {
        this.#failed(
          generation,
          `initialize failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      return;
    }
    if (generation !== this.#generation || this.#stopping) return;
    this.state = 'running';
    this.settled = true;
    this.startedAt = Date.now();
    this.lastError = undefined;
    this.#hooks.event(
      this,
      this.restarts > 0 ? 'backend.restarted' : 'backend.started',
      'success',
      {
        pid: link.pid,
        tools: this.discovered.tools.length,
      },
    );
    this.#hooks.changed(this);
  }

  async #discover(
    client: McpClient,
    capabilities: Record<string, unknown>,
    serverInfo: Record<string, unknown>,
  ): Promise<Discovered> {
    const options: CallOptions = { timeoutMs: this.timeoutMs };
    const has = (k: string) => capabilities[k] !== undefined;
    const [tools, resources, templates, prompts] = await Promise.all([
      has('tools') ? client.listTools(options) : [],
      has('resources') ? client.listResources(options) : [],
      // Templates are optional even for servers with resources: a -32601 means none.
      has('resources') ? client.listResourceTemplates(options).catch(() => []) : [],
      has('prompts') ? client.listPrompts(options) : [],
    ]);
    const hints: Partial<Record<CacheableMethod, CacheHint>> = {};
    for (const method of LISTS) {
      const hint = client.cacheHint(method);
      if (hint) hints[method] = hint;
    }
    return { capabilities, serverInfo, hints, tools, resources, templates, prompts } as Discovered;
  }

  #onNotification(
    generation: number,
    method: string,
    params: Record<string, unknown> | undefined,
  ): void {
    if (generation !== this.#generation) return;
    if (method.endsWith('/list_changed') && this.state === 'running' && this.#link) {
      const link = this.#link;
      const caps = this.discovered?.capabilities ?? {};
      void this.#discover(link.client, caps, this.discovered?.serverInfo ?? {})
        .then((d) => {
          if (generation !== this.#generation) return;
          this.discovered = d;
          this.#hooks.changed(this);
        })
        .catch((err: unknown) => {
          this.#hooks.event(this, 'backend.discovery_failed', 'failure', { error: String(err) });
        });
      return;
    }
    this.#hooks.notification(this, method, params);
  }

  /**
   * A registry backend's entry looked up and turned into what it runs as; undefined when that
   * failed (recorded as a failure: permanent for what an operator must change — a deleted or
   * unknown entry, a missing input — else retried with the restart backoff).
   */
  async #resolve(generation: number): Promise<RunnableBackendConfig | undefined> {
    if (!isRegistry(this.config)) return this.config;
    try {
      const { config, origin } = await resolveRegistryBackend(this.config, {
        configDir: this.#configDir,
        timeoutMs: this.timeoutMs,
      });
      if (generation !== this.#generation || this.#stopping) return undefined;
      this.runnable = config;
      this.origin = origin;
      this.#hooks.event(this, 'backend.installed', 'success', {
        entry: `${origin.name}@${origin.version}`,
        source: origin.source,
        via: origin.via,
        status: origin.status,
      });
      return config;
    } catch (err) {
      const permanent = RegistryEntryError.is(err);
      this.#failed(generation, (err as Error).message, { permanent });
      return undefined;
    }
  }

  /** Why a stdio backend's command cannot be run (not on its PATH), or undefined. */
  #missingCommand(config: RunnableBackendConfig): string | undefined {
    if (!isStdio(config)) return undefined;
    const spec = stdioSpec(config);
    // StdioClientTransport's default environment takes the gateway's PATH.
    const path = spec.env.PATH ?? process.env.PATH ?? '';
    if (resolveCommand(spec.command, path, spec.cwd ?? process.cwd()) !== undefined)
      return undefined;
    return `command not found: ${spec.command} (PATH=${path})`;
  }

  #failed(
    generation: number,
    why: string,
    { clean = false, permanent = false }: { clean?: boolean; permanent?: boolean } = {},
  ): void {
    if (generation !== this.#generation) return;
    this.#generation++;
    this.settled = true;
    const link = this.#link;
    this.#link = undefined;
    void link?.close();
    const wasRunning = this.state === 'running';
    const uptime = this.startedAt ? Date.now() - this.startedAt : 0;
    this.lastError = why;
    if (this.discovered) this.#lastGood = this.discovered;
    this.discovered = undefined;
    this.startedAt = undefined;
    // The lines that explain it: npm, for one, prints the cause ten lines above its last.
    this.#hooks.event(this, 'backend.failed', 'failure', {
      error: why,
      stderr: this.stderr.tail(FAILURE_STDERR_LINES),
    });
    const policy = this.#policy;
    // on-failure restarts what crashed; a backend that exited 0 meant to stop.
    if (
      permanent ||
      this.#stopping ||
      policy.policy === 'never' ||
      (policy.policy === 'on-failure' && clean)
    ) {
      this.#gaveUp(wasRunning);
      return;
    }
    if (uptime >= policy.resetAfterMs) this.#attempt = 0;
    const now = Date.now();
    this.#restartTimes = this.#restartTimes.filter((t) => now - t < policy.windowMs);
    if (this.#restartTimes.length >= policy.maxRestarts) {
      this.#hooks.event(this, 'backend.crash_loop', 'failure', {
        restarts: this.#restartTimes.length,
        windowMs: policy.windowMs,
      });
      this.#gaveUp(wasRunning);
      return;
    }
    const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** this.#attempt);
    // Full jitter: backends that crashed together do not restart together.
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    this.#attempt++;
    this.state = 'backoff';
    this.#restartAt = Date.now() + delay;
    // Its tools stay listed while it restarts (see `listed`): the registry changes only if
    // what it offered changes.
    if (wasRunning) this.#hooks.changed(this);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#restartAt = undefined;
      this.#restartTimes.push(Date.now());
      this.restarts++;
      void this.start();
    }, delay);
    this.#timer.unref();
  }

  /** No restart: it stays failed and what it offered is withdrawn. */
  #gaveUp(wasRunning: boolean): void {
    this.state = 'failed';
    const listedBefore = wasRunning || this.#lastGood !== undefined;
    this.#lastGood = undefined;
    if (listedBefore) this.#hooks.changed(this);
  }

  /** The error of a call it cannot take now, saying why and, while it restarts, when to retry. */
  #unavailable(): RpcError {
    const restarting = this.state === 'backoff' || this.state === 'starting';
    const retryInMs = restarting
      ? Math.max(0, (this.#restartAt ?? Date.now()) - Date.now()) + 500
      : undefined;
    const message =
      retryInMs === undefined
        ? `Backend '${this.name}' is ${this.state}`
        : `Backend '${this.name}' is restarting, retry in ~${Math.max(1, Math.round(retryInMs / 1000))} s`;
    return new RpcError(McpErrorCode.ServerError, message, {
      backend: this.name,
      state: this.state,
      ...(retryInMs === undefined ? {} : { retryInMs }),
      lastError: this.lastError,
    });
  }

  /** Forward one request; fails at once when the backend is not running. */
  call<R = unknown>(
    method: string,
    params: JsonRpcParams | undefined,
    options: McpRequestOptions = {},
  ): Promise<R> {
    const link = this.#link;
    if (!link || this.state !== 'running') return Promise.reject(this.#unavailable());
    return this.callOn(link.client, method, params, options);
  }

  /**
   * Forward one request over another link to the same server — a person's own (see
   * vault/personal.ts) — counted and timed as this backend's.
   */
  callOn<R = unknown>(
    client: McpClient,
    method: string,
    params: JsonRpcParams | undefined,
    options: McpRequestOptions = {},
  ): Promise<R> {
    this.calls++;
    const started = performance.now();
    // One reaction on the link's promise, not an async wrapper around it: every forwarded call
    // takes this path.
    let sent: Promise<R>;
    try {
      sent = client.request<R>(method, params, { timeoutMs: this.timeoutMs, ...options });
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then(
      (result) => {
        this.#latencies[this.#latencyCount++ % LATENCY_SAMPLES] = performance.now() - started;
        return result;
      },
      (err: unknown) => {
        this.errors++;
        this.#latencies[this.#latencyCount++ % LATENCY_SAMPLES] = performance.now() - started;
        throw err;
      },
    );
  }

  /** Watch a resource of the backend (`resources/subscribe`, or a modern link's listen). */
  async subscribe(uri: string): Promise<void> {
    const link = this.#link;
    if (!link || this.state !== 'running') throw this.#unavailable();
    await link.client.subscribe(uri, { timeoutMs: this.timeoutMs });
  }

  /** The MCP era its link speaks (`modern` = 2026-07-28) and the version, once running. */
  get era(): { era: 'legacy' | 'modern'; version: string } | undefined {
    const client = this.#link?.client;
    const era = client?.era;
    const version = client?.protocolVersion;
    return era && version ? { era, version } : undefined;
  }

  /** Send the backend a notification; dropped when it is not running. */
  notify(method: string, params?: JsonRpcParams): void {
    try {
      this.#link?.client.notify(method, params);
    } catch {
      // not running: nothing to tell
    }
  }

  /**
   * Start it again now, whatever its state — a given-up backend (SIGHUP, an operator), or a
   * running one: the process is stopped first (it may hold a port or a lock), its tools stay
   * listed meanwhile, and the crash-loop count starts over. Resolves when it runs or has failed;
   * never throws. Nothing happens to a backend that was stopped for good (removed from the config).
   */
  async restart(): Promise<void> {
    if (this.#stopping) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#restartAt = undefined;
    this.#restartTimes = [];
    this.#attempt = 0;
    // Events of the old link are ignored from here (its exit is not a crash).
    this.#generation++;
    const link = this.#link;
    this.#link = undefined;
    if (this.discovered) this.#lastGood = this.discovered;
    this.discovered = undefined;
    this.startedAt = undefined;
    this.state = 'starting';
    this.restarts++;
    // Asked for by an operator (or SIGHUP): a registry entry is looked up again — a withdrawn
    // or new version is seen.
    if (isRegistry(this.config)) this.runnable = undefined;
    this.#hooks.event(this, 'backend.restart_requested', 'pending', {});
    await link?.close();
    if (this.#stopping) return;
    await this.start();
  }

  /** Stop it for good (no restart): close the link, end the process. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#generation++;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const link = this.#link;
    this.#link = undefined;
    const wasListed = this.listed !== undefined;
    this.state = 'stopped';
    this.discovered = undefined;
    this.#lastGood = undefined;
    this.#restartAt = undefined;
    if (wasListed) this.#hooks.changed(this);
    await link?.close();
  }
}
