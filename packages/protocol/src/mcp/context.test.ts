import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { RequestOptions } from '../jsonrpc/client.js';
import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import { RpcError } from '../jsonrpc/errors.js';
import type { RequestContext } from '../jsonrpc/method.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import { connectRaw } from '../testing/raw.js';
import { type McpCallExtra, McpContext } from './context.js';
import { META } from './era.js';
import { definePrompt } from './prompt.js';
import { defineResource } from './resource.js';
import { McpServer } from './server.js';
import { McpSession, type OutboundChannel } from './session.js';
import { defineTool } from './tool.js';
import type { CallToolResult, LoggingLevel } from './types.js';

class FakeChannel implements OutboundChannel {
  readonly notifications: { method: string; params?: JsonRpcParams | undefined }[] = [];
  readonly requests: {
    method: string;
    params?: JsonRpcParams | undefined;
    options?: RequestOptions | undefined;
  }[] = [];
  answer: unknown = {};

  notify(method: string, params?: JsonRpcParams): void {
    this.notifications.push({ method, params });
  }

  request<R = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<R> {
    this.requests.push({ method, params, options });
    return Promise.resolve(this.answer as R);
  }
}

/** An McpContext over a fresh session, built directly (no dispatcher). */
function makeContext(
  options: {
    meta?: Record<string, unknown>;
    logLevel?: LoggingLevel;
    capabilities?: Record<string, unknown>;
    extra?: Partial<McpCallExtra>;
    signal?: AbortSignal;
    channel?: FakeChannel | null;
  } = {},
) {
  const channel = options.channel === null ? undefined : (options.channel ?? new FakeChannel());
  const session = new McpSession(channel);
  if (options.logLevel) session.logLevel = options.logLevel;
  if (options.capabilities) session.clientCapabilities = options.capabilities;
  const signal = options.signal ?? new AbortController().signal;
  const request: RequestContext<McpCallExtra> = {
    id: 7,
    method: 'tools/call',
    signal,
    aborted: signal.aborted,
    extra: { session, ...options.extra },
  };
  return { ctx: new McpContext(request, options.meta), channel, session };
}

describe('McpContext basics', () => {
  it('exposes the request id, session, auth, meta and signal', () => {
    const controller = new AbortController();
    const auth = { subject: 'u', scopes: new Set(['a']) };
    const { ctx, session } = makeContext({
      meta: { progressToken: 'p', other: 1 },
      extra: { auth },
      signal: controller.signal,
    });
    expect(ctx.requestId).toBe(7);
    expect(ctx.session).toBe(session);
    expect(ctx.auth).toBe(auth);
    expect(ctx.meta).toEqual({ progressToken: 'p', other: 1 });
    expect(ctx.signal).toBe(controller.signal);
  });

  it('notify() reports false when there is no way to reach the client', () => {
    const { ctx } = makeContext({ channel: null });
    expect(ctx.notify('notifications/message', { level: 'info', data: 'x' })).toBe(false);
    expect(ctx.log('error', 'x')).toBe(false);
  });

  it("prefers the request's own channel over the session's", () => {
    const perRequest = new FakeChannel();
    const { ctx, channel } = makeContext({ extra: { channel: perRequest } });
    expect(ctx.notify('custom/thing', { a: 1 })).toBe(true);
    expect(perRequest.notifications).toEqual([{ method: 'custom/thing', params: { a: 1 } }]);
    expect(channel?.notifications).toEqual([]);
  });
});

