import {
  McpClient,
  type McpClientOptions,
  type McpServer,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import type { McpHttpOptions, McpHttpServer } from './options.js';
import { createMcpHttpServer } from './server.js';

/** A Streamable HTTP client's options: the McpClient's own, plus headers for every request. */
export interface HttpClientOptions extends McpClientOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** Another endpoint on the same origin (a mounted server's, `/servers/x/mcp`). Default: `mcpUrl`. */
  path?: string;
}

/** An McpServer listening on HTTP, as {@link serveHttp} started it. */
export interface ServedHttp {
  /** The server `createMcpHttpServer` built (its `streamable` handler, its node `server`). */
  readonly http: McpHttpServer;
  /** The origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The Streamable HTTP endpoint (`url` + the streamable path). */
  readonly mcpUrl: string;
  /** An initialized McpClient over Streamable HTTP to `mcpUrl`; closed by `close()`. */
  connect(options?: HttpClientOptions): Promise<McpClient>;
  /** Close every client `connect` made, then the server. */
  close(): Promise<void>;
}

/**
 * `createMcpHttpServer(server, options)`, listening (127.0.0.1 on a free port unless told
 * otherwise), with its URLs and a factory of Streamable HTTP clients.
 *
 * @example
 * ```ts
 * const served = await serveHttp(server, { plainPaths: ['/'], auth: { tokens } });
 * const client = await served.connect({ headers: { Authorization: `Bearer ${token}` } });
 * await fetch(`${served.url}/`, { method: 'POST', … }); // the plain JSON-RPC path
 * await served.close();
 * ```
 */
export async function serveHttp(
  server: McpServer,
  options: McpHttpOptions = {},
): Promise<ServedHttp> {
  const http = createMcpHttpServer(server, options);
  const { url, port } = await http.listen();
  const path = options.streamablePath === undefined ? '/mcp' : options.streamablePath;
  const mcpUrl = path === false ? url : `${url}${path}`;
  const clients = new Set<McpClient>();
  return {
    http,
    url,
    port,
    mcpUrl,
    async connect({ headers, path: at, ...clientOptions } = {}) {
      const transport = new StreamableHttpClientTransport({
        url: at === undefined ? mcpUrl : `${url}${at}`,
        ...(headers ? { headers } : {}),
      });
      const client = await McpClient.connect(transport, clientOptions);
      clients.add(client);
      return client;
    },
    async close() {
      await Promise.all([...clients].map((client) => client.close()));
      clients.clear();
      await http.close();
    },
  };
}
