// @module-tag process
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runProcess } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

describe('examples', () => {
  it('client.ts starts server.ts over stdio, lists its tools and prints the result of add', async () => {
    for (const file of ['client.js', 'server.js']) {
      if (!existsSync(dist(file))) throw new Error(`${dist(file)} is missing: run \`pnpm build\``);
    }
    // Two real processes: the client, and the server it spawns over stdio.
    const { code, stdout, stderr } = await runProcess(process.execPath, [dist('client.js')], {
      timeoutMs: 30_000,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe('tools: add, greet\nadd(2, 3) = {"sum":5}\n');
  });

  it('tasks-client.ts gets a task for the long call, answers its question, prints its result', async () => {
    for (const file of ['tasks-client.js', 'tasks-server.js']) {
      if (!existsSync(dist(file))) throw new Error(`${dist(file)} is missing: run \`pnpm build\``);
    }
    const { code, stdout, stderr } = await runProcess(process.execPath, [dist('tasks-client.js')], {
      timeoutMs: 30_000,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      'the call became a task\nasked: Publish the 3-page report?\nresult: {"pages":3,"published":true}\n',
    );
  });
});
