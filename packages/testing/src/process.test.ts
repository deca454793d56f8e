// @module-tag process
/**
 * The kit's child-process helpers against small `node -e` programs; against a real mcpkit server
 * they are tested in @mcpkit/node (test/kit-processes.test.ts), which has one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnHttpServer } from './http-process.js';
import { isAlive, killSpawned, waitGone } from './processes.js';
import { spawnRaw } from './raw-process.js';
import { runProcess } from './run.js';
import { spawnServer } from './stdio-server.js';

const node = process.execPath;

afterAll(killSpawned);

describe('spawnServer', () => {
  it('rejects with the reason and the stderr of a server that never initializes', async () => {
    await expect(
      spawnServer(node, ['-e', 'console.error("no MCP here"); process.exit(3)']),
    ).rejects.toThrow(/did not initialize: .*closed[\s\S]*no MCP here/);
  });
});

describe('spawnRaw', () => {
  it('names what it waited for when nothing comes', async () => {
    const raw = spawnRaw(node, ['-e', 'process.stdin.resume()']);
    await expect(raw.next(100)).rejects.toThrow(/no stdout line within 100 ms/);
    raw.kill();
    expect((await raw.exited).signal).toBe('SIGKILL');
  });
});

describe('spawnHttpServer', () => {
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
