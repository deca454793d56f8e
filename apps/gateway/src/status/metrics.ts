/**
 * The gateway's own Prometheus metrics, beside the protocol's request metrics: each backend's
 * state, restarts, calls and their latency, calls waiting on it, and how far the event log lags.
 */
import {
  type CounterSeries,
  DEFAULT_BUCKETS,
  type HistogramSeries,
  LabelledCounter,
  LabelledHistogram,
  type McpMetrics,
} from '@mcpkit/observability';
import { Counter, Gauge } from 'prom-client';
import type { BackendState } from '../backends/backend.js';
import type { Gateway } from '../gateway.js';

/** Every state a backend can be in: each is a series, 1 for the current one. */
export const BACKEND_STATES: readonly BackendState[] = [
  'stopped',
  'starting',
  'running',
  'backoff',
  'failed',
];

/**
 * How the event log is keeping up: the EventLog's `stats()` (queued rows and the age
 * of the oldest). A log without it reports nothing for these two metrics.
 */
interface LogStats {
  stats?: () => { pending: number; lag_ms: number };
}

/**
 * Register the gateway's metrics on `metrics.registry` and count the tool calls each backend
 * serves; returns the function that stops counting. Labels are backend names (from the config)
 * and states: bounded whatever clients send.
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `mcp_gateway_backend_state` | gauge | backend, state (1 for the current state) |
 * | `mcp_gateway_backend_up` | gauge | backend |
 * | `mcp_gateway_backend_restarts_total` | counter | backend |
 * | `mcp_gateway_backend_calls_total` | counter | backend, status |
 * | `mcp_gateway_backend_call_duration_seconds` | histogram | backend |
 * | `mcp_gateway_backend_queue_depth` | gauge | backend |
 * | `mcp_gateway_parked_calls` | gauge | — |
 * | `mcp_gateway_running_tasks` | gauge | — |
 * | `mcp_gateway_event_log_pending` | gauge | — |
 * | `mcp_gateway_event_log_lag_seconds` | gauge | — |
 * | `mcp_gateway_quota_refusals_total` | counter | quota (with `gateway.quotas`) |
 * | `mcp_gateway_rule_decisions_total` | counter | rule, effect (with `gateway.rules`) |
 */
