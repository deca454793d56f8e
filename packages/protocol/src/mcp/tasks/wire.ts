/**
 * A task on the wire (SEP-2663, `io.modelcontextprotocol/tasks`): flat, never wrapped in a `task`
 * key; times as ISO 8601; durations in integer milliseconds under `…Ms` names (the 2025
 * experimental tasks' `ttl` and `pollInterval` are gone); no `requestState` — that is the
 * multi-round-trip surface's, not the task's.
 */
import type { TaskRecord } from './store.js';

/** The extension's id: in `capabilities.extensions` and a request's client capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The members every task answer carries. */
function base(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs === null ? null : Math.round(task.ttlMs),
    ...(task.pollIntervalMs !== undefined
      ? { pollIntervalMs: Math.round(task.pollIntervalMs) }
      : {}),
  };
}

/**
 * The answer to a `tools/call` that became a task (`resultType: "task"`): the task as it is,
 * without its outcome or what it waits for — those are `tasks/get`'s.
 */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...base(task) };
}

/**
 * `tasks/get`'s answer: the task, with the tool's result inlined once `completed` (a tool error
 * too: `isError`), the error once `failed`, and the outstanding input requests while
 * `input_required`.
 */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  return {
    resultType: 'complete',
    ...base(task),
    ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
    ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
    ...(task.status === 'input_required' && task.inputRequests
      ? { inputRequests: task.inputRequests }
      : {}),
  };
}