describe('log()', () => {
  it('sends everything when no level was set', () => {
    const { ctx, channel } = makeContext();
    expect(ctx.log('debug', 'fine detail')).toBe(true);
    expect(channel?.notifications).toEqual([
      { method: 'notifications/message', params: { level: 'debug', data: 'fine detail' } },
    ]);
  });

  it('suppresses levels below the session level and passes the rest', () => {
    const { ctx, channel } = makeContext({ logLevel: 'warning' });
    expect(ctx.log('debug', 'd')).toBe(false);
    expect(ctx.log('info', 'i')).toBe(false);
    expect(ctx.log('notice', 'n')).toBe(false);
    expect(ctx.log('warning', 'w')).toBe(true);
    expect(ctx.log('error', { code: 42 }, 'db')).toBe(true);
    expect(ctx.log('emergency', 'e')).toBe(true);
    expect(channel?.notifications).toEqual([
      { method: 'notifications/message', params: { level: 'warning', data: 'w' } },
      {
        method: 'notifications/message',
        params: { level: 'error', logger: 'db', data: { code: 42 } },
      },
      { method: 'notifications/message', params: { level: 'emergency', data: 'e' } },
    ]);
  });

  it('follows a level set with logging/setLevel during a tool call', async () => {
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'chatty',
        description: 'Logs at every level',
        handler: (_args, ctx) => {
          for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, level);
          return 'done';
        },
      }),
    );
    const peer = connectRaw(server);
    await peer.request('logging/setLevel', { level: 'warning' });
    await peer.request('tools/call', { name: 'chatty' });
    expect(peer.notifications.map((n) => (n.params as { level: string }).level)).toEqual([
      'warning',
      'error',
    ]);
  });
});

describe('progress()', () => {
  it('sends nothing without a progressToken', () => {
    const { ctx, channel } = makeContext();
    expect(ctx.progress(1, 10)).toBe(false);
    const other = makeContext({ meta: { somethingElse: true } });
    expect(other.ctx.progress(1)).toBe(false);
    expect(channel?.notifications).toEqual([]);
    expect(other.channel?.notifications).toEqual([]);
  });

  it('sends the token, progress, total and message', () => {
    const { ctx, channel } = makeContext({ meta: { progressToken: 'tok-1' } });
    expect(ctx.progress(3, 10, 'three of ten')).toBe(true);
    expect(ctx.progress(4)).toBe(true);
    expect(channel?.notifications).toEqual([
      {
        method: 'notifications/progress',
        params: { progressToken: 'tok-1', progress: 3, total: 10, message: 'three of ten' },
      },
      { method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 4 } },
    ]);
    expect(channel?.notifications[1]?.params).not.toHaveProperty('total');
    expect(channel?.notifications[1]?.params).not.toHaveProperty('message');
  });

  it('accepts a numeric token from a tools/call _meta', async () => {
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'slow',
        description: 'Reports progress',
        handler: (_args, ctx) => {
          ctx.progress(1, 2);
          ctx.progress(2, 2, 'done');
          return 'ok';
        },
      }),
    );
    const peer = connectRaw(server);
    await peer.request('tools/call', {
      name: 'slow',
      arguments: {},
      _meta: { progressToken: 99 },
    });
    expect(peer.notifications).toEqual([
      { method: 'notifications/progress', params: { progressToken: 99, progress: 1, total: 2 } },
      {
        method: 'notifications/progress',
        params: { progressToken: 99, progress: 2, total: 2, message: 'done' },
      },
    ]);
  });
});

