/**
 * Bringing an McpServer's registry in line with a rebuilt one: only the entries that really
 * changed are removed and added again, each a change its clients hear of (`list_changed`).
 */
import type { RouteEntry } from '../proxies.js';

/**
 * Whether a rediscovered entry is the one registered: a backend's list after its list_changed
 * is all new objects, and only the entries that really changed are swapped.
 */
function sameEntry(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Make `current` (what the server has) equal `next`: `remove` each entry that went or changed
 * (its backend, its name there or its definition), `add` each new one.
 */
export function applyChanges<R extends RouteEntry>(
  current: Map<string, R>,
  next: Map<string, R>,
  remove: (key: string) => void,
  add: (key: string, route: R) => void,
): void {
  for (const [key, route] of current) {
    const replacement = next.get(key);
    if (
      !replacement ||
      replacement.backend !== route.backend ||
      replacement.original !== route.original ||
      replacement.key !== route.key ||
      !sameEntry(route.entry, replacement.entry)
    ) {
      remove(key);
      current.delete(key);
    }
  }
  for (const [key, route] of next) {
    if (current.has(key)) continue;
    add(key, route);
    current.set(key, route);
  }
}
