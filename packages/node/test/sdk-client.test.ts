// @module-tag process
/**
 * The official SDK Client (`@modelcontextprotocol/sdk`) against our fixture server, over stdio
 * (a real child process) and over Streamable HTTP: what a real MCP host does.
 */
import { fileURLToPath } from 'node:url';
import { waitFor } from '@mcpkit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../src/fixtures/everything.js';
import { type ServedHttp, serveHttp } from '../src/http/serve.js';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));

function newClient(): { client: Client; logs: unknown[] } {
  const client = new Client(
    { name: 'sdk-e2e', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    model: 'test-model',
    role: 'assistant',
    content: {
      type: 'text',
      text: `echo: ${(request.params.messages[0]?.content as { text?: string } | undefined)?.text}`,
    },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { username: 'ada', email: 'ada@example.com' },
  }));
  return { client, logs };
}

function suite(name: string, connect: (client: Client) => Promise<void>) {
  describe(`SDK client over ${name}`, () => {
    const { client, logs } = newClient();
    beforeAll(async () => {
      await connect(client);
    });
    afterAll(async () => {
      await client.close();
    });

    it('initializes and sees the server and its capabilities', () => {
      expect(client.getServerVersion()).toEqual({ name: 'mcpkit-everything', version: '0.1.0' });
      expect(client.getServerCapabilities()).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true },
        prompts: {},
        logging: {},
        completions: {},
      });
      expect(client.getInstructions()).toContain('conformance');
    });

    it('answers ping', async () => {
      await expect(client.ping()).resolves.toEqual({});
    });

    it('lists tools with JSON Schemas and calls one with structured output', async () => {
      const { tools } = await client.listTools();
      const add = tools.find((t) => t.name === 'add');
      expect(add?.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
      expect(add?.outputSchema).toMatchObject({
        type: 'object',
        properties: { sum: { type: 'number' } },
      });
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
      expect(result.content).toEqual([{ type: 'text', text: '{"sum":42}' }]);
    });

    it('reports invalid arguments as a tool error the model can read', async () => {
      const result = await client.callTool({ name: 'add', arguments: { a: 'two' } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/a: .*number/i);
    });

    it('receives progress notifications during a call', async () => {
      // The SDK handles a notification a microtask after reading it but a response at once, so
      // updates that reach it in the same read as the result are dropped
      // (modelcontextprotocol/typescript-sdk#2580): on a starved machine that can be all three.
      // Each call's updates must be in order; some call must deliver them. Our wire order itself
      // is checked, deterministically, in mcp-stdio.test.ts.
      const delivered: number[][] = [];
      while (delivered.length < 5 && !delivered.some((p) => p.length > 0)) {
        const progress: number[] = [];
        await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
          onprogress: (p) => progress.push(p.progress),
        });
        delivered.push(progress);
      }
      for (const progress of delivered) {
        expect(progress).toEqual([0, 50, 100].slice(0, progress.length));
      }
      expect(
        delivered.some((p) => p.length > 0),
        JSON.stringify(delivered),
      ).toBe(true);
    });

    it('receives log messages at the level it set', async () => {
      await client.setLoggingLevel('info');
      logs.length = 0;
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      await new Promise((r) => setTimeout(r, 50));
      expect(logs).toEqual([
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]);
      await client.setLoggingLevel('error');
      logs.length = 0;
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logs).toEqual([]);
    });

    it('answers sampling and elicitation requests the server sends mid-call', async () => {
      const sampled = await client.callTool({
        name: 'test_sampling',
        arguments: { prompt: 'hello' },
      });
      expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo: hello' }]);
      const elicited = await client.callTool({
        name: 'test_elicitation',
        arguments: { message: 'who?' },
      });
      expect(JSON.stringify(elicited.content)).toContain('ada@example.com');
    });

    it('cancels a running call', async () => {
      const controller = new AbortController();
      const pending = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
        signal: controller.signal,
      });
      const count = async () => {
        const result = await client.callTool({ name: 'cancelled_calls', arguments: {} });
        return Number((result.content as { text: string }[])[0]?.text);
      };
      const before = await count();
      setTimeout(() => controller.abort('enough'), 50);
      await expect(pending).rejects.toThrow('enough');
      // The server heard it: the call's signal aborted there (a cancelled call sends no answer).
      await waitFor('the server-side cancellation', async () =>
        (await count()) === before + 1 ? true : undefined,
      );
      // The connection stays usable.
      await expect(client.ping()).resolves.toEqual({});
    });

    it('lists and reads resources, including a template', async () => {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('test://static-text');
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates[0]?.uriTemplate).toBe('test://template/{id}/data');
      const text = await client.readResource({ uri: 'test://static-text' });
      expect(text.contents).toEqual([
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ]);
      const templated = await client.readResource({ uri: 'test://template/42/data' });
      expect(JSON.parse((templated.contents[0] as { text: string }).text)).toMatchObject({
        id: '42',
      });
      await expect(client.readResource({ uri: 'test://nope' })).rejects.toThrow(
        /Resource not found/,
      );
    });

    it('gets prompts with arguments and completes them', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.find((p) => p.name === 'test_prompt_with_arguments')?.arguments).toEqual([
        { name: 'arg1', description: 'First argument', required: true },
        { name: 'arg2', description: 'Second argument', required: true },
      ]);
      const prompt = await client.getPrompt({
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'x', arg2: 'y' },
      });
      expect(prompt.messages).toEqual([
        {
          role: 'user',
          content: { type: 'text', text: "Prompt with arguments: arg1='x', arg2='y'" },
        },
      ]);
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'testi' },
      });
      expect(completion.completion.values).toEqual(['testing']);
    });

    it('subscribes and unsubscribes', async () => {
      await expect(client.subscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual(
        {},
      );
      await expect(client.unsubscribeResource({ uri: 'test://watched-resource' })).resolves.toEqual(
        {},
      );
    });
  });
}

suite('stdio', async (client) => {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, '--transport', 'stdio', '--log-level', 'warn'],
      stderr: 'pipe',
    }),
  );
});

let http: ServedHttp | undefined;
suite('Streamable HTTP', async (client) => {
  http = await serveHttp(createEverythingServer());
  await client.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
});

afterAll(async () => {
  await http?.close();
});
