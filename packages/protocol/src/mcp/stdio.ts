import { guardStdout } from '../transports/guard-stdout.js';
import { StdioTransport, type StdioTransportOptions } from '../transports/stdio.js';
import type { McpServer } from './server.js';
import type { McpConnectionOptions } from './transport.js';

/** Options of {@link serveMcpStdio}: the stdio transport's and the connection's. */
export interface ServeMcpStdioOptions extends StdioTransportOptions, McpConnectionOptions {
  /** Route console output to stderr while serving on process.stdout. Default true. */
  guardStdout?: boolean;
}

/**
 * Serve an MCP server to one client over stdio — `server.connect(new StdioTransport(options))`,
 * with console output kept off stdout. Resolves when the client closes stdin and every reply is
 * written.
 */
export async function serveMcpStdio(
  server: McpServer,
  options: ServeMcpStdioOptions = {},
): Promise<void> {
  if ((options.guardStdout ?? true) && (options.output ?? process.stdout) === process.stdout)
    guardStdout();
  await server.connect(new StdioTransport(options), options).closed;
}
