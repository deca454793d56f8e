import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { Scoped, ServerInternals } from '../internals.js';
import { paginate } from '../pagination.js';
import { PaginatedParams, UriParams } from '../params.js';
import { toReadResult } from '../resource.js';
import { afterHeld } from './tools.js';

export function resourceMethods(server: ServerInternals) {
  return [
    method('resources/list', PaginatedParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      await server.held();
      // What the caller may not use is not listed (the scopes of a resource or its template).
      const allowed = (entry: Scoped) => !server.missingScope(entry, ctx.extra);
      const entries: Record<string, unknown>[] = [...server.resources.values()]
        .filter(allowed)
        .map((r) => r.listEntry);
      const mcp = new McpContext(ctx, params?._meta);
      for (const template of server.templates) {
        if (template.list && allowed(template))
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
      afterHeld(server, (params, ctx: RequestContext<McpCallExtra>) => {
        const { page, nextCursor } = paginate(
          server.templates
            .filter((t) => !server.missingScope(t, ctx.extra))
            .map((t) => t.listEntry),
          params?.cursor,
          server.pageSize,
        );
        const result: Record<string, unknown> = { resourceTemplates: page };
        if (nextCursor) result.nextCursor = nextCursor;
        return result;
      }),
    ),
    method('resources/read', UriParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      // One the caller may not use is, to it, not there: the same error as for a missing one.
      const hidden = (entry: Scoped) => server.missingScope(entry, ctx.extra) !== undefined;
      const mcp = new McpContext(ctx, params._meta);
      const resource = server.resources.get(params.uri);
      if (resource) {
        if (hidden(resource)) throw server.resourceNotFound(params.uri);
        return toReadResult(await resource.read(mcp), params.uri, resource.mimeType);
      }
      for (const template of server.templates) {
        const vars = template.template.match(params.uri);
        if (!vars) continue;
        if (hidden(template)) throw server.resourceNotFound(params.uri);
        return toReadResult(
          await template.read(params.uri, vars, mcp),
          params.uri,
          template.mimeType,
        );
      }
      throw server.resourceNotFound(params.uri);
    }),
    method('resources/subscribe', UriParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      if (!server.resourceAllowed(params.uri, ctx.extra)) throw server.resourceNotFound(params.uri);
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
