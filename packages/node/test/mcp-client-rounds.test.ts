// @module-tag process
/**
 * McpClient's modern mode (MCP 2026-07-28) against our fixture server: multi round-trip input
 * (`input_required` answered by the client's handlers and retried, in-memory and over stdio), the
 * same handlers answering real server requests on a legacy connection, and
 * `subscriptions/listen` (acknowledgment, notifications, cancellation, graceful close, and
 * `subscribe` carried by a managed listen).
 */
import { fileURLToPath } from 'node:url';
import {
  type ClientHandlers,
  type ClientTransport,
  createLinkedTransports,
  defineTool,
  InputRequiredError,
  McpClient,
  type McpServer,
  META,
  StdioClientTransport,
  UnsupportedInEraError,
} from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../src/fixtures/everything.js';
import { serveHttp } from '../src/http/serve.js';
import { recording } from './support/wire.js';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));

function inMemory(server: McpServer = createEverythingServer()): ClientTransport {
  const [clientSide, serverSide] = createLinkedTransports();
  server.connect(serverSide);
  return clientSide;
}

const stdio = (): ClientTransport =>
  new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
  });

const asked: string[] = [];
const handlers: ClientHandlers = {
  elicitation: (params) => {
    asked.push(`elicitation:${params.message}`);
    if (params.message.includes('color')) return { action: 'accept', content: { color: 'green' } };
    if (params.message.includes('context')) return { action: 'accept', content: { context: 'c1' } };
    return { action: 'accept', content: { name: 'Ada', username: 'ada', email: 'a@b.c' } };
  },
  sampling: (params) => {
    asked.push('sampling');
    const first = params.messages[0]?.content;
    const text = first?.type === 'text' ? first.text : '';
    return {
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: text.includes('capital') ? 'Paris' : `re: ${text}` },
    };
  },
  roots: () => {
    asked.push('roots');
    return [{ uri: 'file:///work', name: 'work' }];
  },
};

const text = (result: { content?: unknown }) =>
  (result.content as { type: string; text?: string }[])[0]?.text;

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  asked.length = 0;
});

async function open(transport: ClientTransport, options: Parameters<typeof McpClient.connect>[1]) {
  const client = await McpClient.connect(transport, options);
  clients.push(client);
  return client;
}

