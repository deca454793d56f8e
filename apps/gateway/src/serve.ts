/**
 * The gateway's command, loaded by cli.ts once the stdio backends are spawned (prestart.ts):
 * flags, config, event log, backends, then stdio or HTTP through the protocol's runCli.
 */

import type { IncomingMessage } from 'node:http';
import { dirname, resolve } from 'node:path';
import {
  type FleetMembership,
  type FleetNotifier,
  joinFleet,
  shareNotifications,
} from '@mcpkit/fleet';
import { CliUsageError, runCli, type StaticToken, staticTokens } from '@mcpkit/node';
import { McpMetrics } from '@mcpkit/observability';
import { parentDeathSignalMissing } from '@mcpkit/protocol';
import type { AuthorizationServerMode } from './auth/mode.js';
import { COMMANDS, runCommand } from './commands.js';
import {
  ConfigError,
  defaultConfig,
  exposureWarnings,
  isPersonal,
  isRegistry,
  isStdio,
  loadConfig,
} from './config.js';
import { defaultStatePath } from './events/path.js';
import { isPostgresTarget } from './events/postgres-url.js';
import { defaultEventLogPath, EventLog } from './events.js';
import { Gateway, VERSION } from './gateway.js';
import { loadHooks } from './governance/hooks.js';
import type { PinRows } from './governance/pins.js';
import { GATEWAY_OPTIONS } from './options.js';
import { exitingEarly, releasePrestarted, releaseSignals } from './prestart.js';
import { registryPage } from './registry/page.js';
import { retryOnHangup, watchConfig } from './reload.js';
import { virtualMounts } from './servers/mounts.js';
import { statusPage } from './status/page.js';
import { backendsReadiness } from './status/readiness.js';

/** How long the first lists wait for backends to start; later ones join via list_changed. */
const STARTUP_WAIT_MS = 15_000;
/** The event log's writer starts when the backends have, or after this long at the latest. */
const EVENTS_START_MS = 2_000;

