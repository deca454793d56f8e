// @module-tag process
/**
 * McpClient against our fixture server, over stdio (a real child process) and over Streamable
 * HTTP: every server feature through the typed API, plus what only a client sees — progress per
 * call, cancellation, deadlines, the server's own requests, notifications as events.
 */
import { fileURLToPath } from 'node:url';
import {
  type ClientTransport,
  McpClient,
  RequestTimeoutError,
  RpcError,
  StdioClientTransport,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../src/fixtures/everything.js';
import { type ServedHttp, serveHttp } from '../src/http/serve.js';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));

function newClient(): { client: McpClient; logs: unknown[]; asked: string[] } {
  const asked: string[] = [];
  const client = new McpClient({
    clientInfo: { name: 'mcpkit-e2e', version: '1.0.0' },
    handlers: {
      sampling: (params) => {
        asked.push('sampling');
        const first = params.messages[0]?.content;
        return {
          model: 'test-model',
          role: 'assistant',
          content: { type: 'text', text: `echo: ${first?.type === 'text' ? first.text : '?'}` },
        };
      },
      elicitation: () => {
        asked.push('elicitation');
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      },
      roots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
    },
  });
  const logs: unknown[] = [];
  client.on('notifications/message', (params) => logs.push(params?.data));
  return { client, logs, asked };
}

function suite(name: string, transport: () => Promise<ClientTransport>) {
  describe(`McpClient over ${name}`, () => {
    const { client, logs, asked } = newClient();
    beforeAll(async () => {
      await client.connect(await transport());
    });
    afterAll(async () => {
      await client.close();
    });

    it('initializes: version, server info, capabilities, instructions', () => {
      expect(client.protocolVersion).toBe('2025-11-25');
      expect(client.serverInfo).toEqual({ name: 'mcpkit-everything', version: '0.1.0' });
      expect(client.serverCapabilities).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true },
        logging: {},
        completions: {},
      });
      expect(client.instructions).toContain('conformance');
    });

    it('answers ping', async () => {
      await expect(client.ping()).resolves.toEqual({});
    });

    it('lists tools and calls one with structured output', async () => {
      const tools = await client.listTools();
      const add = tools.find((t) => t.name === 'add');
      expect(add?.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
      const result = await client.callTool('add', { a: 2, b: 40 });
      expect(result.structuredContent).toEqual({ sum: 42 });
      expect(result.isError).toBe(false);
    });

    it('returns a tool failure as a result, and a protocol error as a rejection', async () => {
      const failed = await client.callTool('test_error_handling');
      expect(failed.isError).toBe(true);
      const unknown = await client.callTool('no_such_tool').catch((err: unknown) => err);
      expect(RpcError.is(unknown)).toBe(true);
      expect((unknown as RpcError).code).toBe(-32602);
    });

    it('delivers every progress update of a call to that call, in order, before its result', async () => {
      const progress: number[] = [];
      const result = await client.callTool(
        'test_tool_with_progress',
        {},
        { onProgress: (p) => progress.push(p.progress) },
      );
      expect(progress).toEqual([0, 50, 100]);
      // The fixture echoes the token it received: one was attached for us.
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^\d+$/) }]);
    });

    it('receives log messages at the level it set, as events', async () => {
      await client.setLoggingLevel('info');
      logs.length = 0;
      await client.callTool('test_tool_with_logging');
      await new Promise((r) => setTimeout(r, 20));
      expect(logs).toEqual([
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]);
      await client.setLoggingLevel('error');
      logs.length = 0;
      await client.callTool('test_tool_with_logging');
      expect(logs).toEqual([]);
    });

    it('answers sampling and elicitation requests through its handlers', async () => {
      const sampled = await client.callTool('test_sampling', { prompt: 'hello' });
      expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo: hello' }]);
      const elicited = await client.callTool('test_elicitation', { message: 'who?' });
      expect(JSON.stringify(elicited.content)).toContain('ada@example.com');
      expect(asked).toEqual(['sampling', 'elicitation']);
    });

    it('cancels a call by its signal; the server stops it and the connection stays usable', async () => {
      const controller = new AbortController();
      const pending = client.callTool('wait_for_cancel', {}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('enough')), 50);
      await expect(pending).rejects.toThrow('enough');
      await expect(client.ping()).resolves.toEqual({});
      expect(client.pendingCount).toBe(0);
    });

    it('gives up on a call after its own deadline', async () => {
      const err = await client
        .callTool('wait_for_cancel', {}, { timeoutMs: 100 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RequestTimeoutError);
      await expect(client.ping()).resolves.toEqual({});
    });

    it('lists and reads resources and templates; unknown ones reject with the server error', async () => {
      const resources = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('test://static-text');
      const templates = await client.listResourceTemplates();
      expect(templates[0]?.uriTemplate).toBe('test://template/{id}/data');
      const text = await client.readResource('test://static-text');
      expect(text.contents[0]).toMatchObject({ text: expect.stringContaining('static text') });
      const templated = await client.readResource('test://template/42/data');
      expect(JSON.parse((templated.contents[0] as { text: string }).text)).toMatchObject({
        id: '42',
      });
      await expect(client.readResource('test://nope')).rejects.toMatchObject({ code: -32002 });
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

    it('subscribes and unsubscribes', async () => {
      await expect(client.subscribe('test://watched-resource')).resolves.toBeUndefined();
      await expect(client.unsubscribe('test://watched-resource')).resolves.toBeUndefined();
    });

    it('runs many calls at once and matches every answer to its call', async () => {
      const sums = await Promise.all(
        Array.from({ length: 200 }, (_, i) => client.callTool('add', { a: i, b: 1 })),
      );
      expect(sums.map((r) => r.structuredContent?.sum)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    });
  });
}

suite('stdio', async () => {
  return new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
  });
});

