import {
  defineResource,
  defineResourceTemplate,
  type Resource,
  type ResourceTemplate,
  RpcError,
} from '@mcpkit/protocol';
import type { AlertEngine } from './alerts/engine.js';
import type { History } from './history/history.js';
import { kindOf } from './history/metrics.js';
import { CORE } from './tools/common.js';
import { alertsReport } from './tools/get-alerts.js';

/** Active alerts, recent ones and the rules; subscribable: updated on every raise and clear. */
export const ALERTS_URI = 'sysinfo://alerts';
/** One metric's last 10 minutes at 1 s: `sysinfo://metrics/cpu.percent`. */
export const METRIC_URI_TEMPLATE = 'sysinfo://metrics/{metric}';

/** The URI of `metric`'s resource (instances may hold `/` and `:`, so the name is encoded). */
export const metricUri = (metric: string): string =>
  `sysinfo://metrics/${encodeURIComponent(metric)}`;

/** The alerts resource. */
export function alertsResource(alerts: AlertEngine): Resource {
  return defineResource({
    uri: ALERTS_URI,
    name: 'alerts',
    title: 'Alerts',
    description:
      'Alerts firing now, the recent ones and the rules. Subscribe to be told when one is raised or resolved.',
    mimeType: 'application/json',
    requiredScopes: CORE,
    read: () => JSON.stringify(alertsReport(alerts)),
  });
}

/**
 * A resource per metric series the history holds: its last 10 minutes, one point per second
 * (`{metric, unit, points: [[epoch ms, value|null]…]}`) — the raw material of a chart. Listed as
 * the series appear (a mount or interface seen later is listed from then on).
 */
export function metricResources(history: History): ResourceTemplate {
  return defineResourceTemplate({
    uriTemplate: METRIC_URI_TEMPLATE,
    name: 'metric',
    title: 'Metric series',
    description:
      'One metric over the last 10 minutes at 1 s (get_metric_history for longer windows).',
    mimeType: 'application/json',
    requiredScopes: CORE,
    list: () =>
      history.metrics().map(({ metric, kind }) => ({
        uri: metricUri(metric),
        name: metric,
        title: `${kind.description}${metric.includes(':') ? ` (${metric.slice(metric.indexOf(':') + 1)})` : ''}`,
        mimeType: 'application/json',
      })),
    complete: {
      metric: (prefix) =>
        history
          .metrics()
          .map((m) => m.metric)
          .filter((m) => m.startsWith(prefix)),
    },
    read: (uri, vars) => {
      const metric = String(vars.metric ?? '');
      // query answers only for a series the history holds, whose name is then a kind's.
      const result = history.query(metric, 600_000, 1000, 'avg');
      const kind = kindOf(metric);
      if (!result || !kind) {
        // The spec's "resource not found" (-32002).
        throw new RpcError(-32002, `No metric series '${metric}' is recorded`, { uri });
      }
      return JSON.stringify({
        metric,
        unit: kind.unit,
        description: kind.description,
        step_ms: result.stepMs,
        points: result.points.map((p) => [p.t, p.value]),
        sampled_at: new Date(result.now).toISOString(),
      });
    },
  });
}
