// @module-tag process
/**
 * Process lifecycle of the real gateway CLI: repeated start/stop over stdio, SIGTERM in HTTP mode
 * and a backend killed under the supervisor. The /proc checker proves no process survives.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, removeTempDirs, runProcess, sleep, tempDir, waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  backend,
  CLI,
  descendants,
  type GatewayChild,
  handshake,
  isAlive,
  killAllGateways,
  type ProcInfo,
  type RpcMessage,
  startGateway,
  survivors,
  textOf,
  track,
} from './helpers.js';

const THREE = {
  gateway: { name: 'lifecycle' },
  mcpServers: {
    chora: backend('chora'),
    rich: backend('rich', { restart: { initialDelayMs: 50, maxDelayMs: 200 } }),
    hang: backend('hang'),
  },
};
const NAMES = ['chora', 'rich', 'hang'] as const;
/**
 * A backend deadline no test outlasts (the config's maximum): a gateway that exits with such a
 * call or handshake pending did not wait for it — shown by the exit itself, not by a clock.
 */
const HOUR_MS = 3_600_000;
/** How long a gateway gets to exit before it is killed: a hang guard, not a bound. */
const EXIT_GUARD_MS = 30_000;

/** The gateway and its three backends as they are now, all checked to be live children. */
/** SIGTERM the gateway: its exit, or undefined (and its tree killed) after EXIT_GUARD_MS. */
async function terminate(gw: GatewayChild) {
  process.kill(gw.pid, 'SIGTERM');
  const exit = await Promise.race([gw.exited, sleep(EXIT_GUARD_MS).then(() => undefined)]);
  if (!exit) gw.kill();
  return exit;
}

async function snapshot(gw: GatewayChild): Promise<ProcInfo[]> {
  const status = await gw.status();
  const pids = NAMES.map((n) => {
    const b = status.backends[n];
    expect(b?.status, `backend ${n}`).toBe('running');
    return b?.pid as number;
  });
  const below = descendants(gw.pid).map((p) => p.pid);
  for (const pid of pids) expect(below).toContain(pid);
  const tracked = [gw.pid, ...pids].map((pid) => track(pid));
  for (const t of tracked) expect(t).toBeDefined();
  return tracked as ProcInfo[];
}

afterAll(async () => {
  await killAllGateways();
  removeTempDirs();
});

