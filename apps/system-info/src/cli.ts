#!/usr/bin/env node
import { runCli } from '@mcpkit/node';
import { loadRules } from './alerts/rules.js';
import { loadTokens, parseScopes } from './scopes.js';
import { createSystemInfoServer, NAME, VERSION } from './server.js';

process.exitCode = await runCli({
  command: NAME,
  version: VERSION,
  description: 'system information over MCP (CPU, memory, processes, disks, network …)',
  options: [
    {
      name: 'scopes',
      env: 'MCP_SYSINFO_SCOPES',
      description: 'scopes to enable, comma-separated: core, sensitive',
      type: 'string',
      default: 'core',
    },
    {
      name: 'enable-sensitive',
      env: 'MCP_SYSINFO_ENABLE_SENSITIVE',
      description: 'enable scope sensitive (auth logs, user sessions)',
      type: 'boolean',
    },
    {
      name: 'token',
      env: 'MCP_SYSINFO_TOKEN',
      description: 'bearer token for HTTP; it holds every enabled scope',
      type: 'string',
      placeholder: '',
    },
    {
      name: 'tokens-file',
      env: 'MCP_SYSINFO_TOKENS_FILE',
      description:
        'JSON file of tokens with their own scopes: {"tokens":[{"name","token","scopes"}]}',
      type: 'string',
    },
    {
      name: 'alerts-file',
      env: 'MCP_SYSINFO_ALERTS_FILE',
      description:
        'JSON file of alert rules: {"defaults": true, "rules": [{"id", "metric", "above"|"below", "for_seconds", "clear", "clear_for_seconds", "severity"}]}',
      type: 'string',
    },
  ],
  build: async ({ values, logger, requestState, tasks }) => {
    const scopes = parseScopes(
      values.scopes as string | undefined,
      values['enable-sensitive'] === true,
    );
    const tokens = loadTokens(
      values.token as string | undefined,
      values['tokens-file'] as string | undefined,
      scopes,
    );
    const alerts = loadRules(values['alerts-file'] as string | undefined);
    const { server, close } = createSystemInfoServer({
      scopes,
      alerts,
      logger,
      ...(requestState ? { requestState } : {}),
      ...(tasks ? { tasks } : {}),
    });
    logger.info(
      { scopes: [...scopes], tokens: tokens.length, alertRules: alerts.map((r) => r.id) },
      'system-info configured',
    );
    return {
      server,
      http: {
        plainPaths: ['/'],
        ...(tokens.length > 0 ? { auth: { tokens } } : {}),
      },
      // With --auth-issuer: a token's `scope` holds system-info's scopes; every tool needs core,
      // and one granted sensitive (the wider of the two) holds core too.
      oauth: {
        scopes: [...scopes],
        requiredScopes: ['core'],
        scopeHierarchy: { sensitive: ['core'] },
      },
      close: async () => close(),
    };
  },
});
