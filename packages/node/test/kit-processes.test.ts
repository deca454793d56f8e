// @module-tag process
/**
 * The test kit's child-process helpers against a real mcpkit server — the fixture server, over
 * stdio and HTTP, started by runCli as every app is (needs `pnpm build`).
 */
import { fileURLToPath } from 'node:url';
import { killSpawned, spawnHttpServer, spawnRaw, spawnServer } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));
const node = process.execPath;

afterAll(killSpawned);

describe('spawnServer', () => {
  it('starts a server with an initialized McpClient on its stdio', async () => {
    const server = await spawnServer(node, [FIXTURE, '--log-level', 'warn']);
    expect(server.client.serverInfo).toMatchObject({ name: 'mcpkit-everything' });
    expect(server.pid).toBe(server.transport.pid);
    const sum = await server.client.callTool('add', { a: 2, b: 3 });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(await server.close()).toEqual({ code: 0, signal: null });
  });
});

describe('spawnRaw', () => {
  it('sends frames verbatim and reads stdout line by line', async () => {
    const raw = spawnRaw(node, [FIXTURE, '--log-level', 'debug']);
    expect(await raw.exchange('{"jsonrpc":"2.0","id":1,"method":')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    const reply = await raw.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
    expect(reply).toMatchObject({
      jsonrpc: '2.0',
      id: 1000,
      result: { structuredContent: { sum: 2 } },
    });
    expect(raw.lines).toHaveLength(2);
    expect(raw.unread).toHaveLength(1);
    raw.notify('notifications/initialized');
    raw.send({ jsonrpc: '2.0', id: 'x', method: 'ping' });
    expect((await raw.response('x')).result).toEqual({});
    await raw.waitForStderr(/serving MCP on stdio/);
    expect((await raw.end()).code).toBe(0);
  });
});

describe('spawnHttpServer', () => {
  it('resolves with the URL the server logged, and stops it', async () => {
    const app = await spawnHttpServer(node, [FIXTURE, '--transport', 'http', '--port', '0'], {
      env: { LOG_LEVEL: 'info' },
    });
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = await app.connect();
    expect(await client.ping()).toEqual({});
    const exit = await app.stop();
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });
});
