// A complete MCP client: start the example server as a child process, list its tools, call one,
// print the result, close. Run it with `node dist/client.js` after `pnpm build`.
import { fileURLToPath } from 'node:url';
import { McpClient, StdioClientTransport } from '@mcpkit/protocol';

const serverPath = fileURLToPath(new URL('./server.js', import.meta.url));
const client = await McpClient.connect(
  new StdioClientTransport({ command: process.execPath, args: [serverPath] }),
  { clientInfo: { name: 'example-client', version: '1.0.0' } },
);

try {
  const tools = await client.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

  const result = await client.callTool('add', { a: 2, b: 3 });
  console.log(`add(2, 3) = ${JSON.stringify(result.structuredContent)}`);
} finally {
  await client.close(); // ends the server: EOF on its stdin
}
