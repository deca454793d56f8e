import type { StandardSchemaV1 } from '@standard-schema/spec';
import { NO_REPLY } from '../../jsonrpc/dispatcher.js';
import { InternalError, RpcError } from '../../jsonrpc/errors.js';
import {
  isPromiseLike,
  type MaybePromise,
  method,
  type RequestContext,
} from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import {
  argumentIssues,
  describeIssues,
  issueList,
  type ParseResult,
  safeParseFast,
} from '../json-schema.js';
import { paginate } from '../pagination.js';
import { CallToolParams, PaginatedParams } from '../params.js';
import { CANCELLATION } from '../session.js';
import {
  isCallToolResult,
  type Tool,
  ToolError,
  toCallToolResult,
  toolErrorResult,
} from '../tool.js';
import type { CallToolResult } from '../types.js';
import { taskCall } from './task-call.js';

/**
 * A list handler that first waits for what the server holds lists for (`McpServer.holdLists`),
 * and answers at once when nothing is held.
 */
export function afterHeld<P, C, R>(
  server: ServerInternals,
  handler: (params: P, ctx: C) => R,
): (params: P, ctx: C) => R | Promise<R> {
  return (params, ctx) => {
    const held = server.held();
    return held ? held.then(() => handler(params, ctx)) : handler(params, ctx);
  };
}

export function toolMethods(server: ServerInternals) {
  return [
    method(
      'tools/list',
      PaginatedParams,
      afterHeld(server, (params, ctx: RequestContext<McpCallExtra>) => {
        let tools = [...server.tools.values()];
        if (server.listPermittedToolsOnly)
          tools = tools.filter((t) => !server.missingScope(t, ctx.extra));
        const filter = server.listFilter;
        if (filter) tools = tools.filter((t) => filter(t, ctx.extra.auth));
        const { page, nextCursor } = paginate(tools, params?.cursor, server.pageSize);
        const result: Record<string, unknown> = { tools: page.map((t) => t.listEntry) };
        if (nextCursor) result.nextCursor = nextCursor;
        return result;
      }),
    ),
    // Answered synchronously when the server holds nothing and the tool's schema and handler
    // are synchronous: a cheap call then costs no promise (the HTTP and stdio hot paths).
    method('tools/call', CallToolParams, (params, ctx: RequestContext<McpCallExtra>) => {
      // The dispatcher marked the call started before this ran (CancellationRegistry.started),
      // so a cancellation arriving while the call waits counts.
      const cancellation = ctx.extra.session[CANCELLATION];
      // While the server holds its lists (a gateway's backends starting), calls wait too: the
      // tool may still arrive, and a client's pipelined list and calls stay in order.
      const held = server.held();
      if (!held) return startCall(server, params, ctx);
      // Cancelled while it waited: not run at all, and not answered (MCP cancellation).
      return held.then(() =>
        cancellation.cancelledWithoutSignal(ctx.id) ? NO_REPLY : startCall(server, params, ctx),
      );
    }),
  ];
}

type CallParams = StandardSchemaV1.InferOutput<typeof CallToolParams>;

function startCall(
  server: ServerInternals,
  params: CallParams,
  ctx: RequestContext<McpCallExtra>,
): MaybePromise<CallToolResult | Record<string, unknown> | typeof NO_REPLY> {
  const tool = server.findTool(params.name);
  if (!tool) throw server.unknownToolError(params.name);
  const missing = server.missingScope(tool, ctx.extra);
  if (missing) throw server.scopeError(tool.name, missing.scope, missing.deniedBy);
  const refused = ctx.extra.checkToolCall?.(tool, params.arguments ?? {});
  if (refused) throw refused;
  const mcp = new McpContext(ctx, params._meta);
  // A task-supporting tool on a modern request (a 2025-era session has no tasks: an ordinary call).
  if (tool.taskSupport !== undefined && ctx.extra.session.era === 'modern') {
    const task = taskCall(server, tool, mcp, () =>
      callTool(server, tool, params.arguments ?? {}, mcp),
    );
    if (task) return task;
  }
  const result = callTool(server, tool, params.arguments ?? {}, mcp);
  return isPromiseLike(result)
    ? Promise.resolve(result).then((r) => endCall(r, mcp, ctx))
    : endCall(result, mcp, ctx);
}

function endCall(
  result: CallToolResult,
  mcp: McpContext,
  ctx: RequestContext<McpCallExtra>,
): MaybePromise<CallToolResult | typeof NO_REPLY> {
  // The SDK client handles notifications a microtask late but responses at once: a progress
  // notification read in the same chunk as the result is dropped. One turn of the event loop
  // lets the transport write the notifications before the result is queued.
  if (mcp.notificationsSent > 0) {
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => replyOf(result, ctx));
  }
  return replyOf(result, ctx);
}

