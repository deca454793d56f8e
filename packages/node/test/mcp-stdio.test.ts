// @module-tag process
/**
 * MCP over stdio at the wire: what a client that is not the SDK sends (the bare `initialized` of
 * the mcp-n8n gateway's JSON-RPC API reference, batches, positional params, garbage) and the
 * order of what comes back.
 */
import { fileURLToPath } from 'node:url';
import { initializeRequest, type RawProcess, spawnRaw } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));
let server: RawProcess;

beforeAll(() => {
  server = spawnRaw(process.execPath, [FIXTURE, '--transport', 'stdio', '--log-level', 'debug']);
});
afterAll(async () => {
  expect((await server.end()).code).toBe(0);
});

describe('MCP over stdio, at the wire', () => {
  it('serves calls made before initialize (lenient, like the servers it stands in for)', async () => {
    const reply = await server.exchange({
      jsonrpc: '2.0',
      id: 'early',
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(reply).toMatchObject({
      id: 'early',
      result: { structuredContent: { sum: 3 }, isError: false },
    });
  });

  it('runs the handshake of the mcp-n8n gateway API reference verbatim: initialize 2024-11-05, then the bare initialized', async () => {
    const reply = await server.exchange(
      initializeRequest(1, {
        protocolVersion: '2024-11-05',
        clientInfo: { name: 'claude-desktop', version: '1.0.0' },
      }),
    );
    expect(reply).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2024-11-05',
        capabilities: { tools: {} },
        serverInfo: { name: 'mcpkit-everything' },
      },
    });
    server.send('{"jsonrpc": "2.0", "method": "initialized"}');
    expect(await server.exchange({ jsonrpc: '2.0', id: 2, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
  });

  it('writes every progress notification before the result of its call', async () => {
    server.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p-1' } },
      }),
    );
    const seen: Record<string, unknown>[] = [];
    for (;;) {
      const message = JSON.parse(await server.next()) as Record<string, unknown>;
      seen.push(message);
      if (message.id === 3) break;
    }
    expect(
      seen.map((m) =>
        m.method ? `${m.method}:${(m.params as { progress: number }).progress}` : 'result',
      ),
    ).toEqual([
      'notifications/progress:0',
      'notifications/progress:50',
      'notifications/progress:100',
      'result',
    ]);
    expect(seen[0]).toMatchObject({ params: { progressToken: 'p-1', total: 100 } });
  });

  it('answers a batch of MCP calls, positional params included', async () => {
    const reply = await server.exchange<Record<string, unknown>[]>([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: ['add', { a: 20, b: 22 }] },
      { jsonrpc: '2.0', id: 'b', method: 'resources/read', params: { uri: 'test://static-text' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'nope' } },
    ]);
    const byId = Object.fromEntries(reply.map((r) => [r.id as string, r]));
    expect(reply).toHaveLength(3);
    expect(byId.a).toMatchObject({ result: { structuredContent: { sum: 42 } } });
    expect(byId.b).toMatchObject({ result: { contents: [{ uri: 'test://static-text' }] } });
    expect(byId.c).toMatchObject({ error: { code: -32602, message: 'Unknown tool: nope' } });
  });

  it('answers malformed MCP params with -32602 naming the field, not -32603', async () => {
    const reply = await server.exchange({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { arguments: {} },
    });
    expect(reply).toMatchObject({
      id: 5,
      error: { code: -32602, data: { issues: [{ path: 'name' }] } },
    });
    const level = await server.exchange({
      jsonrpc: '2.0',
      id: 6,
      method: 'logging/setLevel',
      params: { level: 'loud' },
    });
    expect(level).toMatchObject({ id: 6, error: { code: -32602 } });
  });

  it('survives garbage and keeps serving', async () => {
    expect(
      await server.exchange('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":'),
    ).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    expect(await server.exchange('"just a string"')).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(await server.exchange({ jsonrpc: '2.0', id: 8, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: {},
    });
  });

  it('keeps stdout for JSON-RPC: every line read so far parsed, logs went to stderr', () => {
    expect(server.unread).toEqual([]);
    expect(server.stderr()).toContain('serving MCP on stdio');
  });
});
