#!/usr/bin/env node
import { CliUsageError, runCli } from '@mcpkit/protocol';
import { ConfigError, defaultConfig, exposureWarnings, loadConfig } from './config.js';
import { defaultEventLogPath, EventLog } from './events.js';
import { Gateway, VERSION } from './gateway.js';
import { ignoreHangup, watchConfig } from './reload.js';

/** How long start-up waits for backends before serving; later ones join via list_changed. */
const STARTUP_WAIT_MS = 15_000;

process.exitCode = await runCli({
  command: 'mcp-gateway',
  version: VERSION,
  description:
    'many MCP servers behind one endpoint (default backends: the projects and system-info apps)',
  options: [
    {
      name: 'config',
      env: 'MCP_GATEWAY_CONFIG',
      description: 'JSON config ({"mcpServers": {...}}); default: the sibling apps',
      type: 'string',
    },
    {
      name: 'events',
      env: 'MCP_GATEWAY_EVENTS',
      description: `event log file (default: ${defaultEventLogPath()})`,
      type: 'string',
    },
    {
      name: 'token',
      env: 'MCP_GATEWAY_TOKEN',
      description: 'bearer token required on HTTP',
      type: 'string',
      placeholder: '',
    },
  ],
  build: async ({ values, logger }) => {
    let config: ReturnType<typeof defaultConfig>;
    try {
      config = values.config ? loadConfig(values.config as string) : defaultConfig();
    } catch (err) {
      if (err instanceof ConfigError) throw new CliUsageError(err.message);
      throw err;
    }
    const events = EventLog.open(
      (values.events as string | undefined) ?? config.gateway.events.path ?? defaultEventLogPath(),
      {
        retentionDays: config.gateway.events.retention_days,
        maxEvents: config.gateway.events.max_events,
      },
    );
    const gateway = new Gateway(config, { events, logger });
    // Signals from the first spawn on: until build returns (runCli's handlers take over), a
    // SIGTERM must still stop the backends started so far, not orphan them.
    const onEarlySignal = (signal: string) => {
      logger.info({ signal }, 'shutting down during start-up');
      void gateway.stop().finally(() => process.exit(0));
    };
    process.once('SIGTERM', onEarlySignal);
    process.once('SIGINT', onEarlySignal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      gateway.start(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, STARTUP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    process.off('SIGTERM', onEarlySignal);
    process.off('SIGINT', onEarlySignal);
    for (const [name, b] of gateway.backends) {
      logger.info(
        {
          backend: name,
          state: b.state,
          tools: b.discovered?.tools.length ?? 0,
          error: b.lastError,
        },
        'backend',
      );
    }
    // Hot reload: the config file is watched and SIGHUP reloads it. Without a config file there
    // is nothing to reload, but SIGHUP must not end the service (its default action).
    const unwatch = values.config
      ? watchConfig(gateway, values.config as string, logger)
      : ignoreHangup(logger);
    const token = values.token as string | undefined;
    // `--token` grants everything (no scopes: unrestricted); gateway.tokens grant their scopes.
    const tokens = [
      ...(token ? [{ token, subject: 'client' }] : []),
      ...(config.gateway.tokens ?? []),
    ];
    for (const warning of exposureWarnings(config, tokens.length > 0)) logger.warn(warning);
    return {
      server: gateway.server,
      http: {
        plainPaths: ['/messages/', '/messages'],
        ...(tokens.length > 0 ? { auth: { tokens } } : {}),
      },
      close: () => {
        unwatch();
        return gateway.stop();
      },
    };
  },
});
