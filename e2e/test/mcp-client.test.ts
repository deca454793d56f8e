// @module-tag process
/**
 * Our McpClient against servers we did not write: the official SDK v1 and SDK v2 servers and the
 * reference `@modelcontextprotocol/server-everything`, each over stdio and over Streamable HTTP
 * (stateful: session ids, a GET stream) — tools, progress, sampling, elicitation, roots,
 * resources and their subscriptions, prompts, cancellation.
 */
import { join } from 'node:path';
import {
  type ClientTransport,
  McpClient,
  type McpClientOptions,
  StdioClientTransport,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { E2E, type HttpApp, killAll, startHttpServer, type TransportName } from './helpers.js';

const FIXTURES = join(E2E, 'fixtures');
const EVERYTHING = join(
  E2E,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

afterAll(killAll);

const open: (McpClient | HttpApp)[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) {
    if (thing instanceof McpClient) await thing.close();
    else await thing.stop();
  }
});

/** What the client does when a server asks: a canned model, a user who accepts, two roots. */
const HANDLERS: McpClientOptions['handlers'] = {
  sampling: (params) => {
    const first = params.messages[0]?.content;
    return {
      role: 'assistant',
      model: 'mcpkit-test-model',
      content: { type: 'text', text: `sampled(${first?.type === 'text' ? first.text : '?'})` },
    };
  },
  elicitation: () => ({ action: 'decline' }),
  roots: () => [
    { uri: 'file:///work/alpha', name: 'alpha' },
    { uri: 'file:///work/beta', name: 'beta' },
  ],
};

interface Launch {
  /** Node arguments of the server's stdio form. */
  stdio: string[];
  /** How to start its HTTP form: arguments, environment, where it says its port. */
  http: {
    args: string[];
    env?: Record<string, string>;
    origin?: (stderr: string) => string | undefined;
  };
}

async function connect(name: string, launch: Launch, transport: TransportName): Promise<McpClient> {
  let clientTransport: ClientTransport;
  if (transport === 'stdio') {
    clientTransport = new StdioClientTransport({ command: process.execPath, args: launch.stdio });
  } else {
    const server = await startHttpServer({
      label: name,
      command: process.execPath,
      args: launch.http.args,
      env: { ...ENV, ...launch.http.env },
      ...(launch.http.origin ? { origin: launch.http.origin } : {}),
    });
    open.push(server);
    clientTransport = new StreamableHttpClientTransport({ url: server.mcpUrl });
  }
  const client = await McpClient.connect(clientTransport, {
    clientInfo: { name: 'mcpkit-e2e', version: '0.0.0' },
    handlers: HANDLERS,
    timeoutMs: 20_000,
  });
  open.push(client);
  return client;
}

const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? '').join('');

const SDK_SERVERS: [string, string][] = [
  ['SDK v1 (@modelcontextprotocol/sdk 1.32.2)', 'sdk-v1-server.mjs'],
  ['SDK v2 (@modelcontextprotocol/server 2.4.0)', 'sdk-v2-server.mjs'],
];
const TRANSPORTS: TransportName[] = ['stdio', 'http'];

