/**
 * Tasks through the gateway (`io.modelcontextprotocol/tasks`): a slow call of a 2025 backend —
 * which knows nothing of tasks — becomes a task for a client that declared the extension, while a
 * client without it waits for the same call's result; a 2026-07-28 backend's own task is the
 * gateway's task at once; cancelling the gateway's task stops the backend call; and a backend tool
 * that requires tasks is refused (-32021) to a client that cannot have one, as the backend says.
 */
import { META } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { everythingBackend } from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const modern = (
  params: Record<string, unknown>,
  capabilities: object = { extensions: { [TASKS]: {} } },
) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'tasks-client', version: '1' },
  },
});

type Task = {
  resultType: string;
  taskId: string;
  status: string;
  statusMessage?: string;
  result?: { content: { text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
};

let gateway: Gateway;
let peer: RawPeer;

beforeAll(async () => {
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        old: everythingBackend('legacy'),
        new: everythingBackend('2026-07-28'),
      },
    }),
    { events: EventLog.open(':memory:'), taskAfterMs: 1000 },
  );
  await gateway.start();
  peer = connectRaw(gateway.server);
});

afterAll(async () => {
  await peer?.close();
  await gateway?.stop();
});

const get = (taskId: string) => peer.result<Task>('tasks/get', modern({ taskId }));
const until = (taskId: string, done: (t: Task) => boolean) =>
  waitFor(
    `task ${taskId}`,
    async () => {
      const task = await get(taskId);
      return done(task) ? task : undefined;
    },
    60_000,
    50,
  );
const ended = (t: Task) => ['completed', 'failed', 'cancelled'].includes(t.status);

describe('tasks through the gateway', () => {
  it('turns a 10 s call of a 2025 backend into a task, and gives a client without tasks the result', async () => {
    const call = { name: 'old__slow_compute', arguments: { seconds: 10, label: 'report' } };
    const [created, plain] = await Promise.all([
      peer.result<Task>('tools/call', modern(call)),
      peer.result<Task>('tools/call', modern(call, {})),
    ]);
    expect(created.resultType).toBe('task');
    expect(created.status).toBe('working');
    // The client without the extension waited for the whole call.
    expect(plain.resultType).toBe('complete');
    expect(plain.result ?? plain).toMatchObject({
      content: [{ text: 'report: computed in 10 s' }],
    });
    const done = await until(created.taskId, ended);
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'report: computed in 10 s' }] },
    });
    // The backend's progress was the task's news while it ran.
    expect(done.statusMessage).toMatch(/^report: \d of 10 s$/);
  }, 60_000);

  it("answers a quick call as it is, and makes a 2026-07-28 backend's task the gateway's at once", async () => {
    const quick = await peer.result<Task>(
      'tools/call',
      modern({ name: 'old__slow_compute', arguments: { seconds: 0 } }),
    );
    expect(quick.resultType).toBe('complete');
    const relayed = await peer.result<Task>(
      'tools/call',
      modern({ name: 'new__slow_compute', arguments: { seconds: 1, label: 'backend-task' } }),
    );
    expect(relayed.resultType).toBe('task');
    expect(await until(relayed.taskId, ended)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'backend-task: computed in 1 s' }] },
    });
  }, 30_000);

  it("stops the backend call when the task is cancelled (the backend's task cancelled in turn)", async () => {
    const count = async () =>
      Number(
        (
          await peer.result<{ content: { text: string }[] }>(
            'tools/call',
            modern({ name: 'new__cancelled_calls' }, {}),
          )
        ).content[0]?.text,
      );
    const before = await count();
    const created = await peer.result<Task>('tools/call', modern({ name: 'new__wait_for_cancel' }));
    expect(created.resultType).toBe('task');
    // The status page and gateway_status count it while it runs here.
    expect(gateway.runningTasks).toBe(1);
    await peer.result('tasks/cancel', modern({ taskId: created.taskId }));
    expect((await get(created.taskId)).status).toBe('cancelled');
    // The link cancelled the backend's task: its handler heard it (the fixture counts).
    await waitFor('the backend task cancelled', async () =>
      (await count()) > before ? true : undefined,
    );
  }, 30_000);

  it('relays -32021 of a backend tool that requires tasks to a client that cannot have one', async () => {
    const refused = await peer.error('tools/call', modern({ name: 'new__failing_job' }, {}));
    expect(refused).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    // With the extension it is a task, whose tool error is a completed result.
    const created = await peer.result<Task>('tools/call', modern({ name: 'new__failing_job' }));
    expect(await until(created.taskId, ended)).toMatchObject({
      status: 'completed',
      result: { isError: true },
    });
  }, 30_000);

  it('declares the extension in server/discover, and refuses task methods without it', async () => {
    const discover = await peer.result<{ capabilities: { extensions?: object } }>(
      'server/discover',
      modern({}),
    );
    expect(discover.capabilities.extensions).toHaveProperty([TASKS]);
    expect((await peer.error('tasks/get', modern({ taskId: 'x' }, {}))).code).toBe(-32021);
    expect((await peer.error('tasks/get', modern({ taskId: 'x' }))).code).toBe(-32602);
  });
});
