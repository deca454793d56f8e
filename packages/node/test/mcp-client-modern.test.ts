// @module-tag process
/**
 * McpClient speaking MCP 2026-07-28 (`protocol: '2026-07-28'` pinned, and `'auto'`) against our
 * fixture server in-memory and over stdio (a real child process): no initialize, the envelope on
 * every request, `server/discover` as the opening and as ping, the log level by envelope,
 * progress and cancellation as before. Then the probe of `'auto'` against servers that speak
 * only 2025 (the official SDK v1, a child that never answers the probe) and the verdicts on
 * what a modern server may answer (unsupported versions, input_required).
 */
import { fileURLToPath } from 'node:url';
import {
  type ClientTransport,
  createLinkedTransports,
  InputRequiredError,
  McpClient,
  type McpClientOptions,
  META,
  RpcError,
  SERVED_PROTOCOL_VERSIONS,
  StdioClientTransport,
  UnsupportedVersionError,
} from '@mcpkit/protocol';
import { MINIMAL_DISCOVER_RESULT } from '@mcpkit/protocol/testing';
import { waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEverythingServer } from '../src/fixtures/everything.js';
import { recording, type WireMessage } from './support/wire.js';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));
const SDK_V1_SERVER = fileURLToPath(
  new URL('../../../e2e/fixtures/sdk-v1-server.mjs', import.meta.url),
);
const CLIENT_INFO = { name: 'mcpkit-modern-e2e', version: '1.0.0' };

const requests = (wire: WireMessage[]) => wire.filter((m) => m.id !== undefined && m.method);
const methods = (wire: WireMessage[]) => wire.map((m) => m.method);

function inMemory(): ClientTransport {
  const [clientSide, serverSide] = createLinkedTransports();
  createEverythingServer().connect(serverSide);
  return clientSide;
}

function stdio(): ClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
  });
}

