import { type AuthInfo, holdsScopes } from '@mcpkit/protocol';
import type { Gateway } from '../gateway.js';
import { SERVERS_PATH } from '../servers/mounts.js';

/** One backend as the status page shows it. */
export interface BackendView {
  /** Its name in the config. */
  name: string;
  /** The prefix of its tools. */
  namespace: string;
  /** stopped, starting, running, backoff, failed — or disabled (`enabled: false`). */
  state: string;
  /** The era its link speaks (`legacy`, `modern`), once known. */
  era: string | null;
  /** The protocol version negotiated with it, once known. */
  version: string | null;
  /** Its process id (stdio backends, while running). */
  pid: number | null;
  /** Seconds since it last reached `running`. */
  uptime_s: number | null;
  /** Restarts so far. */
  restarts: number;
  /** Why it last failed or stopped. */
  last_error: string | null;
  /** Its last stderr lines. */
  stderr_tail: string[];
  /** Tool calls forwarded to it, and how many failed. */
  calls: number;
  /** Failed calls. */
  errors: number;
  /** Call latency over its last 512 calls, ms. */
  p50_ms: number | null;
  /** Call latency over its last 512 calls, ms. */
  p99_ms: number | null;
  /** Tools it offers through the gateway. */
  tools: number;
  /**
   * Tools held back because their definitions changed since approved (a pinned backend), with
   * what changed: the status page shows the approved and the offered description side by side.
   */
  quarantined: {
    tool: string;
    reason: 'changed' | 'new';
    fields: string[];
    approved_description: string | null;
    offered_description: string | null;
  }[];
}

/** One virtual server as the status page shows it. */
export interface ServerView {
  name: string;
  /** Its endpoint's path (`/servers/<name>/mcp`). */
  path: string;
  /** The tools it lists that the viewer may see, by its names. */
  tools: string[];
  prompts: number;
  resources: number;
  /** Who gets it at `/mcp`: groups by name, subjects counted (people's names stay off the page). */
  default_groups: string[];
  default_subjects: number;
}

/** What the status page shows at a moment. */
export interface StatusSnapshot {
  /**
   * The gateway itself. `instance` is this process's id on the events it records: a log shared
   * by several gateways (the default file, a fleet's PostgreSQL) mixes theirs, and the page
   * marks its own by it.
   */
  gateway: {
    name: string;
    version: string;
    instance: string;
    uptime_s: number;
    parked_calls: number;
    /** Tasks whose backend calls run in this process. */
    running_tasks: number;
    time: string;
  };
  /** Every configured backend, in config order. */
  backends: BackendView[];
  /** The virtual servers, in config order. */
  servers: ServerView[];
}

/** How many stderr lines a snapshot carries per backend. */
export const STDERR_LINES = 10;

/**
 * The gateway's state now, for the status page (its API and its live stream), as `auth` may see
 * it: a backend whose scopes it lacks is left out.
 */
export function snapshot(gateway: Gateway, now = Date.now(), auth?: AuthInfo): StatusSnapshot {
  const tools = new Map<unknown, number>();
  for (const route of gateway.routes().tools.values()) {
    tools.set(route.backend, (tools.get(route.backend) ?? 0) + 1);
  }
  const backends: BackendView[] = [];
  for (const [name, b] of gateway.backends) {
    if (!holdsScopes(auth, b.config.scopes)) continue;
    const latency = b.latencyPercentiles();
    backends.push({
      name,
      namespace: b.namespace,
      state: b.state,
      era: b.era?.era ?? null,
      version: b.era?.version ?? null,
      pid: b.pid ?? null,
      uptime_s:
        b.startedAt && b.state === 'running' ? Math.round((now - b.startedAt) / 1000) : null,
      restarts: b.restarts,
      last_error: b.lastError ?? null,
      stderr_tail: b.stderr.tail(STDERR_LINES),
      calls: b.calls,
      errors: b.errors,
      p50_ms: latency ? round(latency.p50) : null,
      p99_ms: latency ? round(latency.p99) : null,
      tools: tools.get(b) ?? 0,
      quarantined: gateway.quarantine.held(name).map((q) => ({
        tool: q.tool,
        reason: q.reason,
        fields: q.fields,
        approved_description: describe(q.approved),
        offered_description: describe(q.offered),
      })),
    });
  }
  for (const [name, config] of Object.entries(gateway.config.mcpServers)) {
    if (config.enabled !== false || gateway.backends.has(name)) continue;
    if (!holdsScopes(auth, config.scopes)) continue;
    backends.push({
      name,
      namespace: config.namespace === false ? '' : (config.namespace ?? name),
      state: 'disabled',
      era: null,
      version: null,
      pid: null,
      uptime_s: null,
      restarts: 0,
      last_error: null,
      stderr_tail: [],
      calls: 0,
      errors: 0,
      p50_ms: null,
      p99_ms: null,
      tools: 0,
      quarantined: [],
    });
  }
  return {
    gateway: {
      name: gateway.config.gateway.name,
      version: gateway.server.info.version,
      instance: gateway.events.instance,
      uptime_s: Math.round((now - gateway.startedAt) / 1000),
      parked_calls: gateway.parkedCalls,
      running_tasks: gateway.runningTasks,
      time: new Date(now).toISOString(),
    },
    backends,
    servers: [...gateway.virtual.all()].map((v) => ({
      ...v.sizes(),
      name: v.name,
      path: `${SERVERS_PATH}${v.name}/mcp`,
      tools: [...v.tools]
        .filter(([, route]) => holdsScopes(auth, route.backend.config.scopes))
        .map(([name]) => name)
        .sort(),
      default_groups: v.definition.default_for?.groups ?? [],
      default_subjects: v.definition.default_for?.subjects.length ?? 0,
    })),
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** A definition's description, or null. */
function describe(definition: Readonly<Record<string, unknown>> | undefined): string | null {
  return typeof definition?.description === 'string' ? definition.description : null;
}
