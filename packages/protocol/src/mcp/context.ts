import type { RequestOptions } from '../jsonrpc/client.js';
import { ErrorCode, McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcId, JsonRpcParams } from '../jsonrpc/types.js';
import {
  type AuthInfo,
  CANCELLATION,
  INPUT,
  type McpSession,
  type OutboundChannel,
} from './session.js';
import type { RunningTask } from './tasks/runner.js';
import type { Tool } from './tool.js';
import {
  type CreateMessageResult,
  type ElicitResult,
  type LoggingLevel,
  MCP_LOGGING_LEVELS,
} from './types.js';

/** Whether a client whose `logging/setLevel` is `min` (undefined: never set) wants `level`. */
export function logLevelAdmits(min: LoggingLevel | undefined, level: LoggingLevel): boolean {
  return min === undefined || MCP_LOGGING_LEVELS.indexOf(level) >= MCP_LOGGING_LEVELS.indexOf(min);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The client capability a server-to-client request needs and the client did not declare, as
 * `requiredCapabilities` names it (`{ elicitation: { url: {} } }`), or undefined when it may be
 * sent. MCP 2025-11-25 (`client/elicitation`, `client/sampling`): URL-mode elicitation needs
 * `elicitation.url` (an empty `elicitation: {}` means form mode only), and sampling with `tools`
 * or `toolChoice` needs `sampling.tools`. Both eras apply it: the 2025 request to the client and
 * the 2026-07-28 `input_required` ask.
 */
export function missingClientCapability(
  method: string,
  params: Record<string, unknown> | undefined,
  capabilities: Record<string, unknown>,
): Record<string, Record<string, unknown>> | undefined {
  const kind =
    method === 'elicitation/create'
      ? 'elicitation'
      : method === 'sampling/createMessage'
        ? 'sampling'
        : method === 'roots/list'
          ? 'roots'
          : undefined;
  if (kind === undefined) return undefined;
  const declared = capabilities[kind];
  if (!isObject(declared)) return { [kind]: {} };
  if (kind === 'elicitation' && params?.mode === 'url' && !isObject(declared.url)) {
    return { elicitation: { url: {} } };
  }
  if (
    kind === 'sampling' &&
    (params?.tools !== undefined || params?.toolChoice !== undefined) &&
    !isObject(declared.tools)
  ) {
    return { sampling: { tools: {} } };
  }
  return undefined;
}

/** `{ elicitation: { url: {} } }` → `elicitation.url`. */
function capabilityPath(required: Record<string, unknown>): string {
  const [key, value] = Object.entries(required)[0] ?? ['', undefined];
  return isObject(value) && Object.keys(value).length > 0 ? `${key}.${capabilityPath(value)}` : key;
}

/**
 * Options of a request to the client (`ctx.sample`, `ctx.elicit`, `ctx.listRoots`). On a
 * 2026-07-28 request there is no request to the client: the ask is answered by `input_required`
 * under `key` (default by order: `elicitation-1`, `sampling-1`, `roots-1` …), and the retry
 * carries the answer under the same key.
 */
export interface AskOptions extends RequestOptions {
  /** The ask's key in `inputRequests` / `inputResponses` (2026-07-28 only). */
  key?: string;
}

/** What a transport attaches to every MCP call (`ctx.extra`). */
export interface McpCallExtra {
  /** The client's session. */
  session: McpSession;
  /** Who the caller is, when the transport authenticated it. */
  auth?: AuthInfo | undefined;
  /**
   * Who the caller is without credentials, as the transport tells callers apart (HTTP: the
   * remote address and the client's `clientInfo.name`): the key of per-caller limits when there
   * is no `auth`. Undefined: the connection is the caller (stdio has one client).
   */
  caller?: string | undefined;
  /**
   * The path back to the client for this request (the POST's SSE stream on Streamable HTTP);
   * falls back to the session's channel.
   */
  channel?: OutboundChannel | undefined;
  /**
   * Checks a transport makes of a `tools/call` once its tool is known and before it runs (MCP
   * 2026-07-28 over HTTP: the `Mcp-Param-*` headers the tool declares); an RpcError it returns
   * is the call's answer.
   */
  checkToolCall?: ((tool: Tool, args: Record<string, unknown>) => RpcError | undefined) | undefined;
  /**
   * The request's `_meta` when the transport has already found it to claim MCP 2026-07-28
   * (`modernClaim`): the era router takes it instead of looking again. Undefined: the router
   * decides.
   */
  claim?: Record<string, unknown> | undefined;
  /**
   * Filled in as a modern request is answered: the code of its error answer, before it is
   * encoded (undefined for a result) — for a transport that picks its status by it (HTTP).
   */
  outcome?: ModernOutcome | undefined;
}

/** How a modern request was answered, as the era router tells its transport. */
export interface ModernOutcome {
  /** The JSON-RPC error code of the answer; undefined when it is a result. */
  errorCode: number | undefined;
}

const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Package-internal: makes a call's context run as its task (the tools handler does). */
export const ENTER_TASK: unique symbol = Symbol('mcpkit.context.enterTask');
/** Package-internal: what `runAsTask` does for this call, when it may become a task. */
export const ESCALATION: unique symbol = Symbol('mcpkit.context.escalation');

const ASK_KIND: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** What tool, resource and prompt handlers get besides their arguments. */
export class McpContext {
  readonly #ctx: RequestContext<McpCallExtra>;
  readonly #meta: Record<string, unknown> | undefined;
  /** Notifications this call sent (a transport may want them flushed before the result). */
  notificationsSent = 0;
  /** The task this call runs as, once it does. */
  #task: RunningTask | undefined;
  /** Asks made in the task, per kind: their default keys. */
  #taskAsks: Map<string, number> | undefined;
  /** Set by the tools handler on a call that may become a task at the handler's word. */
  [ESCALATION]: (() => Promise<void>) | undefined;

  /** Made by the server core for each call; handlers receive it, they never build one. */
  constructor(ctx: RequestContext<McpCallExtra>, meta: Record<string, unknown> | undefined) {
    this.#ctx = ctx;
    this.#meta = meta;
  }

  /**
   * Aborted when the client sends `notifications/cancelled` or goes away: stop working then. In a
   * task: when `tasks/cancel` cancels it or it expires (the request is long answered).
   */
  get signal(): AbortSignal {
    return this.#task?.signal ?? this.#ctx.signal;
  }
  /**
   * Call `listener` once, with the reason, when this call is cancelled (as `signal` aborts) — at
   * once if it already was. For a handler that only passes the cancellation on, e.g. as
   * `{ cancelledBy: ctx }` of a request it forwards: no AbortController is made for the call.
   * The listener must not throw. Forgotten when this call ends, or earlier by the returned
   * disposer (undefined when told at once): a request forwarded under this call that ends first
   * takes its listener with it.
   */
  onCancel(listener: (reason: unknown) => void): (() => void) | undefined {
    const task = this.#task;
    if (task) {
      if (task.signal.aborted) {
        listener(task.signal.reason);
        return undefined;
      }
      const onAbort = () => listener(task.signal.reason);
      task.signal.addEventListener('abort', onAbort, { once: true });
      return () => task.signal.removeEventListener('abort', onAbort);
    }
    return this.#ctx.extra.session[CANCELLATION].onCancel(this.#ctx.id, listener);
  }

  /**
   * The id of the task this call runs as (MCP tasks extension, `io.modelcontextprotocol/tasks`),
   * or undefined while it is an ordinary request.
   */
  get taskId(): string | undefined {
    return this.#task?.taskId;
  }

  /**
   * Make this call a task now, for a tool defined with `taskStart: 'handler'` — after the input it
   * gathers by multi round-trip rounds, before the long part: the client gets its task
   * (`CreateTaskResult`) and the handler goes on in it. Resolves true once the call is a task;
   * false when it cannot be one (the client did not declare the tasks extension, a 2025-era
   * session, a tool without task support) and the handler goes on as an ordinary call. From
   * then on `signal` is the task's, progress messages are its `statusMessage`, and `elicit`,
   * `sample` and `listRoots` wait for `tasks/update`.
   */
  async runAsTask(): Promise<boolean> {
    if (this.#task) return true;
    const escalate = this[ESCALATION];
    if (!escalate) return false;
    this[ESCALATION] = undefined;
    await escalate();
    return true;
  }

  /** Package-internal: from now on this call runs as `task`. */
  [ENTER_TASK](task: RunningTask): void {
    this.#task = task;
    this[ESCALATION] = undefined;
  }
  /** The JSON-RPC id of the request being served. */
  get requestId(): JsonRpcId | undefined {
    return this.#ctx.id;
  }
  /** The client's session: protocol version, capabilities, log level, subscriptions. */
  get session(): McpSession {
    return this.#ctx.extra.session;
  }
  /** Who the caller is (token subject, scopes), when the transport authenticated it. */
  get auth(): AuthInfo | undefined {
    return this.#ctx.extra.auth;
  }
  /**
   * Whose share of a per-caller limit this call counts against: its token's subject; without
   * auth, the caller as the transport tells it (HTTP: address and client name, see
   * `McpCallExtra.caller`); else '' (a channel's one client). Callers never share a key.
   */
  get caller(): string {
    const extra = this.#ctx.extra;
    if (extra.auth?.subject !== undefined) return `subject:${extra.auth.subject}`;
    return extra.caller === undefined ? '' : `anonymous:${extra.caller}`;
  }
  /**
   * Whether the client declared the MCP extension `id` (e.g. `io.modelcontextprotocol/ui`) in its
   * capabilities' `extensions` — at initialize, or in a 2026-07-28 request's own capabilities.
   */
  declaresExtension(id: string): boolean {
    const extensions = (this.session.clientCapabilities as { extensions?: unknown }).extensions;
    return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, id);
  }
  /** The request's `_meta`, if it sent one. */
  get meta(): Record<string, unknown> | undefined {
    return this.#meta;
  }

  /**
   * The answers this 2026-07-28 request carries, by input key — those its `requestState` holds
   * and those its `inputResponses` give for the keys last asked, checked against the state
   * (bound to method, params and caller). Empty on a 2025-era call or a first round. For code
   * that keeps its own work across rounds (a gateway that parks a backend call under a key it
   * chose) rather than replaying the handler; `ctx.elicit` with the same key reads the same.
   */
  get inputResponses(): Readonly<Record<string, unknown>> {
    if (this.#task) return NO_ANSWERS;
    return this.session[INPUT]?.answers ?? NO_ANSWERS;
  }

  get #channel(): OutboundChannel | undefined {
    return this.#ctx.extra.channel ?? this.#ctx.extra.session.channel;
  }

  /**
   * Send a notification to the client, if there is a way to reach it. A task has none: its
   * request was answered with the task (its news is its status).
   */
  notify(method: string, params?: JsonRpcParams): boolean {
    if (this.#task) return false;
    const channel = this.#channel;
    if (!channel) return false;
    channel.notify(method, params);
    this.notificationsSent++;
    return true;
  }

  /**
   * Close this request's SSE stream now; what the call sends later waits for the client to
   * resume (Streamable HTTP, 2025-11-25). False where the transport cannot do that.
   */
  closeSseStream(): boolean {
    return this.#ctx.extra.channel?.closeStream?.() ?? false;
  }

  /** `notifications/message`, when the client's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): boolean {
    const session = this.session;
    // A modern request without a log level in its `_meta` gets no log messages at all (MCP
    // 2026-07-28, `server/utilities/logging`); a 2025 session that never set one gets every level.
    if (session.era === 'modern' && session.logLevel === undefined) return false;
    if (!logLevelAdmits(session.logLevel, level)) return false;
    return this.notify(
      'notifications/message',
      logger === undefined ? { level, data } : { level, logger, data },
    );
  }

  /**
   * `notifications/progress` for this request, when the client asked for progress. In a task,
   * the task's `statusMessage`: `message`, else the progress as `progress/total`.
   */
  progress(progress: number, total?: number, message?: string): boolean {
    if (this.#task) {
      this.#task.status(message ?? (total === undefined ? `${progress}` : `${progress}/${total}`));
      return true;
    }
    const token = this.#meta?.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number' && typeof token !== 'bigint') {
      return false;
    }
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.notify('notifications/progress', params);
  }

  /**
   * Ask the client's model for a completion (`sampling/createMessage`). On a 2026-07-28 request
   * this becomes an `input_required` answer and the handler runs again on the retry (see
   * {@link AskOptions}): ask before changing anything.
   */
  sample(params: Record<string, unknown>, options?: AskOptions): Promise<CreateMessageResult> {
    return this.#request('sampling', 'sampling/createMessage', params, options);
  }

  /** Ask the user for input (`elicitation/create`); on a 2026-07-28 request, as {@link McpContext.sample}. */
  elicit(params: Record<string, unknown>, options?: AskOptions): Promise<ElicitResult> {
    return this.#request('elicitation', 'elicitation/create', params, options);
  }

  /** The client's roots (`roots/list`); on a 2026-07-28 request, as {@link McpContext.sample}. */
  listRoots(options?: AskOptions): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.#request('roots', 'roots/list', {}, options);
  }

  /** An ask of a task: it waits, `input_required`, until `tasks/update` answers it. */
  #taskAsk(method: string, params: Record<string, unknown>, key?: string): Promise<unknown> {
    const task = this.#task as RunningTask;
    const missing = missingClientCapability(method, params, this.session.clientCapabilities);
    if (missing) {
      return Promise.reject(
        new RpcError(
          McpErrorCode.MissingRequiredClientCapability,
          `Missing required client capability: ${capabilityPath(missing)}`,
          { requiredCapabilities: missing },
        ),
      );
    }
    const kind = ASK_KIND[method] ?? method;
    this.#taskAsks ??= new Map();
    const n = (this.#taskAsks.get(kind) ?? 0) + 1;
    this.#taskAsks.set(kind, n);
    return task.ask(key ?? `${kind}-${n}`, { method, params });
  }

  #request<R>(
    capability: string,
    method: string,
    params: Record<string, unknown>,
    options?: AskOptions,
  ): Promise<R> {
    if (this.#task) return this.#taskAsk(method, params, options?.key) as Promise<R>;
    if (this.session.era === 'modern') {
      // The modern era has no server-to-client requests: the ask becomes part of an
      // `input_required` answer and the client retries with the response (multi round-trip).
      const round = this.session[INPUT];
      if (!round) {
        return Promise.reject(
          new RpcError(
            ErrorCode.InternalError,
            `input requests are not allowed for ${this.#ctx.method}`,
          ),
        );
      }
      return round.ask(
        {
          method: method as 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
          params,
        },
        options?.key,
      ) as Promise<R>;
    }
    if (!this.session.clientCapabilities[capability]) {
      return Promise.reject(
        new RpcError(ErrorCode.MethodNotFound, `Client does not support ${capability}`, {
          capability,
          method,
        }),
      );
    }
    // The capability is there, but not the part this request needs (URL-mode elicitation,
    // tool-enabled sampling): the tool call fails with a JSON-RPC error naming it rather than
    // sending the client a request it said it cannot handle.
    const missing = missingClientCapability(method, params, this.session.clientCapabilities);
    if (missing) {
      const path = capabilityPath(missing);
      return Promise.reject(
        new RpcError(ErrorCode.MethodNotFound, `Client does not support ${path}`, {
          capability: path,
          method,
          requiredCapabilities: missing,
        }),
      );
    }
    const channel = this.#channel;
    if (!channel) {
      return Promise.reject(
        new RpcError(ErrorCode.InternalError, `No channel to the client for ${method}`),
      );
    }
    const { key: _key, ...requestOptions } = options ?? {};
    return channel.request<R>(method, params, { signal: this.signal, ...requestOptions });
  }
}