function suite(name: string, open: () => ClientTransport, protocol: 'auto' | '2026-07-28') {
  describe(`McpClient (protocol '${protocol}') over ${name}`, () => {
    const { transport, wire } = recording(open());
    const client = new McpClient({
      protocol,
      clientInfo: CLIENT_INFO,
      handlers: { roots: () => [{ uri: 'file:///tmp' }] },
    });
    const logs: unknown[] = [];
    client.on('notifications/message', (params) => logs.push(params?.data));
    beforeAll(async () => {
      await client.connect(transport);
    });
    afterAll(async () => {
      await client.close();
    });

    it('opens with server/discover, never initialize: era, version, server info, capabilities', () => {
      expect(wire[0]?.method).toBe('server/discover');
      expect(methods(wire)).not.toContain('initialize');
      expect(methods(wire)).not.toContain('notifications/initialized');
      expect(client.era).toBe('modern');
      expect(client.protocolVersion).toBe('2026-07-28');
      expect(client.serverInfo).toEqual({ name: 'mcpkit-everything', version: '0.1.0' });
      expect(client.serverCapabilities).toMatchObject({ tools: {}, resources: {}, logging: {} });
      expect(client.instructions).toContain('conformance');
      expect(client.discoverResult).toMatchObject({
        supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
        resultType: 'complete',
        ttlMs: expect.any(Number),
        cacheScope: expect.stringMatching(/^(public|private)$/),
        _meta: { [META.serverInfo]: { name: 'mcpkit-everything', version: '0.1.0' } },
      });
      expect(client.initializeResult).toMatchObject({
        protocolVersion: '2026-07-28',
        serverInfo: { name: 'mcpkit-everything', version: '0.1.0' },
      });
    });

    it('lists tools and calls one; results come as the server sent them', async () => {
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('add');
      const result = await client.callTool('add', { a: 2, b: 40 });
      expect(result).toMatchObject({
        structuredContent: { sum: 42 },
        isError: false,
        resultType: 'complete',
        _meta: { [META.serverInfo]: { name: 'mcpkit-everything', version: '0.1.0' } },
      });
      const failed = await client.callTool('test_error_handling');
      expect(failed.isError).toBe(true);
      const unknown = await client.callTool('no_such_tool').catch((err: unknown) => err);
      expect(RpcError.is(unknown) && unknown.code).toBe(-32602);
    });

    it('reads resources (cache hints kept) and rejects an unknown one with -32602', async () => {
      const resources = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('test://static-text');
      const templates = await client.listResourceTemplates();
      expect(templates[0]?.uriTemplate).toBe('test://template/{id}/data');
      const read = await client.readResource('test://static-text');
      expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('static text') });
      expect(read).toHaveProperty('ttlMs');
      expect(read).toHaveProperty('cacheScope');
      await expect(client.readResource('test://nope')).rejects.toMatchObject({ code: -32602 });
    });

    it('gets prompts and completes their arguments', async () => {
      const prompts = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('test_prompt_with_arguments');
      const prompt = await client.getPrompt('test_prompt_with_arguments', { arg1: 'x', arg2: 'y' });
      expect(prompt.messages[0]?.content).toEqual({
        type: 'text',
        text: "Prompt with arguments: arg1='x', arg2='y'",
      });
      const completion = await client.complete(
        { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        { name: 'arg1', value: 'testi' },
      );
      expect(completion.completion.values).toEqual(['testing']);
    });

    it('delivers progress to its call; keeps the caller _meta and rebuilds the reserved keys', async () => {
      const progress: number[] = [];
      const result = await client.callTool(
        'test_tool_with_progress',
        {},
        {
          onProgress: (p) => progress.push(p.progress),
          meta: { traceparent: '00-trace-span-01', [META.protocolVersion]: '1900-01-01' },
        },
      );
      expect(progress).toEqual([0, 50, 100]);
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^\d+$/) }]);
      const sent = requests(wire).at(-1);
      expect(sent?.params?._meta).toMatchObject({
        traceparent: '00-trace-span-01',
        progressToken: expect.any(String),
        [META.protocolVersion]: '2026-07-28',
      });
    });

    it('puts the log level into the envelope; no logging/setLevel is sent', async () => {
      logs.length = 0;
      await client.callTool('test_tool_with_logging');
      await new Promise((r) => setTimeout(r, 20));
      expect(logs).toEqual([]); // no level in the envelope: a modern server sends no logs
      await client.setLoggingLevel('info');
      await client.callTool('test_tool_with_logging');
      await new Promise((r) => setTimeout(r, 20));
      expect(logs).toEqual([
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]);
      expect(requests(wire).at(-1)?.params?._meta?.[META.logLevel]).toBe('info');
      await client.setLoggingLevel('error');
      logs.length = 0;
      await client.callTool('test_tool_with_logging');
      expect(logs).toEqual([]);
      expect(methods(wire)).not.toContain('logging/setLevel');
    });

    it('cancels a call by its signal with notifications/cancelled; ping is server/discover', async () => {
      const controller = new AbortController();
      const pending = client.callTool('wait_for_cancel', {}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('enough')), 50);
      await expect(pending).rejects.toThrow('enough');
      const call = requests(wire).findLast((m) => m.params?.name === 'wait_for_cancel');
      expect(wire.at(-1)).toMatchObject({
        method: 'notifications/cancelled',
        params: { requestId: call?.id },
      });
      const before = wire.length;
      await expect(client.ping()).resolves.toEqual({});
      expect(methods(wire.slice(before))).toEqual(['server/discover']);
      expect(client.pendingCount).toBe(0);
    });

    it('subscribes through one managed subscriptions/listen, never resources/subscribe', async () => {
      await client.subscribe('test://watched-resource');
      const listen = requests(wire).findLast((m) => m.method === 'subscriptions/listen');
      expect(listen?.params?.notifications).toEqual({
        resourceSubscriptions: ['test://watched-resource'],
      });
      await client.unsubscribe('test://watched-resource');
      expect(wire.at(-1)).toMatchObject({
        method: 'notifications/cancelled',
        params: { requestId: listen?.id },
      });
      expect(methods(wire)).not.toContain('resources/subscribe');
      expect(methods(wire)).not.toContain('resources/unsubscribe');
      expect(client.pendingCount).toBe(0);
    });

    it('runs many calls at once and matches every answer to its call', async () => {
      const sums = await Promise.all(
        Array.from({ length: 200 }, (_, i) => client.callTool('add', { a: i, b: 1 })),
      );
      expect(sums.map((r) => r.structuredContent?.sum)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    });

    it('sent the envelope on every request, with capabilities from its handlers', () => {
      const sent = requests(wire);
      expect(sent.length).toBeGreaterThan(200);
      for (const message of sent) {
        expect(message.params?._meta).toMatchObject({
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: { roots: {} },
          [META.clientInfo]: CLIENT_INFO,
        });
      }
    });
  });
}

