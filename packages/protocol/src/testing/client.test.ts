import { describe, expect, it } from 'vitest';
import { RpcError } from '../jsonrpc/errors.js';
import { McpServer } from '../mcp/server.js';
import { defineTool } from '../mcp/tool.js';
import { connectClient } from './client.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Who the call is from',
  handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody',
});
const server = () => new McpServer({ name: 'kit', version: '1' }).addTool(whoami);
const textOf = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

describe('connectClient', () => {
  it('connects an initialized McpClient in-process, acting as `auth`', async () => {
    const s = server();
    const client = await connectClient(s, { auth: { subject: 'ada', scopes: new Set() } });
    expect(client.serverInfo).toEqual({ name: 'kit', version: '1' });
    expect(s.sessionCount).toBe(1);
    expect(textOf(await client.callTool('whoami'))).toBe('ada');
    await expect(client.callTool('nope')).rejects.toSatisfy(
      (err) => RpcError.is(err) && err.code === -32602,
    );
    await client.close();
    await expect.poll(() => s.sessionCount).toBe(0);
  });

  it('passes client options through', async () => {
    const client = await connectClient(server(), { clientInfo: { name: 'probe', version: '2' } });
    expect(client.protocolVersion).toBeDefined();
    await client.close();
  });
});