for (const [name, transportOf] of [
  ['in-memory', () => inMemory()],
  ['stdio', stdio],
] as const) {
  describe(`multi round-trip input (modern) over ${name}`, () => {
    it('answers each round with the handlers and retries with a new id, inputResponses and the requestState as sent', async () => {
      const { transport, wire } = recording(transportOf());
      const client = await open(transport, { protocol: '2026-07-28', handlers });
      const result = await client.callTool('test_input_required_result_elicitation');
      expect(text(result)).toBe('Hello, Ada!');
      expect(result).toHaveProperty('resultType', 'complete');
      const calls = wire.filter((m) => m.method === 'tools/call');
      expect(calls).toHaveLength(2);
      expect(calls[0]?.id).not.toBe(calls[1]?.id);
      expect(calls[0]?.params).not.toHaveProperty('inputResponses');
      expect(calls[1]?.params).toMatchObject({
        name: 'test_input_required_result_elicitation',
        inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: expect.stringMatching(/^v1\./),
        _meta: { [META.protocolVersion]: '2026-07-28' },
      });
    });

    it('sampling, roots, several inputs at once, two rounds, a prompt, and the 2025-era tools', async () => {
      const client = await open(transportOf(), { protocol: '2026-07-28', handlers });
      expect(text(await client.callTool('test_input_required_result_sampling'))).toBe('Paris');
      expect(text(await client.callTool('test_input_required_result_list_roots'))).toBe(
        'Roots: file:///work',
      );
      expect(text(await client.callTool('test_input_required_result_multiple_inputs'))).toBe(
        're: Generate a greeting Ada (1 roots)',
      );
      expect(text(await client.callTool('test_input_required_result_multi_round'))).toBe(
        'Ada likes green',
      );
      const prompt = await client.getPrompt('test_input_required_result_prompt');
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Use this context: c1' });
      expect(text(await client.callTool('test_sampling', { prompt: 'hi' }))).toBe(
        'LLM response: re: hi',
      );
      expect(text(await client.callTool('test_elicitation', { message: 'who?' }))).toMatch(
        /^User response: action=accept, content=\{"name":"Ada"/,
      );
      expect(asked).toContain('roots');
      expect(client.pendingCount).toBe(0);
    });
  });
}

describe('multi round-trip input: limits, manual mode, missing handlers', () => {
  it('a request no handler answers rejects with InputRequiredError, before any handler runs', async () => {
    const client = await open(inMemory(), {
      protocol: '2026-07-28',
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      handlers: { elicitation: handlers.elicitation },
    });
    const err = await client
      .callTool('test_input_required_result_multiple_inputs')
      .catch((e: unknown) => e);
    expect(InputRequiredError.is(err)).toBe(true);
    expect((err as Error).message).toMatch(/no handler answers 'sampling\/createMessage'/);
    expect(asked).toEqual([]);
  });

  it('maxInputRounds: a server still asking after that many retries rejects', async () => {
    const client = await open(inMemory(), {
      protocol: '2026-07-28',
      handlers,
      maxInputRounds: 1,
    });
    const err = await client
      .callTool('test_input_required_result_multi_round')
      .catch((e: unknown) => e);
    expect(InputRequiredError.is(err)).toBe(true);
    expect((err as Error).message).toMatch(/after 1 rounds/);
    expect((err as InputRequiredError).result.inputRequests).toHaveProperty('step2');
  });

  it("inputRequired: 'manual' surfaces each round; retry(responses) sends the next", async () => {
    const { transport, wire } = recording(inMemory());
    const client = await open(transport, {
      protocol: '2026-07-28',
      inputRequired: 'manual',
      handlers,
    });
    const first = (await client
      .callTool('test_input_required_result_multi_round')
      .catch((e: unknown) => e)) as InputRequiredError;
    expect(InputRequiredError.is(first)).toBe(true);
    expect(Object.keys(first.result.inputRequests as object)).toEqual(['step1']);
    const second = (await first
      .retry({ step1: { action: 'accept', content: { name: 'Bo' } } })
      .catch((e: unknown) => e)) as InputRequiredError;
    expect(Object.keys(second.result.inputRequests as object)).toEqual(['step2']);
    const done = await second.retry<{ content: unknown }>({
      step2: { action: 'accept', content: { color: 'red' } },
    });
    expect(text(done)).toBe('Bo likes red');
    expect(asked).toEqual([]);
    const calls = wire.filter((m) => m.method === 'tools/call');
    expect(calls[2]?.params?.requestState).toBe(second.result.requestState);
  });

  it('the abort signal applies across rounds: aborted while a handler runs, no retry is sent', async () => {
    const controller = new AbortController();
    const { transport, wire } = recording(inMemory());
    const client = await open(transport, {
      protocol: '2026-07-28',
      handlers: {
        elicitation: async (_params, ctx) => {
          expect(ctx.signal).toBe(controller.signal);
          controller.abort(new Error('user left'));
          return { action: 'cancel' };
        },
      },
    });
    await expect(
      client.callTool('test_input_required_result_elicitation', {}, { signal: controller.signal }),
    ).rejects.toThrow('user left');
    expect(wire.filter((m) => m.method === 'tools/call')).toHaveLength(1);
  });

  it("cancelledBy applies across rounds: the handler's signal aborts, no retry is sent, no listener stays", async () => {
    const listeners = new Set<(reason: unknown) => void>();
    // A long-lived source (an app's shutdown token): what the call leaves in it shows.
    const shutdown = {
      onCancel(listener: (reason: unknown) => void) {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      },
    };
    let handlerSignal: AbortSignal | undefined;
    const { transport, wire } = recording(inMemory());
    const client = await open(transport, {
      protocol: '2026-07-28',
      handlers: {
        elicitation: async (_params, ctx) => {
          handlerSignal = ctx.signal;
          for (const l of [...listeners]) l(new Error('shutting down'));
          return { action: 'cancel' };
        },
      },
    });
    await expect(
      client.callTool('test_input_required_result_elicitation', {}, { cancelledBy: shutdown }),
    ).rejects.toThrow('shutting down');
    expect(handlerSignal?.aborted).toBe(true);
    expect(wire.filter((m) => m.method === 'tools/call')).toHaveLength(1);
    expect(listeners.size).toBe(0);
  });

  it('progress callbacks stay attached across rounds (one token for every round)', async () => {
    const server = createEverythingServer().addTool(
      defineTool({
        name: 'ask_with_progress',
        description: 'progress, then an ask',
        handler: async (_args, ctx) => {
          await ctx.progress(1, 2);
          const answer = await ctx.elicit({
            message: 'name?',
            requestedSchema: { type: 'object', properties: {} },
          });
          return answer.action;
        },
      }),
    );
    const { transport, wire } = recording(inMemory(server));
    const client = await open(transport, { protocol: '2026-07-28', handlers });
    const progress: number[] = [];
    const result = await client.callTool(
      'ask_with_progress',
      {},
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(text(result)).toBe('accept');
    expect(progress).toEqual([1, 1]);
    const tokens = wire
      .filter((m) => m.method === 'tools/call')
      .map((m) => m.params?._meta?.progressToken);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toBe(tokens[1]);
  });
});

describe('a legacy client and the same tools', () => {
  it('answers the server requests with the same handlers', async () => {
    const { transport, wire } = recording(inMemory());
    const client = await open(transport, { handlers });
    expect(client.era).toBe('legacy');
    expect(text(await client.callTool('test_input_required_result_elicitation'))).toBe(
      'Hello, Ada!',
    );
    expect(text(await client.callTool('test_input_required_result_multiple_inputs'))).toBe(
      're: Generate a greeting Ada (1 roots)',
    );
    expect(text(await client.callTool('test_sampling', { prompt: 'yo' }))).toBe(
      'LLM response: re: yo',
    );
    // Answers to server requests, never retries.
    expect(wire.filter((m) => m.method === 'tools/call')).toHaveLength(3);
    expect(wire.some((m) => m.params && 'inputResponses' in m.params)).toBe(false);
  });
});

describe('subscriptions/listen', () => {
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('resolves on the acknowledgment; list_changed and resources/updated follow, stamped with its id', async () => {
    const server = createEverythingServer();
    const { transport, wire } = recording(inMemory(server));
    const client = await open(transport, { protocol: '2026-07-28' });
    const seen: string[] = [];
    client.on('*', (method) => seen.push(method));
    const own: string[] = [];
    const subscription = await client.listen(
      { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] },
      { onNotification: (method) => own.push(method) },
    );
    const listen = wire.find((m) => m.method === 'subscriptions/listen');
    expect(subscription.id).toBe(listen?.id);
    expect(subscription.acknowledged).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['test://watched-resource'],
    });
    expect(seen).toEqual(['notifications/subscriptions/acknowledged']);
    expect(server.subscriptionCount).toBe(1);
    const updates: unknown[] = [];
    client.on('notifications/resources/updated', (params) => updates.push(params));
    server.addTool(defineTool({ name: 'late', description: 'L', handler: () => 'l' }));
    // The list change is told once the turn that made it ends (changes are coalesced).
    await Promise.resolve();
    server.resourceUpdated('test://watched-resource');
    await settle();
    expect(own).toEqual(['notifications/tools/list_changed', 'notifications/resources/updated']);
    expect(updates).toEqual([
      {
        uri: 'test://watched-resource',
        _meta: { [META.subscriptionId]: subscription.id },
      },
    ]);
    await subscription.close();
    await settle();
    expect(server.subscriptionCount).toBe(0);
    expect(wire.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: subscription.id, reason: expect.any(String) },
    });
    expect(client.pendingCount).toBe(0);
  });

  it('a graceful close by the server resolves closed; two listens are told apart', async () => {
    const server = createEverythingServer();
    const client = await open(inMemory(server), { protocol: '2026-07-28' });
    const toolsSeen: string[] = [];
    const promptsSeen: string[] = [];
    const [tools, prompts] = await Promise.all([
      client.listen({ toolsListChanged: true }, { onNotification: (m) => toolsSeen.push(m) }),
      client.listen({ promptsListChanged: true }, { onNotification: (m) => promptsSeen.push(m) }),
    ]);
    expect(tools.id).not.toBe(prompts.id);
    expect(prompts.acknowledged).toEqual({ promptsListChanged: true });
    server.addTool(defineTool({ name: 'late', description: 'L', handler: () => 'l' }));
    await settle();
    expect(toolsSeen).toEqual(['notifications/tools/list_changed']);
    expect(promptsSeen).toEqual([]);
    server.closeSubscriptions();
    await expect(tools.closed).resolves.toBeUndefined();
    await expect(prompts.closed).resolves.toBeUndefined();
    expect(server.subscriptionCount).toBe(0);
    expect(client.pendingCount).toBe(0);
  });

  it('over stdio: acknowledged, notified, cancelled', async () => {
    const client = await open(stdio(), { protocol: '2026-07-28' });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.acknowledged).toEqual({ toolsListChanged: true });
    const changed = new Promise((resolve) =>
      client.on('notifications/tools/list_changed', resolve),
    );
    await client.callTool('test_trigger_tool_change');
    await expect(changed).resolves.toMatchObject({
      _meta: { [META.subscriptionId]: subscription.id },
    });
    await subscription.close();
    expect(client.pendingCount).toBe(0);
  });

  it('subscribe/unsubscribe are era-transparent: one managed listen with the current URIs', async () => {
    const server = createEverythingServer();
    const { transport, wire } = recording(inMemory(server));
    const client = await open(transport, { protocol: '2026-07-28' });
    const updates: unknown[] = [];
    client.on('notifications/resources/updated', (params) => updates.push(params?.uri));
    await client.subscribe('test://watched-resource');
    await client.subscribe('test://static-text');
    expect(server.subscriptionCount).toBe(1);
    const listens = wire.filter((m) => m.method === 'subscriptions/listen');
    expect(listens.at(-1)?.params?.notifications).toEqual({
      resourceSubscriptions: ['test://watched-resource', 'test://static-text'],
    });
    server.resourceUpdated('test://static-text');
    await settle();
    expect(updates).toEqual(['test://static-text']);
    await client.unsubscribe('test://static-text');
    server.resourceUpdated('test://static-text');
    server.resourceUpdated('test://watched-resource');
    await settle();
    expect(updates).toEqual(['test://static-text', 'test://watched-resource']);
    await client.unsubscribe('test://watched-resource');
    await settle();
    expect(server.subscriptionCount).toBe(0);
    expect(wire.some((m) => m.method === 'resources/subscribe')).toBe(false);
  });

  it('listChanged: connect opens the managed listen for the lists; subscribe joins it', async () => {
    const server = createEverythingServer();
    const { transport, wire } = recording(inMemory(server));
    const client = await open(transport, { protocol: '2026-07-28', listChanged: true });
    expect(server.subscriptionCount).toBe(1);
    const changes: string[] = [];
    client.on('*', (method) => changes.push(method));
    server.addTool(defineTool({ name: 'late', description: 'L', handler: () => 'l' }));
    await settle();
    expect(changes).toEqual(['notifications/tools/list_changed']);
    await client.subscribe('test://watched-resource');
    expect(server.subscriptionCount).toBe(1);
    expect(wire.filter((m) => m.method === 'subscriptions/listen').at(-1)?.params).toMatchObject({
      notifications: {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['test://watched-resource'],
      },
    });
    await client.unsubscribe('test://watched-resource');
    expect(server.subscriptionCount).toBe(1);
  });

  it('a legacy connection has no listen', async () => {
    const client = await open(inMemory(), {});
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(UnsupportedInEraError);
  });
});

