import {
  createRedisStateStore,
  createRedisTaskStore,
  joinFleet,
  type RedisStateStore,
  type StateStore,
  StoreUnavailableError,
} from '@mcpkit/fleet';
import {
  McpMetrics,
  startTracing,
  type Tracing,
  traceServer,
  tracingRequested,
} from '@mcpkit/observability';
import {
  type AuthInfo,
  guardStdout,
  type McpServer,
  type SharedClaim,
  serveMcpStdio,
  type TaskRunnerOptions,
} from '@mcpkit/protocol';
import type { Logger } from 'pino';
import {
  createOAuthResourceServer,
  type OAuthResourceOptions,
} from '../http/oauth/resource-server.js';
import type { McpHttpOptions } from '../http/options.js';
import type { HttpPage } from '../http/pages.js';
import { createMcpHttpServer } from '../http/server.js';
import {
  createLogger,
  PINO_LOG_LEVELS,
  type PinoLogLevel,
  resolveLogFormat,
} from '../logging/logger.js';
import { type CliOption, CliUsageError, type CliValues, resolveOptions, usage } from './options.js';

/**
 * The flags every app has: `--transport`, `--host`, `--port`, `--log-level`, `--help` and
 * `--version` (`MCP_TRANSPORT`, `MCP_HOST`, `MCP_PORT`, `LOG_LEVEL` …).
 */
export const COMMON_OPTIONS: readonly CliOption[] = [
  {
    name: 'transport',
    env: 'MCP_TRANSPORT',
    description: 'stdio for one client on stdin/stdout, http to listen',
    type: 'string',
    default: 'stdio',
    choices: ['stdio', 'http'],
  },
  {
    name: 'host',
    env: 'MCP_HOST',
    description: 'HTTP address to bind; non-loopback needs auth',
    type: 'string',
    default: '127.0.0.1',
  },
  {
    name: 'port',
    env: 'MCP_PORT',
    description: 'HTTP port (0 picks a free one)',
    type: 'string',
    default: '3000',
  },
  {
    name: 'log-level',
    env: 'LOG_LEVEL',
    description: 'log level of the stderr log',
    type: 'string',
    default: 'info',
    choices: PINO_LOG_LEVELS,
  },
  {
    name: 'log-format',
    env: 'LOG_FORMAT',
    description: 'stderr log as pino JSON lines or readable lines (auto: pretty on a terminal)',
    type: 'string',
    default: 'auto',
    choices: ['auto', 'json', 'pretty'],
  },
  {
    name: 'metrics',
    env: 'MCP_METRICS',
    description: "Prometheus metrics at /metrics over HTTP (behind the app's tokens, if any)",
    type: 'string',
    default: 'on',
    choices: ['on', 'off'],
  },
  {
    name: 'metrics-token',
    env: 'MCP_METRICS_TOKEN',
    description: "a bearer token that reads /metrics only (a scraper's), besides the app's tokens",
    type: 'string',
    placeholder: '',
  },
  {
    // MCP_-prefixed: a REDIS_URL a user's shell holds for something else must not turn an app
    // into a fleet member.
    name: 'redis-url',
    env: 'MCP_REDIS_URL',
    description:
      'fleet mode: sessions, stream replay, rate limits and notifications shared in Redis (redis://…)',
    type: 'string',
    placeholder: '',
  },
  {
    name: 'redis-prefix',
    env: 'MCP_REDIS_PREFIX',
    description: 'prefix of the Redis keys and channels (default mcpkit:<command>:)',
    type: 'string',
  },
  {
    name: 'drain-timeout',
    env: 'MCP_DRAIN_TIMEOUT',
    description: 'on SIGTERM/SIGINT over HTTP: seconds in-flight calls get to finish',
    type: 'string',
    default: '10',
  },
  {
    name: 'drain-delay',
    env: 'MCP_DRAIN_DELAY',
    description:
      'on SIGTERM/SIGINT over HTTP: seconds to keep serving (readyz 503) so a load balancer stops sending first (default 2 with --redis-url, else 0)',
    type: 'string',
  },
  {
    name: 'cors-origins',
    env: 'MCP_CORS_ORIGINS',
    description:
      'HTTP: origins whose browser pages may call (CORS), comma-separated, e.g. https://app.example.com (default: none)',
    type: 'string',
  },
  {
    name: 'public-url',
    env: 'MCP_PUBLIC_URL',
    description:
      'HTTP: the URL clients reach this server at through a reverse proxy (e.g. https://mcp.example.com), comma-separated: its Host and Origin are accepted',
    type: 'string',
  },
  {
    name: 'auth-issuer',
    env: 'MCP_AUTH_ISSUER',
    description:
      'HTTP: OAuth 2.1 sign-in — the authorization server whose access tokens (JWT) are accepted, beside any static tokens',
    type: 'string',
  },
  {
    name: 'auth-audience',
    env: 'MCP_AUTH_AUDIENCE',
    description:
      "HTTP: the audience OAuth tokens must name — this server's canonical URL (default: its public URL, or the address it listens on, + /mcp)",
    type: 'string',
  },
  {
    name: 'auth-client-id',
    env: 'MCP_AUTH_CLIENT_ID',
    description:
      "HTTP: this server's client id at the authorization server, to introspect opaque access tokens (RFC 7662); its secret in MCP_AUTH_CLIENT_SECRET",
    type: 'string',
  },
  {
    name: 'auth-client-secret',
    env: 'MCP_AUTH_CLIENT_SECRET',
    description:
      "the client secret for --auth-client-id (prefer the variable: a flag's value shows in ps)",
    type: 'string',
    placeholder: '',
  },
  {
    // Actions, not settings: never read from the environment (MCP_VERSION=2025-06-18 in a
    // user's shell made every app exit with a usage error).
    name: 'help',
    description: 'print this help and exit',
    type: 'boolean',
    short: 'h',
  },
  {
    name: 'version',
    description: 'print the version and exit',
    type: 'boolean',
    short: 'v',
  },
];

