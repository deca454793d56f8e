import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineLogger } from '@mcpkit/protocol';
import type { StateStore } from './store.js';

/** One instance of a fleet, as it last said it was. */
export interface FleetMember {
  /** Random per process: tells instances on one host apart. */
  id: string;
  /** The machine's host name. */
  host: string;
  /** The process id on that machine. */
  pid: number;
  /** When it started (ms since the epoch). */
  startedAt: number;
  /** When it last said it was alive (ms since the epoch). */
  seenAt: number;
  /** Whatever the app adds (its version, its backends …). */
  info?: Record<string, unknown>;
}

/** This instance's place in its fleet (see {@link joinFleet}). */
export interface FleetMembership {
  /** This instance's id. */
  readonly id: string;
  /** The instances alive now (heard from within the TTL), this one included, oldest first. */
  members(): Promise<FleetMember[]>;
  /** Stop the heartbeat and leave at once (the others stop listing it). */
  leave(): Promise<void>;
}

/** Options of {@link joinFleet}. */
export interface JoinFleetOptions {
  /** How often this instance says it is alive. Default 5000 ms. */
  intervalMs?: number;
  /** An instance not heard from for this long is gone. Default three intervals. */
  ttlMs?: number;
  /** What else to say about this instance, asked at every heartbeat. */
  info?: () => Record<string, unknown>;
  /** Where a failed heartbeat is logged (the next one tries again). */
  logger?: EngineLogger;
}

/**
 * Register this instance in `group` of the state store with a heartbeat, so any instance can list
 * the fleet (the gateway's `gateway_status` does). An instance that dies stops beating and drops
 * out after the TTL; one that stops cleanly leaves at once.
 */
export async function joinFleet(
  state: StateStore,
  group: string,
  options: JoinFleetOptions = {},
): Promise<FleetMembership> {
  const intervalMs = options.intervalMs ?? 5000;
  const ttlMs = options.ttlMs ?? intervalMs * 3;
  const id = randomBytes(6).toString('hex');
  const startedAt = Date.now();
  const beat = () => {
    const info = options.info?.();
    const member: FleetMember = {
      id,
      host: hostname(),
      pid: process.pid,
      startedAt,
      seenAt: Date.now(),
      ...(info ? { info } : {}),
    };
    return state.heartbeat(group, id, JSON.stringify(member), ttlMs);
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch((err: unknown) => options.logger?.warn({ err, group }, 'fleet heartbeat failed'));
  }, intervalMs);
  timer.unref();
  return {
    id,
    members: async () =>
      (await state.members(group))
        .flatMap((json) => {
          try {
            return [JSON.parse(json) as FleetMember];
          } catch {
            return [];
          }
        })
        // Oldest first; members started in the same millisecond in a fixed order (by id).
        .sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    leave: async () => {
      clearInterval(timer);
      await state.leave(group, id);
    },
  };
}
