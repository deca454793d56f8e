import { type EngineLogger, type McpHttpOptions, McpServer } from '@mcpkit/protocol';
import { apiKeyAuthenticator } from './auth.js';
import type { Store } from './db/types.js';
import { authorizationFailed, invalidParams, notFound } from './errors.js';
import { projectResources } from './resources.js';
import { allTools } from './tools/index.js';

export const NAME = 'codefluss-mcp-server';
export const VERSION = '1.0.0';

export interface ProjectsServerOptions {
  store: Store;
  logger?: EngineLogger;
}

/** Seed 001 says -32602 with `field` and `error` for arguments that do not fit. */
function argumentError(_tool: string, issues: { path: string; message: string }[]) {
  const first = issues[0];
  if (!first) return invalidParams('(arguments)', 'invalid arguments');
  const missing = /received undefined/.test(first.message);
  return invalidParams(
    first.path || '(arguments)',
    missing ? 'Required field missing' : first.message,
  );
}

export function createProjectsServer(options: ProjectsServerOptions): McpServer {
  const server = new McpServer({
    name: NAME,
    version: VERSION,
    title: 'CODEFLUSS projects',
    instructions:
      'Projects of a website builder: their content blocks, assets and design tokens (W3C DTCG). Read with list_projects / get_project; writes need an API key with scope write.',
    scopeError: (_tool, scope) => authorizationFailed(`API key lacks scope '${scope}'`),
    resourceNotFound: (uri) => notFound('resource', uri),
    argumentError,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const deps = { store: options.store, changed: (uri: string) => void server.resourceUpdated(uri) };
  const { projects, designSystem } = projectResources(options.store);
  server
    .addTool(...allTools(deps))
    .addResource(projects)
    .addResourceTemplate(designSystem);
  return server;
}

/** The HTTP face of the server: `POST /api/mcp` (seed) and `/mcp`, API keys, a rate limit per key. */
export function projectsHttpOptions(
  store: Store,
  limit = { points: 120, windowSec: 60 },
): McpHttpOptions {
  return {
    plainPaths: ['/api/mcp'],
    auth: {
      authenticate: apiKeyAuthenticator(store),
      error: () => ({
        code: -32001,
        message: 'Authentication failed',
        data: { reason: 'Invalid or missing API key' },
      }),
    },
    rateLimit: {
      points: limit.points,
      durationSec: limit.windowSec,
      error: (retryAfter) => ({
        code: -32000,
        message: 'Rate limit exceeded',
        data: { retryAfter },
      }),
    },
  };
}
