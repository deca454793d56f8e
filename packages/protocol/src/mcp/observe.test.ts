import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectClient } from '../testing/client.js';
import type { McpCallOutcome, McpObserver } from './observe.js';
import { McpServer } from './server.js';
import { defineTool, ToolError } from './tool.js';

/** A server with a tool that answers and one that fails with a tool error. */
const server = () =>
  new McpServer({ name: 'observed', version: '1' }).addTool(
    defineTool({
      name: 'add',
      description: 'Adds a and b',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => String(a + b),
    }),
    defineTool({
      name: 'test_error_handling',
      description: 'Always fails with a tool error',
      handler: () => {
        throw new ToolError('fails on purpose');
      },
    }),
  );

/** An observer that writes what it sees, under `name`, into `log`. */
function recorder(name: string, log: string[], withRun = false): McpObserver {
  return {
    begin: (call) => {
      log.push(`${name} begin ${call.method} ${call.tool ?? '-'} ${call.era}`);
      return `${name}-token`;
    },
    ...(withRun
      ? {
          run: <T>(token: unknown, fn: () => T): T => {
            log.push(`${name} run ${String(token)}`);
            return fn();
          },
        }
      : {}),
    end: (token: unknown, outcome: McpCallOutcome) => {
      log.push(`${name} end ${String(token)} ${outcome.status}`);
    },
  };
}

describe('McpServer.observe with several observers', () => {
  it('gives each observer its own token and the outcome', async () => {
    const mcp = server();
    const log: string[] = [];
    mcp.observe(recorder('a', log));
    mcp.observe(recorder('b', log));
    const client = await connectClient(mcp);
    log.length = 0;
    await client.callTool('add', { a: 1, b: 2 });
    await client.callTool('test_error_handling', {});
    expect(log).toEqual([
      'a begin tools/call add legacy',
      'b begin tools/call add legacy',
      'a end a-token ok',
      'b end b-token ok',
      'a begin tools/call test_error_handling legacy',
      'b begin tools/call test_error_handling legacy',
      'a end a-token tool_error',
      'b end b-token tool_error',
    ]);
    await client.close();
  });

  it('runs the handler inside the observers that have a run, with their own tokens', async () => {
    const mcp = server();
    const log: string[] = [];
    mcp.observe(recorder('a', log));
    mcp.observe(recorder('b', log, true));
    const client = await connectClient(mcp);
    log.length = 0;
    await client.callTool('add', { a: 1, b: 2 });
    expect(log).toEqual([
      'a begin tools/call add legacy',
      'b begin tools/call add legacy',
      'b run b-token',
      'a end a-token ok',
      'b end b-token ok',
    ]);
    await client.close();
  });

  it('stops telling an observer once its stop is called', async () => {
    const mcp = server();
    const log: string[] = [];
    const stop = mcp.observe(recorder('a', log));
    mcp.observe(recorder('b', log));
    const client = await connectClient(mcp);
    stop();
    log.length = 0;
    await client.callTool('add', { a: 1, b: 2 });
    expect(log).toEqual(['b begin tools/call add legacy', 'b end b-token ok']);
    await client.close();
  });
});