export function observeGateway(gateway: Gateway, metrics: McpMetrics): () => void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'mcp_gateway_backend_state',
    help: 'Each backend state as a series: 1 for the state the backend is in, 0 for the others',
    labelNames: ['backend', 'state'],
    registers,
    collect() {
      this.reset();
      for (const [name, b] of gateway.backends) {
        for (const state of BACKEND_STATES)
          this.set({ backend: name, state }, b.state === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'mcp_gateway_backend_up',
    help: '1 while the backend is running, else 0',
    labelNames: ['backend'],
    registers,
    collect() {
      this.reset();
      for (const [name, b] of gateway.backends)
        this.set({ backend: name }, b.state === 'running' ? 1 : 0);
    },
  });
  new Counter({
    name: 'mcp_gateway_backend_restarts_total',
    help: 'Restarts of the backend since the gateway (or a reload that changed it) started it',
    labelNames: ['backend'],
    registers,
    collect() {
      // The backend counts its restarts; the counter mirrors it at each scrape.
      this.reset();
      for (const [name, b] of gateway.backends) this.inc({ backend: name }, b.restarts);
    },
  });
  const policy = gateway.policy;
  if (policy) {
    new Counter({
      name: 'mcp_gateway_rule_decisions_total',
      help: 'Tool calls a rule of gateway.rules decided (default: none matched), by effect',
      labelNames: ['rule', 'effect'],
      registers,
      collect() {
        this.reset();
        for (const d of policy.decisions()) this.inc({ rule: d.rule, effect: d.effect }, d.calls);
      },
    });
  }
  const quotas = gateway.quotas;
  if (quotas) {
    new Counter({
      name: 'mcp_gateway_quota_refusals_total',
      help: 'Calls refused because the caller exceeded a quota (gateway.quotas), by quota',
      labelNames: ['quota'],
      registers,
      collect() {
        this.reset();
        for (const q of quotas.refusals()) this.inc({ quota: q.name }, q.refused);
      },
    });
  }
  // Per call: plain numbers (LabelledCounter/LabelledHistogram), no label hashing on the hot path.
  const calls = new LabelledCounter({
    name: 'mcp_gateway_backend_calls_total',
    help: 'Tool calls forwarded to the backend, by status (ok, tool_error, cancelled or the JSON-RPC error code)',
    labelNames: ['backend', 'status'],
    registry: metrics.registry,
  });
  const duration = new LabelledHistogram({
    name: 'mcp_gateway_backend_call_duration_seconds',
    help: 'Time from a tool call reaching the gateway to its answer, by backend',
    labelNames: ['backend'],
    buckets: DEFAULT_BUCKETS,
    registry: metrics.registry,
  });
  /** Each backend's series, made once. */
  const series = new Map<string, { ok: CounterSeries; duration: HistogramSeries; depth: number }>();
  const of = (backend: string) => {
    let s = series.get(backend);
    if (!s) {
      s = {
        ok: calls.series({ backend, status: 'ok' }),
        duration: duration.series({ backend }),
        depth: 0,
      };
      series.set(backend, s);
    }
    return s;
  };
  new Gauge({
    name: 'mcp_gateway_backend_queue_depth',
    help: 'Tool calls to the backend that have reached the gateway and are not answered yet',
    labelNames: ['backend'],
    registers,
    collect() {
      this.reset();
      for (const name of gateway.backends.keys())
        this.set({ backend: name }, series.get(name)?.depth ?? 0);
    },
  });
  new Gauge({
    name: 'mcp_gateway_parked_calls',
    help: 'Calls of 2026-07-28 clients parked until their retry brings the input a backend asked for',
    registers,
    collect() {
      this.set(gateway.parkedCalls);
    },
  });
  new Gauge({
    name: 'mcp_gateway_running_tasks',
    help: 'Calls of clients with the tasks extension running as tasks in this process',
    registers,
    collect() {
      this.set(gateway.runningTasks);
    },
  });
  const log = gateway.events as unknown as LogStats;
  if (typeof log.stats === 'function') {
    const stats = log.stats.bind(log);
    new Gauge({
      name: 'mcp_gateway_event_log_pending',
      help: 'Events recorded and not yet stored',
      registers,
      collect() {
        this.set(stats().pending);
      },
    });
    new Gauge({
      name: 'mcp_gateway_event_log_lag_seconds',
      help: 'Age of the oldest event not yet stored; 0 when none waits',
      registers,
      collect() {
        this.set(stats().lag_ms / 1000);
      },
    });
  }
  return gateway.server.observe({
    begin: (call) => {
      if (call.tool === undefined) return undefined;
      const backend = gateway.routes().tools.get(call.tool)?.backend.name;
      if (backend === undefined) return undefined;
      const s = of(backend);
      s.depth++;
      return { s, started: performance.now() };
    },
    end: (token, outcome) => {
      if (token === undefined) return;
      const { s, started } = token as { s: ReturnType<typeof of>; started: number };
      s.depth--;
      s.duration.observe((performance.now() - started) / 1000);
      if (outcome.status === 'ok') s.ok.inc();
      else
        calls
          .series({
            backend: s.ok.labels.backend as string,
            status: statusLabel(outcome.status, outcome.code),
          })
          .inc();
    },
  });
}

/** `ok`, `tool_error`, `cancelled`, or a reserved JSON-RPC code (others: `error`): bounded. */
function statusLabel(status: string, code: number | undefined): string {
  if (status === 'none') return 'cancelled';
  if (status !== 'error') return status;
  return code !== undefined && Number.isInteger(code) && code >= -32768 && code <= -32000
    ? String(code)
    : 'error';
}