/**
 * A cancelled request gets no response (MCP cancellation). Reading ctx.signal here would make an
 * AbortController for every call; the registry knows without one.
 */
function replyOf(
  result: CallToolResult,
  ctx: RequestContext<McpCallExtra>,
): CallToolResult | typeof NO_REPLY {
  const cancellation = ctx.extra.session[CANCELLATION];
  return ctx.aborted || cancellation.cancelledWithoutSignal(ctx.id) ? NO_REPLY : result;
}

/**
 * Validate the arguments, run the tool, shape (and check) its output. Synchronous as long as the
 * schemas and the handler are; a promise from any of them makes the rest follow it.
 */
function callTool(
  server: ServerInternals,
  tool: Tool,
  rawArgs: Record<string, unknown>,
  ctx: McpContext,
): MaybePromise<CallToolResult> {
  if (!tool.inputSchema) return runTool(server, tool, rawArgs, ctx);
  const parsed = safeParseFast(tool.inputSchema, rawArgs);
  return isPromiseLike(parsed)
    ? Promise.resolve(parsed).then((p) => withArguments(server, tool, rawArgs, p, ctx))
    : withArguments(server, tool, rawArgs, parsed, ctx);
}

function withArguments(
  server: ServerInternals,
  tool: Tool,
  rawArgs: Record<string, unknown>,
  parsed: ParseResult<Record<string, unknown>>,
  ctx: McpContext,
): MaybePromise<CallToolResult> {
  // Since 2025-11-25 bad arguments are a tool result the model can read and correct.
  if (!parsed.success) {
    const custom = server.argumentError?.(tool.name, argumentIssues(parsed.error, rawArgs));
    if (custom) throw custom;
    const message = `Invalid arguments for tool ${tool.name}: ${describeIssues(parsed.error)}`;
    // structuredContent must match a declared outputSchema, so details go there only without one.
    return toolErrorResult(
      message,
      tool.outputSchema
        ? undefined
        : { error: 'invalid_arguments', issues: issueList(parsed.error) },
    );
  }
  return runTool(server, tool, parsed.data, ctx);
}

function runTool(
  server: ServerInternals,
  tool: Tool,
  args: Record<string, unknown>,
  ctx: McpContext,
): MaybePromise<CallToolResult> {
  let value: unknown;
  try {
    value = tool.handler(args, ctx);
  } catch (err) {
    return toolFailure(server, tool, err, ctx);
  }
  return isPromiseLike(value)
    ? Promise.resolve(value).then(
        (v) => toolOutput(server, tool, v),
        (err: unknown) => toolFailure(server, tool, err, ctx),
      )
    : toolOutput(server, tool, value);
}

/** A handler's exception: an RpcError is the call's error, anything else a tool result. */
function toolFailure(
  server: ServerInternals,
  tool: Tool,
  err: unknown,
  ctx: McpContext,
): CallToolResult {
  if (RpcError.is(err)) throw err;
  if (ToolError.is(err)) {
    return toolErrorResult(err.message, tool.outputSchema ? undefined : err.structuredContent);
  }
  // A tool that throws once its call was cancelled (the reason, an AbortError) did as asked: no
  // error in the log for each cancel of a client. Its result is withheld (see replyOf).
  if (ctx.session[CANCELLATION].cancelledWithoutSignal(ctx.requestId)) {
    server.logger?.debug({ err, tool: tool.name }, 'cancelled tool failed');
  } else {
    server.logger?.error({ err, tool: tool.name }, 'tool failed');
  }
  return toolErrorResult(`Tool ${tool.name} failed with an internal error`);
}

function toolOutput(
  server: ServerInternals,
  tool: Tool,
  value: unknown,
): MaybePromise<CallToolResult> {
  if (tool.raw) return value as CallToolResult;
  if (!tool.outputSchema) return toCallToolResult(value, tool);
  const full = isCallToolResult(value) ? value : undefined;
  if (full?.isError) return full;
  // What is sent is what the schema parsed: keys the schema does not declare are not leaked.
  const checked = safeParseFast(tool.outputSchema, full ? full.structuredContent : value);
  return isPromiseLike(checked)
    ? Promise.resolve(checked).then((c) => checkedOutput(server, tool, full, c))
    : checkedOutput(server, tool, full, checked);
}

function checkedOutput(
  server: ServerInternals,
  tool: Tool,
  full: CallToolResult | undefined,
  checked: ParseResult<unknown>,
): CallToolResult {
  if (!checked.success) {
    server.logger?.error(
      { tool: tool.name, issues: issueList(checked.error) },
      'tool output does not match its outputSchema',
    );
    throw new InternalError('Internal error', {
      reason: `tool ${tool.name} returned output that does not match its outputSchema`,
    });
  }
  if (!full) return toCallToolResult(checked.data, tool);
  return { ...full, structuredContent: checked.data as Record<string, unknown>, isError: false };
}
