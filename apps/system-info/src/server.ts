import { createRequire } from 'node:module';
import { type EngineLogger, McpServer, type McpServerOptions } from '@mcpkit/protocol';
import { AlertEngine } from './alerts/engine.js';
import { type AlertRule, DEFAULT_RULES } from './alerts/rules.js';
import { dashboardResource, UI_EXTENSION, UI_MIME_TYPE } from './dashboard.js';
import { History, type HistoryOptions } from './history/history.js';
import { ProcfsProcesses } from './history/procfs-processes.js';
import { ProcfsSource, SystemInformationSource } from './history/sources.js';
import { ALERTS_URI, alertsResource, metricResources, metricUri } from './resources.js';
import { type Collectors, systemCollectors, TIERS, WARM_KEYS } from './sampler/collectors.js';
import { Sampler, type SamplerOptions } from './sampler/sampler.js';
import { type Scope, scopeError } from './scopes.js';
import { modernError } from './tools/common.js';
import { allTools } from './tools/index.js';

/** serverInfo.name. */
export const NAME = 'mcp-system-info';
/** The package's own version: what `--version` and `serverInfo` say. */
export const VERSION: string = createRequire(import.meta.url)('../package.json').version;

/** Options of {@link createSystemInfoServer}. */
export interface SystemInfoOptions {
  /**
   * How 2026-07-28 `requestState` tokens are signed (`McpServerOptions.requestState`): a fleet
   * passes runCli's `RunContext.requestState`, so a multi round-trip retry is good on every
   * instance. Default: a random key of this process.
   */
  requestState?: McpServerOptions['requestState'];
  /**
   * Where tasks are kept (`McpServerOptions.tasks`): a fleet passes runCli's `RunContext.tasks`.
   * Default: in memory.
   */
  tasks?: McpServerOptions['tasks'];
  /** Scopes this server enables. Default: core only. */
  scopes?: Iterable<Scope>;
  /** Collectors to use instead of systeminformation (tests). */
  collectors?: Collectors;
  /** TTLs and clock of the sampler. */
  sampler?: SamplerOptions;
  /** Where the McpServer logs. */
  logger?: EngineLogger;
  /** Take the first samples now, so rates are real from the first call. Default true. */
  warm?: boolean;
  /**
   * The history's source, clock, tiers and intervals (tests give a fake source and clock). Its
   * readings start with the server unless `warm: false`; `createSystemInfoServer(...).history`
   * is there to drive by hand.
   */
  history?: Partial<HistoryOptions>;
  /** Alert rules. Default {@link DEFAULT_RULES}; `loadRules` reads `--alerts-file`. */
  alerts?: readonly AlertRule[];
  /** Reads the dashboard view instead of dist/views/dashboard.html (tests). */
  loadDashboard?: () => Promise<string>;
}

/**
 * The system-info server (every tool, `core` scope unless more are enabled) and the sampler its
 * tools share; the sampler starts warming up at once unless `warm: false`.
 */
export function createSystemInfoServer(options: SystemInfoOptions = {}): {
  server: McpServer;
  sampler: Sampler<Collectors>;
  history: History;
  alerts: AlertEngine;
  /** Stop the history's readings (what runCli's `close` calls). */
  close: () => void;
} {
  const sampler = new Sampler(options.collectors ?? systemCollectors, TIERS, options.sampler);
  // /proc where the kernel has it (ProcfsSource and ProcfsProcesses say why), systeminformation
  // (through the tools' shared sampler) elsewhere and with collectors given (tests).
  const linux = process.platform === 'linux';
  const procfs = linux && !options.collectors ? new ProcfsProcesses() : undefined;
  const history = new History({
    source: linux ? new ProcfsSource() : new SystemInformationSource(),
    slow: {
      processes: async () => procfs?.list() ?? (await sampler.get('processes')).value.list,
      filesystems: async () => (await sampler.get('filesystems')).value,
    },
    ...(options.logger ? { logger: options.logger } : {}),
    ...options.history,
  });
  const alerts = new AlertEngine(options.alerts ?? DEFAULT_RULES, options.logger);
  history.onRecord((t, values) => alerts.evaluate(t, values));
  const scopes = new Set<Scope>(options.scopes ?? ['core']);
  const server = new McpServer({
    ...(options.requestState ? { requestState: options.requestState } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
    name: NAME,
    version: VERSION,
    title: 'System information',
    instructions:
      'Read-only facts about the machine this server runs on. Start with get_system_snapshot to find out why a machine is slow; every answer carries sampled_at.',
    scopes,
    // MCP System Info's codes in 2025 sessions; a 2026-07-28 request hears the spec's.
    errors: { scopeDenied: scopeError, modernEra: modernError },
    // 2026-07-28 cache hints: the tool list is fixed for the life of the process and the same
    // for every caller (scopes refuse calls, they do not hide tools); readings are live.
    cache: {
      'server/discover': { ttlMs: 600_000, cacheScope: 'public' },
      'tools/list': { ttlMs: 600_000, cacheScope: 'public' },
    },
    // MCP Apps: the live dashboard (ui://system-info/dashboard) is an HTML view.
    extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  server.addTool(...allTools({ sampler, history, alerts }));
  server.addResource(alertsResource(alerts));
  server.addResourceTemplate(metricResources(history));
  // Subscribers of sysinfo://alerts (2025 resources/subscribe, 2026 subscriptions/listen) hear
  // each raise and clear; a metric's subscribers hear once per 10 s, not at every sample.
  alerts.onChange(() => void server.resourceUpdated(ALERTS_URI));
  let told = 0;
  history.onRecord((t) => {
    if (t - told < 10_000) return;
    told = t;
    for (const { metric } of history.metrics()) server.resourceUpdated(metricUri(metric));
  });
  server.addResourceTemplate(
    dashboardResource({
      scopes,
      ...(options.sampler?.ttlMs ? { ttlMs: options.sampler.ttlMs } : {}),
      ...(options.loadDashboard ? { loadView: options.loadDashboard } : {}),
    }),
  );
  if (options.warm ?? true) {
    void sampler.warm(WARM_KEYS);
    history.start();
  }
  return { server, sampler, history, alerts, close: () => history.stop() };
}
