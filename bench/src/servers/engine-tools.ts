/** The trivial tool every MCP benchmark calls, defined with @mcpkit/protocol. */
import { defineTool, McpServer } from '@mcpkit/protocol';
import { z } from 'zod';

export function engineServer(): McpServer {
  return new McpServer({ name: 'bench', version: '0.0.0' }).addTool(
    defineTool({
      name: 'add',
      description: 'Add two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => String(a + b),
    }),
  );
}
