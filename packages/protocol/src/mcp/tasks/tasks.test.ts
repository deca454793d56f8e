/**
 * The tasks extension end to end on one server (`io.modelcontextprotocol/tasks`, SEP-2663): who
 * gets a task and who an ordinary call, the task's life through tasks/get, tasks/update and
 * tasks/cancel, and that nobody but its creator ever sees it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { connectRaw, type RawPeer } from '../../testing/index.js';
import { META } from '../era.js';
import { McpServer, type McpServerOptions } from '../server.js';
import type { AuthInfo } from '../session.js';
import { defineTool, ToolError } from '../tool.js';
import { MemoryTaskStore } from './store.js';
import { TASKS_EXTENSION } from './wire.js';

/** `check` until it gives something (polls; gives up after 20 s, a hang and not a timing). */
async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  for (let i = 0; i < 4000; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never: ${what}`);
}

const EXT = { extensions: { [TASKS_EXTENSION]: {} } };

/** A modern request's params, declaring `capabilities` (the extension by default). */
const modern = (params: Record<string, unknown> = {}, capabilities: object = EXT) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: 'tasks-test', version: '0.1.0' },
  },
});

/** A gate a test opens: the tool waits on it. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

let signals: AbortSignal[] = [];
let release = gate();

function server(options: Partial<McpServerOptions> = {}): McpServer {
  return new McpServer({ name: 'tasks', version: '0.0.1', ...options }).addTool(
    defineTool({
      name: 'sync_only',
      description: 'Never a task',
      handler: () => 'at once',
    }),
    defineTool({
      name: 'build',
      description: 'Waits for the test, telling its progress',
      inputSchema: z.object({ target: z.string() }),
      taskSupport: 'optional',
      handler: async ({ target }, ctx) => {
        signals.push(ctx.signal);
        ctx.progress(1, 2, `building ${target}`);
        await release.opened;
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return { built: target, task: ctx.taskId ?? null };
      },
    }),
    defineTool({
      name: 'must_task',
      description: 'Only as a task',
      taskSupport: 'required',
      handler: () => 'done',
    }),
    defineTool({
      name: 'tool_error',
      description: 'Fails as a tool',
      taskSupport: 'optional',
      handler: async () => {
        throw new ToolError('no such target', { target: 'x' });
      },
    }),
    defineTool({
      name: 'protocol_error',
      description: 'Fails with a JSON-RPC error',
      taskSupport: 'optional',
      handler: async () => {
        throw new RpcError(ErrorCode.InternalError, 'crashed', { why: 'test' });
      },
    }),
    defineTool({
      name: 'two_questions',
      description: 'Asks twice at once',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        const ask = (message: string) =>
          ctx.elicit({ message, requestedSchema: { type: 'object', properties: {} } });
        const [a, b] = await Promise.all([ask('A?'), ask('B?')]);
        return `${a.action}/${b.action}`;
      },
    }),
    defineTool({
      name: 'gather_then_task',
      description: 'Asks in a round, then runs as a task',
      taskSupport: 'required',
      taskStart: 'handler',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit(
          { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
          { key: 'name' },
        );
        const becameTask = await ctx.runAsTask();
        return `hello ${String(answer.content?.name)} (task: ${becameTask}, ${ctx.taskId !== undefined})`;
      },
    }),
    defineTool({
      name: 'never_escalates',
      description: 'Says nothing of a task',
      taskSupport: 'required',
      taskStart: 'handler',
      handler: () => 'quick',
    }),
  );
}

const peers: RawPeer[] = [];
function peer(s: McpServer, auth?: AuthInfo): RawPeer {
  const p = connectRaw(s, auth ? { auth } : {});
  peers.push(p);
  return p;
}
afterEach(async () => {
  release.open();
  await Promise.all(peers.splice(0).map((p) => p.close()));
  signals = [];
  release = gate();
});

const alice: AuthInfo = { subject: 'alice', scopes: new Set() };
const bob: AuthInfo = { subject: 'bob', scopes: new Set() };

/** tasks/get until the task leaves `status`. */
async function until(p: RawPeer, taskId: string, done: (task: Record<string, unknown>) => boolean) {
  return waitFor('task status', async () => {
    const task = await p.result('tasks/get', modern({ taskId }));
    return done(task) ? task : undefined;
  });
}
const terminal = (t: Record<string, unknown>) =>
  ['completed', 'failed', 'cancelled'].includes(t.status as string);

describe('tasks: who gets one', () => {
  it('declares the extension, and gives a task to a client that declared it in the request', async () => {
    const p = peer(server());
    const discover = await p.result('server/discover', modern());
    expect((discover.capabilities as Record<string, unknown>).extensions).toEqual({
      [TASKS_EXTENSION]: {},
    });
    expect(discover.capabilities).not.toHaveProperty('tasks');
    const created = await p.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'app' } }),
    );
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const key of ['result', 'error', 'inputRequests', 'requestState', 'task', 'ttl']) {
      expect(created).not.toHaveProperty(key);
    }
    expect(Date.parse(created.createdAt as string)).not.toBeNaN();
    // Found at once (created durably before the answer), with the progress as its message.
    const working = await until(p, created.taskId as string, (t) => t.statusMessage !== undefined);
    expect(working).toMatchObject({
      resultType: 'complete',
      status: 'working',
      statusMessage: 'building app',
    });
    release.open();
    const done = await until(p, created.taskId as string, terminal);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({
      structuredContent: { built: 'app', task: created.taskId },
      isError: false,
    });
    expect(done.result).not.toHaveProperty('_meta');
  });

  it('runs a task-supporting tool as an ordinary call for a client without the extension', async () => {
    const p = peer(server());
    release.open();
    const plain = await p.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'x' } }, {}),
    );
    expect(plain).toMatchObject({
      resultType: 'complete',
      structuredContent: { built: 'x', task: null },
    });
    // A legacy `task` param asks nothing: a sync tool stays sync, with or without it.
    const sync = await p.result('tools/call', modern({ name: 'sync_only', task: { ttl: 1000 } }));
    expect(sync).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'at once' }],
    });
  });

  it('refuses a required task and every task method with -32021 without the extension', async () => {
    const p = peer(server());
    const required = { extensions: { [TASKS_EXTENSION]: {} } };
    expect(await p.error('tools/call', modern({ name: 'must_task' }, {}))).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: required },
    });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      expect(await p.error(method, modern({ taskId: 'whatever' }, {}))).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: required },
      });
    }
    // The 2025 experimental methods are gone from the extension.
    for (const method of ['tasks/result', 'tasks/list']) {
      expect((await p.error(method, modern({ taskId: 'x' }))).code).toBe(-32601);
    }
  });

  it('gives a 2025-era session an ordinary call, even of a required task, and no task methods', async () => {
    const p = peer(server());
    await p.initialize({ capabilities: EXT });
    expect((await p.callTool('must_task')).result).toMatchObject({
      content: [{ type: 'text', text: 'done' }],
    });
    expect((await p.error('tasks/get', { taskId: 'x' })).code).toBe(-32601);
  });

  it('serves no task methods and declares no extension on a server without task tools', async () => {
    const s = new McpServer({ name: 'plain', version: '1' });
    const p = peer(s);
    const discover = await p.result('server/discover', modern());
    expect(discover.capabilities).not.toHaveProperty('extensions');
    expect((await p.error('tasks/get', modern({ taskId: 'x' }))).code).toBe(-32601);
  });
});

describe('tasks: their life', () => {
  it('ends a tool error as completed with isError, a protocol error as failed without a result', async () => {
    const p = peer(server());
    const toolError = await p.result('tools/call', modern({ name: 'tool_error' }));
    expect(await until(p, toolError.taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ type: 'text', text: 'no such target' }] },
    });
    const crash = await p.result('tools/call', modern({ name: 'protocol_error' }));
    const failed = await until(p, crash.taskId as string, terminal);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'crashed', data: { why: 'test' } },
    });
    expect(failed).not.toHaveProperty('result');
  });

  it('cancels: the work hears it, the status stays cancelled, a second cancel is acknowledged', async () => {
    const p = peer(server());
    const { taskId } = await p.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'c' } }),
    );
    await waitFor('running', () => signals.length === 1 || undefined);
    expect(await p.result('tasks/cancel', modern({ taskId }))).toEqual({
      resultType: 'complete',
      _meta: expect.any(Object),
    });
    expect(signals[0]?.aborted).toBe(true);
    release.open();
    const task = await p.result('tasks/get', modern({ taskId }));
    expect(task.status).toBe('cancelled');
    expect(task).not.toHaveProperty('result');
    expect((await p.result('tasks/cancel', modern({ taskId }))).resultType).toBe('complete');
  });

  it('waits for input: every open ask listed, answered in parts through tasks/update', async () => {
    const p = peer(server());
    const caps = { ...EXT, elicitation: {} };
    const { taskId } = await p.result('tools/call', modern({ name: 'two_questions' }, caps));
    const asking = await until(
      p,
      taskId as string,
      (t) => Object.keys((t.inputRequests as object) ?? {}).length === 2,
    );
    expect(asking.status).toBe('input_required');
    expect(asking.inputRequests).toEqual({
      'elicitation-1': {
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'A?' }),
      },
      'elicitation-2': {
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'B?' }),
      },
    });
    const ack = await p.result(
      'tasks/update',
      modern(
        {
          taskId,
          inputResponses: { 'elicitation-1': { action: 'accept', content: {} }, other: {} },
        },
        caps,
      ),
    );
    expect(ack.resultType).toBe('complete');
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    // Recorded before the acknowledgment: only the other ask is open.
    const partial = await p.result('tasks/get', modern({ taskId }, caps));
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests as object)).toEqual(['elicitation-2']);
    await p.result(
      'tasks/update',
      modern({ taskId, inputResponses: { 'elicitation-2': { action: 'decline' } } }, caps),
    );
    expect(await until(p, taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'accept/decline' }] },
    });
  });

  it('fails an ask the client cannot answer (no elicitation capability) as a task error', async () => {
    const p = peer(server());
    const { taskId } = await p.result('tools/call', modern({ name: 'two_questions' }));
    expect(await until(p, taskId as string, terminal)).toMatchObject({
      status: 'failed',
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
  });

  it('gathers input in multi round-trip rounds first when the handler starts the task', async () => {
    const p = peer(server());
    const caps = { ...EXT, elicitation: {} };
    const round = await p.result('tools/call', modern({ name: 'gather_then_task' }, caps));
    expect(round.resultType).toBe('input_required');
    expect(round).not.toHaveProperty('taskId');
    const created = await p.result(
      'tools/call',
      modern(
        {
          name: 'gather_then_task',
          inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
          requestState: round.requestState,
        },
        caps,
      ),
    );
    expect(created.resultType).toBe('task');
    expect(created).not.toHaveProperty('requestState');
    expect(await until(p, created.taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'hello Alice (task: true, true)' }] },
    });
    // A required task whose handler never asked for one is a task all the same.
    const quick = await p.result('tools/call', modern({ name: 'never_escalates' }));
    expect(quick.resultType).toBe('task');
    expect(await until(p, quick.taskId as string, terminal)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'quick' }] },
    });
  });
});

describe('tasks: whose', () => {
  it('never shows, changes or cancels a task to anyone but its creator', async () => {
    const s = server();
    const a = peer(s, alice);
    const b = peer(s, bob);
    const { taskId } = await a.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'secret' } }),
    );
    await waitFor('running', () => signals.length === 1 || undefined);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      expect(await b.error(method, modern({ taskId, inputResponses: {} }))).toMatchObject({
        code: -32602,
        message: `Unknown task: ${taskId}`,
      });
    }
    expect(signals[0]?.aborted).toBe(false);
    expect((await a.result('tasks/get', modern({ taskId }))).status).toBe('working');
  });

  it('answers -32602 for an unknown id, and for an id no server would make', async () => {
    const p = peer(server());
    expect((await p.error('tasks/get', modern({ taskId: 'nope' }))).code).toBe(-32602);
    expect((await p.error('tasks/get', modern({ taskId: 'x'.repeat(300) }))).code).toBe(-32602);
    expect((await p.error('tasks/get', modern({}))).code).toBe(-32602);
    expect(
      (await p.error('tasks/update', modern({ taskId: 'nope', inputResponses: [] }))).code,
    ).toBe(-32602);
  });

  it('bounds the unfinished tasks of one caller, not of the others', async () => {
    const s = server({ tasks: { store: new MemoryTaskStore({ maxActivePerOwner: 2 }) } });
    const a = peer(s, alice);
    const b = peer(s, bob);
    const build = (p: RawPeer) =>
      p.request('tools/call', modern({ name: 'build', arguments: { target: 't' } }));
    expect((await build(a)).result?.resultType).toBe('task');
    expect((await build(a)).result?.resultType).toBe('task');
    expect((await build(a)).error).toMatchObject({
      code: -32603,
      message: 'Task limit reached',
      data: { limit: 2, scope: 'caller' },
    });
    expect((await build(b)).result?.resultType).toBe('task');
  });

  it('forgets a task once its ttlMs is over, and stops its work', async () => {
    const s = server({ tasks: { ttlMs: 50 } });
    const p = peer(s);
    const { taskId, ttlMs } = await p.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'e' } }),
    );
    expect(ttlMs).toBe(50);
    await waitFor('expired', () => signals[0]?.aborted || undefined);
    expect((await p.error('tasks/get', modern({ taskId }))).code).toBe(-32602);
  });
});

describe('tasks: notifications/tasks on subscriptions/listen', () => {
  it("tells a listen every change of the caller's own tasks it named, as tasks/get would", async () => {
    const s = server();
    const a = peer(s, alice);
    const b = peer(s, bob);
    const { taskId } = await a.result(
      'tools/call',
      modern({ name: 'build', arguments: { target: 'n' } }),
    );
    const listen = (p: RawPeer, id: string, capabilities: object = EXT) =>
      p.send({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: modern({ notifications: { taskIds: [taskId, 'not-a-task'] } }, capabilities),
      });
    void listen(a, 'mine');
    void listen(b, 'theirs');
    await waitFor('both acknowledged', () =>
      a.notifications.length > 0 && b.notifications.length > 0 ? true : undefined,
    );
    // Only the caller's own, existing tasks are agreed to.
    expect(a.notifications[0]?.params?.notifications).toEqual({ taskIds: [taskId] });
    expect(b.notifications[0]?.params?.notifications).toEqual({ taskIds: [] });
    release.open();
    const told = await waitFor('completed told', () =>
      a.notifications.find(
        (n) => n.method === 'notifications/tasks' && n.params?.status === 'completed',
      ),
    );
    expect(told.params).toMatchObject({
      taskId,
      status: 'completed',
      result: { structuredContent: { built: 'n' } },
      _meta: { [META.subscriptionId]: 'mine' },
    });
    expect(told.params).not.toHaveProperty('resultType');
    await b.settle();
    expect(b.notifications.filter((n) => n.method === 'notifications/tasks')).toEqual([]);
    // Asking for tasks without the extension: -32021.
    const refused = await listen(b, 'no-ext', {});
    expect(JSON.parse(refused ?? '{}').error).toMatchObject({ code: -32021 });
  });
});
