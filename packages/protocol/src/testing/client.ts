import { McpClient, type McpClientOptions } from '../client/client.js';
import type { McpServer } from '../mcp/server.js';
import type { AuthInfo } from '../mcp/session.js';
import type { McpConnectionOptions } from '../mcp/transport.js';
import { createLinkedTransports } from '../transports/memory.js';

/** How {@link connectClient} connects: the McpClient's own options, plus the server side's. */
export interface ConnectClientOptions extends McpClientOptions {
  /** Who the client acts as (an in-memory channel carries no credentials, like stdio). */
  auth?: AuthInfo;
  /** How the server serves this connection, beyond `auth` (deadlines, drain time, logger). */
  connection?: Omit<McpConnectionOptions, 'auth'>;
}

/**
 * An {@link McpClient} connected to `server` in-process — `server.connect()` over
 * `createLinkedTransports()`, the path a stdio client takes, without a pipe — and initialized.
 * `client.close()` ends the connection; the server then closes the session.
 *
 * For tests about behaviour (what a tool answers, which notifications arrive). Tests about the
 * wire (exact error objects, malformed frames, batches) use `connectRaw`.
 *
 * @example
 * ```ts
 * const client = await connectClient(server, { auth });
 * const result = await client.callTool('add', { a: 1, b: 2 });
 * await client.close();
 * ```
 */
export async function connectClient(
  server: McpServer,
  options: ConnectClientOptions = {},
): Promise<McpClient> {
  const { auth, connection, ...clientOptions } = options;
  const [clientSide, serverSide] = createLinkedTransports();
  server.connect(serverSide, { ...connection, ...(auth ? { auth } : {}) });
  return McpClient.connect(clientSide, clientOptions);
}
