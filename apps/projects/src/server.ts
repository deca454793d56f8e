import { createRequire } from 'node:module';
import type { McpHttpOptions } from '@mcpkit/node';
import {
  type ArgumentIssue,
  type EngineLogger,
  McpServer,
  type McpServerOptions,
  UriTemplate,
} from '@mcpkit/protocol';
import { caller, ownProject, requireScope } from './access.js';
import { apiKeyAuthenticator } from './auth.js';
import type { Store } from './db/types.js';
import { designSystemView, UI_EXTENSION, UI_MIME_TYPE } from './design-system-view.js';
import { TOKEN_LIMITS } from './dtcg.js';
import { authorizationFailed, Code, invalidParams, modernError, notFound } from './errors.js';
import { projectResources, tokenBuildMatch } from './resources.js';
import { PLATFORMS } from './tokens/build.js';
import { TokenBuilder } from './tokens/builder.js';
import { PROJECTS_URI } from './tools/common.js';
import { allTools } from './tools/index.js';
import { serializer } from './tools/tokens-common.js';

const DESIGN_SYSTEM = new UriTemplate('codefluss://design-system/{projectId}');

/** serverInfo.name, the CODEFLUSS MCP server's. */
export const NAME = 'codefluss-mcp-server';
/**
 * serverInfo.version as the CODEFLUSS MCP server's protocol page shows it (the server's identity,
 * not the package's).
 */
export const VERSION = '1.0.0';
/** The package's own version: what `--version` says. */
export const PACKAGE_VERSION: string = createRequire(import.meta.url)('../package.json').version;

/** What {@link createProjectsServer} needs. */
export interface ProjectsServerOptions {
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
  /** The database (see `openStore`). */
  store: Store;
  /** Where the McpServer logs. */
  logger?: EngineLogger;
  /**
   * Where a change to a user's resources is announced. Default: this process's subscribers.
   * A fleet passes its `FleetNotifier` (`shareNotifications` over Redis), so subscribers on every
   * instance hear of it; see cli.ts.
   */
  announce?: (uri: string, userId: string) => void;
  /**
   * Where design-token builds run. Default: a worker thread of this server's own, started by the
   * first build.
   */
  builder?: TokenBuilder;
  /** Reads the design-system view instead of dist/views/design-system.html (tests). */
  loadDesignSystemView?: () => Promise<string>;
}

/**
 * Arguments that do not fit: -32602 "Invalid params" with `data.field` and `data.error`, as the
 * CODEFLUSS protocol's example (`"Required field missing"`).
 */
function invalidArguments(_tool: string, issues: ArgumentIssue[]) {
  const first = issues[0];
  if (!first) return invalidParams('(arguments)', 'invalid arguments');
  return invalidParams(
    first.path || '(arguments)',
    first.missing ? 'Required field missing' : first.message,
  );
}

/**
 * The projects server: every tool, the `codefluss://projects` resource and the design-system
 * template, with the CODEFLUSS error codes. Callers need an `AuthInfo` from an API key (HTTP:
 * `projectsHttpOptions`; stdio: the `--user` the CLI resolves).
 */
export function createProjectsServer(options: ProjectsServerOptions): McpServer {
  const server = new McpServer({
    ...(options.requestState ? { requestState: options.requestState } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
    name: NAME,
    version: VERSION,
    title: 'CODEFLUSS projects',
    instructions:
      'Projects of a website builder: their content blocks, assets and design tokens (W3C DTCG). Read with list_projects / get_project; writes need an API key with scope write.',
    // Core failures answered with the CODEFLUSS protocol's codes (errors.ts) in 2025 sessions;
    // every error of a 2026-07-28 request, core's or the tools', with that revision's codes.
    errors: {
      scopeDenied: (_tool, scope) => authorizationFailed(`API key lacks scope '${scope}'`),
      resourceNotFound: (uri) => notFound('resource', uri),
      invalidArguments,
      modernEra: modernError,
    },
    // 2026-07-28 cache hints: the tools are the same for every key; projects, blocks and tokens
    // are per user and change under the client, so their lists and reads keep the default (not
    // cached, private).
    cache: {
      'server/discover': { ttlMs: 600_000, cacheScope: 'public' },
      'tools/list': { ttlMs: 600_000, cacheScope: 'public' },
    },
    // Subscribing is reading: the same checks as resources/read.
    onSubscribe: async (uri, ctx) => {
      const who = caller(ctx);
      requireScope(who, 'read');
      if (uri === PROJECTS_URI) return;
      const build = tokenBuildMatch(uri);
      // A platform that is not built is no resource: the same answer as reading it.
      if (build && !(PLATFORMS as readonly string[]).includes(build.platform)) {
        throw notFound('resource', uri);
      }
      const projectId = DESIGN_SYSTEM.match(uri)?.projectId ?? build?.projectId;
      if (projectId === undefined) throw notFound('resource', uri);
      await ownProject(options.store, who, projectId);
    },
    // MCP Apps: get_design_system's result is drawn by the ui://projects/design-system view.
    extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // A change is news only for the owner's sessions: `codefluss://projects` is per user.
  const builder = options.builder ?? new TokenBuilder();
  const deps = {
    store: options.store,
    builder,
    tokenWrites: serializer(),
    changed:
      options.announce ??
      ((uri: string, userId: string) =>
        void server.resourceUpdated(uri, (session) => session.subscriber?.data?.userId === userId)),
  };
  const { projects, designSystem, tokenBuild } = projectResources(options.store, builder);
  server
    .addTool(...allTools(deps))
    .addResource(projects)
    .addResourceTemplate(designSystem)
    .addResourceTemplate(tokenBuild)
    .addResourceTemplate(designSystemView(options.loadDesignSystemView));
  return server;
}

/**
 * The largest HTTP request body: 2 MiB, twice the largest token document (the largest thing a
 * tool takes), which leaves room for the envelope, indentation and `\u` escapes. A larger body
 * is refused (413, -32600 with `data.maxBytes`) before it is read to the end, let alone parsed:
 * `JSON.parse` of a few megabytes holds up every other caller for tens of milliseconds, for a
 * document the tools would refuse anyway.
 */
export const MAX_REQUEST_BYTES = 2 * TOKEN_LIMITS.bytes;

/**
 * The HTTP face of the server: `POST /api/mcp` (the CODEFLUSS MCP server's endpoint, every
 * JSON-RPC reply HTTP 200) and `/mcp`, API keys, a rate limit per key, bodies of at most
 * {@link MAX_REQUEST_BYTES}.
 */
export function projectsHttpOptions(
  store: Store,
  limit = { points: 120, windowSec: 60 },
): McpHttpOptions {
  return {
    plainPaths: ['/api/mcp'],
    maxBodyBytes: MAX_REQUEST_BYTES,
    auth: {
      authenticate: apiKeyAuthenticator(store),
      error: () => ({
        code: Code.AuthenticationFailed,
        message: 'Authentication failed',
        data: { reason: 'Invalid or missing API key' },
      }),
    },
    rateLimit: {
      points: limit.points,
      durationSec: limit.windowSec,
      error: (retryAfter) => ({
        code: Code.RateLimited,
        message: 'Rate limit exceeded',
        data: { retryAfter },
      }),
    },
  };
}
