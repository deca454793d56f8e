import { describe, expect, it } from 'vitest';
import { META } from '../mcp/era.js';
import { McpServer } from '../mcp/server.js';
import { defineTool } from '../mcp/tool.js';
import { createLinkedTransports } from '../transports/memory.js';
import { McpClient } from './client.js';
import type { ClientTransport } from './transport.js';

/** A modern client whose frames to the server are kept, in order. */
async function recordingClient() {
  const server = new McpServer({ name: 'envelope', version: '1' }).addTool(
    defineTool({
      name: 'who',
      description: 'The client the envelope named',
      handler: (_args, ctx) => `${ctx.session.clientInfo?.name} ${ctx.session.protocolVersion}`,
    }),
  );
  const [clientSide, serverSide] = createLinkedTransports();
  server.connect(serverSide);
  const frames: Record<string, unknown>[] = [];
  const recording: ClientTransport = {
    start: (sink) => clientSide.start(sink),
    send: (frame) => {
      frames.push(JSON.parse(frame));
      clientSide.send(frame);
    },
    close: () => clientSide.close(),
  };
  const client = await McpClient.connect(recording, {
    clientInfo: { name: 'recorder', version: '9' },
    protocol: '2026-07-28',
  });
  return { client, frames };
}

describe('the envelope of a modern request (MCP 2026-07-28)', () => {
  it('goes out in params._meta of every request, the params themselves untouched', async () => {
    const { client, frames } = await recordingClient();
    expect(client.era).toBe('modern');
    const params = { name: 'who', arguments: {} };
    const result = await client.request<{ content: { text: string }[] }>('tools/call', params);
    expect(result.content[0]?.text).toBe(`recorder ${client.protocolVersion}`);
    expect(params).toStrictEqual({ name: 'who', arguments: {} });
    const call = frames.find((f) => f.method === 'tools/call') as {
      params: Record<string, unknown>;
    };
    expect(call.params).toMatchObject({ name: 'who', arguments: {} });
    expect(call.params._meta).toMatchObject({
      [META.protocolVersion]: client.protocolVersion,
      [META.clientInfo]: { name: 'recorder', version: '9' },
    });
    await client.close();
  });

  it('carries a log level set later, and a caller’s own _meta keys beside it', async () => {
    const { client, frames } = await recordingClient();
    await client.setLoggingLevel('debug');
    await client.request('tools/call', { name: 'who', arguments: {}, _meta: { trace: 't-1' } });
    await client.request('tools/call', { name: 'who', arguments: {} });
    const [own, plain] = frames.filter((f) => f.method === 'tools/call') as {
      params: { _meta: Record<string, unknown> };
    }[];
    expect(own?.params._meta).toMatchObject({ trace: 't-1', [META.logLevel]: 'debug' });
    expect(plain?.params._meta).toMatchObject({ [META.logLevel]: 'debug' });
    expect(plain?.params._meta.trace).toBeUndefined();
    await client.close();
  });
});