describe('sample() and elicit()', () => {
  it('reject with an RpcError when the client did not declare the capability', async () => {
    const { ctx, channel } = makeContext({ capabilities: { roots: {} } });
    const sampled = ctx.sample({ messages: [], maxTokens: 10 });
    await expect(sampled).rejects.toSatisfy((err: unknown) => RpcError.is(err));
    await expect(sampled).rejects.toMatchObject({
      code: -32601,
      data: { capability: 'sampling', method: 'sampling/createMessage' },
    });
    const elicited = ctx.elicit({ message: 'Name?', requestedSchema: {} });
    await expect(elicited).rejects.toSatisfy((err: unknown) => RpcError.is(err));
    await expect(elicited).rejects.toMatchObject({
      data: { capability: 'elicitation', method: 'elicitation/create' },
    });
    expect(channel?.requests).toEqual([]);
  });

  it('send sampling/createMessage through the channel when the client declared sampling', async () => {
    const controller = new AbortController();
    const { ctx, channel } = makeContext({
      capabilities: { sampling: {} },
      signal: controller.signal,
    });
    if (!channel) throw new Error('no channel');
    const answer = {
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test-model',
    };
    channel.answer = answer;
    const params = {
      messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
      maxTokens: 20,
    };
    await expect(ctx.sample(params, { timeoutMs: 1000 })).resolves.toEqual(answer);
    expect(channel.requests).toHaveLength(1);
    expect(channel.requests[0]?.method).toBe('sampling/createMessage');
    expect(channel.requests[0]?.params).toEqual(params);
    // The call's signal travels along, with the caller's options.
    expect(channel.requests[0]?.options?.signal).toBe(controller.signal);
    expect(channel.requests[0]?.options?.timeoutMs).toBe(1000);
  });

  it('send elicitation/create through the channel when the client declared elicitation', async () => {
    const { ctx, channel } = makeContext({ capabilities: { elicitation: {} } });
    if (!channel) throw new Error('no channel');
    channel.answer = { action: 'accept', content: { name: 'Ada' } };
    const params = {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    await expect(ctx.elicit(params)).resolves.toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    });
    expect(channel.requests.map((r) => [r.method, r.params])).toEqual([
      ['elicitation/create', params],
    ]);
    // sampling was not declared, so it still fails.
    await expect(ctx.sample({})).rejects.toMatchObject({ code: -32601 });
  });

  it('use the capabilities a client declared in initialize', async () => {
    const seen: unknown[] = [];
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'ask',
        description: 'Asks the model',
        handler: async (_args, ctx) => {
          seen.push(await ctx.sample({ messages: [], maxTokens: 1 }));
          return 'ok';
        },
      }),
    );
    const answer = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };
    const peer = connectRaw(server, { onRequest: () => answer });
    await peer.initialize({ capabilities: { sampling: {} } });
    const reply = await peer.request('tools/call', { name: 'ask', arguments: {} });
    expect(reply).toMatchObject({ id: 2, result: { isError: false } });
    expect(peer.requests.map((r) => r.method)).toEqual(['sampling/createMessage']);
    expect(seen).toEqual([answer]);
  });

  it('never send URL-mode elicitation without elicitation.url, nor tool sampling without sampling.tools', async () => {
    // MCP 2025-11-25: `elicitation: {}` means form mode only; tools in sampling need sampling.tools.
    const { ctx, channel } = makeContext({ capabilities: { elicitation: {}, sampling: {} } });
    const url = ctx.elicit({
      mode: 'url',
      message: 'Sign in',
      url: 'https://x',
      elicitationId: 'e',
    });
    await expect(url).rejects.toSatisfy((err: unknown) => RpcError.is(err));
    await expect(url).rejects.toMatchObject({
      code: -32601,
      message: 'Client does not support elicitation.url',
      data: { capability: 'elicitation.url', requiredCapabilities: { elicitation: { url: {} } } },
    });
    await expect(ctx.sample({ messages: [], maxTokens: 1, tools: [] })).rejects.toMatchObject({
      message: 'Client does not support sampling.tools',
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    });
    await expect(
      ctx.sample({ messages: [], maxTokens: 1, toolChoice: { mode: 'auto' } }),
    ).rejects.toMatchObject({ data: { capability: 'sampling.tools' } });
    expect(channel?.requests).toEqual([]);
    // Form mode and plain sampling still go out.
    await ctx.elicit({ mode: 'form', message: 'Name?', requestedSchema: {} });
    await ctx.sample({ messages: [], maxTokens: 1 });
    expect(channel?.requests.map((r) => r.method)).toEqual([
      'elicitation/create',
      'sampling/createMessage',
    ]);
  });

  it('send URL-mode elicitation and tool sampling when the client declared them', async () => {
    const { ctx, channel } = makeContext({
      capabilities: { elicitation: { url: {} }, sampling: { tools: {} } },
    });
    await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://x', elicitationId: 'e' });
    await ctx.sample({ messages: [], maxTokens: 1, tools: [], toolChoice: { mode: 'auto' } });
    expect(channel?.requests.map((r) => r.method)).toEqual([
      'elicitation/create',
      'sampling/createMessage',
    ]);
  });

  it('turn a missing elicitation.url into a JSON-RPC error of the tools/call', async () => {
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'login',
        description: 'Asks the user to sign in',
        handler: async (_args, ctx) => {
          await ctx.elicit({
            mode: 'url',
            message: 'Sign in',
            url: 'https://x',
            elicitationId: 'e',
          });
          return 'ok';
        },
      }),
    );
    const peer = connectRaw(server, { onRequest: () => ({ action: 'accept' }) });
    await peer.initialize({ capabilities: { elicitation: {} } });
    const reply = await peer.request('tools/call', { name: 'login', arguments: {} });
    expect(reply).toMatchObject({
      id: 2,
      error: { code: -32601, message: 'Client does not support elicitation.url' },
    });
    expect(peer.requests).toEqual([]);
  });

  it('apply the same rules to what a 2026-07-28 input_required may ask (-32021)', async () => {
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'both',
        description: 'Asks by URL and samples with tools',
        inputSchema: z.object({ what: z.enum(['url', 'tools']) }),
        handler: async ({ what }, ctx) => {
          if (what === 'url') {
            await ctx.elicit({ mode: 'url', message: 'Go', url: 'https://x', elicitationId: 'e' });
          } else await ctx.sample({ messages: [], maxTokens: 1, tools: [] });
          return 'ok';
        },
      }),
    );
    const peer = connectRaw(server);
    const call = (what: string, clientCapabilities: Record<string, unknown>) =>
      peer.request('tools/call', {
        name: 'both',
        arguments: { what },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: clientCapabilities,
          [META.clientInfo]: { name: 't', version: '1' },
        },
      });
    await expect(call('url', { elicitation: {} })).resolves.toMatchObject({
      error: {
        code: -32021,
        message: 'Missing required client capability: elicitation.url',
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      },
    });
    await expect(call('tools', { sampling: {} })).resolves.toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { sampling: { tools: {} } } } },
    });
    await expect(call('url', { elicitation: { url: {} } })).resolves.toMatchObject({
      result: { resultType: 'input_required' },
    });
    await expect(call('tools', { sampling: { tools: {} } })).resolves.toMatchObject({
      result: { resultType: 'input_required' },
    });
  });

  it('reject with an RpcError when there is no channel at all', async () => {
    const { ctx } = makeContext({ capabilities: { sampling: {} }, channel: null });
    await expect(ctx.sample({})).rejects.toMatchObject({ code: -32603 });
  });
});