suite('in-memory', inMemory, '2026-07-28');
suite('in-memory', inMemory, 'auto');
suite('stdio', stdio, '2026-07-28');
suite('stdio', stdio, 'auto');

describe("McpClient default ('legacy')", () => {
  it('initializes as before and sends no envelope', async () => {
    const { transport, wire } = recording(inMemory());
    const client = await McpClient.connect(transport);
    try {
      expect(client.era).toBe('legacy');
      expect(client.discoverResult).toBeUndefined();
      await client.callTool('add', { a: 1, b: 2 }, { meta: { traceparent: 't' } });
      expect(methods(wire).slice(0, 3)).toEqual([
        'initialize',
        'notifications/initialized',
        'tools/call',
      ]);
      expect(wire[2]?.params?._meta).toEqual({ traceparent: 't' });
    } finally {
      await client.close();
    }
  });
});

describe('McpClient (modern): the listen it manages for listChanged and subscribe', () => {
  it('is opened again after the server ended it, reporting its lists and resources changed once', async () => {
    const server = createEverythingServer();
    const [clientSide, serverSide] = createLinkedTransports();
    server.connect(serverSide);
    const client = await McpClient.connect(clientSide, {
      protocol: '2026-07-28',
      listChanged: true,
    });
    try {
      let toolsChanged = 0;
      const updated: unknown[] = [];
      client.on('notifications/tools/list_changed', () => toolsChanged++);
      client.on('notifications/resources/updated', (params) => updated.push(params?.uri));
      await client.subscribe('test://watched-resource');
      expect(server.subscriptionCount).toBe(1);
      server.closeSubscriptions();
      await waitFor('the listen opened again', () =>
        toolsChanged === 1 && server.subscriptionCount === 1 ? true : undefined,
      );
      expect(updated).toEqual(['test://watched-resource']);
      // … and it carries real notifications again.
      await client.callTool('test_trigger_tool_change');
      await waitFor('a real list_changed', () => toolsChanged === 2 || undefined);
      await client.callTool('test_trigger_resource_update');
      await waitFor('a real update', () => updated.length === 2 || undefined);
    } finally {
      await client.close();
    }
    await waitFor(
      'the listen ended with the client',
      () => server.subscriptionCount === 0 || undefined,
    );
  });
});

describe('McpClient (modern) and a server that needs input', () => {
  it("answers the fixture's 2025-era sampling tool in rounds; without a handler: InputRequiredError", async () => {
    const client = await McpClient.connect(inMemory(), {
      protocol: '2026-07-28',
      handlers: {
        sampling: () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'ok' } }),
      },
    });
    try {
      const result = await client.callTool('test_sampling', { prompt: 'hi' });
      expect(result.content).toEqual([{ type: 'text', text: 'LLM response: ok' }]);
      const err = await client
        .callTool('test_elicitation', { message: 'who?' })
        .catch((e: unknown) => e);
      // No elicitation handler, so no elicitation capability: the server refuses (-32021).
      expect(RpcError.is(err) && err.code).toBe(-32021);
    } finally {
      await client.close();
    }
  });
});