let http: ServedHttp | undefined;
suite('Streamable HTTP', async () => {
  http = await serveHttp(createEverythingServer());
  return new StreamableHttpClientTransport({ url: http.mcpUrl });
});

describe('McpClient over Streamable HTTP, resumption', () => {
  it('resumes a call whose SSE stream the server closed mid-call (GET + Last-Event-ID)', async () => {
    const served = await serveHttp(createEverythingServer());
    try {
      const client = await served.connect();
      const result = await client.callTool('test_reconnection');
      expect(result.content[0]).toMatchObject({
        text: expect.stringContaining('properly reconnected'),
      });
    } finally {
      await served.close();
    }
  });
});

describe('McpClient over stdio, process handling', () => {
  it('keeps reading answers while its own requests wait for the pipe (no deadlock at 10,000 in flight)', async () => {
    const client = await McpClient.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
      }),
    );
    try {
      // ~1 MB of requests each way: far beyond a pipe's buffer, so both sides push back.
      const sums = await Promise.all(
        Array.from({ length: 10_000 }, (_, i) => client.callTool('add', { a: i, b: 1 })),
      );
      expect(sums.every((r, i) => r.structuredContent?.sum === i + 1)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('reports how the server exited and rejects calls in flight when it dies', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
    });
    const client = await McpClient.connect(transport);
    const pending = client.callTool('wait_for_cancel');
    process.kill(transport.pid as number, 'SIGKILL');
    await expect(pending).rejects.toThrow(/closed/);
    await expect(transport.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    await client.closed;
  });

  it('fails to connect with the reason when the command does not exist', async () => {
    const transport = new StdioClientTransport({ command: '/nonexistent/mcp-server' });
    await expect(McpClient.connect(transport)).rejects.toThrow(/connection closed: .*ENOENT/);
    await expect(transport.exited).resolves.toMatchObject({
      error: expect.stringMatching(/ENOENT/),
    });
  });

  it('captures stderr and gives the child only the minimal environment plus its own', async () => {
    process.env.MCPKIT_TEST_SECRET = 'do-not-leak';
    const chunks: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '-e',
        "process.stderr.write(JSON.stringify({secret: process.env.MCPKIT_TEST_SECRET ?? null, own: process.env.OWN ?? null})); process.stdin.resume(); process.stdin.on('end', () => process.exit(0))",
      ],
      env: { OWN: 'yes' },
      onStderr: (chunk) => chunks.push(chunk),
    });
    const client = new McpClient({ initializeTimeoutMs: 300 });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(RequestTimeoutError);
    await transport.exited;
    delete process.env.MCPKIT_TEST_SECRET;
    expect(JSON.parse(chunks.join(''))).toEqual({ secret: null, own: 'yes' });
    expect(transport.stderrTail).toBe(chunks.join(''));
  });
});

afterAll(async () => {
  await http?.close();
});
