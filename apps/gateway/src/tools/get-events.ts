import { defineTool, ErrorCode, holdsScopes, RpcError } from '@mcpkit/protocol';
import { z } from 'zod';
import { EventQueryError } from '../events.js';
import type { Gateway } from '../gateway.js';

export const getEvents = (gateway: Gateway) =>
  defineTool({
    name: 'get_events',
    description: 'Query telemetry events from gateway event log',
    inputSchema: z.object({
      trace_id: z.string().optional(),
      event_type: z.string().optional(),
      status: z.enum(['success', 'failure', 'pending']).optional(),
      instance: z
        .string()
        .optional()
        .describe("one gateway process's events (its id, from gateway_status)"),
      since: z.string().optional().describe('"30m", "24h", "7d" or an ISO 8601 time'),
      limit: z.number().int().min(1).max(1000).default(100),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async (args, ctx) => {
      let events: Awaited<ReturnType<typeof gateway.events.query>>;
      try {
        events = await gateway.events.query({
          ...(args.trace_id ? { trace_id: args.trace_id } : {}),
          ...(args.event_type ? { event_type: args.event_type } : {}),
          ...(args.status ? { status: args.status } : {}),
          ...(args.instance ? { instance: args.instance } : {}),
          ...(args.since ? { since: args.since } : {}),
          limit: args.limit,
        });
      } catch (err) {
        if (err instanceof EventQueryError)
          throw new RpcError(ErrorCode.InvalidParams, 'Invalid params', {
            field: 'since',
            error: err.message,
          });
        throw err;
      }
      // The events of a backend whose scopes the caller lacks (its calls, by other clients too)
      // are not its to see.
      events = events.filter(
        (e) => !e.backend || holdsScopes(ctx.auth, gateway.config.mcpServers[e.backend]?.scopes),
      );
      // As in mcp-n8n's `get_events`, the text is the list of events itself.
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(events) }],
        structuredContent: { events },
      };
    },
  });
