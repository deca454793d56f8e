/**
 * tasks (issue #31): creating a task and reading it back, in process through the whole server
 * path (a 2026-07-28 `tools/call` of a task tool answered with the task, then `tasks/get`), with
 * the tasks in memory and in Redis (127.0.0.1:6379, as a fleet keeps them). Prints p50 and p99 of
 * the pair; no target of its own (a task is made once per long call), errors fail it.
 */
import { randomUUID } from 'node:crypto';
import { clearRedisPrefix, createRedisStateStore, createRedisTaskStore } from '@mcpkit/fleet';
import {
  defineTool,
  McpServer,
  META,
  MemoryTaskStore,
  TASKS_EXTENSION,
  type TaskRunnerOptions,
} from '@mcpkit/protocol';
import { connectRaw } from '@mcpkit/protocol/testing';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WARMUP = 200;
const PAIRS = 2000;

const meta = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } },
  [META.clientInfo]: { name: 'tasks-bench', version: '1' },
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/** Microseconds per create-and-read pair, sorted; throws on any error answer. */
async function pairs(tasks: TaskRunnerOptions): Promise<number[]> {
  const server = new McpServer({ name: 'bench', version: '1', tasks }).addTool(
    defineTool({
      name: 'job',
      description: 'A task that is done at once',
      taskSupport: 'optional',
      handler: () => 'done',
    }),
  );
  const peer = connectRaw(server);
  const times: number[] = [];
  try {
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      const start = process.hrtime.bigint();
      const created = await peer.result<{ taskId: string }>('tools/call', {
        name: 'job',
        _meta: meta,
      });
      const read = await peer.result<{ status: string }>('tasks/get', {
        taskId: created.taskId,
        _meta: meta,
      });
      const micros = Number(process.hrtime.bigint() - start) / 1000;
      if (!read.status) throw new Error('tasks/get answered without a status');
      if (i >= WARMUP) times.push(micros);
    }
  } finally {
    await peer.close();
    server.closeTasks();
  }
  return times.sort((a, b) => a - b);
}

export async function tasksBench(): Promise<boolean> {
  console.log(`\ntasks: create a task (tools/call) and read it back (tasks/get), ${PAIRS} pairs`);
  const rows: [string, number[]][] = [];
  rows.push([
    'memory',
    await pairs({
      store: new MemoryTaskStore({
        maxActivePerOwner: PAIRS + WARMUP,
        maxStoredPerOwner: PAIRS + WARMUP,
      }),
    }),
  ]);
  const prefix = `bench:tasks:${randomUUID()}:`;
  const state = await createRedisStateStore(REDIS_URL, { prefix });
  try {
    const store = await createRedisTaskStore(state, {
      maxActivePerOwner: PAIRS + WARMUP,
      maxStoredPerOwner: PAIRS + WARMUP,
    });
    rows.push(['redis', await pairs({ store })]);
    await store.close();
  } finally {
    await state.close();
    await clearRedisPrefix(REDIS_URL, prefix);
  }
  for (const [name, times] of rows) {
    console.log(
      `  ${name.padEnd(8)} p50 ${percentile(times, 0.5).toFixed(0).padStart(6)} µs   p99 ${percentile(times, 0.99).toFixed(0).padStart(6)} µs`,
    );
  }
  return true;
}
