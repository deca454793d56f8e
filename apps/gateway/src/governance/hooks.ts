/**
 * Hooks: an operator's own checks around every backend tool call (`gateway.hooks`), after the
 * rules and quotas — a hook can refuse a call, change its arguments, or change its result. Two
 * are built in (builtin-hooks.ts): `redact` (secrets in results become `[REDACTED]`) and
 * `size_caps`; any other is an ES module of the operator's (`{"module": "./audit.js"}`) whose
 * default export makes one from its `options`:
 *
 * ```js
 * // audit.js
 * export default (options) => ({
 *   name: 'no-prod',
 *   before(call) {
 *     if (JSON.stringify(call.args).includes('prod')) throw new Error('not on prod');
 *   },
 * });
 * ```
 *
 * `before` hooks run in the config's order, `after` hooks in reverse (the first hook wraps the
 * others). A `before` hook that throws refuses the call — an RpcError as it is, anything else
 * as -32600 naming the hook (as a rule's refusal) — and an `after` hook that fails withholds the
 * result (-32603): a redaction that could not run must not let the secret through.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CallToolResult, ErrorCode, RpcError } from '@mcpkit/protocol';
import type { GatewayConfig } from '../config.js';
import type { EventLog } from '../events.js';
import { builtinHook } from './builtin-hooks.js';
import { matchesTool } from './quotas.js';

/** A call as hooks see it. */
export interface HookCall {
  /** The tool's name at the gateway's own endpoint (`ns__tool`). */
  readonly tool: string;
  /** Its backend, and its name there. */
  readonly backend: string;
  readonly original: string;
  /** The virtual server it came through ('' for `/mcp`). */
  readonly server: string;
  /** Who calls ('' for nobody: stdio, no tokens). */
  readonly subject: string;
  /** Its arguments (as a `before` hook before it left them). */
  readonly args: Record<string, unknown>;
}

/** One hook: either half may be left out. */
export interface CallHook {
  /** Named in events and errors. */
  readonly name: string;
  /**
   * Before the call reaches the backend: throw to refuse it, return arguments to send instead,
   * or nothing to let it go as it is.
   */
  before?(
    call: HookCall,
  ): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
  /** After the backend answered: return a result to give the client instead, or nothing. */
  after?(
    call: HookCall,
    result: CallToolResult,
  ): CallToolResult | undefined | Promise<CallToolResult | undefined>;
}

/** One hook as the config gives it. */
export type HookConfig = NonNullable<GatewayConfig['gateway']['hooks']>[number];

/** A hook ready to run, with the tools it applies to ({@link loadHooks} makes them). */
export interface InstalledHook {
  hook: CallHook;
  /** The tools it applies to (advertised names, `ns__*`); every tool when undefined. */
  tools: readonly string[] | undefined;
}

const applies = (installed: InstalledHook, tool: string) =>
  installed.tools === undefined || installed.tools.some((p) => matchesTool(p, tool));

/** Whether `result` is a tool's final answer (not a 2026-07-28 request for input). */
const isFinal = (result: CallToolResult) => Array.isArray(result.content);

/**
 * The hooks of a config: built-ins made, modules imported (relative to the config file's
 * directory). Throws naming the hook that cannot be had.
 */
export async function loadHooks(
  entries: readonly HookConfig[],
  baseDir: string,
): Promise<InstalledHook[]> {
  const installed: InstalledHook[] = [];
  for (const [index, entry] of entries.entries()) {
    const hook = 'use' in entry ? builtinHook(entry) : await importHook(entry, baseDir, index);
    installed.push({ hook, tools: entry.tools });
  }
  return installed;
}

async function importHook(
  entry: Extract<HookConfig, { module: string }>,
  baseDir: string,
  index: number,
): Promise<CallHook> {
  const path = isAbsolute(entry.module) ? entry.module : resolve(baseDir, entry.module);
  let made: unknown;
  try {
    const loaded = (await import(pathToFileURL(path).href)) as { default?: unknown };
    made =
      typeof loaded.default === 'function'
        ? await (loaded.default as (options: unknown) => unknown)(entry.options ?? {})
        : loaded.default;
  } catch (err) {
    throw new Error(`gateway.hooks.${index}: cannot load ${path}: ${(err as Error).message}`);
  }
  const hook = made as Partial<CallHook> | undefined;
  if (
    !hook ||
    typeof hook.name !== 'string' ||
    (typeof hook.before !== 'function' && typeof hook.after !== 'function')
  ) {
    throw new Error(
      `gateway.hooks.${index}: ${path} must export by default a hook ({name, before?, after?}) or a function that makes one`,
    );
  }
  return hook as CallHook;
}

/** The hooks in force, and the calls they wrap. */
export class Hooks {
  readonly #hooks: readonly InstalledHook[];
  readonly #events: EventLog;
  readonly #source: string;

  constructor(hooks: readonly InstalledHook[], events: EventLog, source: string) {
    this.#hooks = hooks;
    this.#events = events;
    this.#source = source;
  }

  /** The names of the hooks, in order. */
  get names(): string[] {
    return this.#hooks.map((h) => h.hook.name);
  }

  /** Run `call` through the hooks that apply to its tool, `forward` being the backend call. */
  async around(
    call: HookCall,
    forward: (args: Record<string, unknown>) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const mine = this.#hooks.filter((h) => applies(h, call.tool));
    let current = call;
    for (const { hook } of mine) {
      if (!hook.before) continue;
      const args = await this.#guard(hook, current, 'before', () => hook.before?.(current));
      if (args && typeof args === 'object' && !Array.isArray(args)) current = { ...current, args };
    }
    let result = await forward(current.args);
    if (!isFinal(result)) return result;
    for (let i = mine.length - 1; i >= 0; i--) {
      const { hook } = mine[i] as InstalledHook;
      if (!hook.after) continue;
      const given = result;
      const changed = await this.#guard(hook, current, 'after', () => hook.after?.(current, given));
      if (changed && changed !== given) {
        result = changed;
        this.#note('hook.changed_result', 'success', hook, current);
      }
    }
    return result;
  }

  /** `step`, its failure a refusal naming the hook (and an event). */
  async #guard<T>(
    hook: CallHook,
    call: HookCall,
    phase: 'before' | 'after',
    step: () => T | Promise<T>,
  ): Promise<T> {
    try {
      return await step();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#note(phase === 'before' ? 'hook.refused' : 'hook.failed', 'failure', hook, call, {
        error: message,
      });
      if (RpcError.is(err)) throw err;
      throw new RpcError(
        phase === 'before' ? ErrorCode.InvalidRequest : ErrorCode.InternalError,
        phase === 'before'
          ? `Tool '${call.tool}' refused by hook '${hook.name}': ${message}`
          : `The result of '${call.tool}' was withheld: hook '${hook.name}' failed: ${message}`,
        { tool: call.tool, hook: hook.name },
      );
    }
  }

  #note(
    type: string,
    status: 'success' | 'failure',
    hook: CallHook,
    call: HookCall,
    data: Record<string, unknown> = {},
  ): void {
    this.#events.note({
      event_type: type,
      status,
      source: this.#source,
      backend: call.backend,
      tool: call.tool,
      data: { hook: hook.name, subject: call.subject || null, ...data },
    });
  }
}
