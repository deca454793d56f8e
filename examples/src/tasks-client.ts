// A client of tasks: `tasks: true` declares the extension (2026-07-28), so the long call comes
// back as a task; `callTool` waits it out for you — polling, telling each status change, answering
// the task's question with the elicitation handler — and resolves with its result.
import { fileURLToPath } from 'node:url';
import { McpClient, StdioClientTransport } from '@mcpkit/protocol';

const client = await McpClient.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('tasks-server.js', import.meta.url))],
  }),
  {
    protocol: '2026-07-28',
    tasks: true,
    handlers: {
      elicitation: (request) => {
        console.log(`asked: ${request.message}`);
        return { action: 'accept', content: { publish: true } };
      },
    },
  },
);

let task = '';
const result = await client.callTool(
  'render_report',
  { pages: 3 },
  {
    onTaskStatus: (status) => {
      if (!task) console.log('the call became a task');
      task = status.taskId;
    },
  },
);
console.log(`result: ${JSON.stringify(result.structuredContent)}`);
await client.close();