describe('cancellation', () => {
  function setup() {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const observed: { aborted: boolean; reason?: unknown } = { aborted: false };
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'wait',
        description: 'Waits until cancelled',
        inputSchema: z.object({ label: z.string().optional() }),
        handler: (_args, ctx) =>
          new Promise<string>((resolve) => {
            ctx.signal.addEventListener(
              'abort',
              () => {
                observed.aborted = true;
                observed.reason = ctx.signal.reason;
                resolve('stopped');
              },
              { once: true },
            );
            started();
          }),
      }),
    );
    // A client that goes away gets its calls aborted at once.
    const peer = connectRaw(server, { drainTimeoutMs: 0 });
    return { server, peer, send: peer.send, running, observed };
  }

  it('aborts the tool on notifications/cancelled and sends no reply', async () => {
    const { send, running, observed, peer } = setup();
    const pending = send({
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/call',
      params: { name: 'wait', arguments: {} },
    });
    await running;
    expect(observed.aborted).toBe(false);

    const ack = await send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 41, reason: 'user pressed stop' },
    });
    expect(ack).toBeUndefined();
    expect(observed.aborted).toBe(true);
    expect(observed.reason).toBeInstanceOf(Error);
    expect((observed.reason as Error).message).toBe('user pressed stop');

    await peer.settle();
    expect(peer.received).toEqual([]);
    await peer.close();
    await expect(pending).resolves.toBeUndefined();
  });

  it('cancels string ids too and uses a default reason', async () => {
    const { send, running, observed, peer } = setup();
    const pending = send({
      jsonrpc: '2.0',
      id: 'req-a',
      method: 'tools/call',
      params: { name: 'wait' },
    });
    await running;
    await send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'req-a' },
    });
    expect(observed.aborted).toBe(true);
    expect((observed.reason as Error).message).toBe('cancelled by the client');
    await peer.settle();
    expect(peer.received).toEqual([]);
    await peer.close();
    await expect(pending).resolves.toBeUndefined();
  });

  it('ignores a cancellation of another request id', async () => {
    const { send, running, observed, peer } = setup();
    const pending = send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'wait' },
    });
    await running;
    // A string "5" is not the number 5.
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '5' } });
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6 } });
    expect(observed.aborted).toBe(false);

    // A client that goes away has what it left running aborted; nothing is sent any more.
    await peer.close();
    expect(observed.aborted).toBe(true);
    await expect(pending).resolves.toBeUndefined();
    expect(peer.received).toEqual([]);
  });

  it('answers a request that finishes before anyone cancels it', async () => {
    const { server, peer } = setup();
    server.addTool(
      defineTool({
        name: 'quick',
        description: 'Returns at once',
        handler: (_args, ctx) => (ctx.signal.aborted ? 'aborted' : 'fine'),
      }),
    );
    const reply = await peer.request<CallToolResult>('tools/call', { name: 'quick' });
    expect(reply.result?.content).toEqual([{ type: 'text', text: 'fine' }]);
    // Cancelling after it settled is a no-op: nothing more is sent.
    await peer.notify('notifications/cancelled', { requestId: reply.id });
    expect(peer.received).toHaveLength(1);
  });
});

