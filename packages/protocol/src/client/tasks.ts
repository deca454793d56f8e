/**
 * Waiting for a task of the MCP tasks extension (`io.modelcontextprotocol/tasks`) the way a
 * caller waits for a tool's result: `tasks/get` at the server's poll interval, every input request
 * answered by the client's handlers through `tasks/update`, the result returned once `completed`,
 * the error thrown once `failed`, and a `tasks/cancel` when the caller gives up.
 */
import { RpcError } from '../jsonrpc/errors.js';
import { TaskCancelledError } from './errors.js';
import type { TaskInfo } from './types.js';

/** What waiting needs of the client. */
export interface TaskOps {
  get(taskId: string): Promise<TaskInfo>;
  update(taskId: string, inputResponses: Record<string, unknown>): Promise<unknown>;
  cancel(taskId: string): Promise<unknown>;
  /** The answers to a task's input requests, by key (the client's handlers). */
  answer(task: TaskInfo, signal: AbortSignal | undefined): Promise<Record<string, unknown>>;
}

/** Options of {@link McpClient.awaitTask}. */
export interface AwaitTaskOptions {
  /** Stop waiting: the task is cancelled (`tasks/cancel`) and the wait rejects with the reason. */
  signal?: AbortSignal;
  /** Every change of the task seen while waiting (its status, its status message). */
  onTaskStatus?: (task: TaskInfo) => void;
}

/** The server's poll interval, within sane bounds (a server asking 0 ms is not obeyed). */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
const DEFAULT_POLL_MS = 1000;

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wait for `taskId` to end; resolves with its result, rejects with its error. */
export async function awaitTask(
  ops: TaskOps,
  taskId: string,
  options: AwaitTaskOptions = {},
): Promise<Record<string, unknown>> {
  const { signal, onTaskStatus } = options;
  let seen = '';
  try {
    for (;;) {
      signal?.throwIfAborted();
      const task = await ops.get(taskId);
      const now = `${task.status}\u0000${task.statusMessage ?? ''}`;
      if (now !== seen) {
        seen = now;
        try {
          onTaskStatus?.(task);
        } catch {
          // The listener's failure is its own: the wait goes on.
        }
      }
      switch (task.status) {
        case 'completed':
          return task.result ?? { content: [] };
        case 'failed': {
          const error = task.error ?? { code: -32603, message: 'task failed' };
          throw new RpcError(error.code, error.message, error.data);
        }
        case 'cancelled':
          throw new TaskCancelledError(taskId, task.statusMessage);
        case 'input_required': {
          const answers = await ops.answer(task, signal);
          if (Object.keys(answers).length > 0) {
            await ops.update(taskId, answers);
            continue;
          }
          break;
        }
      }
      const interval = task.pollIntervalMs ?? DEFAULT_POLL_MS;
      await pause(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval)), signal);
    }
  } catch (err) {
    // Given up (aborted, no handler for an ask): the task is not left running for nobody.
    if (signal?.aborted || !(RpcError.is(err) || TaskCancelledError.is(err))) {
      await ops.cancel(taskId).catch(() => undefined);
    }
    throw err;
  }
}
