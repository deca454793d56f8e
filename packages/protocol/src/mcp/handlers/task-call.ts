/**
 * A `tools/call` that runs as a task (MCP tasks extension, `io.modelcontextprotocol/tasks`): the
 * request is answered with the task (`CreateTaskResult`, once `tasks/get` finds it) and the tool
 * goes on in it; its result, or its error, becomes the task's outcome.
 */
import { ENTER_TASK, ESCALATION, type McpContext } from '../context.js';
import type { ServerInternals } from '../internals.js';
import { INPUT } from '../session.js';
import { createTaskResult, TASKS_EXTENSION } from '../tasks/wire.js';
import type { Tool } from '../tool.js';
import type { CallToolResult } from '../types.js';
import { storeFailure, tasksRequired } from './tasks.js';

/** Runs a tool call to its result, the way an ordinary call does (handlers/tools.ts). */
export type RunCall = () => PromiseLike<CallToolResult> | CallToolResult;

/**
 * The answer of a modern call of a task-supporting tool: a task for a client that declared the
 * extension in this request; -32021 for one that did not, when the tool requires it; undefined
 * (an ordinary call) otherwise.
 */
export function taskCall(
  server: ServerInternals,
  tool: Tool,
  mcp: McpContext,
  run: RunCall,
): Promise<Record<string, unknown>> | undefined {
  if (!mcp.declaresExtension(TASKS_EXTENSION)) {
    if (tool.taskSupport === 'required') throw tasksRequired();
    return undefined;
  }
  const runner = server.tasks();
  if (tool.taskStart !== 'handler') {
    return runner
      .start(mcp.caller, (task) => {
        mcp[ENTER_TASK](task);
        return Promise.resolve(run());
      })
      .then(createTaskResult, (err: unknown) => {
        throw storeFailure(err);
      });
  }
  return escalating(server, tool, mcp, run);
}

/**
 * A call that becomes a task when its handler says so (`ctx.runAsTask()`): until then it is an
 * ordinary request — its asks are multi round-trip rounds, answered by retries of the request.
 */
function escalating(
  server: ServerInternals,
  tool: Tool,
  mcp: McpContext,
  run: RunCall,
): Promise<Record<string, unknown>> {
  const runner = server.tasks();
  return new Promise((resolve, reject) => {
    let escalated = false;
    // The handler's outcome, for the task once there is one.
    let settle: { resolve(value: CallToolResult): void; reject(reason: unknown): void } = {
      resolve: () => {},
      reject: () => {},
    };
    const outcome = new Promise<CallToolResult>((res, rej) => {
      settle = { resolve: res, reject: rej };
    });
    const start = (work: () => PromiseLike<CallToolResult>) =>
      runner.start(mcp.caller, (task) => {
        mcp[ENTER_TASK](task);
        return work();
      });
    mcp[ESCALATION] = () => {
      escalated = true;
      return start(() => outcome).then(
        (record) => resolve(createTaskResult(record)),
        (err: unknown) => {
          const refusal = storeFailure(err);
          reject(refusal);
          throw refusal;
        },
      );
    };
    Promise.resolve()
      .then(run)
      .then(
        (result) => {
          if (escalated) return settle.resolve(result);
          mcp[ESCALATION] = undefined;
          // Asks still open: the request answers input_required (the era router), no task yet.
          const asking = mcp.session[INPUT]?.hasPending === true;
          if (tool.taskSupport !== 'required' || asking) return resolve(result as never);
          // A required task that finished on the request: a task all the same, completed.
          start(() => Promise.resolve(result)).then(
            (record) => resolve(createTaskResult(record)),
            (err: unknown) => reject(storeFailure(err)),
          );
        },
        (err: unknown) => (escalated ? settle.reject(err) : reject(err)),
      );
  });
}
