import { createRequire } from 'node:module';
import { type EngineLogger, McpServer, type McpServerOptions } from '@mcpkit/protocol';
import { dashboardResource, UI_EXTENSION, UI_MIME_TYPE } from './dashboard.js';
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
} {
  const sampler = new Sampler(options.collectors ?? systemCollectors, TIERS, options.sampler);
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
  server.addTool(...allTools({ sampler }));
  server.addResourceTemplate(
    dashboardResource({
      scopes,
      ...(options.sampler?.ttlMs ? { ttlMs: options.sampler.ttlMs } : {}),
      ...(options.loadDashboard ? { loadView: options.loadDashboard } : {}),
    }),
  );
  if (options.warm ?? true) void sampler.warm(WARM_KEYS);
  return { server, sampler };
}