describe.each(SDK_SERVERS)('McpClient and the %s server', (_name, file) => {
  const launch: Launch = {
    stdio: [join(FIXTURES, file), 'stdio'],
    http: { args: [join(FIXTURES, file), 'http'] },
  };

  it.each(TRANSPORTS)(
    'over %s: tools, progress, sampling, resources, prompts',
    async (transport) => {
      const client = await connect(file, launch, transport);
      expect(client.serverInfo?.name).toMatch(/^sdk-v[12]-fixture$/);
      expect(client.protocolVersion).toBe('2025-11-25');
      await expect(client.ping()).resolves.toEqual({});
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'count', 'ask_model']);
      expect(text(await client.callTool('echo', { text: 'über ✓' }))).toBe('über ✓');

      const progress: number[] = [];
      const counted = await client.callTool(
        'count',
        {},
        { onProgress: (p) => progress.push(p.progress) },
      );
      expect(text(counted)).toBe('counted');
      expect(progress).toEqual([1, 2, 3]);

      const asked = await client.callTool('ask_model', { prompt: 'hi' });
      expect(text(asked)).toBe('model said: sampled(hi)');

      const hello = await client.readResource('fixture://hello');
      expect(hello.contents[0]).toMatchObject({
        uri: 'fixture://hello',
        text: expect.stringMatching(/^hello from v[12]$/),
      });
      const greeting = await client.getPrompt('greet', { name: 'Ada' });
      expect(greeting.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Hello Ada' } },
      ]);

      // The SDK's own errors come back as RpcErrors with its codes.
      await expect(client.callTool('echo', { text: 42 })).resolves.toMatchObject({ isError: true });
      await expect(client.getPrompt('nope')).rejects.toMatchObject({ code: expect.any(Number) });
    },
  );
});

describe('McpClient and @modelcontextprotocol/server-everything', () => {
  const launch: Launch = {
    stdio: [EVERYTHING, 'stdio'],
    http: {
      // It listens on every interface with no host option: the preload binds it to 127.0.0.1
      // and reports the port it got (PORT=0), see fixtures/loopback-only.mjs.
      args: ['--import', join(FIXTURES, 'loopback-only.mjs'), EVERYTHING, 'streamableHttp'],
      env: { PORT: '0' },
      origin: (stderr) => {
        const port = /\{"port":(\d+)\}/.exec(stderr)?.[1];
        return port ? `http://127.0.0.1:${port}` : undefined;
      },
    },
  };

  it.each(TRANSPORTS)('over %s: every feature a client takes part in', async (transport) => {
    const client = await connect('server-everything', launch, transport);
    expect(client.serverInfo?.name).toBe('mcp-servers/everything');

    // Tools that need the client's capabilities are added after initialize, announced with
    // list_changed; they are there once the server has seen what we can do.
    // Waited for (a hang guard), not given 5 s.
    const tools = await waitFor(
      'the capability-gated tools',
      async () => {
        const names = (await client.listTools()).map((t) => t.name);
        return names.includes('trigger-sampling-request') ? names : undefined;
      },
      30_000,
      50,
    );
    expect(tools).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request', 'get-roots-list']),
    );

    expect(text(await client.callTool('echo', { message: 'hello' }))).toBe('Echo: hello');

    const progress: number[] = [];
    const long = await client.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(text(long)).toContain('Long running operation completed');
    // Every update, before the result (our client handles messages in the order they arrive).
    expect(progress).toEqual([1, 2, 3]);

    const sampled = await client.callTool('trigger-sampling-request', { prompt: 'knock knock' });
    expect(text(sampled)).toContain('sampled(');

    const elicited = await client.callTool('trigger-elicitation-request', {});
    expect(text(elicited)).toContain('declined');

    const roots = await client.callTool('get-roots-list', {});
    expect(text(roots)).toContain('file:///work/alpha');

    const resources = await client.listResources();
    const uri = resources[0]?.uri as string;
    expect(uri).toMatch(/^demo:\/\/resource\//);
    const updates: unknown[] = [];
    client.on('notifications/resources/updated', (params) => updates.push(params?.uri));
    await client.subscribe(uri);
    await client.callTool('toggle-subscriber-updates', {});
    try {
      await waitFor('a resource update', () => updates.length > 0, 30_000);
    } finally {
      await client.callTool('toggle-subscriber-updates', {});
    }
    expect(updates).toContain(uri);
    await client.unsubscribe(uri);

    // Cancelled by our signal: the server is told, and the client stays usable.
    const controller = new AbortController();
    const cancelled = client.callTool(
      'trigger-long-running-operation',
      { duration: 10, steps: 2 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('stop')), 100);
    await expect(cancelled).rejects.toThrow('stop');
    await expect(client.ping()).resolves.toEqual({});
  });
});
