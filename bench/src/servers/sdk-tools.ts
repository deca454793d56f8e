/** The same trivial tool, defined with the official SDK (@modelcontextprotocol/sdk). */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function sdkServer(): McpServer {
  const server = new McpServer({ name: 'bench', version: '0.0.0' });
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}
