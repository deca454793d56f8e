import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import { connectStdio, type StdioTransportOptions } from '../transports/stdio.js';
import type { McpCallExtra } from './context.js';
import type { McpServer } from './server.js';
import type { AuthInfo } from './session.js';

export interface ServeMcpStdioOptions extends StdioTransportOptions {
  logger?: EngineLogger;
  /** Who the stdio client acts as (an app's local identity); stdio has no auth header. */
  auth?: AuthInfo;
  guardStdout?: boolean;
}

/**
 * Serve an MCP server to one client over stdio: one session for the life of the connection.
 * Resolves when the client closes stdin and every reply is written.
 */
export async function serveMcpStdio(
  server: McpServer,
  options: ServeMcpStdioOptions = {},
): Promise<void> {
  const session = server.openSession();
  const connection = connectStdio<McpCallExtra>(server.dispatcher, {
    ...options,
    extra: options.auth ? { session, auth: options.auth } : { session },
    cancellation: session.cancellation,
    // Tell the client when we stop waiting for its answer (sampling, elicitation).
    onAbandon: (id, _method, reason) => {
      try {
        connection.notify('notifications/cancelled', {
          requestId: id,
          reason: `request ${reason}`,
        });
      } catch {
        // The connection is already closed; nothing to tell.
      }
    },
  });
  session.channel = connection;
  await connection.closed;
  server.closeSession(session);
}
