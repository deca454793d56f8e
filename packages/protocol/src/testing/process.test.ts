/** The kit's child-process helpers, against the fixture server (needs `pnpm build`). */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnHttpServer } from './http-process.js';
import { isAlive, killSpawned, waitGone } from './processes.js';
import { spawnRaw } from './raw-process.js';
import { runProcess } from './run.js';
import { spawnServer } from './stdio-server.js';

const FIXTURE = fileURLToPath(new URL('../../dist/fixtures/everything.js', import.meta.url));
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

  it('rejects with the reason and the stderr of a server that never initializes', async () => {
    await expect(
      spawnServer(node, ['-e', 'console.error("no MCP here"); process.exit(3)']),
    ).rejects.toThrow(/did not initialize: .*closed[\s\S]*no MCP here/);
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

  it('names what it waited for when nothing comes', async () => {
    const raw = spawnRaw(node, ['-e', 'process.stdin.resume()']);
    await expect(raw.next(100)).rejects.toThrow(/no stdout line within 100 ms/);
    raw.kill();
    expect((await raw.exited).signal).toBe('SIGKILL');
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

  it('rejects with the stderr of a server that exits before listening', async () => {
    await expect(
      spawnHttpServer(node, ['-e', 'console.error("port taken"); process.exit(1)']),
    ).rejects.toThrow(/exited before listening[\s\S]*port taken/);
  });
});

describe('runProcess', () => {
  it('runs to the end and collects what it wrote', async () => {
    const run = await runProcess(
      node,
      ['-e', 'process.stdin.pipe(process.stdout); console.error("e")'],
      {
        input: 'hello',
      },
    );
    expect(run).toMatchObject({ code: 0, stdout: 'hello', stderr: 'e\n', timedOut: false });
  });

  it('stops a long-running command once stderr matches, and kills one that overruns', async () => {
    const stopped = await runProcess(
      node,
      ['-e', 'console.error("ready"); setInterval(() => {}, 1000)'],
      {
        stopWhen: /ready/,
      },
    );
    expect(stopped.signal).toBe('SIGTERM');
    const overran = await runProcess(node, ['-e', 'setInterval(() => {}, 1000)'], {
      timeoutMs: 200,
    });
    expect(overran).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
  });
});

describe('killSpawned', () => {
  it('kills what the kit started and is still running', async () => {
    const raw = spawnRaw(node, ['-e', 'setInterval(() => {}, 1000)'], { detached: true });
    expect(isAlive(raw.pid)).toBe(true);
    killSpawned();
    expect(await waitGone([raw.pid], 5_000)).toEqual([]);
  });
});