describe('a handler that fails once its call is cancelled', () => {
  it('is not answered either, with the error or with a result (prompts, resources, tools)', async () => {
    const logger: EngineLogger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const running: string[] = [];
    /** Rejects with `error` (the reason when absent) once the call is cancelled. */
    const untilCancelled = (name: string, ctx: McpContext, error?: unknown) =>
      new Promise<never>((_resolve, reject) => {
        running.push(name);
        ctx.onCancel((reason) => reject(error ?? reason));
      });
    const abandoned = () => new RpcError(-32000, 'the backend call was abandoned');
    const server = new McpServer({ name: 's', version: '1', logger })
      .addPrompt(
        definePrompt({ name: 'p', get: (_args, ctx) => untilCancelled('p', ctx, abandoned()) }),
      )
      .addResource(
        defineResource({
          uri: 'mem://r',
          name: 'r',
          read: (ctx) => untilCancelled('r', ctx, abandoned()),
        }),
      )
      // A plain Error (the cancellation's reason): a tool result, which is withheld as well.
      .addTool(
        defineTool({
          name: 't',
          description: 'Throws',
          handler: (_a, ctx) => untilCancelled('t', ctx),
        }),
      );
    const peer = connectRaw(server, { drainTimeoutMs: 0 });
    await peer.initialize();
    const calls: [number, string, Record<string, unknown>][] = [
      [11, 'prompts/get', { name: 'p' }],
      [12, 'resources/read', { uri: 'mem://r' }],
      [13, 'tools/call', { name: 't' }],
    ];
    for (const [id, method, params] of calls)
      void peer.send({ jsonrpc: '2.0', id, method, params });
    await vi.waitFor(() => expect(running).toHaveLength(3));
    for (const [id] of calls) await peer.notify('notifications/cancelled', { requestId: id });
    // Anything sent for them would be in before the ping's answer.
    await peer.result('ping');
    const ids = peer.received.map((text) => (JSON.parse(text) as { id?: unknown }).id);
    expect(ids.filter((id) => calls.some(([cancelled]) => cancelled === id))).toEqual([]);
    expect(logger.error).not.toHaveBeenCalled();
    await peer.close();
  });
});

