/**
 * Prometheus metrics of an MCP server (prom-client): requests by method, tool, era and status,
 * their durations, calls in flight, sessions, rate-limit and auth refusals. Served at `/metrics`
 * by `createMcpHttpServer({ metrics })`.
 */
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type LabelValues,
  Registry,
} from 'prom-client';
import type { McpServer } from '../mcp/server.js';

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

interface Children {
  requests: ReturnType<Counter<RequestLabel>['labels']>;
  duration: ReturnType<Histogram<Exclude<RequestLabel, 'status'>>['labels']>;
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
  /** `mcp_requests_total{method,tool,era,status}`. */
  readonly requests: Counter<RequestLabel>;
  /** `mcp_request_duration_seconds{method,tool,era}`. */
  readonly duration: Histogram<Exclude<RequestLabel, 'status'>>;
  /** `mcp_requests_in_flight`. */
  readonly inFlight: Gauge;
  /** `mcp_sessions`: 2025-era sessions and channel connections open now. */
  readonly sessions: Gauge;
  /** `mcp_http_rejections_total{reason}`: requests refused before they reached the server. */
  readonly rejections: Counter<'reason'>;
  /** Label children by method, tool and era: prom-client hashes labels on every call otherwise. */
  readonly #children = new Map<string, Children>();
  readonly #servers = new Set<McpServer>();

  constructor(options: McpMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const registers = [this.registry];
    const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
    this.requests = new Counter({
      name: 'mcp_requests_total',
      help: 'MCP requests answered, by method, tool (tools/call of a registered tool), era and status (ok, tool_error, cancelled or the JSON-RPC error code)',
      labelNames: ['method', 'tool', 'era', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'mcp_request_duration_seconds',
      help: 'Time from a request reaching the server to its answer, by method, tool and era',
      labelNames: ['method', 'tool', 'era'],
      buckets,
      registers,
    });
    this.inFlight = new Gauge({
      name: 'mcp_requests_in_flight',
      help: 'MCP requests being answered now',
      registers,
    });
    const servers = this.#servers;
    this.sessions = new Gauge({
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
        this.inFlight.inc();
        const method = call.known || MCP_METHODS.has(call.method) ? call.method : 'other';
        const tool = call.tool ?? (call.method === 'tools/call' ? '(unknown)' : '');
        return {
          key: `${method}\u0000${tool}\u0000${call.era}`,
          method,
          tool,
          era: call.era,
          started: performance.now(),
        };
      },
      end: (token, outcome) => {
        const t = token as {
          key: string;
          method: string;
          tool: string;
          era: string;
          started: number;
        };
        this.inFlight.dec();
        const children = this.#childrenFor(t.key, t.method, t.tool, t.era);
        children.duration.observe((performance.now() - t.started) / 1000);
        const status = statusLabel(outcome.status, outcome.code);
        if (status === 'ok') children.requests.inc();
        else this.requests.inc({ method: t.method, tool: t.tool, era: t.era, status });
      },
    });
    return () => {
      stop();
      this.#servers.delete(server);
    };
  }

  /** A refusal before the server: 429 (over the rate limit, or locked out after bad tokens), 401. */
  rejected(reason: 'rate_limit' | 'auth'): void {
    this.rejections.inc({ reason });
  }

  /** The text exposition (Prometheus 0.0.4), as `/metrics` serves it. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link text}. */
  get contentType(): string {
    return this.registry.contentType;
  }

  #childrenFor(key: string, method: string, tool: string, era: string): Children {
    let children = this.#children.get(key);
    if (children === undefined) {
      const labels: LabelValues<Exclude<RequestLabel, 'status'>> = { method, tool, era };
      children = {
        requests: this.requests.labels({ ...labels, status: 'ok' }),
        duration: this.duration.labels(labels),
      };
      this.#children.set(key, children);
    }
    return children;
  }
}
