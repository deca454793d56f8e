/**
 * The view's way to the server: the ext-apps `App` bridge every call goes through, the prefix the
 * server's tool names carry behind a proxy, and which host is current. Every call the view makes
 * is `ask` (an answer or why there is none, never a throw) or `call` (the same, drawing a failure
 * where its readings would be, and dropping an answer that comes back after another host was
 * picked).
 *
 * The prefix and the host count are read through `toolPrefix()` and `hostEpoch()`, and changed
 * only through `usePrefix` (the host named the prefix) and `switchHost` (the user picked a host).
 */
import { App, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { type Json, problem } from './dom.js';

export const app = new App(
  { name: 'mcpkit-system-dashboard', version: '1.0.0' },
  {},
  { autoResize: true },
);

/** What the view puts before the server's tool names: see {@link prefixOf} and `useHost`. */
let prefixNow = '';
/**
 * Which host the view shows, counted: picking another one bumps it, and an answer to a call made
 * before that is dropped, never drawn over the new host's readings.
 */
let epochNow = 0;

/** What the view puts before the server's tool names now. */
export const toolPrefix = (): string => prefixNow;
/** Which host the view shows now, counted: a call compares it before and after its answer. */
export const hostEpoch = (): number => epochNow;

/** Calls go under `prefix` from now on: the host's `toolInfo` named it (see {@link prefixOf}). */
export function usePrefix(prefix: string): void {
  prefixNow = prefix;
}

/** Calls go to another host from now on; an answer still under way from the last one is dropped. */
export function switchHost(prefix: string): void {
  prefixNow = prefix;
  epochNow++;
}

/** A tool's answer: its structured content, or why there is none. */
export type Answer = { ok: true; value: Json | undefined } | { ok: false; reason: string };

/**
 * Calls a tool through the host under the server's names (`prefix`: the current host's by
 * default, see {@link prefixOf}); never throws.
 */
export async function ask(name: string, args: Json, prefix = prefixNow): Promise<Answer> {
  try {
    const result = await app.callServerTool({ name: `${prefix}${name}`, arguments: args });
    if (result.isError) {
      const text = result.content?.find((c) => c.type === 'text');
      return { ok: false, reason: text && 'text' in text ? text.text : 'no reason given' };
    }
    return { ok: true, value: (result.structuredContent as Json | undefined) ?? undefined };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Calls a tool through the host; a failure is drawn where its readings would be, never thrown.
 * Undefined too when another host was picked while it was under way.
 */
export async function call(name: string, args: Json, target?: string): Promise<Json | undefined> {
  const epoch = epochNow;
  const answer = await ask(name, args);
  if (epoch !== epochNow) return undefined;
  if (answer.ok) return answer.value;
  if (target) problem(target, `${name} failed: ${answer.reason}`);
  return undefined;
}

/** The tools the dashboard is linked from: the host names one of them in `toolInfo`. */
const LINKED = [
  'get_system_snapshot',
  'get_cpu_info',
  'get_memory_info',
  'get_processes',
  'get_metric_history',
];

/**
 * What a proxy put before this server's tool names, read off the tool the host says it called:
 * behind the mcpkit gateway `get_system_snapshot` is `system-info__get_system_snapshot`, and the
 * view's own calls must use the same prefix. Empty when the host talks to the server directly.
 */
export function prefixOf(ctx: McpUiHostContext | undefined): string {
  const name = ctx?.toolInfo?.tool?.name;
  if (typeof name !== 'string') return '';
  const own = LINKED.find((t) => name.endsWith(t));
  return own ? name.slice(0, name.length - own.length) : '';
}