describe('the /proc process checker', () => {
  it('finds an orphaned grandchild through its process group (a negative control)', async () => {
    // A group leader that starts a grandchild and exits at once: the grandchild is re-parented
    // but keeps the group, as a backend's leftover child would.
    const leader = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn } = require('node:child_process');
         const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
         c.unref();
         console.log(c.pid);`,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    // 'close': exited, and its stdout (the grandchild's pid) read to the end.
    const leaderExit = new Promise((resolve) => leader.once('close', resolve));
    let out = '';
    leader.stdout.setEncoding('utf8');
    leader.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    const leaderInfo = await waitFor('leader tracked', () => track(leader.pid as number), 30_000);
    // It exits once it has printed the grandchild's pid: waited for, not given 5 s (the test's
    // timeout is the hang guard).
    await leaderExit;
    const grandchild = Number(out.trim());
    try {
      expect(grandchild).toBeGreaterThan(0);
      const found = await waitFor('grandchild found', () => {
        const s = survivors([leaderInfo]);
        return s.length > 0 ? s : undefined;
      });
      expect(found.map((p) => p.pid)).toStrictEqual([grandchild]);
      expect(found[0]?.pgrp).toBe(leaderInfo.pid);
    } finally {
      try {
        process.kill(grandchild, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await waitFor('grandchild gone', () => survivors([leaderInfo]).length === 0, 30_000);
  });
});

describe('the gateway CLI over stdio with chora, rich and hang', () => {
  it('survives 10 start/stop cycles and leaves no process behind', async () => {
    const seen: ProcInfo[] = [];
    const backendPids = new Set<number>();
    for (let cycle = 0; cycle < 10; cycle++) {
      const gw = startGateway(THREE);
      await handshake(gw);
      const list = await gw.request('tools/list');
      const names = ((list.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'gateway_status',
          'chora__list_generators',
          'rich__echo',
          'hang__ok',
        ]),
      );
      const procs = await snapshot(gw);
      seen.push(...procs);
      for (const p of procs.slice(1)) backendPids.add(p.pid);

      const exit = await gw.end(EXIT_GUARD_MS);
      expect(exit, `cycle ${cycle}: ${gw.stderr().slice(-500)}`).toStrictEqual({
        code: 0,
        signal: null,
      });
      // Everything of this cycle is gone as soon as the gateway has exited.
      expect(survivors(procs)).toStrictEqual([]);
    }
    expect(backendPids.size).toBe(30);
    expect(seen.filter((p) => isAlive(p))).toStrictEqual([]);
    expect(survivors(seen)).toStrictEqual([]);
    // Ten processes' starts and stops: room for a loaded machine (a hang guard, not a budget).
  }, 180_000);
});

describe('the gateway CLI over HTTP', () => {
  it('SIGTERM stops it with exit 0 and takes every backend with it', async () => {
    const gw = startGateway(THREE, {
      args: ['--transport', 'http', '--host', '127.0.0.1', '--port', '0'],
      logLevel: 'info',
    });
    const match = await gw.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)[^"]*"/, 30_000);
    const base = match[1] as string;
    // A call may wait for its backend to start: the deadline is a hang guard.
    const res = await postJson<RpcMessage>(
      `${base}/messages`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'chora__list_generators', arguments: {} },
      },
      { timeoutMs: 30_000 },
    );
    expect(res.status).toBe(200);
    expect(textOf(res.body as RpcMessage)).toBe(
      '{"generators": [{"id": "python_script", "name": "Python Script", "category": "code"}]}',
    );

    const below = descendants(gw.pid);
    expect(below.length).toBeGreaterThanOrEqual(3);
    const tracked = [track(gw.pid), ...below].filter((p) => p !== undefined);
    expect(await terminate(gw)).toStrictEqual({ code: 0, signal: null });
    expect(survivors(tracked)).toStrictEqual([]);
  }, 120_000);
});

describe('a backend killed while idle', () => {
  it('is restarted by the supervisor with a new pid; the others are untouched', async () => {
    const gw = startGateway(THREE);
    await handshake(gw);
    const before = await gw.status();
    const oldPid = before.backends.rich?.pid as number;
    const choraPid = before.backends.chora?.pid;
    const old = track(oldPid);
    expect(old).toBeDefined();
    expect(textOf(await gw.call('rich__echo', { text: 'before' }))).toBe('before');

    process.kill(oldPid, 'SIGKILL');
    const after = await waitFor(
      'rich restarted with a new pid',
      async () => {
        const b = (await gw.status()).backends.rich;
        return b?.status === 'running' && b.pid !== oldPid && b.pid !== null ? b : undefined;
      },
      30_000,
    );
    expect(after.restarts).toBe(1);
    expect(isAlive(old as ProcInfo)).toBe(false);
    expect(descendants(gw.pid).map((p) => p.pid)).toContain(after.pid);
    expect(Number(textOf(await gw.call('rich__who')))).toBe(after.pid);
    expect(textOf(await gw.call('rich__echo', { text: 'after' }))).toBe('after');
    const status = await gw.status();
    expect(status.backends.chora?.pid).toBe(choraPid);
    expect(status.backends.chora?.restarts).toBe(0);

    const failed = JSON.parse(
      textOf(await gw.call('get_events', { event_type: 'backend.failed' })),
    ) as { source: string; data: { error: string } }[];
    expect(failed.some((e) => e.source === 'rich' && /SIGKILL/.test(e.data.error))).toBe(true);

    const tracked = [track(gw.pid), track(after.pid as number), ...descendants(gw.pid)].filter(
      (p) => p !== undefined,
    );
    expect(await gw.end(EXIT_GUARD_MS)).toStrictEqual({ code: 0, signal: null });
    expect(survivors(tracked)).toStrictEqual([]);
  }, 120_000);
});

describe('the gateway CLI over stdio, signalled', () => {
  it('SIGTERM while serving stdio also exits 0 and leaves no process', async () => {
    const gw = startGateway(THREE);
    await handshake(gw);
    const procs = await snapshot(gw);
    expect(await terminate(gw)).toStrictEqual({ code: 0, signal: null });
    expect(survivors(procs)).toStrictEqual([]);
  }, 90_000);
});

describe('the gateway CLI signalled during start-up', () => {
  it('SIGTERM while a backend is still starting: exit 0 at once, no backend orphaned', async () => {
    // A backend that never answers initialize holds start-up for as long as the gateway waits:
    // an hour here, so exiting at all (within the hang guard) shows it did not wait.
    // Signalled as soon as both backends are spawned (the gateway may still be loading), and
    // once it says it is waiting for the stuck one (its start-up surely under way).
    for (const when of ['spawned', 'waiting'] as const) {
      const gw = startGateway(
        {
          mcpServers: {
            chora: backend('chora'),
            stuck: backend('hang', { timeoutMs: HOUR_MS }, ['--hang-initialize']),
          },
        },
        { logLevel: 'info' },
      );
      const below = await waitFor(
        'both backends spawned',
        () => {
          const found = descendants(gw.pid);
          return found.length >= 2 ? found : undefined;
        },
        30_000,
      );
      if (when === 'waiting') await gw.waitForStderr(/waiting for backend 'stuck'/, 30_000);
      const tracked = [gw.pid, ...below.map((p) => p.pid)].map((pid) => track(pid));
      const ex = await terminate(gw);
      expect(ex, `${when}: ${gw.stderr().slice(-500)}`).toStrictEqual({ code: 0, signal: null });
      expect(survivors(tracked.filter((t): t is ProcInfo => t !== undefined))).toStrictEqual([]);
    }
  }, 150_000);
});

describe('the gateway CLI with a backend slow to start', () => {
  it('serves at once: initialize is answered, the first tools/list waits for the backend, the wait is logged', async () => {
    // The slow backend boots when this test creates `booted`, not after a delay that a loaded
    // machine could outlast: what happens before that is ordered before its start.
    const booted = join(tempDir('gw-slow-'), 'booted');
    const gw = startGateway(
      {
        mcpServers: {
          chora: backend('chora'),
          slow: backend('slow-start', {}, ['--until-file', booted]),
        },
      },
      { logLevel: 'info' },
    );
    const up = /"backend":"slow","state":"running"/;
    await handshake(gw);
    // Answered while the slow backend is still starting: initialize waits for no backend.
    expect(gw.stderr()).not.toMatch(up);
    await gw.waitForStderr(/waiting for backend 'slow' \(command /, 30_000);
    const listed = gw.request('tools/list', {}, 30_000);
    writeFileSync(booted, '');
    const list = await listed;
    const names = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    // The list waited for it: asked before the backend could start, answered with its tools.
    expect(names).toEqual(expect.arrayContaining(['chora__list_generators', 'slow__ok']));
    expect(gw.stderr()).toMatch(up);
    expect(await gw.end(EXIT_GUARD_MS)).toStrictEqual({ code: 0, signal: null });
  }, 120_000);

  it('exits at once on stdin EOF while a backend never finishes starting', async () => {
    // Its handshake would take an hour: an exit 0 at all (before the hang guard kills it) shows
    // the gateway did not wait for it.
    const gw = startGateway({
      mcpServers: { stuck: backend('hang', { timeoutMs: HOUR_MS }, ['--hang-initialize']) },
    });
    await handshake(gw);
    const procs = descendants(gw.pid).map((p) => track(p.pid));
    expect(await gw.end(EXIT_GUARD_MS)).toStrictEqual({ code: 0, signal: null });
    expect(survivors(procs.filter((p): p is ProcInfo => p !== undefined))).toStrictEqual([]);
  }, 90_000);
});

describe('the gateway CLI, killed or left mid-call', () => {
  it('SIGKILL of the gateway: the backends see EOF and exit on their own', async () => {
    const gw = startGateway(THREE);
    await handshake(gw);
    const procs = await snapshot(gw);
    process.kill(gw.pid, 'SIGKILL');
    expect(await gw.exited).toStrictEqual({ code: null, signal: 'SIGKILL' });
    // Nobody stops them: their stdin closes with the gateway, and idle backends exit.
    await waitFor(
      'backends gone after the gateway was killed',
      () => (survivors(procs).length === 0 ? true : undefined),
      30_000,
    );
  }, 90_000);

  it('a client that closes stdin with a call in flight: exit 0, the call answered, nothing left', async () => {
    // The hang call's own deadline is an hour: only the drain can end it within the test.
    const gw = startGateway({
      ...THREE,
      mcpServers: { ...THREE.mcpServers, hang: backend('hang', { timeoutMs: HOUR_MS }) },
    });
    await handshake(gw);
    const procs = await snapshot(gw);
    gw.send({
      jsonrpc: '2.0',
      id: 77,
      method: 'tools/call',
      params: { name: 'hang__hang', arguments: {} },
    });
    await waitFor('the hang call forwarded', async () => {
      const b = (await gw.status()).backends.hang;
      return b && b.calls >= 1 ? true : undefined;
    });
    // The in-flight call gets the protocol's drain (10 s), then the backends are stopped: an
    // exit 0 before the hang guard is the proof the gateway did not wait for the call.
    const exit = await gw.end(10_000 + EXIT_GUARD_MS);
    expect(exit).toStrictEqual({ code: 0, signal: null });
    const reply = await gw.response(77, 30_000);
    expect(reply.error?.code).toBe(-32000);
    expect(reply.error?.message).toContain("'hang'");
    expect(reply.error?.message).not.toMatch(/did not answer within/);
    expect(survivors(procs)).toStrictEqual([]);
  }, 120_000);
});

describe('the gateway CLI with an event log it cannot use', () => {
  it('says which file and why in one line and exits 2, for a file or a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-events-'));
    try {
      const junk = join(dir, 'junk.db');
      writeFileSync(junk, 'x'.repeat(4096));
      for (const [path, why] of [
        [junk, 'file is not a database'],
        [dir, ''],
      ] as const) {
        const run = await runProcess(process.execPath, [CLI, '--events', path], {
          timeoutMs: 20_000,
        });
        expect(run.code, run.stderr).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(
          new RegExp(`^mcp-gateway: cannot open the event log at ${path}: .*${why}.*\\n$`),
        );
        expect(run.stderr.split('\n')).toHaveLength(2);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives PostgreSQL's reason (a fleet's shared log), the URL without its password", {
    tags: ['postgres'],
  }, async () => {
    const pg = await runProcess(
      process.execPath,
      [CLI, '--events', 'postgres://nouser:s3cret@127.0.0.1:5432/test'],
      { timeoutMs: 20_000 },
    );
    expect(pg.code, pg.stderr).toBe(2);
    expect(pg.stderr).toMatch(
      /^mcp-gateway: cannot open the event log at postgres:\/\/127\.0\.0\.1:5432\/test: .*role "nouser" does not exist\n$/,
    );
    expect(pg.stderr).not.toContain('s3cret');
  });
});
