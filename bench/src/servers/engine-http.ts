/**
 * Our HTTP transport: the Streamable HTTP endpoint `/mcp` in stateless mode and a plain JSON-RPC
 * endpoint `/rpc`, both serving one McpServer built once.
 */
import { createMcpHttpServer } from '@mcpkit/node';
import { engineServer } from './engine-tools.js';
import { announce } from './http-child.js';

const http = createMcpHttpServer(engineServer(), {
  host: '127.0.0.1',
  port: 0,
  plainPaths: ['/rpc'],
  streamablePath: '/mcp',
  streamable: { sessions: false },
});
const { port } = await http.listen();
announce(port, () => http.close());