/** What an app's `build` and `run` get: the resolved command line and the process's logger. */
export interface RunContext {
  /** Option values by flag name: flags over environment variables over defaults. */
  values: CliValues;
  /** Arguments that are not flags (a subcommand and its arguments). */
  positionals: string[];
  /** The process's log, on stderr at `--log-level`. */
  logger: Logger;
  /**
   * The fleet's shared state (`--redis-url`); undefined when the app runs alone. The
   * HTTP server uses it for sessions and rate limits; an app may share its notifications through
   * it (`shareNotifications`). runCli closes it after the app's `close`.
   */
  state?: StateStore;
  /**
   * The key every instance of a fleet signs 2026-07-28 `requestState` tokens with (`--redis-url`;
   * undefined alone): pass it as the `requestState` option of the app's `McpServer`, so a multi
   * round-trip retry is good on whichever instance it lands — and single use across them all
   * (`claim`: the fleet store's `claimOnce`).
   */
  requestState?: { key: string; claim: SharedClaim };
  /**
   * Where a fleet keeps its tasks (MCP tasks extension; `--redis-url`, undefined alone): pass it
   * as the `tasks` option of the app's `McpServer`, so a task made through one instance is read,
   * answered and cancelled through any — and failed, not left `working`, once the instance
   * running it stops (this instance beats in the fleet's `task-runners` group; every instance
   * fails the tasks of one not heard from for {@link TASK_RUNNER_TTL_MS}).
   */
  tasks?: TaskRunnerOptions;
}

/** How often an instance of a fleet says it still runs its tasks. */
export const TASK_RUNNER_BEAT_MS = 5000;
/**
 * An instance not heard from for this long is gone, and its unfinished tasks fail: within this
 * plus one beat (20 s) of its death, whatever killed it.
 */
export const TASK_RUNNER_TTL_MS = 3 * TASK_RUNNER_BEAT_MS;

/**
 * A fleet's tasks: in the Redis of its state, run by this instance under its member id, and
 * the tasks of instances gone silent failed at every beat. Resolves with the server's options and
 * the way to stop beating.
 */
async function fleetTasks(
  state: RedisStateStore,
  logger: Logger,
): Promise<{ tasks: TaskRunnerOptions; stop: () => Promise<void> }> {
  const store = await createRedisTaskStore(state);
  const membership = await joinFleet(state, 'task-runners', {
    intervalMs: TASK_RUNNER_BEAT_MS,
    ttlMs: TASK_RUNNER_TTL_MS,
    logger,
  });
  const sweep = async () => {
    const alive = new Set((await membership.members()).map((m) => m.id));
    const failed = await store.failOrphans(alive);
    if (failed > 0) logger.warn({ failed }, 'tasks of a stopped instance failed');
  };
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => logger.warn({ err }, 'task sweep failed'));
  }, TASK_RUNNER_BEAT_MS);
  timer.unref();
  return {
    tasks: { store, runner: membership.id },
    stop: async () => {
      clearInterval(timer);
      await membership.leave().catch(() => undefined);
      await store.close();
    },
  };
}

