/** Our engine: a trivial JSON-RPC method served by @mcpkit/protocol over stdio. */
import { createJsonRpcServer, method, serveJsonRpcStdio } from '@mcpkit/protocol';

const server = createJsonRpcServer(
  method('add', ['a', 'b'], ({ a, b }) => (a as number) + (b as number)),
);
await serveJsonRpcStdio(server);
