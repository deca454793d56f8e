// @module-tag process
/**
 * No process outlives the client that started it (Linux): a server that ignores EOF and SIGTERM
 * and started a grandchild in a session of its own is stopped with it by `close()`, and a server
 * dies with its parent even when the parent is SIGKILLed (parent-death signal).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { StdioClientTransport } from '@mcpkit/protocol';
import { tempDir, waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';

/** The engine's build, as the child script imports it. */
const DIST = createRequire(import.meta.url).resolve('@mcpkit/protocol');
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

/** Running (a zombie — dead, not yet reaped by whoever adopted it — is not). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** A server that ignores stdin EOF and SIGTERM, and starts a grandchild in a new session. */
function stubbornServer(dir: string): string {
  const file = join(dir, 'stubborn.mjs');
  writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
process.on('SIGTERM', () => {});
for (const signal of ['SIGHUP', 'SIGINT', 'SIGPIPE']) process.on(signal, () => {});
process.on('uncaughtException', () => {});
const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1e6)"], { detached: true, stdio: 'ignore' });
process.stderr.write('grandchild ' + grandchild.pid + '\\n');
setInterval(() => {}, 1e6);
`,
  );
  return file;
}

describe('StdioClientTransport leaves no process behind (Linux)', () => {
  it('close() stops a server that ignores EOF and SIGTERM, and its grandchild in another session', async () => {
    const dir = tempDir('mcpkit-tree-');
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [stubbornServer(dir)],
      graceMs: 100,
      onStderr: (chunk) => {
        stderr += chunk;
      },
    });
    transport.start({ frame: () => {}, rejected: () => {}, end: () => {} });
    const server = transport.pid as number;
    started.push(server);
    const grandchild = await waitFor('the grandchild', () => {
      const match = /grandchild (\d+)/.exec(stderr);
      return match ? Number(match[1]) : undefined;
    });
    started.push(grandchild);
    await transport.close();
    await waitFor('both gone', () => (!alive(server) && !alive(grandchild)) || undefined);
  });

  it('a server dies with its parent even when the parent is SIGKILLed', async () => {
    const dir = tempDir('mcpkit-pdeath-');
    const parentFile = join(dir, 'parent.mjs');
    writeFileSync(
      parentFile,
      `import { StdioClientTransport } from ${JSON.stringify(DIST)};
const transport = new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(stubbornServer(dir))}] });
transport.start({ frame: () => {}, rejected: () => {}, end: () => {} });
process.stdout.write(transport.pid + '\\n');
setInterval(() => {}, 1e6);
`,
    );
    const parent = spawn(process.execPath, [parentFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    started.push(parent.pid as number);
    const server = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    started.push(server);
    expect(alive(server)).toBe(true);
    parent.kill('SIGKILL');
    await waitFor('the server gone with its parent', () => !alive(server) || undefined);
  });
});
