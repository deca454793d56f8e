// A complete MCP server: two tools with zod schemas, served over stdio.
// Run it with `node dist/server.js`, or let src/client.ts start it.
import { defineTool, McpServer, serveMcpStdio } from '@mcpkit/protocol';
import { z } from 'zod';

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => ({ sum: a + b }),
});

const greet = defineTool({
  name: 'greet',
  description: 'Greet someone by name',
  inputSchema: z.object({ name: z.string().min(1).describe('Who to greet') }),
  handler: ({ name }) => `Hello, ${name}!`,
});

const server = new McpServer({ name: 'example-server', version: '1.0.0' }).addTool(add, greet);

// Until the client closes stdin; logs go to stderr, stdout carries only JSON-RPC.
await serveMcpStdio(server);
