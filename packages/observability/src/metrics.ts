/**
 * Prometheus metrics of an MCP server (prom-client): requests by method, tool, era and status,
 * their durations, calls in flight, sessions, rate-limit and auth refusals. Served at `/metrics`
 * by `createMcpHttpServer({ metrics })`.
 */
import { createRequire } from 'node:module';
import type { McpCall, McpServer } from '@mcpkit/protocol';
import type { Counter, Registry } from 'prom-client';
import {
  type CounterSeries,
  type HistogramSeries,
  LabelledCounter,
  LabelledHistogram,
} from './series.js';

type PromClient = typeof import('prom-client');
const require = createRequire(import.meta.url);
/** Options of {@link McpMetrics}. */
export interface McpMetricsOptions {
  /** Where the metrics are registered. Default: a registry of its own. */
  registry?: Registry;
  /** Also the process's CPU, memory, event-loop lag, GC (prom-client's defaults). Default true. */
  processMetrics?: boolean;
  /** Buckets of the duration histograms, in seconds. */
  buckets?: readonly number[];
}

/** Seconds: a cached list answers in 100 µs, a tool behind a gateway may take a minute. */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

type RequestLabel = 'method' | 'tool' | 'era' | 'status';

/**
 * The JSON-RPC methods of MCP (both eras): any other name is the label `other`, so a client
 * cannot mint label values by sending made-up methods. Methods an app adds with `addMethods`
 * are labelled by name once the server knows them.
 */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
]);

/**
 * The status label of an outcome: `ok`, `tool_error`, `cancelled` or the JSON-RPC error code —
 * codes outside the reserved range (-32768..-32000) are `error`, a bounded set either way.
 */
function statusLabel(status: string, code: number | undefined): string {
  if (status !== 'error') return status === 'none' ? 'cancelled' : status;
  return code !== undefined && Number.isInteger(code) && code >= -32768 && code <= -32000
    ? String(code)
    : 'error';
}

/** The series of one method, tool and era: its duration histogram and its `ok` count. */
interface Children {
  ok: CounterSeries;
  duration: HistogramSeries;
}

/**
 * The metrics of one MCP server. Create it, `observe` the server, hand it to
 * `createMcpHttpServer({ metrics })` (or `runCli`'s app `http.metrics`), and register metrics of
 * your own on `registry`.
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `mcp_requests_total` | counter | method, tool, era, status |
 * | `mcp_request_duration_seconds` | histogram | method, tool, era |
 * | `mcp_requests_in_flight` | gauge | — |
 * | `mcp_sessions` | gauge | — |
 * | `mcp_http_rejections_total` | counter | reason (`rate_limit`, `auth`) |
 *
 * @example
 * ```ts
 * const metrics = new McpMetrics();
 * metrics.observe(server);
 * const http = createMcpHttpServer(server, { metrics }); // GET /metrics
 * ```
 */
export class McpMetrics {
  /** Where every metric is registered (add your own). */
  readonly registry: Registry;
  /** `mcp_http_rejections_total{reason}`: requests refused before they reached the server. */
  readonly rejections: Counter<'reason'>;
  /** `mcp_requests_total`, `mcp_request_duration_seconds`: plain numbers on the hot path. */
  readonly #requests: LabelledCounter<RequestLabel>;
  readonly #duration: LabelledHistogram<Exclude<RequestLabel, 'status'>>;
  /** Series by raw method, then registered tool (or ''), then era (legacy, modern). */
  readonly #children = new Map<string, Map<string, [Children | undefined, Children | undefined]>>();
  #inFlight = 0;
  readonly #servers = new Set<McpServer>();