/** An app as {@link runCli} runs it: its name, flags, and how to build its server. */
export interface CliApp {
  /** The command name shown in --help. */
  command: string;
  /** What `--version` prints. */
  version: string;
  /** One line for `--help`. */
  description: string;
  /** The app's own flags, besides the common ones. */
  options?: readonly CliOption[];
  /** Subcommands (`keys create …`): listed in --help; handled by `run` when positionals are given. */
  commands?: readonly { usage: string; description: string }[];
  /** Run a subcommand; return the exit code. Called when positionals are present. */
  run?: (ctx: RunContext) => Promise<number>;
  /** Build the server (and its HTTP settings) from the resolved options. */
  build: (ctx: RunContext) => Promise<{
    server: McpServer;
    http?: McpHttpOptions;
    /** Who a stdio client acts as (stdio carries no credentials of its own). */
    stdioAuth?: AuthInfo;
    /**
     * How the app takes OAuth sign-in when the operator turns it on (`--auth-issuer`): the scopes
     * it knows and those every request needs, and who a token's claims are. Without it the flag
     * is refused.
     */
    oauth?: Pick<
      OAuthResourceOptions,
      'scopes' | 'requiredScopes' | 'identity' | 'documentation' | 'scopeHierarchy' | 'stillValid'
    > & {
      /** The authorization server the app's own configuration names (`--auth-issuer` wins). */
      issuer?: string;
      /** The audience the app's own configuration names (`--auth-audience` wins). */
      audience?: string;
    };
    /** Release what `build` acquired (a database, child processes) when the server stops. */
    close?: () => Promise<void>;
  }>;
}

