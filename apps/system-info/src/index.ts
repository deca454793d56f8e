export { redact } from '@mcpkit/node';
export { ALERT_HISTORY, type Alert, type AlertChange, AlertEngine } from './alerts/engine.js';
export { type AlertRule, DEFAULT_RULES, loadRules, parseRules } from './alerts/rules.js';
export {
  CONFIG_PLACEHOLDER,
  callerHasSensitive,
  DASHBOARD_TOOL_META,
  DASHBOARD_URI,
  type DashboardConfig,
  type DashboardResourceOptions,
  dashboardResource,
  declaresUi,
  MIN_REFRESH_MS,
  refreshIntervals,
  renderDashboard,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from './dashboard.js';
export { formatDuration, parseDuration } from './history/duration.js';
export {
  History,
  type HistoryOptions,
  type MetricEntry,
  type RecordListener,
  type SlowReads,
} from './history/history.js';
export { MAX_INSTANCES, METRIC_KINDS, type MetricKind } from './history/metrics.js';
export {
  type Consumer,
  type ConsumersResult,
  PROCESS_TIERS,
  ProcessHistory,
  type ProcessSample,
  TOP_KEPT,
} from './history/processes.js';
export {
  AGGREGATES,
  type Aggregate,
  DEFAULT_TIERS,
  type Point,
  type QueryResult,
  Series,
  seriesBytes,
  type TierSpec,
} from './history/series.js';
export {
  type FastReading,
  type FastSource,
  ProcfsSource,
  SystemInformationSource,
} from './history/sources.js';
export { ALERTS_URI, METRIC_URI_TEMPLATE, metricUri } from './resources.js';
export { type Collectors, systemCollectors, TIERS, WARM_KEYS } from './sampler/collectors.js';
export {
  DEFAULT_TTL_MS,
  type Sample,
  Sampler,
  type SamplerOptions,
  type Tier,
} from './sampler/sampler.js';
export { KNOWN_SCOPES, loadTokens, parseScopes, type Scope, scopeError } from './scopes.js';
export { createSystemInfoServer, NAME, type SystemInfoOptions, VERSION } from './server.js';
