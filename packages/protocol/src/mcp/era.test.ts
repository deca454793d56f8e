/**
 * MCP 2026-07-28 beside the 2025 era on one connection (stdio and in-memory): per-request
 * classification by `_meta`, envelope validation, the modern method set, result decoration,
 * and a 2025 session on the same stream left exactly as it was.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RpcError } from '../jsonrpc/errors.js';
import { connectRaw, type RawPeer } from '../testing/index.js';
import { isReservedMetaKey, META, modernClaim, parseEnvelope, withoutReservedMeta } from './era.js';
import { definePrompt } from './prompt.js';
import { defineResource } from './resource.js';
import { McpServer } from './server.js';
import { defineTool } from './tool.js';

const ENVELOPE = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 'modern-test', version: '1.0.0' },
};
const modern = (params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  ...params,
  _meta: { ...ENVELOPE, ...meta },
});

function server(): McpServer {
  return new McpServer({ name: 'dual', version: '1.2.3', instructions: 'Use add.' })
    .addTool(
      defineTool({
        name: 'add',
        description: 'Adds',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        outputSchema: z.object({ sum: z.number() }),
        handler: ({ a, b }) => ({ sum: a + b }),
      }),
      defineTool({
        name: 'chatty',
        description: 'Logs and reports progress',
        handler: (_args, ctx) => {
          ctx.log('info', 'working');
          ctx.progress(1, 1);
          return 'done';
        },
      }),
      defineTool({
        name: 'ask',
        description: 'Samples',
        handler: async (_args, ctx) => (await ctx.sample({ messages: [], maxTokens: 1 })).model,
      }),
      defineTool({
        name: 'seen',
        description: 'Says which answers it was given, then samples',
        handler: async (_args, ctx) => {
          const seen = { ...ctx.inputResponses };
          await ctx.sample({ messages: [], maxTokens: 1 });
          return JSON.stringify(seen);
        },
      }),
      defineTool({
        name: 'both',
        description: 'Asks the user and the model at once',
        handler: async (_args, ctx) => {
          const [user, model] = await Promise.all([
            ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } }),
            ctx.sample({ messages: [], maxTokens: 1 }),
          ]);
          return `${user.action}/${model.model}`;
        },
      }),
      defineTool({
        name: 'steps',
        description: 'Asks the user, then the model',
        inputSchema: z.object({ topic: z.string() }),
        handler: async ({ topic }, ctx) => {
          const user = await ctx.elicit({
            message: `about ${topic}?`,
            requestedSchema: { type: 'object', properties: {} },
          });
          const model = await ctx.sample({ messages: [], maxTokens: 1 });
          return `${topic}:${user.action}/${model.model}`;
        },
      }),
      defineTool({
        name: 'wait',
        description: 'Waits for cancellation',
        handler: (_args, ctx) =>
          new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
      }),
      defineTool({
        name: 'meta',
        description: "Echoes the request's _meta",
        handler: (_args, ctx) => JSON.stringify(ctx.meta ?? null),
      }),
    )
    .addResource(defineResource({ uri: 'mem://one', name: 'one', read: () => 'the one' }));
}

let peer: RawPeer;
afterEach(async () => {
  await peer?.close();
});

describe('modern requests (2026-07-28) without initialize', () => {
  it('server/discover says the versions, capabilities and instructions, with the result fields every modern result has', async () => {
    peer = connectRaw(server());
    const result = await peer.result('server/discover', modern());
    expect(result).toEqual({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      // listChanged and subscribe: delivered through subscriptions/listen.
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      },
      instructions: 'Use add.',
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { [META.serverInfo]: { name: 'dual', version: '1.2.3' } },
    });
  });

  it('serves tools/list and tools/call statelessly, decorating results (cache hints on lists only)', async () => {
    peer = connectRaw(server());
    const list = await peer.result<{ tools: { name: string }[]; ttlMs: number }>(
      'tools/list',
      modern(),
    );
    expect(list.tools.map((t) => t.name)).toContain('add');
    expect(list).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const call = await peer.result(
      'tools/call',
      modern({ name: 'add', arguments: { a: 2, b: 3 } }),
    );
    expect(call).toMatchObject({
      structuredContent: { sum: 5 },
      isError: false,
      resultType: 'complete',
      _meta: { [META.serverInfo]: { name: 'dual', version: '1.2.3' } },
    });
    expect(call).not.toHaveProperty('ttlMs');
    // Nothing was remembered: the connection's own session was never initialized.
    expect(peer.session.initialized).toBe(false);
  });

  it('declares the extensions it supports in server/discover and initialize', async () => {
    const ui = { mimeTypes: ['text/html;profile=mcp-app'] };
    const app = new McpServer({
      name: 'x',
      version: '1',
      extensions: { 'io.modelcontextprotocol/ui': ui },
    });
    peer = connectRaw(app);
    const discover = await peer.result<{ capabilities: Record<string, unknown> }>(
      'server/discover',
      modern(),
    );
    expect(discover.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/ui': ui });
    const init = await peer.initialize();
    expect(
      (init.result as { capabilities: Record<string, unknown> }).capabilities.extensions,
    ).toEqual({ 'io.modelcontextprotocol/ui': ui });
  });

  it("uses the server's cache hints where it declared them, and keeps per-caller lists private", async () => {
    const cache = {
      'tools/list': { ttlMs: 600_000, cacheScope: 'public' },
      'resources/read': { ttlMs: 5_000, cacheScope: 'private' },
    } as const;
    // prompts declared without any: an unhinted list (a server serves prompts/list only then).
    const hinted = new McpServer({
      name: 'h',
      version: '1',
      cache,
      declare: { prompts: true },
    }).addResource(defineResource({ uri: 'mem://r', name: 'r', read: () => 'r' }));
    peer = connectRaw(hinted);
    await expect(peer.result('tools/list', modern())).resolves.toMatchObject({
      ttlMs: 600_000,
      cacheScope: 'public',
    });
    await expect(peer.result('resources/read', modern({ uri: 'mem://r' }))).resolves.toMatchObject({
      ttlMs: 5_000,
      cacheScope: 'private',
    });
    await expect(peer.result('prompts/list', modern())).resolves.toMatchObject({
      ttlMs: 0,
      cacheScope: 'private',
    });
    await peer.close();
    peer = connectRaw(
      new McpServer({ name: 'h', version: '1', cache, listPermittedToolsOnly: true }),
    );
    await expect(peer.result('tools/list', modern())).resolves.toMatchObject({
      ttlMs: 600_000,
      cacheScope: 'private',
    });
  });

  it('takes new cache hints at run time (setCacheHints); a 2025 result never carries them', async () => {
    const hinted = new McpServer({ name: 'h', version: '1' });
    peer = connectRaw(hinted);
    await expect(peer.result('tools/list', modern())).resolves.toMatchObject({ ttlMs: 0 });
    hinted.setCacheHints({ 'tools/list': { ttlMs: 42_000, cacheScope: 'public' } });
    await expect(peer.result('tools/list', modern())).resolves.toMatchObject({
      ttlMs: 42_000,
      cacheScope: 'public',
    });
    hinted.setCacheHints({});
    await expect(peer.result('tools/list', modern())).resolves.toMatchObject({
      ttlMs: 0,
      cacheScope: 'private',
    });
    await peer.initialize();
    hinted.setCacheHints({ 'tools/list': { ttlMs: 42_000, cacheScope: 'public' } });
    expect(await peer.result('tools/list')).not.toHaveProperty('ttlMs');
  });

  it('refuses a version it does not speak with -32022, naming the supported ones', async () => {
    peer = connectRaw(server());
    const error = await peer.error(
      'tools/list',
      modern({}, { [META.protocolVersion]: '1900-01-01' }),
    );
    expect(error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version: 1900-01-01',
      data: {
        supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        requested: '1900-01-01',
      },
    });
  });

  it('refuses a half or malformed envelope with -32602 naming the key', async () => {
    peer = connectRaw(server());
    const missingCaps = await peer.error('tools/list', {
      _meta: { [META.protocolVersion]: '2026-07-28' },
    });
    expect(missingCaps).toMatchObject({
      code: -32602,
      data: { envelope: { key: META.clientCapabilities, problem: 'is missing' } },
    });
    const missingVersion = await peer.error('tools/list', {
      _meta: { [META.clientCapabilities]: {} },
    });
    expect(missingVersion).toMatchObject({
      code: -32602,
      data: { envelope: { key: META.protocolVersion } },
    });
    const badLevel = await peer.error('tools/list', modern({}, { [META.logLevel]: 'loud' }));
    expect(badLevel).toMatchObject({ code: -32602, data: { envelope: { key: META.logLevel } } });
    const badInfo = await peer.error('tools/list', modern({}, { [META.clientInfo]: 'me' }));
    expect(badInfo).toMatchObject({ code: -32602, data: { envelope: { key: META.clientInfo } } });
  });

  it('has no session methods: initialize, ping, logging/setLevel, resources/subscribe are -32601', async () => {
    peer = connectRaw(server());
    for (const name of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      const error = await peer.error(name, modern({ uri: 'mem://one', level: 'info' }));
      expect(error).toEqual({ code: -32601, message: 'Method not found', data: { method: name } });
    }
  });

  it('answers an unknown resource with -32602 (a modern server must not send -32002)', async () => {
    peer = connectRaw(server());
    await expect(peer.error('resources/read', modern({ uri: 'mem://none' }))).resolves.toEqual({
      code: -32602,
      message: 'Resource not found',
      data: { uri: 'mem://none' },
    });
    const read = await peer.result('resources/read', modern({ uri: 'mem://one' }));
    expect(read).toMatchObject({
      contents: [{ text: 'the one' }],
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it("answers an unknown tool with the spec's -32602, whatever a 2025-era hook says", async () => {
    const gatewayLike = new McpServer({
      name: 'compat',
      version: '1.0.0',
      errors: { unknownTool: (name) => new RpcError(-32601, `Tool not found: ${name}`) },
    });
    peer = connectRaw(gatewayLike);
    await expect(peer.error('tools/call', modern({ name: 'nope' }))).resolves.toEqual({
      code: -32602,
      message: 'Unknown tool: nope',
      data: { tool: 'nope' },
    });
    // The 2025 era keeps the product's reply (mcp-n8n's, for the gateway).
    const legacy = connectRaw(gatewayLike);
    await legacy.initialize();
    await expect(legacy.error('tools/call', { name: 'nope' })).resolves.toEqual({
      code: -32601,
      message: 'Tool not found: nope',
    });
    await legacy.close();
  });

  it('sends log messages only when the envelope asks for a level; progress as always', async () => {
    peer = connectRaw(server());
    await peer.result('tools/call', modern({ name: 'chatty', _meta: undefined }));
    await peer.settle();
    expect(peer.notifications.filter((n) => n.method === 'notifications/message')).toEqual([]);
    await peer.result(
      'tools/call',
      modern({ name: 'chatty' }, { [META.logLevel]: 'info', progressToken: 'p1' }),
    );
    await peer.settle();
    expect(peer.notifications).toEqual([
      { method: 'notifications/message', params: { level: 'info', data: 'working' } },
      { method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 1 } },
    ]);
  });

  it('asks for input with input_required instead of a request to the client, and completes on the retry', async () => {
    peer = connectRaw(server(), { onRequest: () => ({ model: 'never asked' }) });
    const sampling = { [META.clientCapabilities]: { sampling: {} } };
    const first = await peer.result<{ requestState: string }>(
      'tools/call',
      modern({ name: 'ask' }, sampling),
    );
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        'sampling-1': {
          method: 'sampling/createMessage',
          params: { messages: [], maxTokens: 1 },
        },
      },
      requestState: expect.stringMatching(/^v1\./),
      _meta: { [META.serverInfo]: { name: 'dual', version: '1.2.3' } },
    });
    expect(peer.requests).toEqual([]);
    const answer = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm-1' };
    const second = await peer.result(
      'tools/call',
      modern(
        { name: 'ask', inputResponses: { 'sampling-1': answer }, requestState: first.requestState },
        sampling,
      ),
    );
    expect(second).toMatchObject({
      content: [{ type: 'text', text: 'm-1' }],
      resultType: 'complete',
    });
  });

  it('shows a handler the verified answers only (ctx.inputResponses): none at first, never an unasked key', async () => {
    peer = connectRaw(server());
    const sampling = { [META.clientCapabilities]: { sampling: {} } };
    const first = await peer.result<{ requestState: string }>(
      'tools/call',
      modern({ name: 'seen' }, sampling),
    );
    const answer = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm-1' };
    const second = await peer.result<{ content: { text: string }[] }>(
      'tools/call',
      modern(
        {
          name: 'seen',
          inputResponses: { 'sampling-1': answer, 'never-asked': { action: 'accept' } },
          requestState: first.requestState,
        },
        sampling,
      ),
    );
    expect(JSON.parse(second.content[0]?.text ?? '')).toEqual({ 'sampling-1': answer });
  });

  it('asks in rounds, carrying earlier answers in the signed state; a missing answer is asked again', async () => {
    peer = connectRaw(server());
    const caps = { [META.clientCapabilities]: { sampling: {}, elicitation: {} } };
    const call = (extra: Record<string, unknown> = {}) =>
      peer.result<{
        resultType: string;
        requestState: string;
        inputRequests?: object;
        content?: unknown;
      }>('tools/call', modern({ name: 'steps', arguments: { topic: 'x' }, ...extra }, caps));
    const r1 = await call();
    expect(Object.keys(r1.inputRequests ?? {})).toEqual(['elicitation-1']);
    // Retried without the answer: asked again, not an error.
    const again = await call({ requestState: r1.requestState });
    expect(Object.keys(again.inputRequests ?? {})).toEqual(['elicitation-1']);
    // A state is good for one retry: the first one is spent, the re-ask carries a new one.
    await expect(
      peer.error(
        'tools/call',
        modern({ name: 'steps', arguments: { topic: 'x' }, requestState: r1.requestState }, caps),
      ),
    ).resolves.toMatchObject({ code: -32602 });
    const r2 = await call({
      requestState: again.requestState,
      inputResponses: { 'elicitation-1': { action: 'accept', content: {} }, junk: { x: 1 } },
    });
    expect(Object.keys(r2.inputRequests ?? {})).toEqual(['sampling-1']);
    const r3 = await call({
      requestState: r2.requestState,
      inputResponses: {
        'sampling-1': { role: 'assistant', content: { type: 'text', text: '' }, model: 'm' },
      },
    });
    expect(r3).toMatchObject({ resultType: 'complete', content: [{ text: 'x:accept/m' }] });
  });

  it('collects the asks made together into one round', async () => {
    peer = connectRaw(server());
    const reply = await peer.result<{ inputRequests: object }>(
      'tools/call',
      modern({ name: 'both' }, { [META.clientCapabilities]: { sampling: {}, elicitation: {} } }),
    );
    expect(Object.keys(reply.inputRequests).sort()).toEqual(['elicitation-1', 'sampling-1']);
  });

  it('refuses a state that was changed, or issued for other arguments, with -32602', async () => {
    peer = connectRaw(server());
    const caps = { [META.clientCapabilities]: { sampling: {}, elicitation: {} } };
    const first = await peer.result<{ requestState: string }>(
      'tools/call',
      modern({ name: 'steps', arguments: { topic: 'x' } }, caps),
    );
    const [v, body, mac] = first.requestState.split('.') as [string, string, string];
    const forged = Buffer.from(body, 'base64url')
      .toString('utf8')
      .replace('"a":{}', '"a":{"elicitation-1":{"action":"accept"}}');
    for (const requestState of [
      `${v}.${Buffer.from(forged).toString('base64url')}.${mac}`,
      `${first.requestState}x`,
      'not-a-state',
    ]) {
      await expect(
        peer.error(
          'tools/call',
          modern({ name: 'steps', arguments: { topic: 'x' }, requestState }, caps),
        ),
      ).resolves.toMatchObject({ code: -32602 });
    }
    // The same state on other arguments is not valid either.
    await expect(
      peer.error(
        'tools/call',
        modern(
          { name: 'steps', arguments: { topic: 'y' }, requestState: first.requestState },
          caps,
        ),
      ),
    ).resolves.toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
  });

  it('answers -32021 naming the capability when the request did not declare it', async () => {
    peer = connectRaw(server());
    await expect(peer.error('tools/call', modern({ name: 'ask' }))).resolves.toEqual({
      code: -32021,
      message: 'Missing required client capability: sampling',
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  it("is cancelled by notifications/cancelled with the request's id, and answers nothing", async () => {
    peer = connectRaw(server());
    const pending = peer.send({
      jsonrpc: '2.0',
      id: 'w1',
      method: 'tools/call',
      params: modern({ name: 'wait' }),
    });
    await peer.settle();
    await peer.notify('notifications/cancelled', { requestId: 'w1' });
    await peer.settle();
    expect(peer.received.some((f) => f.includes('"id":"w1"'))).toBe(false);
    await peer.close();
    await expect(pending).resolves.toBeUndefined();
  });

  it('refuses a batch holding a modern request', async () => {
    peer = connectRaw(server());
    const reply = await peer.send([
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: modern() },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(JSON.parse(reply as string)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: 2026-07-28 requests cannot be batched' },
    });
  });
});

describe('subscriptions/listen', () => {
  const listen = (id: string, notifications: Record<string, unknown>) =>
    peer.send({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: modern({ notifications }),
    });
  const stamped = (id: string) => ({ [META.subscriptionId]: id });

  it('acknowledges first with what it honours, then sends only what was asked, stamped with the id', async () => {
    const app = new McpServer({
      name: 'dual',
      version: '1',
      onSubscribe: (uri) => {
        if (uri === 'mem://secret') throw new Error('not yours');
      },
    }).addResource(defineResource({ uri: 'mem://one', name: 'one', read: () => '1' }));
    peer = connectRaw(app);
    void listen('s1', {
      toolsListChanged: true,
      resourceSubscriptions: ['mem://one', 'mem://secret'],
    });
    await peer.settle();
    expect(app.subscriptionCount).toBe(1);
    app.addPrompt(definePrompt({ name: 'p', description: 'not asked for', get: () => 'x' }));
    app.addTool(defineTool({ name: 't', description: 'T', handler: () => 't' }));
    // A list change is told once for what one turn of the event loop changed.
    await Promise.resolve();
    app.resourceUpdated('mem://secret');
    app.resourceUpdated('mem://one');
    await peer.settle();
    expect(peer.notifications).toEqual([
      {
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://one'] },
          _meta: stamped('s1'),
        },
      },
      { method: 'notifications/tools/list_changed', params: { _meta: stamped('s1') } },
      {
        method: 'notifications/resources/updated',
        params: { uri: 'mem://one', _meta: stamped('s1') },
      },
    ]);
  });

  it('ends on notifications/cancelled without a response; other subscriptions go on', async () => {
    const app = server();
    peer = connectRaw(app);
    const first = listen('a', { toolsListChanged: true });
    void listen('b', { toolsListChanged: true });
    await peer.settle();
    expect(app.subscriptionCount).toBe(2);
    await peer.notify('notifications/cancelled', { requestId: 'a' });
    await peer.settle();
    expect(app.subscriptionCount).toBe(1);
    app.removeTool('add');
    await peer.settle();
    const changes = peer.notifications.filter((n) => n.method.endsWith('list_changed'));
    expect(changes).toEqual([
      { method: 'notifications/tools/list_changed', params: { _meta: stamped('b') } },
    ]);
    expect(peer.received.some((f) => f.includes('"id":"a"'))).toBe(false);
    await peer.close();
    await expect(first).resolves.toBeUndefined();
    expect(app.subscriptionCount).toBe(0);
  });

  it('closes gracefully with a result carrying the subscription id', async () => {
    const app = server();
    peer = connectRaw(app);
    const reply = listen('g', { resourcesListChanged: true });
    await peer.settle();
    app.closeSubscriptions();
    expect(JSON.parse((await reply) as string)).toEqual({
      jsonrpc: '2.0',
      id: 'g',
      result: {
        resultType: 'complete',
        _meta: { ...stamped('g'), [META.serverInfo]: { name: 'dual', version: '1.2.3' } },
      },
    });
    expect(app.subscriptionCount).toBe(0);
  });

  it('measures a listen whose progress token is beyond 2^53 (a bigint) without failing it', async () => {
    const app = server();
    peer = connectRaw(app);
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 'p',
      method: 'subscriptions/listen',
      params: modern({ notifications: { toolsListChanged: true } }, { progressToken: 7 }),
    }).replace('"progressToken":7', '"progressToken":9007199254740993');
    void peer.send(text);
    await peer.settle();
    // Held open (not answered -32603 by a size check that could not serialize the bigint).
    expect(app.subscriptionCount).toBe(1);
    app.closeSubscriptions();
  });

  it('refuses a listen that names too much, before it holds anything', async () => {
    const app = server();
    peer = connectRaw(app);
    const refused = async (notifications: Record<string, unknown>, extra = {}) =>
      peer.error('subscriptions/listen', modern({ notifications, ...extra }));
    const many = Array.from({ length: 257 }, (_, i) => `mem://r/${i}`);
    expect((await refused({ resourceSubscriptions: many })).code).toBe(-32602);
    const long = `mem://${'x'.repeat(2048)}`;
    expect((await refused({ resourceSubscriptions: [long] })).code).toBe(-32602);
    // Within the URI bounds, but carrying a large field the filter does not know.
    const big = await refused({ toolsListChanged: true }, { padding: 'x'.repeat(70_000) });
    expect(big).toMatchObject({ code: -32602, message: 'Listen request too large' });
    expect(app.subscriptionCount).toBe(0);
    // Each bound itself is allowed (the size bound is the tighter one for long URIs).
    void listen('many', {
      resourceSubscriptions: Array.from({ length: 256 }, (_, i) => `mem://r/${i}`),
    });
    void listen('long', { resourceSubscriptions: [`mem://${'x'.repeat(2042)}`] });
    await peer.settle();
    expect(app.subscriptionCount).toBe(2);
  });

  it("gives each caller its share of the listens: one caller's full share leaves the others served", async () => {
    const app = new McpServer({
      name: 'shares',
      version: '1',
      maxSubscriptions: 5,
      maxSubscriptionsPerCaller: 3,
    });
    const as = (subject: string) => connectRaw(app, { auth: { subject, scopes: new Set() } });
    const a = as('a');
    const b = as('b');
    const c = as('c');
    const send = (p: RawPeer, id: string) =>
      p.send({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: modern({ notifications: { toolsListChanged: true } }),
      });
    try {
      for (const id of ['a1', 'a2', 'a3']) void send(a, id);
      await a.settle();
      expect(app.subscriptionCount).toBe(3);
      // A's share is spent — for A only.
      const fourth = JSON.parse((await send(a, 'a4')) as string);
      expect(fourth.error).toMatchObject({
        code: -32603,
        message: 'Subscription limit reached',
        data: { limit: 3, scope: 'caller' },
      });
      for (const id of ['b1', 'b2']) void send(b, id);
      await b.settle();
      expect(app.subscriptionCount).toBe(5);
      // The server's ceiling is the backstop.
      const over = JSON.parse((await send(c, 'c1')) as string);
      expect(over.error).toMatchObject({ data: { limit: 5, scope: 'server' } });
      // A cancelled listen gives its slot back to its caller.
      await a.notify('notifications/cancelled', { requestId: 'a1' });
      await a.settle();
      void send(c, 'c2');
      await c.settle();
      expect(app.subscriptionCount).toBe(5);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
    expect(app.subscriptionCount).toBe(0);
  });

  it('refuses a listen without its notifications filter with -32602', async () => {
    const app = server();
    peer = connectRaw(app);
    const error = await peer.error('subscriptions/listen', modern({}));
    expect(error.code).toBe(-32602);
    expect(JSON.stringify(error)).toContain('notifications');
    expect(app.subscriptionCount).toBe(0);
  });

  it('is a modern method only: a 2025 session asking for it gets -32601', async () => {
    peer = connectRaw(server());
    await peer.initialize();
    await expect(peer.error('subscriptions/listen', { notifications: {} })).resolves.toMatchObject({
      code: -32601,
    });
  });
});

describe('request ids', () => {
  it('refuses a request whose id is null with -32600 in both eras, running nothing', async () => {
    let calls = 0;
    const app = new McpServer({ name: 'ids', version: '1' }).addTool(
      defineTool({
        name: 'count',
        description: 'counts',
        handler: () => {
          calls++;
          return 'ok';
        },
      }),
    );
    peer = connectRaw(app);
    for (const params of [{ name: 'count', arguments: {} }, modern({ name: 'count' })]) {
      const reply = JSON.parse(
        (await peer.send({ jsonrpc: '2.0', id: null, method: 'tools/call', params })) as string,
      );
      expect(reply).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: an MCP request id must not be null' },
      });
    }
    expect(calls).toBe(0);
  });
});

describe('error codes per era', () => {
  it('answers a modern request -32602 where a handler (or a relayed 2025 peer) says -32002, and a 2025 session -32002', async () => {
    const app = new McpServer({ name: 'codes', version: '1' })
      .addTool(
        defineTool({
          name: 'lookup',
          description: 'Finds nothing, the 2025 way',
          handler: () => {
            throw new RpcError(-32002, 'Resource not found', { uri: 'mem://gone' });
          },
        }),
      )
      .addResource(defineResource({ uri: 'mem://here', name: 'here', read: () => 'here' }));
    peer = connectRaw(app);
    // 2026-07-28 basic/index: -32002 MUST NOT be emitted; its message and data stay.
    await expect(peer.error('tools/call', modern({ name: 'lookup' }))).resolves.toEqual({
      code: -32602,
      message: 'Resource not found',
      data: { uri: 'mem://gone' },
    });
    await expect(
      peer.error('resources/read', modern({ uri: 'mem://elsewhere' })),
    ).resolves.toMatchObject({ code: -32602 });
    await peer.initialize();
    await expect(
      peer.error('tools/call', { name: 'lookup', arguments: {} }),
    ).resolves.toMatchObject({ code: -32002 });
    await expect(peer.error('resources/read', { uri: 'mem://elsewhere' })).resolves.toMatchObject({
      code: -32002,
    });
  });
});

describe('both eras on one connection', () => {
  it('keeps the 2025 session as it was while modern requests come and go', async () => {
    peer = connectRaw(server());
    await peer.initialize();
    await peer.result('logging/setLevel', { level: 'error' });
    await peer.result('tools/call', modern({ name: 'chatty' }, { [META.logLevel]: 'debug' }));
    expect(peer.session).toMatchObject({ era: 'legacy', logLevel: 'error', initialized: true });
    // The 2025 answers keep their shape and codes.
    const legacy = await peer.result('tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
    expect(legacy).not.toHaveProperty('resultType');
    await expect(peer.error('resources/read', { uri: 'mem://none' })).resolves.toMatchObject({
      code: -32002,
    });
    await expect(peer.result('ping')).resolves.toEqual({});
  });

  it('treats _meta without the envelope keys as 2025 traffic', async () => {
    peer = connectRaw(server());
    const call = await peer.result('tools/call', {
      name: 'meta',
      _meta: { traceparent: '00-abc-def-01', 'io.modelcontextprotocol/other': 1 },
    });
    expect(call).not.toHaveProperty('resultType');
  });
});

describe('envelope helpers', () => {
  it('claims only params whose _meta holds the version or the capabilities', () => {
    expect(modernClaim(undefined)).toBeUndefined();
    expect(modernClaim([1, 2])).toBeUndefined();
    expect(modernClaim({ _meta: { progressToken: 1 } })).toBeUndefined();
    expect(modernClaim({ _meta: ENVELOPE })).toBe(ENVELOPE);
    expect(parseEnvelope(ENVELOPE)).toEqual({
      protocolVersion: '2026-07-28',
      clientCapabilities: {},
      clientInfo: { name: 'modern-test', version: '1.0.0' },
      logLevel: undefined,
    });
  });

  it('knows the reserved _meta prefixes and strips only those', () => {
    expect(isReservedMetaKey('io.modelcontextprotocol/protocolVersion')).toBe(true);
    expect(isReservedMetaKey('dev.mcp/anything')).toBe(true);
    expect(isReservedMetaKey('com.example/mcp')).toBe(false);
    expect(isReservedMetaKey('progressToken')).toBe(false);
    // The second label of the prefix decides, whatever follows it.
    expect(isReservedMetaKey('io.modelcontextprotocol.tools/x')).toBe(true);
    expect(isReservedMetaKey('io.mcp/')).toBe(true);
    expect(isReservedMetaKey('.mcp/x')).toBe(true);
    expect(isReservedMetaKey('a.b.modelcontextprotocol/x')).toBe(false);
    expect(isReservedMetaKey('io.mcpx/y')).toBe(false);
    expect(isReservedMetaKey('io.mc/y')).toBe(false);
    expect(isReservedMetaKey('modelcontextprotocol/x')).toBe(false);
    expect(isReservedMetaKey('x/io.mcp')).toBe(false);
    expect(
      withoutReservedMeta({ ...ENVELOPE, traceparent: 't', progressToken: 3, 'dev.mcp/x': 1 }),
    ).toEqual({ traceparent: 't', progressToken: 3 });
  });
});
