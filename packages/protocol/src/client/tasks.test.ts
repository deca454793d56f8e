/**
 * McpClient and the tasks extension: with `tasks: true` a long tool's call comes back as a task,
 * which `callTool` waits out as if it were the call (status changes as events, input asks answered
 * by the same handlers, the task cancelled with the call's signal); `startToolCall` hands the
 * task over instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { McpServer } from '../mcp/server.js';
import { defineTool, ToolError } from '../mcp/tool.js';
import { connectClient } from '../testing/client.js';
import type { McpClient } from './client.js';
import { InputRequiredError, TaskCancelledError } from './errors.js';
import type { TaskInfo } from './types.js';

let stopped: AbortSignal[] = [];

function server(): McpServer {
  return new McpServer({
    name: 'client-tasks',
    version: '1.0.0',
    tasks: { pollIntervalMs: 10 },
  }).addTool(
    defineTool({
      name: 'steps',
      description: 'Three steps, each told',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 3; i++) {
          ctx.progress(i, 3, `step ${i}`);
          await sleep(30, undefined, { signal: ctx.signal });
        }
        return { steps: 3, task: ctx.taskId !== undefined };
      },
    }),
    defineTool({
      name: 'confirm',
      description: 'Asks first',
      taskSupport: 'required',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Sure?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        });
        return `answer: ${answer.action} ${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'forever',
      description: 'Runs until cancelled',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        stopped.push(ctx.signal);
        await sleep(600_000, undefined, { signal: ctx.signal });
        return 'never';
      },
    }),
    defineTool({
      name: 'breaks',
      description: 'A protocol error',
      taskSupport: 'optional',
      handler: async () => {
        throw new RpcError(ErrorCode.InvalidParams, 'bad input', { field: 'x' });
      },
    }),
    defineTool({
      name: 'tool_fails',
      description: 'A tool error',
      taskSupport: 'optional',
      handler: async () => {
        throw new ToolError('nope');
      },
    }),
  );
}

let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  stopped = [];
});

const modern = { protocol: '2026-07-28' as const, tasks: true };

describe('McpClient with tasks', () => {
  it('waits a task out in callTool, telling each status change', async () => {
    client = await connectClient(server(), modern);
    const seen: string[] = [];
    const result = await client.callTool(
      'steps',
      {},
      {
        onTaskStatus: (task) => seen.push(`${task.status}:${task.statusMessage ?? ''}`),
      },
    );
    expect(result).toMatchObject({ structuredContent: { steps: 3, task: true }, isError: false });
    expect(seen.at(-1)).toBe('completed:step 3');
    expect(seen.some((s) => s.startsWith('working:step'))).toBe(true);
  });

  it('declares nothing without the option: the same tool answers at once', async () => {
    client = await connectClient(server(), { protocol: '2026-07-28' });
    expect(await client.callTool('steps')).toMatchObject({ structuredContent: { task: false } });
    // A required one is refused, naming the extension.
    const refused = await client.callTool('confirm').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32021 });
  });

  it("answers a task's input requests with the client's handlers", async () => {
    client = await connectClient(server(), {
      ...modern,
      handlers: { elicitation: () => ({ action: 'accept', content: { ok: true } }) },
    });
    expect(await client.callTool('confirm')).toMatchObject({
      content: [{ type: 'text', text: 'answer: accept {"ok":true}' }],
    });
  });

  it('fails or cancels the task when the client cannot answer it, and says why', async () => {
    // No elicitation declared: the server cannot ask, the task fails with -32021.
    client = await connectClient(server(), modern);
    expect(await client.callTool('confirm').catch((e: unknown) => e)).toMatchObject({
      code: -32021,
    });
    await client.close();
    // Declared but no handler: the client gives up and cancels the task.
    client = await connectClient(server(), {
      ...modern,
      capabilities: { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
    const started = (await client.startToolCall('confirm')) as TaskInfo;
    const refused = await client.awaitTask(started.taskId).catch((e: unknown) => e);
    expect(InputRequiredError.is(refused)).toBe(true);
    expect((await client.getTask(started.taskId)).status).toBe('cancelled');
  });

  it("rejects with the task's error, and resolves a tool error as the result it is", async () => {
    client = await connectClient(server(), modern);
    const error = await client.callTool('breaks').catch((e: unknown) => e);
    expect(RpcError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: -32602, message: 'bad input', data: { field: 'x' } });
    expect(await client.callTool('tool_fails')).toMatchObject({ isError: true });
  });

  it("cancels the task with the call's signal", async () => {
    client = await connectClient(server(), modern);
    const abort = new AbortController();
    const call = client.callTool('forever', {}, { signal: abort.signal });
    for (let i = 0; i < 400 && stopped.length === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    abort.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow('user gave up');
    for (let i = 0; i < 400 && !stopped[0]?.aborted; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(stopped[0]?.aborted).toBe(true);
  });

  it('hands the task over with startToolCall; awaitTask ends in TaskCancelledError once cancelled', async () => {
    client = await connectClient(server(), modern);
    const started = await client.startToolCall('forever');
    expect(started.resultType).toBe('task');
    const { taskId } = started as TaskInfo;
    expect((await client.getTask(taskId)).status).toBe('working');
    const waiting = client.awaitTask(taskId).catch((e: unknown) => e);
    await client.cancelTask(taskId);
    const ended = await waiting;
    expect(TaskCancelledError.is(ended)).toBe(true);
    expect((ended as TaskCancelledError).taskId).toBe(taskId);
    // Cancelling again is acknowledged; an unknown task is not.
    await client.cancelTask(taskId);
    await expect(client.getTask('nope')).rejects.toMatchObject({ code: -32602 });
  });
});