/** Where {@link runCli} reads its command line from; for tests. */
export interface RunOptions {
  /** The arguments after the command. Default `process.argv.slice(2)`. */
  argv?: readonly string[];
  /** The environment. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The shared entry point of every app:
 * `<app> [--transport stdio|http] [--host H] [--port P] [--log-level L] [--help] [--version]`,
 * every flag also an environment variable. Resolves with the exit code; logs go to stderr, so
 * stdout stays JSON-RPC only in stdio mode.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli({
 *   command: 'adder',
 *   version: '1.0.0',
 *   description: 'adds numbers',
 *   build: async () => ({
 *     server: new McpServer({ name: 'adder', version: '1.0.0' }).addTool(add),
 *     http: { plainPaths: ['/'] },
 *   }),
 * });
 * ```
 */
export async function runCli(app: CliApp, run: RunOptions = {}): Promise<number> {
  const options = [...COMMON_OPTIONS, ...(app.options ?? [])];
  let values: CliValues;
  let positionals: string[];
  try {
    ({ values, positionals } = resolveOptions(
      options,
      // `pnpm start -- --port 4000` passes the `--` through: it separates nothing here.
      (run.argv ?? process.argv.slice(2)).filter((arg) => arg !== '--'),
      run.env ?? process.env,
    ));
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    process.stderr.write(
      `${app.command}: ${err.message}\n\n${usage(app.command, app.description, options, app.commands)}`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage(app.command, app.description, options, app.commands));
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${app.version}\n`);
    return 0;
  }
  const logger = createLogger({
    name: app.command,
    level: values['log-level'] as PinoLogLevel,
    format: resolveLogFormat(values['log-format'] as string | undefined),
  });
  const ctx: RunContext = { values, positionals, logger };
  const drainSec = Number(values['drain-timeout']);
  // A fleet sits behind a balancer that needs a moment to see an instance go; alone, nobody does.
  const delaySec = Number(values['drain-delay'] ?? (values['redis-url'] ? 2 : 0));
  for (const [flag, n] of [
    ['drain-timeout', drainSec],
    ['drain-delay', delaySec],
  ] as const) {
    if (!Number.isFinite(n) || n < 0) {
      process.stderr.write(
        `${app.command}: --${flag} must be a number of seconds ≥ 0; got '${values[flag]}'\n`,
      );
      return 2;
    }
  }
  if (positionals.length > 0) {
    if (!app.run) {
      process.stderr.write(`${app.command}: unexpected argument '${positionals[0]}'\n`);
      return 2;
    }
    return app.run(ctx);
  }

  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `${app.command}: --port must be an integer from 0 to 65535; got '${values.port}'\n`,
    );
    return 2;
  }
  const publicUrls = parseCorsOrigins(values['public-url'] as string | undefined);
  if (typeof publicUrls === 'string') {
    process.stderr.write(`${app.command}: --public-url: ${publicUrls}\n`);
    return 2;
  }
  const corsOrigins = parseCorsOrigins(values['cors-origins'] as string | undefined);
  if (typeof corsOrigins === 'string') {
    process.stderr.write(`${app.command}: --cors-origins: ${corsOrigins}\n`);
    return 2;
  }
  const redisUrl = values['redis-url'];
  let stopTasks: () => Promise<void> = async () => {};
  // Over stdio too: an app behind a gateway instance shares its notifications with the fleet.
  if (typeof redisUrl === 'string' && redisUrl !== '') {
    try {
      const state = await createRedisStateStore(redisUrl, {
        prefix: (values['redis-prefix'] as string | undefined) ?? `mcpkit:${app.command}:`,
      });
      ctx.state = state;
      // For the app's McpServer: a 2026-07-28 `requestState` signed by one instance is good on
      // every other (its multi round-trip retry may land anywhere).
      ctx.requestState = {
        key: await state.sharedSecret('request-state'),
        claim: (key, ttlMs) => state.claimOnce(key, ttlMs),
      };
      const fleet = await fleetTasks(state, logger);
      ctx.tasks = fleet.tasks;
      stopTasks = fleet.stop;
    } catch (err) {
      await ctx.state?.close();
      if (!StoreUnavailableError.is(err)) throw err;
      // One line a person can act on: which Redis, and why not.
      process.stderr.write(`${app.command}: --redis-url: ${err.message}\n`);
      return 1;
    }
    logger.info({ state: 'redis' }, 'fleet mode: shared state in Redis');
  }
  const state = ctx.state;
  // OpenTelemetry traces when the OTEL_* variables ask for them (off by default), started before
  // the app is built so that what it does at start-up is traced too.
  let tracing: Tracing | undefined;
  if (tracingRequested(run.env ?? process.env)) {
    try {
      tracing = await startTracing({
        serviceName: app.command,
        serviceVersion: app.version,
        logger,
      });
      logger.info({ exporter: 'otlp/http' }, 'tracing on');
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : err }, 'tracing not started');
    }
  }
  let built: Awaited<ReturnType<CliApp['build']>>;
  try {
    built = await app.build(ctx);
  } catch (err) {
    await stopTasks();
    await state?.close();
    if (err instanceof CliUsageError) {
      process.stderr.write(`${app.command}: ${err.message}\n`);
      return 2;
    }
    logger.fatal({ err }, 'failed to start');
    return 1;
  }
  const { server, stdioAuth } = built;
  let http = built.http;
  const issuer = (values['auth-issuer'] as string | undefined) || built.oauth?.issuer;
  if (issuer && values.transport === 'http') {
    // Over stdio nothing changes: MCP's authorization spec has stdio credentials come from the
    // environment, which the app's own flags do.
    const clientId = values['auth-client-id'] as string | undefined;
    const clientSecret = values['auth-client-secret'] as string | undefined;
    const refused = !built.oauth
      ? `${app.command} does not take OAuth sign-in`
      : !URL.canParse(issuer)
        ? `'${issuer}' is not a URL`
        : Boolean(clientId) !== Boolean(clientSecret)
          ? '--auth-client-id and MCP_AUTH_CLIENT_SECRET go together (introspection needs both)'
          : undefined;
    if (refused) {
      await built.close?.();
      await stopTasks();
      await state?.close();
      process.stderr.write(`${app.command}: --auth-issuer: ${refused}\n`);
      return 2;
    }
    const audience = (values['auth-audience'] as string | undefined) || built.oauth?.audience;
    const { issuer: _issuer, audience: _audience, ...profile } = built.oauth ?? {};
    const oauth = createOAuthResourceServer({
      ...profile,
      issuer,
      ...(audience ? { audience } : {}),
      ...(clientId && clientSecret ? { introspection: { clientId, clientSecret } } : {}),
    });
    http = { ...http, auth: { ...http?.auth, oauth } };
    logger.info(
      { issuer, audience: audience ?? '(this server)', introspection: Boolean(clientId) },
      'OAuth sign-in on',
    );
  }
  if (tracing) traceServer(server);
  if (ctx.tasks && server.tasks && server.tasks.store !== ctx.tasks.store) {
    logger.warn(
      'fleet mode, but the app builds its McpServer without the fleet task store: pass RunContext.tasks as its tasks option, or its tasks are seen by one instance only',
    );
  }
  if (ctx.requestState && !server.requestStateKeyed) {
    // Nothing fails at start: a 2026-07-28 input round's retry fails later, on another instance.
    logger.warn(
      'fleet mode, but the app builds its McpServer without the fleet key: pass RunContext.requestState as its requestState option, or multi round-trip retries fail on other instances',
    );
  }
  // The app's resources first, then the shared store they may still publish through.
  const close = async () => {
    try {
      server.closeTasks();
      await built.close?.();
    } finally {
      await stopTasks();
      await state?.close();
      // The spans of the shutdown itself are sent too.
      await tracing?.shutdown();
    }
  };

  if (values.transport === 'stdio') {
    guardStdout();
    // A signal ends a stdio server too; the app still releases what it holds (child processes).
    const onSignal = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      void Promise.resolve(close?.()).finally(() => process.exit(0));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    logger.info({ version: app.version }, 'serving MCP on stdio');
    await serveMcpStdio(server, stdioAuth ? { logger, auth: stdioAuth } : { logger });
    await close?.();
    return 0;
  }

  // Handlers go in before the "listening" line: a supervisor may signal as soon as it reads it.
  let stop: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  let httpServer: ReturnType<typeof createMcpHttpServer>;
  try {
    // Metrics of every HTTP app unless switched off; an app may bring its own (to add to them).
    const metrics = values.metrics === 'off' ? undefined : (http?.metrics ?? new McpMetrics());
    metrics?.observe(server);
    const metricsToken = (values['metrics-token'] as string | undefined) || http?.metricsToken;
    httpServer = createMcpHttpServer(server, {
      logger,
      ...(state ? { state } : {}),
      drainTimeoutMs: drainSec * 1000,
      drainDelayMs: delaySec * 1000,
      ...http,
      metrics,
      ...(metricsToken ? { metricsToken } : {}),
      ...(corsOrigins.length > 0 ? { corsOrigins } : {}),
      ...(publicUrls.length > 0 ? { publicUrls } : {}),
      host: values.host as string,
      port,
    });
    const { url } = await httpServer.listen();
    const paths = [
      ...(http?.plainPaths ?? []),
      ...(http?.streamablePath === false ? [] : [http?.streamablePath ?? '/mcp']),
    ];
    logger.info({ url, paths, version: app.version }, 'serving MCP over HTTP');
    // Plain lines for a person at a terminal: where to connect, each URL saying what it is.
    process.stderr.write(
      startupLines(app.command, app.version, url, {
        streamablePath: http?.streamablePath === false ? false : (http?.streamablePath ?? '/mcp'),
        plainPaths: http?.plainPaths ?? [],
        pages: http?.pages ?? [],
        metricsPath: metrics ? (http?.metricsPath ?? '/metrics') : undefined,
      }),
    );
  } catch (err) {
    logger.fatal({ err: err instanceof Error ? err.message : err }, 'failed to listen');
    if ((err as { code?: unknown }).code === 'EADDRINUSE') {
      // The person at the terminal needs the way out, not a stack.
      process.stderr.write(
        `${app.command}: port ${port} on ${values.host as string} is in use: choose another with --port <n> (or MCP_PORT)\n`,
      );
    }
    await close?.();
    return 1;
  }
  logger.info({ signal: await stopped }, 'shutting down: draining');
  // Not ready any more, no new connections, in-flight calls finish; then the app lets go.
  await httpServer.drain();
  await close();
  return 0;
}

/**
 * `--cors-origins a,b`: each an origin exactly as a browser sends it (scheme, host, port if not
 * the default; no path, no trailing slash), or the reason it is not.
 */
function parseCorsOrigins(value: string | undefined): string[] | string {
  const origins = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      return `'${origin}' is not an origin like https://app.example.com (scheme, host and port only)`;
    }
  }
  return origins;
}

