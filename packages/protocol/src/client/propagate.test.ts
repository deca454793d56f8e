import { describe, expect, it } from 'vitest';
import { McpServer } from '../mcp/server.js';
import { defineTool } from '../mcp/tool.js';
import { connectClient } from '../testing/client.js';

/** A server whose tool answers with the `_meta.trace` its request carried. */
const server = () =>
  new McpServer({ name: 'meta', version: '1' }).addTool(
    defineTool({
      name: 'trace_of',
      description: 'The trace the call carried',
      handler: (_args, ctx) => String(ctx.meta?.trace ?? 'none'),
    }),
  );

/** Named params as an object; undefined for none or positional ones. */
const named = (params: unknown): Record<string, unknown> | undefined =>
  typeof params === 'object' && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : undefined;

const textOf = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

describe('McpClientOptions.propagate', () => {
  it('rewrites the params of every request before it is sent', async () => {
    const client = await connectClient(server(), {
      propagate: (params) => {
        const own = named(params);
        return (
          own ? { ...own, _meta: { ...named(own._meta), trace: 't-1' } } : params
        ) as typeof params;
      },
    });
    expect(textOf(await client.callTool('trace_of'))).toBe('t-1');
    await client.close();
  });

  it('sends params as given without it', async () => {
    const client = await connectClient(server());
    expect(textOf(await client.callTool('trace_of'))).toBe('none');
    await client.close();
  });

  it('rejects the request with the error a failing hook throws, and sends nothing', async () => {
    const s = server();
    let calls = 0;
    s.observe({ begin: (call) => void (call.method === 'tools/call' && calls++), end: () => {} });
    const client = await connectClient(s, {
      propagate: (params) => {
        if (named(params)?.name === 'trace_of') {
          throw new Error('no trace context');
        }
        return params;
      },
    });
    await expect(client.callTool('trace_of')).rejects.toThrow('no trace context');
    expect(calls).toBe(0);
    await client.close();
  });
});
