import type { CancellationRegistry } from '../jsonrpc/cancellation.js';
import { JsonRpcConnection, type JsonRpcConnectionOptions } from '../jsonrpc/connection.js';
import type { Dispatcher, EngineLogger } from '../jsonrpc/dispatcher.js';
import { guardStdout } from './guard-stdout.js';
import { StdioTransport, type StdioTransportOptions } from './stdio-transport.js';

export {
  DEFAULT_MAX_FRAME_BYTES,
  StdioTransport,
  type StdioTransportOptions,
} from './stdio-transport.js';

/** How a JSON-RPC dispatcher (no MCP) is served over stdio. */
export interface JsonRpcStdioOptions<E> extends StdioTransportOptions {
  /** Handed to every handler as `ctx.extra`. */
  extra?: E;
  /** Where handler crashes are logged. */
  logger?: EngineLogger;
  /** Route console output to stderr while serving on process.stdout. Default true. */
  guardStdout?: boolean;
  /** Where the signals of incoming calls live; share one to cancel calls from elsewhere. */
  cancellation?: CancellationRegistry;
  /** Told when a request this side sent is given up (timeout or abort). */
  onAbandon?: JsonRpcConnectionOptions<E>['onAbandon'];
}

/**
 * Start a JSON-RPC connection that serves `dispatcher` over stdio (or the given streams). For an
 * McpServer, use `serveMcpStdio` or `server.connect(new StdioTransport())`.
 */
export function connectJsonRpcStdio<E>(
  dispatcher: Dispatcher<E>,
  options: JsonRpcStdioOptions<E> = {},
): JsonRpcConnection<E> {
  const transport = new StdioTransport(options);
  if ((options.guardStdout ?? true) && (options.output ?? process.stdout) === process.stdout)
    guardStdout();
  const connection = new JsonRpcConnection<E>({
    transport,
    dispatcher,
    ...(options.extra === undefined ? {} : { extra: options.extra }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.cancellation ? { cancellation: options.cancellation } : {}),
    ...(options.onAbandon ? { onAbandon: options.onAbandon } : {}),
  });
  return connection.start();
}

/**
 * Serve a JSON-RPC dispatcher (no MCP) over stdio until the input closes; resolves once every
 * reply is written.
 */
export async function serveJsonRpcStdio<E>(
  dispatcher: Dispatcher<E>,
  options: JsonRpcStdioOptions<E> = {},
): Promise<void> {
  await connectJsonRpcStdio(dispatcher, options).closed;
}