describe("protocol 'auto' against servers that speak only 2025", () => {
  it('falls back to initialize when the official SDK v1 server refuses the probe (stdio)', async () => {
    const { transport, wire } = recording(
      new StdioClientTransport({ command: process.execPath, args: [SDK_V1_SERVER, 'stdio'] }),
    );
    const client = await McpClient.connect(transport, { protocol: 'auto' });
    try {
      expect(client.era).toBe('legacy');
      expect(client.protocolVersion).toBe('2025-11-25');
      expect(client.serverInfo).toMatchObject({ name: 'sdk-v1-fixture' });
      const echoed = await client.callTool('echo', { text: 'hi' });
      expect(echoed.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(methods(wire).slice(0, 4)).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/call',
      ]);
      expect(wire[1]?.params?._meta).toBeUndefined();
      expect(wire[3]?.params?._meta).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('falls back when the probe goes unanswered for probeTimeoutMs, without cancelling it', async () => {
    // A 2025 server that ignores what it does not know before initialize.
    const script = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      const say = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') say({ jsonrpc: '2.0', id: m.id, result: {
          protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
          serverInfo: { name: 'silent', version: '1' } } });
        else if (m.method === 'tools/list') say({ jsonrpc: '2.0', id: m.id, result: { tools: [] } });
        else if (m.id === undefined && m.method !== 'notifications/initialized') process.exit(3);
      });
      rl.on('close', () => process.exit(0));`;
    const { transport, wire } = recording(
      new StdioClientTransport({ command: process.execPath, args: ['-e', script] }),
    );
    // The probe's timeout is the subject: its clock is faked (the child process is real), so the
    // fallback is shown to wait for probeTimeoutMs, not for however long the child took.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let client: McpClient;
    try {
      const connecting = McpClient.connect(transport, { protocol: 'auto', probeTimeoutMs: 300 });
      await vi.advanceTimersByTimeAsync(299);
      expect(methods(wire)).toEqual(['server/discover']);
      await vi.advanceTimersByTimeAsync(1);
      expect(methods(wire)).toEqual(['server/discover', 'initialize']);
      vi.useRealTimers();
      client = await connecting;
    } finally {
      vi.useRealTimers();
    }
    try {
      expect(client.era).toBe('legacy');
      await expect(client.listTools()).resolves.toEqual([]);
      expect(methods(wire)).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
      ]);
    } finally {
      await client.close();
    }
  });

  it("pinned '2026-07-28' does not fall back: connect fails with the server's error", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SDK_V1_SERVER, 'stdio'],
    });
    const client = new McpClient({ protocol: '2026-07-28' });
    const err = await client.connect(transport).catch((e: unknown) => e);
    expect(RpcError.is(err)).toBe(true);
    expect(client.era).toBeUndefined();
    await expect(transport.exited).resolves.toBeDefined();
  });
});

/** An in-memory server that answers each request by `answer` (a result or an error object). */
function scripted(
  answer: (message: WireMessage) => { result: unknown } | { error: unknown } | undefined,
): { transport: ClientTransport; wire: WireMessage[] } {
  const [clientSide, serverSide] = createLinkedTransports();
  serverSide.start({
    frame: (text) => {
      const message = JSON.parse(text) as WireMessage;
      if (message.id === undefined) return;
      const reply = answer(message);
      if (reply) serverSide.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply }));
    },
    rejected: () => {},
    end: () => {},
  });
  return recording(clientSide);
}

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'legacy', version: '1' },
};
const unsupported = (supported: string[]) => ({
  error: {
    code: -32022,
    message: 'Unsupported protocol version',
    data: { supported, requested: '2026-07-28' },
  },
});

describe('what a modern server may answer', () => {
  const connect = (transport: ClientTransport, options: McpClientOptions) =>
    McpClient.connect(transport, options).catch((err: unknown) => err);

  it('a discover result without our version: UnsupportedVersionError, pinned and auto', async () => {
    for (const protocol of ['2026-07-28', 'auto'] as const) {
      const { transport, wire } = scripted((m) =>
        m.method === 'server/discover'
          ? { result: { ...MINIMAL_DISCOVER_RESULT, supportedVersions: ['2099-01-01'] } }
          : { result: INIT },
      );
      const err = await connect(transport, { protocol });
      expect(UnsupportedVersionError.is(err)).toBe(true);
      expect(err).toMatchObject({ requested: '2026-07-28', offered: '2099-01-01' });
      expect(methods(wire)).toEqual(['server/discover']);
    }
  });

  it('listChanged: listens only for the lists the server says change; a refused listen does not fail connect', async () => {
    const { transport, wire } = scripted((m) => {
      if (m.method === 'server/discover') {
        return {
          result: {
            ...MINIMAL_DISCOVER_RESULT,
            capabilities: { tools: { listChanged: true }, prompts: {} },
          },
        };
      }
      if (m.method === 'subscriptions/listen') {
        return { error: { code: -32601, message: 'Method not found' } };
      }
      return { result: { tools: [{ name: 'a', inputSchema: { type: 'object' } }] } };
    });
    const client = await McpClient.connect(transport, {
      protocol: '2026-07-28',
      listChanged: true,
    });
    try {
      const listen = wire.find((m) => m.method === 'subscriptions/listen');
      expect(listen?.params?.notifications).toEqual({ toolsListChanged: true });
      expect((await client.listTools()).map((t) => t.name)).toEqual(['a']);
    } finally {
      await client.close();
    }
  });

  it('-32022 naming nothing we speak: UnsupportedVersionError, never initialize', async () => {
    for (const protocol of ['2026-07-28', 'auto'] as const) {
      const { transport, wire } = scripted(() => unsupported(['2099-01-01']));
      const err = await connect(transport, { protocol });
      expect(UnsupportedVersionError.is(err)).toBe(true);
      expect(methods(wire)).toEqual(['server/discover']);
    }
  });

  it("-32022 naming a 2025 version we speak: 'auto' initializes with it, pinned fails", async () => {
    const auto = scripted((m) =>
      m.method === 'server/discover' ? unsupported(['2025-06-18']) : { result: INIT },
    );
    const client = (await connect(auto.transport, { protocol: 'auto' })) as McpClient;
    expect(client.era).toBe('legacy');
    expect(auto.wire[1]).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-06-18' },
    });
    await client.close();
    const pinned = scripted(() => unsupported(['2025-06-18']));
    const err = await connect(pinned.transport, { protocol: '2026-07-28' });
    expect(UnsupportedVersionError.is(err)).toBe(true);
    expect(methods(pinned.wire)).toEqual(['server/discover']);
  });

  it('-32021 to the probe: the server is modern and refused us, no fallback', async () => {
    const { transport, wire } = scripted(() => ({
      error: { code: -32021, message: 'Missing capability', data: { requiredCapabilities: {} } },
    }));
    const err = await connect(transport, { protocol: 'auto' });
    expect(RpcError.is(err) && err.code).toBe(-32021);
    expect(methods(wire)).toEqual(['server/discover']);
  });

  it('keeps the cache hint of each list: the shortest time and the most private scope over its pages, none when a page has none', async () => {
    const pages: Record<string, Record<string, unknown>> = {
      first: { tools: [{ name: 'a' }], nextCursor: 'p2', ttlMs: 60_000, cacheScope: 'public' },
      p2: { tools: [{ name: 'b' }], nextCursor: 'p3', ttlMs: 5_000, cacheScope: 'public' },
      p3: { tools: [{ name: 'c' }], ttlMs: 30_000, cacheScope: 'private' },
      prompts: { prompts: [], ttlMs: 1_000, cacheScope: 'public' },
      nohint: { prompts: [{ name: 'p' }], nextCursor: 'x', ttlMs: 1_000, cacheScope: 'public' },
      x: { prompts: [] },
    };
    let prompts = 'prompts';
    const { transport } = scripted((m) => {
      if (m.method === 'server/discover') return { result: MINIMAL_DISCOVER_RESULT };
      if (m.method === 'prompts/list') {
        const cursor = m.params?.cursor;
        return { result: pages[typeof cursor === 'string' ? cursor : prompts] };
      }
      const cursor = m.params?.cursor;
      return { result: pages[typeof cursor === 'string' ? cursor : 'first'] };
    });
    const client = await McpClient.connect(transport, { protocol: '2026-07-28' });
    try {
      expect(client.cacheHint('tools/list')).toBeUndefined();
      expect((await client.listTools()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
      expect(client.cacheHint('tools/list')).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
      await client.listPrompts();
      expect(client.cacheHint('prompts/list')).toEqual({ ttlMs: 1_000, cacheScope: 'public' });
      prompts = 'nohint';
      await client.listPrompts();
      expect(client.cacheHint('prompts/list')).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('calls in flight together keep their own input rounds; a call between the rounds carries none', async () => {
    const { transport, wire } = scripted((m) => {
      if (m.method === 'server/discover') return { result: MINIMAL_DISCOVER_RESULT };
      const name = String(m.params?.name);
      if (name === 'between' || m.params?.inputResponses !== undefined) {
        return { result: { content: [{ type: 'text', text: name }] } };
      }
      const ask = { method: 'elicitation/create', params: { message: name } };
      return {
        result: {
          resultType: 'input_required',
          inputRequests: { [`ask_${name}`]: ask },
          requestState: `state-${name}`,
        },
      };
    });
    let between!: () => void;
    const answered = new Promise<void>((resolve) => {
      between = resolve;
    });
    const client = await McpClient.connect(transport, {
      protocol: '2026-07-28',
      handlers: {
        // The user answers only once the unrelated call is done: it goes out between the rounds.
        elicitation: async (params) => {
          await answered;
          return { action: 'accept', content: { who: params.message } };
        },
      },
    });
    try {
      const first = client.callTool('first');
      const second = client.callTool('second');
      await waitFor(
        'both first rounds',
        () => wire.filter((m) => m.method === 'tools/call').length === 2,
      );
      await client.callTool('between');
      between();
      await Promise.all([first, second]);
    } finally {
      await client.close();
    }
    const calls = wire.filter((m) => m.method === 'tools/call');
    const { _meta, ...unrelated } = calls[2]?.params ?? {};
    expect(unrelated).toEqual({ name: 'between', arguments: {} });
    const retries = calls.slice(3).map(({ params }) => ({
      name: params?.name,
      state: params?.requestState,
      answers: params?.inputResponses,
    }));
    expect(retries).toEqual(
      expect.arrayContaining([
        {
          name: 'first',
          state: 'state-first',
          answers: { ask_first: { action: 'accept', content: { who: 'first' } } },
        },
        {
          name: 'second',
          state: 'state-second',
          answers: { ask_second: { action: 'accept', content: { who: 'second' } } },
        },
      ]),
    );
    expect(retries).toHaveLength(2);
    expect(new Set(calls.map((m) => m.id)).size).toBe(calls.length);
  });

  it('a result without resultType is complete: returned as it came, not retried', async () => {
    const { transport, wire } = scripted((m) =>
      m.method === 'server/discover'
        ? { result: MINIMAL_DISCOVER_RESULT }
        : { result: { content: [] } },
    );
    const client = await McpClient.connect(transport, { protocol: '2026-07-28' });
    try {
      await expect(client.callTool('plain')).resolves.toEqual({ content: [] });
    } finally {
      await client.close();
    }
    expect(methods(wire)).toEqual(['server/discover', 'tools/call']);
  });

  it('-32022 naming the version it refused: retried once with it (a mutual version), then refused', async () => {
    const { transport, wire } = scripted(() => unsupported(['2026-07-28']));
    const err = await connect(transport, { protocol: 'auto' });
    expect(UnsupportedVersionError.is(err)).toBe(true);
    expect(requests(wire).map((m) => [m.method, m.params?._meta?.[META.protocolVersion]])).toEqual([
      ['server/discover', '2026-07-28'],
      ['server/discover', '2026-07-28'],
    ]);
  });

  it('input_required no handler answers rejects with InputRequiredError; an unknown resultType is an error', async () => {
    const inputRequired = {
      resultType: 'input_required',
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'who?' } } },
      requestState: 'opaque',
    };
    const { transport } = scripted((m) => {
      if (m.method === 'server/discover') return { result: MINIMAL_DISCOVER_RESULT };
      if (m.params?.name === 'ask') return { result: inputRequired };
      return { result: { resultType: 'later', content: [] } };
    });
    const client = await McpClient.connect(transport, { protocol: '2026-07-28' });
    try {
      const err = await client.callTool('ask').catch((e: unknown) => e);
      expect(InputRequiredError.is(err)).toBe(true);
      expect(err).toMatchObject({ method: 'tools/call', result: inputRequired });
      await expect(client.callTool('other')).rejects.toThrow(/resultType 'later'/);
      // No serverInfo in the discover result: unknown, not invented.
      expect(client.serverInfo).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
