/**
 * Quotas: at most `limit` calls of some backend tools per identity per window — exact across the
 * instances of a fleet (one counter per identity in Redis, rate-limiter-flexible's atomic
 * consume), per process otherwise. A call over the quota is refused before it reaches the
 * backend with when to retry.
 */
import { memoryRateLimiter, type StateStore } from '@mcpkit/fleet';
import { type AuthInfo, McpErrorCode, RpcError } from '@mcpkit/protocol';
import type { GatewayConfig } from '../config.js';
import type { EventLog } from '../events.js';

/** One quota as the config gives it. */
export type QuotaConfig = NonNullable<GatewayConfig['gateway']['quotas']>[number];

interface Counter {
  config: QuotaConfig;
  limiter: ReturnType<typeof memoryRateLimiter>;
  /** Calls refused by it since start. */
  refused: number;
}

/**
 * Whether `tool` (an advertised name) is one `pattern` names: exact, or `<prefix>*` — how quotas
 * and hooks name the tools they cover.
 */
export function matchesTool(pattern: string, tool: string): boolean {
  return pattern.endsWith('*') ? tool.startsWith(pattern.slice(0, -1)) : pattern === tool;
}

/** The quotas in force and their counters. */
export class Quotas {
  readonly #counters: Counter[];
  readonly #events: EventLog;
  readonly #source: string;

  constructor(
    quotas: readonly QuotaConfig[],
    state: StateStore | undefined,
    events: EventLog,
    source: string,
  ) {
    this.#events = events;
    this.#source = source;
    this.#counters = quotas.map((config) => {
      const options = {
        keyPrefix: `gateway-quota-${config.name}`,
        points: config.limit,
        durationSec: config.window_sec,
      };
      return {
        config,
        limiter: state ? state.rateLimiter(options) : memoryRateLimiter(options),
        refused: 0,
      };
    });
  }

  /**
   * Count a call of `tool` (of `backend`) by `auth` against every quota that covers it: the
   * error of the first quota it exceeds (with `retryAfter`, seconds; a `quota.exceeded` event),
   * else undefined. A caller without an identity counts as one ('' — everyone over stdio or
   * without tokens shares it). `server`: the virtual server the call came through ('' for the
   * gateway's own endpoint); a quota with a `server` counts only that server's calls.
   */
  async charge(
    tool: string,
    backend: string,
    auth: AuthInfo | undefined,
    server = '',
  ): Promise<RpcError | undefined> {
    const who = auth?.subject ?? '';
    for (const counter of this.#counters) {
      const only = counter.config.server;
      if (only !== undefined && only !== server) continue;
      if (!counter.config.tools.some((p) => matchesTool(p, tool))) continue;
      try {
        await counter.limiter.consume(who, 1);
      } catch (rejection) {
        const msBeforeNext = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
        if (typeof msBeforeNext !== 'number') throw rejection;
        counter.refused++;
        const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
        this.#events.note({
          event_type: 'quota.exceeded',
          status: 'failure',
          source: this.#source,
          backend,
          tool,
          data: { quota: counter.config.name, retryAfter, subject: auth?.subject ?? null },
        });
        return new RpcError(
          McpErrorCode.RateLimited,
          `Quota '${counter.config.name}' exceeded: ${counter.config.limit} calls per ${counter.config.window_sec} s; retry in ${retryAfter} s`,
          { quota: counter.config.name, retryAfter },
        );
      }
    }
    return undefined;
  }

  /** Each quota, how many calls `auth` has left in its window, and refusals since start. */
  async status(auth: AuthInfo | undefined): Promise<Record<string, unknown>[]> {
    const who = auth?.subject ?? '';
    return Promise.all(
      this.#counters.map(async (c) => {
        const used = await c.limiter.get(who).catch(() => null);
        return {
          name: c.config.name,
          tools: c.config.tools,
          ...(c.config.server !== undefined ? { server: c.config.server } : {}),
          limit: c.config.limit,
          window_sec: c.config.window_sec,
          remaining_for_you: Math.max(0, c.config.limit - (used?.consumedPoints ?? 0)),
          refused_since_start: c.refused,
        };
      }),
    );
  }

  /** Refusals per quota since start (for /metrics). */
  refusals(): { name: string; refused: number }[] {
    return this.#counters.map((c) => ({ name: c.config.name, refused: c.refused }));
  }
}