describe('ctx.onCancel: hearing of a cancellation without a signal', () => {
  /** A `wait` tool that listens with `listen` (default: records the reason and stops). */
  function setup(listen?: (ctx: McpContext, stop: () => void) => void) {
    const heard: unknown[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'wait',
        description: 'Waits until cancelled, listening with onCancel',
        handler: (_args, ctx) =>
          new Promise<string>((resolve) => {
            const stop = () => resolve('stopped');
            if (listen) listen(ctx, stop);
            else
              ctx.onCancel((reason) => {
                heard.push(reason);
                stop();
              });
            started();
          }),
      }),
    );
    const peer = connectRaw(server, { drainTimeoutMs: 0 });
    return { peer, running, heard };
  }

  it('is told once with the reason, and the result is withheld', async () => {
    const { peer, running, heard } = setup();
    const pending = peer.send({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'wait' },
    });
    await running;
    expect(heard).toEqual([]);
    await peer.notify('notifications/cancelled', { requestId: 8, reason: 'user pressed stop' });
    await peer.notify('notifications/cancelled', { requestId: 8, reason: 'again' });
    expect(heard).toHaveLength(1);
    expect((heard[0] as Error).message).toBe('user pressed stop');
    await peer.settle();
    expect(peer.received).toEqual([]);
    await peer.close();
    await expect(pending).resolves.toBeUndefined();
  });

  it('returns a disposer: a listener forgotten before the cancellation is not told', async () => {
    const forgotten = vi.fn();
    // Forgets one listener (a forwarded request that ended), keeps another.
    const { peer, running } = setup((ctx, stop) => {
      ctx.onCancel(forgotten)?.();
      ctx.onCancel(stop);
    });
    void peer.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'wait' } });
    await running;
    await peer.notify('notifications/cancelled', { requestId: 10, reason: 'stop' });
    await peer.settle();
    expect(forgotten).not.toHaveBeenCalled();
    await peer.close();
  });

  it('is told when the client goes away', async () => {
    const { peer, running, heard } = setup();
    void peer.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'wait' } });
    await running;
    await peer.close();
    expect(heard).toHaveLength(1);
  });
});

describe('cancelling a call whose handler never reads its signal', () => {
  it('withholds the result, and a later call reusing the id is answered', async () => {
    let release: (() => void) | undefined;
    const server = new McpServer({ name: 'c', version: '1' }).addTool(
      defineTool({
        name: 'slow',
        description: 'waits for the test, never looks at ctx.signal',
        handler: () =>
          new Promise<string>((resolve) => {
            release = () => resolve('done');
          }),
      }),
    );
    const peer = connectRaw(server);
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow' },
    });
    const pending = peer.send(call);
    await new Promise((r) => setTimeout(r, 5));
    await peer.notify('notifications/cancelled', { requestId: 1 });
    release?.();
    await peer.settle();
    expect(peer.received).toEqual([]);
    // The same id again, not cancelled this time: answered (and the first send gives up).
    const again = peer.send(call);
    await expect(pending).resolves.toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    release?.();
    expect(JSON.parse((await again) as string)).toMatchObject({
      id: 1,
      result: { content: [{ text: 'done' }] },
    });
  });
});

describe('McpContext.declaresExtension', () => {
  it("reads the client's declared extensions, in a 2025 session and in a 2026-07-28 request", async () => {
    const seen: boolean[] = [];
    const app = new McpServer({ name: 'ext', version: '1' }).addTool(
      defineTool({
        name: 'probe',
        description: 'says whether the client declared the UI extension',
        handler: (_args, ctx) => {
          seen.push(ctx.declaresExtension('io.modelcontextprotocol/ui'));
          return 'ok';
        },
      }),
    );
    const legacyWith = connectRaw(app);
    await legacyWith.initialize({
      protocolVersion: '2025-11-25',
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': {} } },
      clientInfo: { name: 'x', version: '1' },
    });
    await legacyWith.callTool('probe');
    const legacyWithout = connectRaw(app);
    await legacyWithout.initialize();
    await legacyWithout.callTool('probe');
    const modern = connectRaw(app);
    for (const extensions of [{ 'io.modelcontextprotocol/ui': {} }, { other: {} }]) {
      await modern.result('tools/call', {
        name: 'probe',
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: { extensions },
          [META.clientInfo]: { name: 'x', version: '1' },
        },
      });
    }
    expect(seen).toEqual([true, false, true, false]);
    await Promise.all([legacyWith.close(), legacyWithout.close(), modern.close()]);
  });
});