/**
 * What an HTTP app prints on stderr once it listens: the first line says where (tools read the
 * URL off it), then one labelled URL per endpoint — an operator should not have to guess which
 * path is the Streamable HTTP one and which the plain JSON-RPC one.
 */
export function startupLines(
  command: string,
  version: string,
  url: string,
  served: {
    streamablePath: string | false;
    plainPaths: readonly string[];
    pages: readonly HttpPage[];
    metricsPath: string | undefined;
  },
): string {
  const labelled: [string, string][] = [];
  if (served.streamablePath !== false) labelled.push(['Streamable HTTP', served.streamablePath]);
  // `/messages/` and `/messages` are one endpoint to a person: the first is shown.
  const plain = served.plainPaths[0];
  if (plain !== undefined) labelled.push(['plain JSON-RPC', plain]);
  for (const page of served.pages) {
    if (page.shown) labelled.push([page.shown.label, page.shown.path]);
  }
  if (served.metricsPath !== undefined) labelled.push(['metrics', served.metricsPath]);
  const width = Math.max(0, ...labelled.map(([label]) => label.length)) + 1;
  const lines = [
    `${command} ${version} listening on ${url}`,
    ...labelled.map(([label, path]) => `  ${`${label}:`.padEnd(width)} ${url}${path}`),
  ];
  return `${lines.join('\n')}\n`;
}
