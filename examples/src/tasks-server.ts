// A long tool as a task (MCP tasks extension, `io.modelcontextprotocol/tasks`): a client that
// declares the extension gets a task at once and polls it; any other client waits for the result.
// Run it with `node dist/tasks-server.js`, or let src/tasks-client.ts start it.
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool, McpServer, serveMcpStdio } from '@mcpkit/protocol';
import { z } from 'zod';

const renderReport = defineTool({
  name: 'render_report',
  description: 'Render a report page by page, asking before it is published',
  inputSchema: z.object({ pages: z.number().int().min(1).max(20) }),
  // May run as a task: the handler is the same either way.
  taskSupport: 'optional',
  handler: async ({ pages }, ctx) => {
    for (let page = 1; page <= pages; page++) {
      // In a task: its status message. In an ordinary call: a progress notification.
      ctx.progress(page, pages, `rendering page ${page} of ${pages}`);
      // `ctx.signal` aborts when the task is cancelled (tasks/cancel).
      await sleep(100, undefined, { signal: ctx.signal });
    }
    // In a task the question waits, `input_required`, until the client answers (tasks/update).
    const answer = await ctx.elicit({
      message: `Publish the ${pages}-page report?`,
      requestedSchema: { type: 'object', properties: { publish: { type: 'boolean' } } },
    });
    const publish = answer.action === 'accept' && answer.content?.publish === true;
    return { pages, published: publish };
  },
});

const server = new McpServer({ name: 'tasks-example', version: '1.0.0' }).addTool(renderReport);

await serveMcpStdio(server);
