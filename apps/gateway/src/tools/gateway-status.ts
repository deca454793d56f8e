import { type AuthInfo, defineTool, holdsScopes } from '@mcpkit/protocol';
import type { Gateway } from '../gateway.js';
import { SERVERS_PATH } from '../servers/mounts.js';

/**
 * The mcp-n8n gateway's `gateway_status` shape, extended: gateway{name, version, config},
 * backends{<name>: {status, namespace, tool_count, …}}.
 */
export const gatewayStatus = (gateway: Gateway) =>
  defineTool({
    name: 'gateway_status',
    description: 'Get status of the gateway and all backends',
    annotations: { readOnlyHint: true, openWorldHint: false },
    // A backend whose scopes the caller lacks is not in its status: not its to see.
    handler: async (_args, ctx) => {
      const { gateway: g } = gateway.config;
      const { tools, prompts, resources } = gateway.routes();
      const count = (map: Map<string, { backend: unknown }>, backend: unknown) =>
        [...map.values()].filter((r) => r.backend === backend).length;
      const backends: Record<string, unknown> = {};
      // The caller's own credentials (a signed-in person): which personal backends they connected.
      const subject = ctx.auth?.subject;
      const mine =
        subject && gateway.personal ? await gateway.personal.connected(subject) : undefined;
      for (const [name, b] of gateway.backends) {
        if (!holdsScopes(ctx.auth, b.config.scopes)) continue;
        backends[name] = {
          status: b.state,
          namespace: b.namespace,
          // The era its link speaks: `modern` (2026-07-28, per-request metadata) or `legacy`
          // (an initialize session), as negotiated under its `protocol` setting.
          protocol: { setting: b.config.protocol, ...(b.era ?? { era: null, version: null }) },
          tool_count: count(tools, b),
          resource_count: count(resources, b),
          prompt_count: count(prompts, b),
          pid: b.pid ?? null,
          uptime_s: b.startedAt ? Math.round((Date.now() - b.startedAt) / 1000) : null,
          restarts: b.restarts,
          last_error: b.lastError ?? null,
          calls: b.calls,
          errors: b.errors,
          latency_ms: b.latencyPercentiles(),
          stdout_noise_lines: b.noise,
          stderr_tail: b.stderr.tail(10),
          ...(b.config.pin && b.config.pin !== 'off'
            ? {
                pin: b.config.pin,
                // Held back for a changed (or, in block mode, new) definition: what changed.
                quarantined: gateway.quarantine.held(name).map((q) => ({
                  tool: q.tool,
                  reason: q.reason,
                  fields: q.fields,
                  since: new Date(q.since).toISOString(),
                  ...(q.approved && q.fields.includes('description')
                    ? {
                        approved_description: q.approved.description ?? null,
                        offered_description: q.offered.description ?? null,
                      }
                    : {}),
                })),
              }
            : {}),
          // Installed from a registry entry: which, from where, and what it runs as.
          ...(b.origin
            ? {
                registry: {
                  entry: `${b.origin.name}@${b.origin.version}`,
                  source: b.origin.source,
                  via: b.origin.via,
                  status: b.origin.status,
                },
              }
            : {}),
          ...(b.personal
            ? {
                per_person: {
                  credential: b.config.credential?.type ?? null,
                  open_links: gateway.personal?.people(name).length ?? 0,
                  // Whether the caller gave theirs (null: no signed-in caller, or no vault).
                  you_connected: b.config.credential && mine ? mine.has(name) : null,
                },
              }
            : {}),
        };
      }
      // Configured but `enabled: false`: shown, so a reader of the status sees the whole config.
      for (const [name, b] of Object.entries(gateway.config.mcpServers)) {
        if (b.enabled === false && !(name in backends) && holdsScopes(ctx.auth, b.scopes)) {
          backends[name] = {
            status: 'disabled',
            namespace: b.namespace === false ? '' : (b.namespace ?? name),
            tool_count: 0,
          };
        }
      }
      // The quotas and what the caller has left of each (gateway.quotas).
      const quotas = gateway.quotas ? await gateway.quotas.status(ctx.auth) : undefined;
      return {
        gateway: {
          name: g.name,
          version: gateway.server.info.version,
          config: {
            log_level: g.log_level.toUpperCase(),
            debug: g.debug,
            backend_timeout: g.backend_timeout,
          },
          uptime_s: Math.round((Date.now() - gateway.startedAt) / 1000),
          // Calls of 2026-07-28 clients waiting for their retry with input (see bridge.ts).
          parked_calls: gateway.parkedCalls,
          // Calls of clients with the tasks extension running as tasks here (see task-call.ts).
          running_tasks: gateway.runningTasks,
          collisions: gateway.collisions,
          // This process's id on the events it records (get_events filters by it).
          instance: gateway.events.instance,
          // The event log keeping up: pending rows and their lag, successful calls aggregated
          // (beyond the detail rate, or while its store lagged) and events dropped while its
          // store lagged or failed (see events.ts).
          events: { path: gateway.events.path, ...gateway.events.stats() },
        },
        backends,
        ...(quotas ? { quotas } : {}),
        // The virtual servers (gateway.servers): where each is, what it lists, and whether it is
        // the caller's at /mcp.
        ...(gateway.virtual.size > 0 ? { servers: virtualServers(gateway, ctx.auth) } : {}),
        // The calls each rule decided since start (gateway.rules).
        ...(gateway.policy ? { rules: gateway.policy.decisions() } : {}),
        // Several instances behind a load balancer (--redis-url): each one alive, by heartbeat.
        ...(gateway.fleet ? { fleet: { instances: await fleetInstances(gateway) } } : {}),
      };
    },
  });

/** The fleet's members, or why they cannot be listed (Redis away): never a failed status. */
async function fleetInstances(gateway: Gateway): Promise<unknown> {
  try {
    return ((await gateway.fleet?.()) ?? []).map((m) => ({
      id: m.id,
      host: m.host,
      pid: m.pid,
      uptime_s: Math.round((Date.now() - m.startedAt) / 1000),
      seen_s_ago: Math.round((Date.now() - m.seenAt) / 1000),
      ...m.info,
    }));
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Each virtual server as gateway_status shows it. */
function virtualServers(gateway: Gateway, auth: AuthInfo | undefined): Record<string, unknown>[] {
  const mine = gateway.virtual.defaultFor(auth);
  return [...gateway.virtual.all()].map((v) => ({
    name: v.name,
    path: `${SERVERS_PATH}${v.name}/mcp`,
    tools: [...v.tools.keys()].sort(),
    your_default: v === mine,
    ...(v.collisions.length > 0 ? { collisions: v.collisions } : {}),
  }));
}
