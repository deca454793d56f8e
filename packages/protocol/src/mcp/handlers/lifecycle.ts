import { method, type RequestContext } from '../../jsonrpc/method.js';
import type { McpCallExtra } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { CancelledParams, InitializeParams, SetLevelParams } from '../params.js';
import { CANCELLATION } from '../session.js';
import type { ClientCapabilities, Implementation } from '../types.js';
import { negotiateVersion } from '../versions.js';

export function lifecycleMethods(server: ServerInternals) {
  const initialized = (_params: unknown, ctx: { extra: McpCallExtra }) => {
    ctx.extra.session.initialized = true;
  };
  return [
    method('initialize', InitializeParams, (params, ctx: { extra: McpCallExtra }) => {
      const session = ctx.extra.session;
      session.protocolVersion = negotiateVersion(params.protocolVersion);
      session.clientCapabilities = (params.capabilities ?? {}) as ClientCapabilities;
      session.clientInfo = params.clientInfo as Implementation | undefined;
      session.initializeAnswered = true;
      // Who this session's messages outside any request (log lines, updates) may be for.
      session.subscriber = ctx.extra.auth;
      const result: Record<string, unknown> = {
        protocolVersion: session.protocolVersion,
        capabilities: server.capabilities(),
        serverInfo: server.info,
      };
      if (server.instructions !== undefined) result.instructions = server.instructions;
      return result;
    }),
    method<McpCallExtra>('notifications/initialized', initialized),
    // Clients of the mcp-n8n gateway's JSON-RPC API (protocol 2024-11-05) send the bare name
    // `initialized`, as its reference shows; accept both.
    method<McpCallExtra>('initialized', initialized),
    method('ping', () => ({})),
    method('logging/setLevel', SetLevelParams, (params, ctx: { extra: McpCallExtra }) => {
      ctx.extra.session.logLevel = params.level;
      ctx.extra.session.subscriber = ctx.extra.auth;
      return {};
    }),
    method(
      'notifications/cancelled',
      CancelledParams,
      (params, ctx: RequestContext<McpCallExtra>) => {
        // Sent as a request (with an id) naming itself: nothing to cancel but the message that
        // asks, which is answered like any request.
        if (ctx.id !== undefined && ctx.id === params.requestId) return;
        ctx.extra.session[CANCELLATION].cancel(
          params.requestId,
          new Error(params.reason ?? 'cancelled by the client'),
        );
      },
    ),
    // Client-side notifications the server has nothing to do for.
    method('notifications/roots/list_changed', () => undefined),
    method('notifications/progress', () => undefined),
  ];
}
