import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { paginate } from '../pagination.js';
import { PaginatedParams, UriParams } from '../params.js';
import { toReadResult } from '../resource.js';
import { afterHeld } from './tools.js';

export function resourceMethods(server: ServerInternals) {
  return [
    method('resources/list', PaginatedParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      await server.held();
      const entries: Record<string, unknown>[] = [...server.resources.values()].map(
        (r) => r.listEntry,
      );
      const mcp = new McpContext(ctx, params?._meta);
      for (const template of server.templates) {
        if (template.list)
          entries.push(...((await template.list(mcp)) as unknown as Record<string, unknown>[]));
      }
      const { page, nextCursor } = paginate(entries, params?.cursor, server.pageSize);
      const result: Record<string, unknown> = { resources: page };
      if (nextCursor) result.nextCursor = nextCursor;
      return result;
    }),
    method(
      'resources/templates/list',
      PaginatedParams,
      afterHeld(server, (params) => {
        const { page, nextCursor } = paginate(
          server.templates.map((t) => t.listEntry),
          params?.cursor,
          server.pageSize,
        );
        const result: Record<string, unknown> = { resourceTemplates: page };
        if (nextCursor) result.nextCursor = nextCursor;
        return result;
      }),
    ),
    method('resources/read', UriParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      const mcp = new McpContext(ctx, params._meta);
      const resource = server.resources.get(params.uri);
      if (resource) return toReadResult(await resource.read(mcp), params.uri, resource.mimeType);
      for (const template of server.templates) {
        const vars = template.template.match(params.uri);
        if (vars)
          return toReadResult(
            await template.read(params.uri, vars, mcp),
            params.uri,
            template.mimeType,
          );
      }
      throw server.resourceNotFound(params.uri);
    }),
    method('resources/subscribe', UriParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      await server.onSubscribe?.(params.uri, new McpContext(ctx, params._meta));
      ctx.extra.session.subscriptions.add(params.uri);
      ctx.extra.session.subscriber = ctx.extra.auth;
      return {};
    }),
    method('resources/unsubscribe', UriParams, (params, ctx: RequestContext<McpCallExtra>) => {
      ctx.extra.session.subscriptions.delete(params.uri);
      return {};
    }),
  ];
}