process.exitCode = await runCli({
  command: 'mcp-gateway',
  version: VERSION,
  description:
    'many MCP servers behind one endpoint (default backends: the projects and system-info apps)',
  options: GATEWAY_OPTIONS,
  commands: COMMANDS,
  run: ({ positionals }) => runCommand(positionals),
  build: async ({ values, logger, state, requestState, tasks }) => {
    const taskAfter = String(values['task-after'] ?? '5');
    const taskAfterSec = taskAfter === 'off' ? null : Number(taskAfter);
    if (taskAfterSec !== null && (!Number.isFinite(taskAfterSec) || taskAfterSec < 0)) {
      await releasePrestarted();
      throw new CliUsageError(`--task-after must be seconds ≥ 0 or off; got '${taskAfter}'`);
    }
    // A SIGTERM while this module loaded: the early children are being stopped, and the process
    // exits when they are; nothing more is started.
    const exiting = exitingEarly();
    if (exiting) await new Promise<never>(() => void exiting);
    let config: ReturnType<typeof defaultConfig>;
    try {
      config = values.config ? loadConfig(values.config as string) : defaultConfig();
    } catch (err) {
      // The backends spawned early for a config that is not valid are stopped before the exit.
      await releasePrestarted();
      if (err instanceof ConfigError) throw new CliUsageError(err.message);
      throw err;
    }
    // The hooks (gateway.hooks): an operator's module that cannot be loaded stops the start.
    let hooks: Awaited<ReturnType<typeof loadHooks>>;
    try {
      hooks = await loadHooks(
        config.gateway.hooks ?? [],
        values.config ? dirname(resolve(values.config as string)) : process.cwd(),
      );
    } catch (err) {
      await releasePrestarted();
      throw new CliUsageError((err as Error).message);
    }
    // A fleet's approved tool definitions in PostgreSQL: shared, and heard of when changed.
    let pins: PinRows | undefined;
    const pinsPath = config.gateway.pins?.path;
    if (pinsPath && isPostgresTarget(pinsPath)) {
      try {
        // Loaded only for a fleet's pins: pg (and what it loads) is not a stdio start's cost.
        const { openPostgresPins } = await import('./governance/postgres-pins.js');
        pins = await openPostgresPins(pinsPath, {
          onError: (err) => logger.warn({ err: err.message }, 'pins: PostgreSQL'),
        });
      } catch (err) {
        await releasePrestarted();
        throw new CliUsageError((err as Error).message);
      }
    }
    // The event log's writer thread boots once the backends have started (or after a while):
    // until then its ~50 ms of CPU would slow their boot, which a first call waits for.
    let backendsUp!: () => void;
    const startAfter = new Promise<void>((resolve) => {
      backendsUp = resolve;
    });
    let events: EventLog;
    try {
      events = await EventLog.connect(
        (values.events as string | undefined) ??
          config.gateway.events.path ??
          defaultEventLogPath(values.config as string | undefined),
        {
          retentionDays: config.gateway.events.retention_days,
          maxEvents: config.gateway.events.max_events,
          detailPerSecond: config.gateway.events.detail_per_second,
          startAfter,
        },
      );
    } catch (err) {
      await releasePrestarted();
      await pins?.close();
      // A path it cannot use (a directory, a file that is not an event log, no permission): one
      // line naming it, exit 2 — not a fatal log line with a stack.
      throw new CliUsageError(err instanceof Error ? err.message : String(err));
    }
    // A signal while the log opened (a PostgreSQL connect takes real time): the early children are
    // being stopped and the process exits when they are; starting the backends now would orphan
    // the fresh ones.
    const exitingNow = exitingEarly();
    if (exitingNow) {
      await events.close().catch(() => undefined);
      await pins?.close();
      await new Promise<never>(() => void exitingNow);
    }
    // Fleet mode (--redis-url): a backend's resource update is told to the subscribers of every
    // gateway instance, whichever instance's backend saw it (Redis pub/sub).
    let notifier: FleetNotifier | undefined;
    let membership: FleetMembership | undefined;
    const gateway = new Gateway(config, {
      events,
      logger,
      configDir: values.config ? dirname(resolve(values.config as string)) : process.cwd(),
      // Approved tool definitions (backends with `pin`) beside the event log's default.
      pinsPath: defaultStatePath('gateway-pins', values.config as string | undefined),
      hooks,
      ...(pins ? { pins } : {}),
      ...(requestState ? { requestState } : {}),
      taskAfterMs: taskAfterSec === null ? null : Math.round(taskAfterSec * 1000),
      ...(tasks ? { tasks } : {}),
      ...(state
        ? {
            announce: (uri: string) => void notifier?.resourceUpdated(uri),
            fleet: async () => (await membership?.members()) ?? [],
            state,
          }
        : {}),
    });
    // Served at once (initialize, ping, a stdin EOF are answered while backends start); lists
    // and calls to tools not there yet wait for the backends, at most STARTUP_WAIT_MS — later
    // ones join with list_changed. runCli's signal handlers stop whatever has started.
    // A signal is the kernel's at once: a handler must be there before the first spawn, or a
    // SIGTERM while backends start ends this process and orphans them. It hands over to
    // runCli's handlers a turn after build returns (both may run; stop() is idempotent).
    const onEarlySignal = (signal: string) => {
      logger.info({ signal }, 'shutting down during start-up');
      void gateway.stop().finally(() => process.exit(0));
    };
    process.once('SIGTERM', onEarlySignal);
    process.once('SIGINT', onEarlySignal);
    releaseSignals();
    setImmediate(() => {
      process.off('SIGTERM', onEarlySignal);
      process.off('SIGINT', onEarlySignal);
    });
    const started = gateway.start();
    void started.finally(backendsUp);
    setTimeout(backendsUp, EVENTS_START_MS).unref();
    // Every backend took its early child in start() (synchronously); any left is not wanted.
    void releasePrestarted();
    const firstLists = Promise.race([
      started,
      new Promise((resolve) => setTimeout(resolve, STARTUP_WAIT_MS).unref()),
    ]);
    gateway.server.holdLists(firstLists);
    for (const v of gateway.virtual.all()) v.server.holdLists(firstLists);
    const slow = setTimeout(() => {
      for (const [name, b] of gateway.backends) {
        if (b.state !== 'starting') continue;
        const r = b.runnable;
        const what = !r
          ? `registry entry ${isRegistry(b.config) ? (b.config.registry ?? b.config.server_json) : ''}`
          : isStdio(r)
            ? `command ${r.command}`
            : `url ${r.url}`;
        logger.info({ backend: name }, `waiting for backend '${name}' (${what})`);
      }
    }, 1000);
    slow.unref();
    void started.then(() => {
      clearTimeout(slow);
      // Probed at the first stdio spawn already: say once when the backends got no parent-death
      // signal (setpriv denied by a seccomp filter, say), so a SIGKILLed gateway's orphans are
      // explained. The service manager's cgroup, or the gateway's own stop, still ends them.
      const missing = [...gateway.backends.values()].some((b) => b.runnable && isStdio(b.runnable))
        ? parentDeathSignalMissing()
        : undefined;
      if (missing !== undefined)
        logger.info(`backends start without a parent-death signal: ${missing}`);
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
    });
    // Hot reload: the config file is watched and SIGHUP reloads it. Without a config file there
    // is nothing to reload, but SIGHUP must not end the service (its default action); either way
    // it starts the given-up backends again.
    let unwatch: (() => void) | undefined;
    const token = values.token as string | undefined;
    // `--token` grants everything (no scopes: unrestricted); gateway.tokens grant their scopes.
    const tokensOf = (c: typeof config): StaticToken[] => [
      ...(token ? [{ token, subject: 'client', allScopes: true }] : []),
      ...(c.gateway.tokens ?? []),
    ];
    const tokens = tokensOf(config);
    // The tokens are checked through this binding, so that a reload can change them: a token
    // removed from gateway.tokens must stop working without a restart.
    let checkToken = staticTokens(tokens);
    const reloadTokens = (next: typeof config) => {
      if (JSON.stringify(next.gateway.tokens ?? []) === JSON.stringify(config.gateway.tokens ?? []))
        return;
      const list = tokensOf(next);
      if (tokens.length === 0 || list.length === 0) {
        // Turning auth on or off changes what the server may bind to: at start only.
        logger.warn('config: gateway.tokens turns auth on or off; restart to apply it');
        return;
      }
      checkToken = staticTokens(list);
      config = { ...config, gateway: { ...config.gateway, tokens: next.gateway.tokens ?? [] } };
      logger.info({ tokens: list.length }, 'config: gateway.tokens reloaded');
    };
    for (const warning of exposureWarnings(config, tokens.length > 0)) logger.warn(warning);
    // /metrics (the protocol's request metrics and the backends'), and the status page at `/`,
    // both behind the same tokens as MCP.
    // Served over HTTP only: over stdio there is nobody to scrape them, and nothing is counted.
    const metrics =
      values.metrics === 'off' || values.transport !== 'http' ? undefined : new McpMetrics();
    // prom-client (and the OpenTelemetry API it loads) only where metrics are served.
    if (metrics) (await import('./status/metrics.js')).observeGateway(gateway, metrics);
    const page = statusPage(gateway);
    // The gateway as an MCP Registry (/v0.1/servers): its backends and virtual servers.
    const publicUrl = (values['public-url'] as string | undefined)?.split(',')[0]?.trim();
    const registry = registryPage(gateway, publicUrl ? { publicUrl } : {});
    // The virtual servers' endpoints (served at /servers/<name>/mcp; resources of the sign-in).
    const mounts = virtualMounts(gateway);
    // The scopes a token may hold here — each backend's, and gateway:admin for restart_backend.
    const scopes = [
      ...new Set([
        ...Object.values(config.mcpServers).flatMap((b) => b.scopes ?? []),
        'gateway:admin',
      ]),
    ];
    // gateway.authorization_server: the gateway is the authorization server (HTTP only).
    let signIn: AuthorizationServerMode | undefined;
    try {
      unwatch = values.config
        ? watchConfig(gateway, values.config as string, logger, process.env, reloadTokens)
        : retryOnHangup(gateway, logger);
      if (config.gateway.authorization_server && values.transport === 'http') {
        // The authorization server (oidc-provider, jose, the vault) only when the gateway is one.
        const [
          { startAuthorizationServerMode },
          { revokeSignIn },
          { CONNECT_CALLBACK, CONNECT_PATH },
        ] = await Promise.all([
          import('./auth/mode.js'),
          import('./tools/revoke-sign-in.js'),
          import('./vault/connect-page.js'),
        ]);
        signIn = await startAuthorizationServerMode({
          config: config.gateway.authorization_server,
          values,
          scopes,
          configPath: values.config as string | undefined,
          events: gateway.events,
          vault: config.gateway.vault,
          backends: () => gateway.config.mcpServers,
          onCredentialChange: (subject, backend) => void gateway.personal?.forget(backend, subject),
          alsoResource: (path) => mounts.serves(path),
        });
        gateway.server.addTool(revokeSignIn(signIn.store, gateway.events));
        if (Object.values(config.mcpServers).some(isPersonal)) {
          const { issuer, delegated } = signIn;
          gateway.usePersonalLinks({
            vault: signIn.vault,
            delegate: (subject, audience, scope, ttlSec) =>
              delegated.issue({ subject, audience, scope, ttlSec }),
            maxLinks: config.gateway.per_person.max_links,
            idleMs: config.gateway.per_person.idle_sec * 1000,
            connectUrl: (backend, subject) =>
              `${issuer}${CONNECT_PATH}/${encodeURIComponent(backend)}?for=${encodeURIComponent(subject)}`,
            oauthRedirect: `${issuer}${CONNECT_CALLBACK}`,
          });
        }
      }
      if (state) {
        notifier = await shareNotifications(gateway.server, state, { logger });
        // Listed by every instance's gateway_status while it beats (every 5 s; gone after 15 s).
        membership = await joinFleet(state, 'gateways', {
          logger,
          info: () => ({
            instance: gateway.events.instance,
            backends_running: [...gateway.backends.values()].filter((b) => b.state === 'running')
              .length,
          }),
        });
      }
    } catch (err) {
      // runCli reports a failed build and returns without calling close: the backends started
      // above would keep the process alive, with no signal handler left to stop them.
      page.close();
      unwatch?.();
      await signIn?.close();
      await notifier?.close().catch(() => undefined);
      await gateway.stop();
      throw err;
    }
    // --server: the endpoint (stdio, or /mcp) is that virtual server.
    const only = values.server as string | undefined;
    const served = only === undefined ? gateway.server : gateway.virtual.get(only)?.server;
    if (!served) {
      page.close();
      unwatch?.();
      await signIn?.close();
      await gateway.stop();
      const known = [...gateway.virtual.all()].map((v) => v.name);
      throw new CliUsageError(
        `--server ${only}: no such virtual server in gateway.servers (${known.length > 0 ? known.join(', ') : 'none configured'})`,
      );
    }
    return {
      server: served,
      http: {
        plainPaths: ['/messages/', '/messages'],
        // Each virtual server at /servers/<name>/mcp, and a person's default one at /mcp.
        ...(only === undefined ? { mounts } : {}),
        ...(tokens.length > 0
          ? { auth: { authenticate: (t: string, req: IncomingMessage) => checkToken(t, req) } }
          : {}),
        ...(metrics ? { metrics } : {}),
        pages: signIn ? [signIn.page, page, registry] : [page, registry],
        health: { checks: { backends: () => backendsReadiness(gateway.backends.values()) } },
      },
      // With --auth-issuer, gateway.oauth or gateway.authorization_server (its own issuer).
      oauth: {
        scopes,
        ...(signIn && { issuer: signIn.issuer, stillValid: signIn.stillValid }),
        ...(config.gateway.oauth && {
          issuer: config.gateway.oauth.issuer,
          ...(config.gateway.oauth.audience ? { audience: config.gateway.oauth.audience } : {}),
          ...(config.gateway.oauth.scope_hierarchy
            ? { scopeHierarchy: config.gateway.oauth.scope_hierarchy }
            : {}),
        }),
      },
      close: async () => {
        page.close();
        unwatch?.();
        await signIn?.close();
        await membership?.leave().catch(() => undefined);
        await notifier?.close();
        return gateway.stop();
      },
    };
  },
});
// An early child nobody took (runCli stopped at a usage error before build) must not keep the
// process alive.
await releasePrestarted();
