/** Our engine: a trivial JSON-RPC method served by @mcpkit/protocol over stdio. */
import { createServer, method, serveStdio } from '@mcpkit/protocol';

const server = createServer(method('add', ['a', 'b'], ({ a, b }) => (a as number) + (b as number)));
await serveStdio(server);
