export { redact } from '@mcpkit/node';
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
