/** Baseline: the official SDK's McpServer with the same `add` tool over its StdioServerTransport. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { sdkServer } from './sdk-tools.js';

const server = sdkServer();
// Under a pipelined burst the SDK waits for 'drain' once per reply written into a full pipe;
// that is its normal behaviour, so silence the listener-count warning it triggers.
process.stdout.setMaxListeners(0);
const transport = new StdioServerTransport();
// The SDK transport does not end with stdin; exit when the driver closes it, as ours does.
process.stdin.once('end', () => {
  void server.close().finally(() => process.exit(0));
});
await server.connect(transport);
