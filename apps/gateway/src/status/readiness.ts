import { NotReadyError, ReadinessDetail } from '@mcpkit/node';
import type { Backend } from '../backends/backend.js';

/**
 * The gateway's readiness (`/readyz`'s `backends` check). Not ready while a backend's first
 * start is under way (a balancer would send calls to tools not there yet), nor while a backend
 * marked `required` is not running. A backend that could not start is given up and listed, and
 * the instance serves the others: with one config across a fleet, one broken optional backend
 * would otherwise take every instance out of the balancer at once.
 *
 * The lists are names and states only (the probe is served without auth); why is in the log.
 */
export function backendsReadiness(backends: Iterable<Backend>): ReadinessDetail | undefined {
  const starting: string[] = [];
  const failed: string[] = [];
  const restarting: string[] = [];
  const requiredDown: string[] = [];
  for (const b of backends) {
    if (b.state === 'running') continue;
    if (!b.settled) starting.push(b.name);
    else if (b.state === 'failed') failed.push(b.name);
    else restarting.push(b.name);
    if (b.config.required && b.settled) requiredDown.push(b.name);
  }
  const detail: Record<string, string[]> = {};
  if (starting.length > 0) detail.starting = starting;
  if (failed.length > 0) detail.failed = failed;
  if (restarting.length > 0) detail.restarting = restarting;
  if (requiredDown.length > 0) detail.required_down = requiredDown;
  if (starting.length > 0) {
    throw new NotReadyError(`backends starting: ${starting.join(', ')}`, detail);
  }
  if (requiredDown.length > 0) {
    throw new NotReadyError(`required backends not running: ${requiredDown.join(', ')}`, detail);
  }
  return Object.keys(detail).length > 0 ? new ReadinessDetail(detail) : undefined;
}
