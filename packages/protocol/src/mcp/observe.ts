import type { DispatchObserver } from '../jsonrpc/dispatcher.js';
import type { JsonRpcParams, JsonRpcResponse } from '../jsonrpc/types.js';
import type { McpCallExtra } from './context.js';

/** A request as an {@link McpObserver} sees it when it begins. */
export interface McpCall {
  /** The JSON-RPC method as the client sent it. */
  readonly method: string;
  /** Whether the server has that method (in the request's era); false is answered -32601. */
  readonly known: boolean;
  /**
   * `tools/call`: the registered name of the tool called (an alias resolved); undefined for a
   * tool nobody registered — so a client cannot mint labels by calling made-up names — and for
   * other methods. Looked up when read: read at `end`, it names a tool registered while the call
   * waited (a gateway's backends starting).
   */
  readonly tool: string | undefined;
  /** `modern` for a 2026-07-28 request, `legacy` for 2025-era traffic. */
  readonly era: 'legacy' | 'modern';
  /** The request's params, as sent. */
  readonly params: JsonRpcParams | undefined;
  /** The session and caller of the request. */
  readonly extra: McpCallExtra;
}

/**
 * How a request ended: `ok`, `tool_error` (a tools/call result with `isError: true`), `error` (a
 * JSON-RPC error, `code` set) or `none` (no answer was sent: the client cancelled it).
 */
export interface McpCallOutcome {
  /** What kind of answer it got. */
  readonly status: 'ok' | 'tool_error' | 'error' | 'none';
  /** The JSON-RPC error code, for `error`. */
  readonly code?: number;
}

/**
 * Watches the requests an McpServer answers (`server.observe(observer)`): the hook of metrics
 * and tracing. `begin` returns a token handed back to `run` and `end`. Must not throw: an
 * observer that does is logged and the request goes on without it.
 */
export interface McpObserver {
  /** A request arrives. */
  begin(call: McpCall): unknown;
  /** Runs the request's handler, e.g. inside a tracing context. */
  run?<T>(token: unknown, fn: () => T): T;
  /** The request was answered. */
  end(token: unknown, outcome: McpCallOutcome): void;
}

/** The outcome a response stands for. */
export function outcomeOf(response: JsonRpcResponse | undefined): McpCallOutcome {
  if (response === undefined) return NONE;
  if ('error' in response) return { status: 'error', code: response.error.code };
  const result = response.result as { isError?: unknown } | null;
  return typeof result === 'object' && result !== null && result.isError === true ? TOOL_ERROR : OK;
}

const OK: McpCallOutcome = Object.freeze({ status: 'ok' });
const TOOL_ERROR: McpCallOutcome = Object.freeze({ status: 'tool_error' });
const NONE: McpCallOutcome = Object.freeze({ status: 'none' });

/**
 * One dispatcher observer for the observers of a server: each request becomes an {@link McpCall}
 * once, whatever the number of observers. `findTool` resolves a tool name (aliases too).
 */
export function dispatchObserver(
  observers: readonly McpObserver[],
  findTool: (name: string) => string | undefined,
): DispatchObserver<McpCallExtra> | undefined {
  if (observers.length === 0) return undefined;
  const list = [...observers];
  const call = (
    method: string,
    known: boolean,
    params: JsonRpcParams | undefined,
    extra: McpCallExtra,
  ): McpCall => {
    const name =
      method === 'tools/call' ? (params as { name?: unknown } | undefined)?.name : undefined;
    return new Call(
      method,
      known,
      typeof name === 'string' ? name : undefined,
      params,
      extra,
      findTool,
    );
  };
  if (list.length === 1) {
    const only = list[0] as McpObserver;
    return {
      begin: (method, known, params, extra) => only.begin(call(method, known, params, extra)),
      ...(only.run
        ? {
            run: <T>(token: unknown, fn: () => T) =>
              (only.run as NonNullable<McpObserver['run']>)(token, fn),
          }
        : {}),
      end: (token, response) => only.end(token, outcomeOf(response)),
    };
  }
  const begin: DispatchObserver<McpCallExtra>['begin'] = (method, known, params, extra) => {
    const c = call(method, known, params, extra);
    return list.map((o) => o.begin(c));
  };
  const end: DispatchObserver<McpCallExtra>['end'] = (tokens, response) => {
    const outcome = outcomeOf(response);
    list.forEach((o, i) => {
      o.end((tokens as unknown[])[i], outcome);
    });
  };
  // Metrics alone (McpMetrics and a gateway's per-backend series) need no context around the
  // handler: without a `run`, the dispatcher calls it directly, no wrapper per call.
  if (!list.some((o) => o.run)) return { begin, end };
  return {
    begin,
    end,
    run: <T>(tokens: unknown, fn: () => T): T => {
      // Nested: the first observer's context is the outermost.
      let run = fn;
      for (let i = list.length - 1; i >= 0; i--) {
        const o = list[i] as McpObserver;
        if (!o.run) continue;
        const inner = run;
        const token = (tokens as unknown[])[i];
        run = () => (o.run as NonNullable<McpObserver['run']>)(token, inner);
      }
      return run();
    },
  };
}

/** An {@link McpCall} whose tool is looked up when read, until it is found. */
class Call implements McpCall {
  readonly era: 'legacy' | 'modern';
  #tool: string | undefined;
  constructor(
    readonly method: string,
    readonly known: boolean,
    readonly name: string | undefined,
    readonly params: JsonRpcParams | undefined,
    readonly extra: McpCallExtra,
    readonly findTool: (name: string) => string | undefined,
  ) {
    this.era = extra.session.era;
  }
  get tool(): string | undefined {
    if (this.#tool === undefined && this.name !== undefined) this.#tool = this.findTool(this.name);
    return this.#tool;
  }
}
