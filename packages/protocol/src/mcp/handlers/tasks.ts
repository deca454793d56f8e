/**
 * The task methods of the MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), modern
 * era only: `tasks/get` (the task, with its result, error or input requests inlined),
 * `tasks/update` (answers to its input requests) and `tasks/cancel`. The 2025-11-25 experimental
 * tasks' `tasks/result` and `tasks/list` are gone from the extension and stay unknown methods.
 */
import { z } from 'zod';
import { ErrorCode, McpErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { method, type RequestContext } from '../../jsonrpc/method.js';
import { type McpCallExtra, McpContext } from '../context.js';
import type { TaskRunner } from '../tasks/runner.js';
import { TaskLimitError } from '../tasks/store.js';
import { detailedTask, TASKS_EXTENSION } from '../tasks/wire.js';

/** A task id as this server makes them is 22 characters; anything far longer is not one. */
const MAX_TASK_ID = 256;
const meta = z.looseObject({}).optional();
const TaskParams = z.looseObject({ taskId: z.string().min(1).max(MAX_TASK_ID), _meta: meta });
const UpdateParams = z.looseObject({
  taskId: z.string().min(1).max(MAX_TASK_ID),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
  _meta: meta,
});

/** The acknowledgment of `tasks/update` and `tasks/cancel`: nothing but `resultType`. */
const ACK: Readonly<Record<string, never>> = Object.freeze({});

/** -32021 naming the extension (spec: `requiredCapabilities` shaped like the capabilities). */
export function tasksRequired(): RpcError {
  return new RpcError(
    McpErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extensions.${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** -32602 for a task that does not exist for this caller (unknown, expired, someone else's). */
function unknownTask(taskId: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Unknown task: ${taskId}`, { taskId });
}

/** The store could not answer: the caller may retry. */
export function storeFailure(err: unknown): RpcError {
  if (TaskLimitError.is(err)) {
    return new RpcError(ErrorCode.InternalError, 'Task limit reached', {
      limit: err.limit,
      scope: 'caller',
    });
  }
  if (RpcError.is(err)) return err;
  return new RpcError(ErrorCode.InternalError, 'The task store is unavailable; retry');
}

/**
 * The caller of a task request, once it declared the extension in the request's own client
 * capabilities (spec: without it, every task method is refused with -32021, before any lookup).
 */
function owner(
  params: { _meta?: Record<string, unknown> | undefined },
  ctx: RequestContext<McpCallExtra>,
) {
  const mcp = new McpContext(ctx, params._meta);
  if (!mcp.declaresExtension(TASKS_EXTENSION)) throw tasksRequired();
  return mcp.caller;
}

/** The task methods, over the server's tasks (made on first use). */
export function taskMethods(tasks: () => TaskRunner) {
  return [
    method('tasks/get', TaskParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      const caller = owner(params, ctx);
      const task = await tasks()
        .store.get(params.taskId, caller)
        .catch((err: unknown) => {
          throw storeFailure(err);
        });
      if (!task) throw unknownTask(params.taskId);
      const { resultType: _, ...detailed } = detailedTask(task);
      return detailed;
    }),
    method('tasks/update', UpdateParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      const caller = owner(params, ctx);
      // Recorded before the acknowledgment: a tasks/get after it sees what was answered.
      const task = await tasks()
        .store.answer(params.taskId, caller, params.inputResponses ?? {})
        .catch((err: unknown) => {
          throw storeFailure(err);
        });
      if (!task) throw unknownTask(params.taskId);
      return ACK;
    }),
    method('tasks/cancel', TaskParams, async (params, ctx: RequestContext<McpCallExtra>) => {
      const caller = owner(params, ctx);
      const store = tasks().store;
      try {
        const task = await store.get(params.taskId, caller);
        if (!task) throw unknownTask(params.taskId);
        // Cancelling a finished task changes nothing and is acknowledged all the same
        // (idempotent: -32602 is for unknown tasks only). The work running it, here or on
        // another instance, hears of it through the store and stops.
        await store.update(params.taskId, {
          status: 'cancelled',
          statusMessage: 'Cancelled by the client',
        });
      } catch (err) {
        throw storeFailure(err);
      }
      return ACK;
    }),
  ];
}