  constructor(options: McpMetricsOptions = {}) {
    // prom-client is loaded here, not with the package: a stdio app imports this package through
    // runCli and never serves /metrics, and the import costs it ~60 ms of its start.
    const { Counter, collectDefaultMetrics, Gauge, Registry } =
      require('prom-client') as PromClient;
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
    this.#requests = new LabelledCounter({
      name: 'mcp_requests_total',
      help: 'MCP requests answered, by method, tool (tools/call of a registered tool), era and status (ok, tool_error, cancelled or the JSON-RPC error code)',
      labelNames: ['method', 'tool', 'era', 'status'],
      registry: this.registry,
    });
    this.#duration = new LabelledHistogram({
      name: 'mcp_request_duration_seconds',
      help: 'Time from a request reaching the server to its answer, by method, tool and era',
      labelNames: ['method', 'tool', 'era'],
      buckets,
      registry: this.registry,
    });
    const inFlight = () => this.#inFlight;
    new Gauge({
      name: 'mcp_requests_in_flight',
      help: 'MCP requests being answered now',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    const servers = this.#servers;
    new Gauge({
      name: 'mcp_sessions',
      help: 'MCP sessions open now (2025-era sessions and channel connections)',
      registers,
      collect() {
        let n = 0;
        for (const server of servers) n += server.sessionCount;
        this.set(n);
      },
    });
    this.rejections = new Counter({
      name: 'mcp_http_rejections_total',
      help: 'HTTP requests refused before reaching the server, by reason: rate_limit (429) or auth (401)',
      labelNames: ['reason'],
      registers,
    });
    // Present at zero from the start: an alert on a rate needs the series before the first 429.
    for (const reason of ['rate_limit', 'auth']) this.rejections.inc({ reason }, 0);
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Count the requests `server` answers from now on; returns the function that stops. A
   * server may be observed by one McpMetrics at a time.
   */
  observe(server: McpServer): () => void {
    // Observed already (an app's own McpMetrics that runCli observes again): counted once.
    if (this.#servers.has(server)) return () => {};
    this.#servers.add(server);
    const stop = server.observe({
      begin: (call) => {
        this.#inFlight++;
        return new Pending(call);
      },
      end: (token, outcome) => {
        const pending = token as Pending;
        this.#inFlight--;
        // Chosen at the end: a tool registered while the call waited is its label.
        const call = pending.call;
        const children = this.#childrenFor(call.method, call.known, call.tool, call.era);
        children.duration.observe((performance.now() - pending.started) / 1000);
        if (outcome.status === 'ok') children.ok.inc();
        else {
          const labels = children.ok.labels as Record<RequestLabel, string>;
          this.#requests
            .series({ ...labels, status: statusLabel(outcome.status, outcome.code) })
            .inc();
        }
      },
    });
    return () => {
      stop();
      this.#servers.delete(server);
    };
  }

  /** A refusal before the server: 429 (over the rate limit, or a wrong token once too many were), 401. */
  rejected(reason: 'rate_limit' | 'auth'): void {
    this.rejections.inc({ reason });
  }

  /** The text exposition (Prometheus 0.0.4), as `/metrics` serves it. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link McpMetrics.text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The series of a request: looked up by method, then tool, then era — no key string built. */
  #childrenFor(
    rawMethod: string,
    known: boolean,
    rawTool: string | undefined,
    era: 'legacy' | 'modern',
  ): Children {
    let byTool = this.#children.get(rawMethod);
    if (byTool === undefined) {
      // Raw method names are remembered up to a bound (unknown ones all map to `other`).
      if (this.#children.size >= MAX_CHILDREN) return this.#make(rawMethod, known, rawTool, era);
      byTool = new Map();
      this.#children.set(rawMethod, byTool);
    }
    const toolKey = rawTool ?? '';
    let pair = byTool.get(toolKey);
    if (pair === undefined) {
      pair = [undefined, undefined];
      byTool.set(toolKey, pair);
    }
    const i = era === 'modern' ? 1 : 0;
    const found = pair[i];
    if (found !== undefined) return found;
    const made = this.#make(rawMethod, known, rawTool, era);
    pair[i] = made;
    return made;
  }

  #make(
    rawMethod: string,
    known: boolean,
    rawTool: string | undefined,
    era: 'legacy' | 'modern',
  ): Children {
    const method = known || MCP_METHODS.has(rawMethod) ? rawMethod : 'other';
    const tool = rawTool ?? (rawMethod === 'tools/call' ? '(unknown)' : '');
    return {
      ok: this.#requests.series({ method, tool, era, status: 'ok' }),
      duration: this.#duration.series({ method, tool, era }),
    };
  }
}

/** What `begin` hands to `end`: where the request is counted, and when it began. */
class Pending {
  readonly started = performance.now();
  constructor(readonly call: McpCall) {}
}

/** Raw method names remembered; beyond it, the series of a new one is found each time. */
const MAX_CHILDREN = 1024;
