// @module-tag redis
// @module-tag haproxy
// @module-tag process
/**
 * Tasks across a fleet: three instances of the fixture server (its task tools) on one Redis,
 * behind the real HAProxy of `deploy/haproxy.cfg` (round-robin, no stickiness). A task created
 * through one instance is read, answered and cancelled through the two others; the instance
 * running a task is SIGKILLed and the task fails — within the documented bound, never stuck
 * `working`; and another caller never reads, answers or cancels someone else's task, whichever
 * instance it asks.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRedisStateStore } from '@mcpkit/fleet';
import { TASK_RUNNER_BEAT_MS, TASK_RUNNER_TTL_MS } from '@mcpkit/node';
import { freePort, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropKeys, HAPROXY, ready, startBalancer } from './balancer.js';
import { type HttpApp, killAll, REPO, startHttpServer } from './helpers.js';

const EVERYTHING = join(REPO, 'packages', 'node', 'dist', 'fixtures', 'everything.js');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TASKS = 'io.modelcontextprotocol/tasks';
const TOKENS = {
  alice: `alice-${randomBytes(8).toString('hex')}`,
  bob: `bob-${randomBytes(8).toString('hex')}`,
};
type Who = keyof typeof TOKENS;

let instances: HttpApp[] = [];
let lb = '';
const undo: (() => unknown)[] = [];

afterAll(async () => {
  for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => undefined);
  killAll();
}, 30_000);

beforeAll(async () => {
  if (!existsSync(HAPROXY))
    throw new Error(`HAProxy not found at ${HAPROXY} (.ci/run installs it)`);
  await createRedisStateStore(REDIS_URL, { connectTimeoutMs: 3000 })
    .then((s) => s.close())
    .catch((err: Error) => {
      throw new Error(`Redis unreachable at ${REDIS_URL}: ${err.message}`);
    });
  const prefix = `mcpkit:e2e-tasks:${process.pid}:${randomBytes(4).toString('hex')}:`;
  undo.push(() => dropKeys(prefix, REDIS_URL));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    MCPKIT_FIXTURE_TOKENS: Object.entries(TOKENS)
      .map(([subject, token]) => `${subject}=${token}`)
      .join(','),
  };
  instances = await Promise.all(
    [1, 2, 3].map(() =>
      startHttpServer({
        label: 'fixture',
        command: process.execPath,
        args: [
          EVERYTHING,
          ...['--transport', 'http', '--host', '127.0.0.1', '--port', '0'],
          ...['--redis-url', REDIS_URL, '--redis-prefix', prefix, '--log-level', 'info'],
        ],
        env,
      }),
    ),
  );
  undo.push(() => Promise.all(instances.map((i) => i.stop())));
  await Promise.all(instances.map((i) => ready(i.url)));
  const balancer = await startBalancer(
    await freePort(),
    instances.map((i) => i.url),
  );
  lb = balancer.lb;
  undo.push(() => balancer.haproxy.kill('SIGKILL'));
}, 120_000);

interface Answer {
  status: number;
  servedBy: string | null;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** One 2026-07-28 request of `who` to `origin` (an instance, or the balancer). */
async function modern(
  origin: string,
  who: Who,
  method: string,
  params: Record<string, unknown>,
): Promise<Answer> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const res = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKENS[who]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'fleet-tasks', version: '1.0.0' },
        },
      },
    }),
  });
  const text = await res.text();
  // A JSON body, or an SSE stream whose last data line is the response.
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? (text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .pop() ?? '{}')
    : text;
  return { status: res.status, servedBy: res.headers.get('x-served-by'), body: JSON.parse(json) };
}

/** The instance HAProxy named (`app1` … `app3`, in the order they were given). */
const instanceOf = (servedBy: string | null): number => Number(servedBy?.replace('app', '')) - 1;

async function startTask(who: Who, seconds: number): Promise<{ taskId: string; runner: number }> {
  const created = await modern(lb, who, 'tools/call', {
    name: 'slow_compute',
    arguments: { seconds, label: 'fleet' },
  });
  expect(created.body.result?.resultType).toBe('task');
  return { taskId: created.body.result?.taskId as string, runner: instanceOf(created.servedBy) };
}

describe('tasks on three instances behind HAProxy and Redis', () => {
  it('reads, answers and cancels a task through the two instances that did not create it', async () => {
    const { taskId, runner } = await startTask('alice', 120);
    const others = [0, 1, 2].filter((n) => n !== runner).map((n) => instances[n] as HttpApp);
    const [b, c] = others as [HttpApp, HttpApp];
    const read = await modern(b.url, 'alice', 'tasks/get', { taskId });
    expect(read.body.result).toMatchObject({ taskId, status: 'working', resultType: 'complete' });
    const update = await modern(c.url, 'alice', 'tasks/update', { taskId, inputResponses: {} });
    expect(update.body.result?.resultType).toBe('complete');
    const cancel = await modern(c.url, 'alice', 'tasks/cancel', { taskId });
    expect(cancel.body.result?.resultType).toBe('complete');
    // Every instance — the one running it too — sees it cancelled.
    for (const instance of instances) {
      const after = await modern(instance.url, 'alice', 'tasks/get', { taskId });
      expect(after.body.result?.status).toBe('cancelled');
    }
    // The work stopped where it ran: its end does not overwrite the cancellation.
    const running = instances[runner] as HttpApp;
    expect(running.stderr()).not.toMatch(/task store write failed/);
  });

  it('never shows, answers or cancels a task to another caller, whichever instance is asked', async () => {
    const { taskId } = await startTask('alice', 120);
    let leaked = 0;
    for (let round = 0; round < 3; round++) {
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const answer = await modern(lb, 'bob', method, { taskId, inputResponses: {} });
        if (answer.body.result) leaked++;
        expect(answer.body.error).toMatchObject({
          code: -32602,
          message: `Unknown task: ${taskId}`,
        });
      }
    }
    expect(leaked).toBe(0);
    const own = await modern(lb, 'alice', 'tasks/get', { taskId });
    expect(own.body.result?.status).toBe('working');
    await modern(lb, 'alice', 'tasks/cancel', { taskId });
  });

  it('fails the task of an instance that is SIGKILLed, within the beat and the TTL', async () => {
    const { taskId, runner } = await startTask('alice', 300);
    const victim = instances[runner] as HttpApp;
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    const bound = TASK_RUNNER_TTL_MS + TASK_RUNNER_BEAT_MS;
    const failed = await waitFor(
      'the task of the killed instance to fail',
      async () => {
        const answer = await modern(lb, 'alice', 'tasks/get', { taskId }).catch(() => undefined);
        const task = answer?.body.result;
        return task?.status === 'working' || !task ? undefined : task;
      },
      // Generous over the bound (a loaded machine, HAProxy noticing the death): a task still
      // working then is stuck.
      bound * 4,
      250,
    );
    console.log(
      `task of the killed instance failed ${Date.now() - killedAt} ms after the SIGKILL (bound ${bound} ms)`,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('stopped') },
    });
    expect(failed).not.toHaveProperty('result');
  });
});