describe('over Streamable HTTP (modern)', () => {
  it('runs the rounds, and listens until the POST is aborted', async () => {
    const server = createEverythingServer();
    const http = await serveHttp(server);
    try {
      const client = await http.connect({ protocol: '2026-07-28', handlers });
      expect(client.era).toBe('modern');
      expect(text(await client.callTool('test_input_required_result_multi_round'))).toBe(
        'Ada likes green',
      );
      const subscription = await client.listen({
        toolsListChanged: true,
        resourceSubscriptions: ['test://watched-resource'],
      });
      expect(subscription.acknowledged.resourceSubscriptions).toEqual(['test://watched-resource']);
      expect(server.subscriptionCount).toBe(1);
      const updated = new Promise((resolve) =>
        client.on('notifications/resources/updated', resolve),
      );
      server.resourceUpdated('test://watched-resource');
      await expect(updated).resolves.toMatchObject({ uri: 'test://watched-resource' });
      await subscription.close();
      // The server sees the aborted POST when its socket closes: waited for, not given 500 ms.
      await waitFor('the listen ended on the server', () => server.subscriptionCount === 0, 15_000);
      const again = await client.listen({ promptsListChanged: true });
      server.closeSubscriptions();
      await expect(again.closed).resolves.toBeUndefined();
    } finally {
      await http.close();
    }
  });
});
