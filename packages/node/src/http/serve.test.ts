import { defineTool, McpServer } from '@mcpkit/protocol';
import { postJson } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { serveHttp } from './serve.js';
import { createMcpHttpServer } from './server.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Who the call is from',
  handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody',
});
const server = () => new McpServer({ name: 'kit', version: '1' }).addTool(whoami);
const textOf = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

describe('serveHttp', () => {
  it('listens on a free loopback port, connects Streamable HTTP clients, and closes them', async () => {
    const served = await serveHttp(server(), { plainPaths: ['/'] });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(served.mcpUrl).toBe(`${served.url}/mcp`);
      expect(served.url.endsWith(`:${served.port}`)).toBe(true);
      const client = await served.connect();
      expect(textOf(await client.callTool('whoami'))).toBe('nobody');
      const plain = await postJson(`${served.url}/`, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(plain).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    } finally {
      await served.close();
    }
  });

  it('sends the headers it is given (bearer auth)', async () => {
    const served = await serveHttp(server(), {
      auth: { tokens: [{ token: 'a'.repeat(20), subject: 'bob', scopes: [] }] },
    });
    try {
      const client = await served.connect({
        headers: { Authorization: `Bearer ${'a'.repeat(20)}` },
      });
      expect(textOf(await client.callTool('whoami'))).toBe('bob');
      await expect(served.connect()).rejects.toThrow();
    } finally {
      await served.close();
    }
  });
});

describe('postJson', () => {
  it('sends strings as they are and reads status, headers and body', async () => {
    const served = await serveHttp(server(), { plainPaths: ['/'] });
    try {
      const bad = await postJson(`${served.url}/`, '{"jsonrpc":"2.0","id":1,"method":');
      expect(bad.status).toBe(200);
      expect(bad.body).toMatchObject({ id: null, error: { code: -32700 } });
      expect(bad.headers.get('content-type')).toBe('application/json');
      const wrongType = await postJson(`${served.url}/`, '{}', { contentType: 'text/plain' });
      expect(wrongType.status).toBe(415);
    } finally {
      await served.close();
    }
  });
});

describe('createMcpHttpServer', () => {
  it('keeps listen, close and drain bound to their server when taken off it', async () => {
    const { listen, drain, close } = createMcpHttpServer(server());
    const { url } = await listen();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await drain(0);
    await close();
  });
});
