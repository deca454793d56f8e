import { NO_REPLY } from '../../jsonrpc/dispatcher.js';
import { InternalError, RpcError } from '../../jsonrpc/errors.js';
import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { argumentIssues, describeIssues, issueList, safeParseFast } from '../json-schema.js';
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
        const { page, nextCursor } = paginate(tools, params?.cursor, server.pageSize);
        const result: Record<string, unknown> = { tools: page.map((t) => t.listEntry) };
        if (nextCursor) result.nextCursor = nextCursor;
        return result;
      }),
    ),
    method('tools/call', CallToolParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      // While the server holds its lists (a gateway's backends starting), calls wait too: the
      // tool may still arrive, and a client's pipelined list and calls stay in order.
      const held = server.held();
      if (held) await held;
      const tool = server.findTool(params.name);
      if (!tool) throw server.unknownToolError(params.name);
      const missing = server.missingScope(tool, ctx.extra);
      if (missing) throw server.scopeError(tool.name, missing.scope, missing.deniedBy);
      const refused = ctx.extra.checkToolCall?.(tool, params.arguments ?? {});
      if (refused) throw refused;
      ctx.extra.session[CANCELLATION].started(ctx.id);
      const mcp = new McpContext(ctx, params._meta);
      const result = await callTool(server, tool, params.arguments ?? {}, mcp);
      // The SDK client handles notifications a microtask late but responses at once: a progress
      // notification read in the same chunk as the result is dropped. One turn of the event loop
      // lets the transport write the notifications before the result is queued.
      if (mcp.notificationsSent > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      // A cancelled request gets no response (MCP cancellation). Reading ctx.signal here would
      // make an AbortController for every call; the registry knows without one.
      const cancellation = ctx.extra.session[CANCELLATION];
      return ctx.aborted || cancellation.cancelledWithoutSignal(ctx.id) ? NO_REPLY : result;
    }),
  ];
}

async function callTool(
  server: ServerInternals,
  tool: Tool,
  rawArgs: Record<string, unknown>,
  ctx: McpContext,
) {
  let args: Record<string, unknown> = rawArgs;
  if (tool.inputSchema) {
    const parsed = await safeParseFast(tool.inputSchema, rawArgs);
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
    args = parsed.data;
  }
  let value: unknown;
  try {
    value = await tool.handler(args, ctx);
    if (tool.raw) return value as CallToolResult;
  } catch (err) {
    if (RpcError.is(err)) throw err;
    if (ToolError.is(err)) {
      return toolErrorResult(err.message, tool.outputSchema ? undefined : err.structuredContent);
    }
    server.logger?.error({ err, tool: tool.name }, 'tool failed');
    return toolErrorResult(`Tool ${tool.name} failed with an internal error`);
  }
  if (!tool.outputSchema) return toCallToolResult(value, tool);
  const full = isCallToolResult(value) ? value : undefined;
  if (full?.isError) return full;
  // What is sent is what the schema parsed: keys the schema does not declare are not leaked.
  const checked = await safeParseFast(tool.outputSchema, full ? full.structuredContent : value);
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
  return { ...full, structuredContent: checked.data, isError: false };
}
