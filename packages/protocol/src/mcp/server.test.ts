import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import { RpcError } from '../jsonrpc/errors.js';
import { method, type RequestContext } from '../jsonrpc/method.js';
import { connectRaw, type RawPeer } from '../testing/raw.js';
import type { McpCallExtra } from './context.js';
import { definePrompt } from './prompt.js';
import { defineResource, defineResourceTemplate } from './resource.js';
import { McpServer, type McpServerOptions } from './server.js';
import type { AuthInfo } from './session.js';
import { defineTool, type Tool, ToolError } from './tool.js';
import type { CallToolResult } from './types.js';

interface ToolsList {
  tools: Record<string, unknown>[];
  nextCursor?: string;
}

const base: McpServerOptions = { name: 'test-server', version: '1.2.3' };

const add = defineTool({
  name: 'add',
  title: 'Add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number().describe('first addend'), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  handler: ({ a, b }) => ({ sum: a + b }),
});

const echo = defineTool({
  name: 'echo',
  description: 'Echo a message',
  inputSchema: z.object({ message: z.string(), times: z.number().int().optional() }),
  handler: ({ message, times }) => message.repeat(times ?? 1),
});

function simpleTool(name: string, requiredScopes?: string[]): Tool {
  return defineTool({
    name,
    description: `The ${name} tool`,
    handler: () => name,
    ...(requiredScopes ? { requiredScopes } : {}),
  });
}

function textOf(result: CallToolResult): string {
  const [block, ...rest] = result.content;
  expect(rest).toEqual([]);
  if (block?.type !== 'text') throw new Error(`expected one text block: ${JSON.stringify(result)}`);
  return block.text;
}

// ---------------------------------------------------------------------------------------------

/** Hold the server's lists (`holdLists`) until the returned function is called. */
function hold(server: McpServer): () => void {
  let release!: () => void;
  server.holdLists(
    new Promise<void>((resolve) => {
      release = resolve;
    }),
  );
  return release;
}
describe('initialize', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    'echoes the supported version %s',
    async (version) => {
      const server = new McpServer(base);
      const client = connectRaw(server);
      const result = await client.result('initialize', {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      });
      expect(result.protocolVersion).toBe(version);
      expect(client.session.protocolVersion).toBe(version);
      expect(client.session.initializeAnswered).toBe(true);
    },
  );

  it('offers the newest version when the client asks for an unknown one', async () => {
    const client = connectRaw(new McpServer(base));
    const result = await client.result('initialize', {
      protocolVersion: '1999-01-01',
      capabilities: {},
    });
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(client.session.protocolVersion).toBe('2025-11-25');
  });

  it('records the client info and capabilities on the session', async () => {
    const client = connectRaw(new McpServer(base));
    await client.result('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { sampling: {}, roots: { listChanged: true } },
      clientInfo: { name: 'inspector', version: '9.9.9' },
    });
    expect(client.session.clientInfo).toEqual({ name: 'inspector', version: '9.9.9' });
    expect(client.session.clientCapabilities).toEqual({
      sampling: {},
      roots: { listChanged: true },
    });
  });

  it('returns serverInfo with every identity field given and the instructions', async () => {
    const server = new McpServer({
      name: 'acme',
      version: '3.0.0',
      title: 'Acme Server',
      description: 'Does acme things',
      websiteUrl: 'https://acme.example',
      icons: [{ src: 'https://acme.example/icon.png', mimeType: 'image/png' }],
      instructions: 'Call list_widgets first.',
    });
    const result = await connectRaw(server).result('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
    });
    expect(result.serverInfo).toEqual({
      name: 'acme',
      version: '3.0.0',
      title: 'Acme Server',
      description: 'Does acme things',
      websiteUrl: 'https://acme.example',
      icons: [{ src: 'https://acme.example/icon.png', mimeType: 'image/png' }],
    });
    expect(result.instructions).toBe('Call list_widgets first.');
  });

  it('omits instructions and optional identity fields that were not configured', async () => {
    const result = await connectRaw(new McpServer(base)).result('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
    });
    expect(result.serverInfo).toEqual({ name: 'test-server', version: '1.2.3' });
    expect(result).not.toHaveProperty('instructions');
  });

  it('derives capabilities from what is registered: tools only', async () => {
    const server = new McpServer(base).addTool(add);
    const result = await connectRaw(server).result('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
    });
    expect(result.capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
  });

  it('advertises resources once a resource or a template is registered', async () => {
    const withResource = new McpServer(base).addResource(
      defineResource({ uri: 'mem://a', name: 'a', read: () => 'a' }),
    );
    const withTemplate = new McpServer(base).addResourceTemplate(
      defineResourceTemplate({ uriTemplate: 'mem://{id}', name: 't', read: () => 'x' }),
    );
    for (const server of [withResource, withTemplate]) {
      const result = await connectRaw(server).result<{ capabilities: Record<string, unknown> }>(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {} },
      );
      expect(result.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
      expect(result.capabilities).not.toHaveProperty('prompts');
      expect(result.capabilities).not.toHaveProperty('completions');
    }
  });

  it('advertises prompts without completions when no completer exists', async () => {
    const server = new McpServer(base).addPrompt(
      definePrompt({
        name: 'greet',
        arguments: z.object({ who: z.string() }),
        get: ({ who }) => `Hello ${who}`,
      }),
    );
    const result = await connectRaw(server).result<{ capabilities: Record<string, unknown> }>(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {} },
    );
    expect(result.capabilities.prompts).toEqual({ listChanged: true });
    expect(result.capabilities).not.toHaveProperty('resources');
    expect(result.capabilities).not.toHaveProperty('completions');
  });

  it('advertises completions when a prompt or a template has a completer', async () => {
    const promptServer = new McpServer(base).addPrompt(
      definePrompt({
        name: 'greet',
        arguments: z.object({ who: z.string() }),
        complete: { who: () => ['world'] },
        get: ({ who }) => `Hello ${who}`,
      }),
    );
    const templateServer = new McpServer(base).addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'mem://{id}',
        name: 't',
        complete: { id: () => ['1'] },
        read: () => 'x',
      }),
    );
    for (const server of [promptServer, templateServer]) {
      const result = await connectRaw(server).result<{ capabilities: Record<string, unknown> }>(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {} },
      );
      expect(result.capabilities.completions).toEqual({});
    }
  });

  it('rejects initialize without protocolVersion with -32602', async () => {
    const client = connectRaw(new McpServer(base));
    const error = await client.error('initialize', { capabilities: {} });
    expect(error.code).toBe(-32602);
    expect(client.session.initializeAnswered).toBe(false);
  });

  it.each(['notifications/initialized', 'initialized'])(
    '%s marks the session initialized and gets no reply',
    async (name) => {
      const client = connectRaw(new McpServer(base));
      await client.result('initialize', { protocolVersion: '2025-11-25', capabilities: {} });
      expect(client.session.initialized).toBe(false);
      const reply = await client.send({ jsonrpc: '2.0', method: name });
      expect(reply).toBeUndefined();
      expect(client.session.initialized).toBe(true);
    },
  );
});

describe('ping and logging/setLevel', () => {
  it('answers ping with exactly {}', async () => {
    const reply = await connectRaw(new McpServer(base)).request('ping');
    expect(reply.result).toStrictEqual({});
    expect(reply).not.toHaveProperty('error');
  });

  it('stores the log level and answers {}', async () => {
    const client = connectRaw(new McpServer(base));
    const reply = await client.request('logging/setLevel', { level: 'warning' });
    expect(reply.result).toStrictEqual({});
    expect(client.session.logLevel).toBe('warning');
  });

  it('rejects an unknown level with -32602 and keeps the previous one', async () => {
    const client = connectRaw(new McpServer(base));
    await client.result('logging/setLevel', { level: 'error' });
    const error = await client.error('logging/setLevel', { level: 'verbose' });
    expect(error.code).toBe(-32602);
    expect(client.session.logLevel).toBe('error');
  });
});

describe('tools/list', () => {
  it('lists name, title, description, JSON Schemas and annotations', async () => {
    const server = new McpServer(base).addTool(add, echo);
    const { tools } = await connectRaw(server).result<ToolsList>('tools/list');
    expect(tools.map((t) => t.name)).toEqual(['add', 'echo']);
    const [listedAdd, listedEcho] = tools;
    expect(listedAdd).toMatchObject({
      name: 'add',
      title: 'Add',
      description: 'Add two numbers',
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
    expect(listedAdd?.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'number', description: 'first addend' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(listedAdd?.outputSchema).toMatchObject({
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
    expect(listedAdd?.outputSchema).not.toHaveProperty('$schema');

    expect(listedEcho).not.toHaveProperty('title');
    expect(listedEcho).not.toHaveProperty('outputSchema');
    expect(listedEcho).not.toHaveProperty('annotations');
    // int() bounds of ±(2^53 - 1) are dropped; optional fields are not required.
    expect(listedEcho?.inputSchema).toEqual({
      type: 'object',
      properties: { message: { type: 'string' }, times: { type: 'integer' } },
      required: ['message'],
    });
  });

  it('lists a tool without inputSchema with an empty object schema', async () => {
    const server = new McpServer(base).addTool(simpleTool('noargs'));
    const { tools } = await connectRaw(server).result<ToolsList>('tools/list');
    expect(tools[0]?.inputSchema).toEqual({ type: 'object', properties: {}, required: [] });
  });

  it('pages through 5 tools two at a time with a chain of cursors', async () => {
    const server = new McpServer({ ...base, pageSize: 2 });
    for (const name of ['t1', 't2', 't3', 't4', 't5']) server.addTool(simpleTool(name));
    const client = connectRaw(server);

    const first = await client.result<ToolsList>('tools/list');
    expect(first.tools.map((t) => t.name)).toEqual(['t1', 't2']);
    expect(typeof first.nextCursor).toBe('string');

    const second = await client.result<ToolsList>('tools/list', { cursor: first.nextCursor });
    expect(second.tools.map((t) => t.name)).toEqual(['t3', 't4']);
    expect(typeof second.nextCursor).toBe('string');
    expect(second.nextCursor).not.toBe(first.nextCursor);

    const third = await client.result<ToolsList>('tools/list', { cursor: second.nextCursor });
    expect(third.tools.map((t) => t.name)).toEqual(['t5']);
    expect(third).not.toHaveProperty('nextCursor');
  });

  it('has no nextCursor when everything fits on one page', async () => {
    const server = new McpServer({ ...base, pageSize: 2 }).addTool(
      simpleTool('a'),
      simpleTool('b'),
    );
    const page = await connectRaw(server).result<ToolsList>('tools/list');
    expect(page.tools).toHaveLength(2);
    expect(page).not.toHaveProperty('nextCursor');
  });

  it.each([
    'not-a-cursor',
    Buffer.from('o:99').toString('base64url'),
    Buffer.from('o:-1').toString('base64url'),
    '',
  ])('rejects the invalid cursor %j with -32602', async (cursor) => {
    const server = new McpServer({ ...base, pageSize: 2 });
    for (const name of ['t1', 't2', 't3']) server.addTool(simpleTool(name));
    const error = await connectRaw(server).error('tools/list', { cursor });
    expect(error.code).toBe(-32602);
  });
});

describe('tools/call', () => {
  const call = (client: RawPeer, name: string, args?: unknown) =>
    client.result<CallToolResult>(
      'tools/call',
      args === undefined ? { name } : { name, arguments: args },
    );

  it('rejects an unknown tool with -32602', async () => {
    const error = await connectRaw(new McpServer(base).addTool(add)).error('tools/call', {
      name: 'nope',
      arguments: {},
    });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('nope');
  });

  it('answers invalid arguments with an isError result naming the field', async () => {
    const handler = vi.fn(() => 'unreachable');
    const tool = defineTool({
      name: 'greet',
      description: 'Greets',
      inputSchema: z.object({ name: z.string(), age: z.number() }),
      handler,
    });
    const client = connectRaw(new McpServer(base).addTool(tool));
    const result = await call(client, 'greet', { name: 'Ada', age: 'old' });
    expect(result.isError).toBe(true);
    const message = textOf(result);
    expect(message).toContain('age');
    expect(message).not.toContain('name:');
    expect(result.structuredContent).toMatchObject({
      error: 'invalid_arguments',
      issues: [{ path: 'age' }],
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('treats missing arguments as {}', async () => {
    const seen: unknown[] = [];
    const optional = defineTool({
      name: 'opt',
      description: 'Optional args',
      inputSchema: z.object({ n: z.number().optional() }),
      handler: (args) => {
        seen.push(args);
        return 'ok';
      },
    });
    const required = defineTool({
      name: 'req',
      description: 'Required args',
      inputSchema: z.object({ n: z.number() }),
      handler: () => 'unreachable',
    });
    const raw = defineTool({
      name: 'raw',
      description: 'No input schema',
      handler: (args) => {
        seen.push(args);
        return 'raw';
      },
    });
    const client = connectRaw(new McpServer(base).addTool(optional, required, raw));

    const ok = await call(client, 'opt');
    expect(ok).toEqual({ content: [{ type: 'text', text: 'ok' }], isError: false });
    await call(client, 'raw');
    expect(seen).toStrictEqual([{}, {}]);

    // Validated as {} — a tool error about the field, not a JSON-RPC error.
    const bad = await call(client, 'req');
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for tool req: n: /);
  });

  it('turns a string return into one text block', async () => {
    const client = connectRaw(new McpServer(base).addTool(echo));
    const result = await call(client, 'echo', { message: 'ab', times: 3 });
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'ababab' }], isError: false });
  });

  it('turns an object return into JSON text plus structuredContent', async () => {
    const tool = defineTool({
      name: 'stats',
      description: 'Stats',
      handler: () => ({ count: 2, names: ['a', 'b'] }),
    });
    const result = await call(connectRaw(new McpServer(base).addTool(tool)), 'stats', {});
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ count: 2, names: ['a', 'b'] });
    expect(JSON.parse(textOf(result))).toEqual({ count: 2, names: ['a', 'b'] });
  });

  it('passes a CallToolResult through unchanged', async () => {
    const tool = defineTool({
      name: 'img',
      description: 'An image',
      handler: () => ({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
    });
    const result = await call(connectRaw(new McpServer(base).addTool(tool)), 'img', {});
    expect(result).toEqual({
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      isError: false,
    });
    expect(result).not.toHaveProperty('structuredContent');
  });

  it('returns structuredContent and text for a tool with an outputSchema', async () => {
    const client = connectRaw(new McpServer(base).addTool(add));
    const result = await call(client, 'add', { a: 2, b: 40 });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ sum: 42 }) }]);
  });

  it('answers -32603 when the output does not match the outputSchema', async () => {
    const logger: EngineLogger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const liar = defineTool({
      name: 'liar',
      description: 'Returns the wrong shape',
      outputSchema: z.object({ sum: z.number() }),
      handler: () => ({ sum: 'not a number' }) as unknown as { sum: number },
    });
    const client = connectRaw(new McpServer({ ...base, logger }).addTool(liar));
    const error = await client.error('tools/call', { name: 'liar', arguments: {} });
    expect(error.code).toBe(-32603);
    expect(logger.error).toHaveBeenCalled();
  });

  it('answers a ToolError as an isError result carrying its message', async () => {
    const tool = defineTool({
      name: 'fail',
      description: 'Fails',
      handler: () => {
        throw new ToolError('Project 42 does not exist', { projectId: 42 });
      },
    });
    const result = await call(connectRaw(new McpServer(base).addTool(tool)), 'fail', {});
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Project 42 does not exist' }],
      isError: true,
      structuredContent: { projectId: 42 },
    });
  });

  it('answers a plain Error with a generic message that does not leak it', async () => {
    const logger: EngineLogger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const tool = defineTool({
      name: 'crash',
      description: 'Crashes',
      handler: async () => {
        throw new Error('connection to postgres://admin:hunter2@db failed');
      },
    });
    const client = connectRaw(new McpServer({ ...base, logger }).addTool(tool));
    const reply = await client.request<CallToolResult>('tools/call', {
      name: 'crash',
      arguments: {},
    });
    expect(reply).not.toHaveProperty('error');
    if (!reply.result) throw new Error('expected a result');
    expect(reply.result.isError).toBe(true);
    expect(textOf(reply.result)).toContain('crash');
    const serialized = JSON.stringify(reply);
    expect(serialized).not.toContain('hunter2');
    expect(serialized).not.toContain('postgres');
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('turns a thrown RpcError into a JSON-RPC error with its code and data', async () => {
    const tool = defineTool({
      name: 'limited',
      description: 'Rate limited',
      handler: () => {
        throw new RpcError(-32001, 'Quota exceeded', { retryAfter: 30 });
      },
    });
    const error = await connectRaw(new McpServer(base).addTool(tool)).error('tools/call', {
      name: 'limited',
      arguments: {},
    });
    expect(error).toEqual({ code: -32001, message: 'Quota exceeded', data: { retryAfter: 30 } });
  });

  it('answers a synchronous handler (served without a promise) as it answers an async one', async () => {
    const outcomes: Record<string, () => unknown> = {
      value: () => 'five',
      toolError: () => {
        throw new ToolError('Project 42 does not exist', { projectId: 42 });
      },
      rpcError: () => {
        throw new RpcError(-32001, 'Quota exceeded', { retryAfter: 30 });
      },
      crash: () => {
        throw new Error('boom');
      },
    };
    const quiet: EngineLogger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const reply = async (handler: () => unknown, inputSchema?: z.ZodType<object>) => {
      const tool = defineTool({
        name: 't',
        description: 'One outcome',
        ...(inputSchema ? { inputSchema } : {}),
        handler,
      } as Parameters<typeof defineTool>[0]);
      const client = connectRaw(new McpServer({ ...base, logger: quiet }).addTool(tool));
      return client.request('tools/call', { name: 't', arguments: {} });
    };
    // An input schema that zod can only check asynchronously takes the promise path too.
    const later = z.object({}).refine(async () => true);
    const expected: Record<string, object> = {
      value: { result: { content: [{ type: 'text', text: 'five' }], isError: false } },
      toolError: { result: { isError: true, structuredContent: { projectId: 42 } } },
      rpcError: { error: { code: -32001, data: { retryAfter: 30 } } },
      crash: { result: { isError: true } },
    };
    for (const [name, outcome] of Object.entries(outcomes)) {
      const sync = await reply(outcome);
      expect(sync, name).toMatchObject(expected[name] as object);
      expect(await reply(async () => outcome()), name).toEqual(sync);
      expect(await reply(outcome, later), name).toEqual(sync);
    }
  });

  it('accepts positional params [name, arguments]', async () => {
    const client = connectRaw(new McpServer(base).addTool(add));
    const result = await client.result<CallToolResult>('tools/call', ['add', { a: 1, b: 2 }]);
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it('rejects non-object arguments with -32602', async () => {
    const client = connectRaw(new McpServer(base).addTool(add));
    const error = await client.error('tools/call', { name: 'add', arguments: [1, 2] });
    expect(error.code).toBe(-32602);
  });
});

describe('scopes', () => {
  const sensitive = simpleTool('x', ['sensitive']);
  const core = simpleTool('core_tool', ['core']);
  const open = simpleTool('open_tool');
  const auth = (...scopes: string[]): AuthInfo => ({ subject: 'user-1', scopes: new Set(scopes) });

  it('refuses a tool whose scope the server does not enable, with the default error', async () => {
    const server = new McpServer({ ...base, scopes: ['core'] }).addTool(sensitive, core, open);
    const client = connectRaw(server);
    const error = await client.error('tools/call', { name: 'x', arguments: {} });
    expect(error).toEqual({
      code: -32600,
      message: "Tool 'x' requires scope 'sensitive' which is not granted",
      data: { tool: 'x', scope: 'sensitive', deniedBy: 'server' },
    });
    await expect(client.result('tools/call', { name: 'core_tool' })).resolves.toMatchObject({
      isError: false,
    });
    await expect(client.result('tools/call', { name: 'open_tool' })).resolves.toMatchObject({
      isError: false,
    });
  });

  it('uses a custom errors.scopeDenied', async () => {
    const scopeError = vi.fn(
      (tool: string, scope: string) => new RpcError(-32003, 'Forbidden', { tool, scope }),
    );
    const server = new McpServer({
      ...base,
      scopes: ['core'],
      errors: { scopeDenied: scopeError },
    }).addTool(sensitive);
    const error = await connectRaw(server).error('tools/call', { name: 'x', arguments: {} });
    expect(error).toEqual({
      code: -32003,
      message: 'Forbidden',
      data: { tool: 'x', scope: 'sensitive' },
    });
    expect(scopeError).toHaveBeenCalledWith('x', 'sensitive', 'server');
  });

  it("checks the caller's scopes from extra.auth", async () => {
    const server = new McpServer(base).addTool(sensitive);
    const denied = await connectRaw(server, { auth: auth('core') }).error('tools/call', {
      name: 'x',
    });
    // The server enables every scope (it names none): the token is what lacks it.
    expect(denied).toEqual({
      code: -32600,
      message: "Tool 'x' requires scope 'sensitive' which is not granted to this token",
      data: { tool: 'x', scope: 'sensitive', deniedBy: 'caller' },
    });
    const allowed = await connectRaw(server, { auth: auth('core', 'sensitive') }).result(
      'tools/call',
      { name: 'x' },
    );
    expect(allowed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'x' }] });
    // No auth and no server scopes: nothing restricts the call.
    await expect(connectRaw(server).result('tools/call', { name: 'x' })).resolves.toMatchObject({
      isError: false,
    });
  });

  it('intersects caller scopes with the server scopes', async () => {
    const server = new McpServer({ ...base, scopes: ['core'] }).addTool(sensitive);
    const error = await connectRaw(server, { auth: auth('core', 'sensitive') }).error(
      'tools/call',
      {
        name: 'x',
      },
    );
    expect(error.message).toBe("Tool 'x' requires scope 'sensitive' which is not granted");
  });

  it('lists every tool by default and only permitted ones with listPermittedToolsOnly', async () => {
    const all = new McpServer({ ...base, scopes: ['core'] }).addTool(sensitive, core, open);
    const allList = await connectRaw(all).result<ToolsList>('tools/list');
    expect(allList.tools.map((t) => t.name)).toEqual(['x', 'core_tool', 'open_tool']);

    const filtered = new McpServer({
      ...base,
      scopes: ['core'],
      listPermittedToolsOnly: true,
    }).addTool(sensitive, core, open);
    const list = await connectRaw(filtered).result<ToolsList>('tools/list');
    expect(list.tools.map((t) => t.name)).toEqual(['core_tool', 'open_tool']);
  });

  it('filters tools/list by the caller auth with listPermittedToolsOnly', async () => {
    const server = new McpServer({ ...base, listPermittedToolsOnly: true }).addTool(
      sensitive,
      open,
    );
    const withScope = await connectRaw(server, { auth: auth('sensitive') }).result<ToolsList>(
      'tools/list',
    );
    expect(withScope.tools.map((t) => t.name)).toEqual(['x', 'open_tool']);
    const without = await connectRaw(server, { auth: auth() }).result<ToolsList>('tools/list');
    expect(without.tools.map((t) => t.name)).toEqual(['open_tool']);
  });

  it('filters tools/list per caller with listFilter (a gateway rule)', async () => {
    const server = new McpServer({
      ...base,
      listFilter: (tool, who) => tool.name !== 'x' || who?.subject === 'ann',
    }).addTool(sensitive, open);
    const ann = await connectRaw(server, {
      auth: { subject: 'ann', scopes: new Set(['sensitive']) },
    });
    expect((await ann.result<ToolsList>('tools/list')).tools.map((t) => t.name)).toEqual([
      'x',
      'open_tool',
    ]);
    const bob = await connectRaw(server, {
      auth: { subject: 'bob', scopes: new Set(['sensitive']) },
    });
    expect((await bob.result<ToolsList>('tools/list')).tools.map((t) => t.name)).toEqual([
      'open_tool',
    ]);
  });
});

describe('registry changes', () => {
  const listChanged = { method: 'notifications/tools/list_changed' };

  it('notifies initialized sessions, and only them, when a tool is added or removed', async () => {
    const server = new McpServer(base).addTool(add);
    const ready = connectRaw(server);
    const pending = connectRaw(server);
    await ready.initialize();
    await pending.result('initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    expect(ready.notifications).toEqual([]);

    server.addTool(echo);
    await ready.settle();
    expect(ready.notifications).toEqual([listChanged]);
    expect(pending.notifications).toEqual([]);

    expect(server.removeTool('echo')).toBe(true);
    await ready.settle();
    expect(ready.notifications).toEqual([listChanged, listChanged]);
    expect(pending.notifications).toEqual([]);

    const { tools } = await ready.result<ToolsList>('tools/list');
    expect(tools.map((t) => t.name)).toEqual(['add']);
  });

  it('tells each list once for the changes made in one go', async () => {
    const server = new McpServer(base).addTool(add);
    const client = connectRaw(server);
    await client.initialize();
    server.removeTool('add');
    server.addTool(add, echo);
    server.addPrompt(definePrompt({ name: 'p', get: () => 'x' }));
    server.removePrompt('p');
    await client.settle();
    expect(client.notifications.map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
  });

  it('holds lists and calls to unknown tools until what it waits for settles (holdLists)', async () => {
    const server = new McpServer(base).addTool(add);
    const release = hold(server);
    const client = connectRaw(server);
    await client.initialize();
    const listed = client.result<ToolsList>('tools/list');
    const called = client.request('tools/call', { name: 'echo', arguments: { message: 'late' } });
    let settled = false;
    void listed.then(() => {
      settled = true;
    });
    // Everything else is answered meanwhile.
    await expect(client.result('ping')).resolves.toEqual({});
    await client.settle();
    expect(settled).toBe(false);
    server.addTool(echo);
    await client.settle();
    release();
    expect((await listed).tools.map((t) => t.name)).toEqual(['add', 'echo']);
    // The held list carried the change: no list_changed for it.
    expect(client.notifications).toEqual([]);
    expect((await called).result).toMatchObject({ content: [{ type: 'text', text: 'late' }] });
    // Once released, an unknown tool is unknown at once.
    await expect(client.error('tools/call', { name: 'missing' })).resolves.toMatchObject({
      code: -32602,
    });
  });

  it('answers a request whose id a stray or late cancellation named (MCP: such a cancellation is ignored)', async () => {
    const server = new McpServer(base).addTool(
      defineTool({ name: 'note', description: 'Answers', handler: () => 'ran' }),
    );
    const client = connectRaw(server);
    await client.initialize();
    // A cancellation of a request never sent, and one that crossed its request's response.
    await client.notify('notifications/cancelled', { requestId: 41 });
    const first = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'note' } };
    expect(JSON.parse((await client.send({ ...first, id: 42 })) as string)).toMatchObject({
      id: 42,
      result: {},
    });
    await client.notify('notifications/cancelled', { requestId: 42 });
    // Later requests taking those ids (which a client should not reuse) are answered all the same.
    for (const [id, method] of [
      [41, 'tools/list'],
      [42, 'ping'],
    ] as const) {
      const reply = await client.send({ jsonrpc: '2.0', id, method });
      expect(JSON.parse(reply as string)).toMatchObject({ id, result: {} });
    }
    // notifications/cancelled sent as a request naming its own id: answered like any request.
    const self = await client.send({
      jsonrpc: '2.0',
      id: 43,
      method: 'notifications/cancelled',
      params: { requestId: 43 },
    });
    expect(JSON.parse(self as string)).toMatchObject({ id: 43, result: null });
    await client.close();
  });

  it('neither runs nor answers a call cancelled while the server held it (holdLists)', async () => {
    const ran: string[] = [];
    const server = new McpServer(base).addTool(
      defineTool({
        name: 'note',
        description: 'Notes that it ran',
        handler: (args) => {
          ran.push(String(args.tag));
          return 'ran';
        },
      }),
    );
    const release = hold(server);
    const client = connectRaw(server);
    await client.initialize();
    const call = { jsonrpc: '2.0', method: 'tools/call' };
    const cancelledCall = client.send({
      ...call,
      id: 7,
      params: { name: 'note', arguments: { tag: 'cancelled' } },
    });
    const kept = client.send({
      ...call,
      id: 8,
      params: { name: 'note', arguments: { tag: 'kept' } },
    });
    await client.settle();
    await client.notify('notifications/cancelled', { requestId: 7 });
    release();
    expect(JSON.parse((await kept) as string)).toMatchObject({ id: 8, result: {} });
    await client.settle();
    expect(ran).toEqual(['kept']);
    expect(client.received.map((text) => (JSON.parse(text) as { id?: unknown }).id)).not.toContain(
      7,
    );
    await client.close();
    await expect(cancelledCall).resolves.toBeUndefined();
  });

  it('declares resources, prompts and completions before any is registered when asked to', () => {
    expect(new McpServer(base).capabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
    });
    expect(
      new McpServer({
        ...base,
        declare: { resources: true, prompts: true, completions: true },
      }).capabilities(),
    ).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it('sends nothing when removing a tool that does not exist', async () => {
    const server = new McpServer(base).addTool(add);
    const client = connectRaw(server);
    await client.initialize();
    expect(server.removeTool('missing')).toBe(false);
    await client.settle();
    expect(client.notifications).toEqual([]);
  });

  it('stops notifying a closed session', async () => {
    const server = new McpServer(base);
    const client = connectRaw(server);
    await client.initialize();
    await client.close();
    expect(server.sessionCount).toBe(0);
    server.addTool(add);
    await client.settle();
    expect(client.notifications).toEqual([]);
  });

  it('notifies prompts and resources list changes too', async () => {
    const server = new McpServer(base);
    const client = connectRaw(server);
    await client.initialize();
    server.addPrompt(definePrompt({ name: 'p', get: () => 'x' }));
    server.addResource(defineResource({ uri: 'mem://a', name: 'a', read: () => 'a' }));
    await client.settle();
    expect(client.notifications.map((n) => n.method)).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
  });

  it('throws on a duplicate tool name', () => {
    const server = new McpServer(base).addTool(add);
    expect(() => server.addTool(simpleTool('add'))).toThrow(/already registered/);
    expect(server.getTool('add')).toBe(add);
  });

  it('dispatches methods added with addMethods, with the session as extra', async () => {
    const server = new McpServer(base).addMethods(
      method('custom/whoami', (_params, ctx: RequestContext<McpCallExtra>) => ({
        session: ctx.extra.session.id,
      })),
    );
    const client = connectRaw(server);
    await expect(client.result('custom/whoami')).resolves.toEqual({ session: client.session.id });
    expect((await client.error('custom/missing')).code).toBe(-32601);
  });
});

describe('outputSchema is what goes out', () => {
  it('strips keys the schema does not declare, from plain and full results', async () => {
    const server = new McpServer({ name: 's', version: '1' }).addTool(
      defineTool({
        name: 'leaky',
        description: 'returns more than it declares',
        outputSchema: z.object({ ok: z.boolean() }),
        handler: () => ({ ok: true, secret: 'internal' }),
      }),
      defineTool({
        name: 'leaky_full',
        description: 'returns a full result with more than it declares',
        outputSchema: z.object({ ok: z.boolean() }),
        handler: () => ({
          content: [{ type: 'text' as const, text: 'custom' }],
          structuredContent: { ok: true, secret: 'internal' },
        }),
      }),
    );
    const client = connectRaw(server);
    for (const name of ['leaky', 'leaky_full']) {
      const text = await client.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name },
      });
      expect(text).not.toContain('internal');
      expect(JSON.parse(text as string).result.structuredContent).toEqual({ ok: true });
    }
  });
});

describe('gateway hooks: raw tools, aliases, the unknown-tool error', () => {
  const raw: Tool = {
    name: 'ns__echo',
    inputSchema: undefined,
    outputSchema: undefined,
    requiredScopes: [],
    listEntry: { name: 'ns__echo', description: 'forwarded', inputSchema: { type: 'object' } },
    raw: true,
    handler: () => ({ content: [{ type: 'video', uri: 'x' }], _meta: { hop: 1 } }),
  };
  const server = new McpServer({
    name: 'g',
    version: '1',
    toolAlias: (name) => (name === 'ns:echo' ? 'ns__echo' : undefined),
    errors: { unknownTool: (name) => new RpcError(-32601, `Tool not found: ${name}`) },
  }).addTool(raw);
  const client = connectRaw(server);
  const call = (name: string) => client.request('tools/call', { name });

  it('sends a raw tool’s result exactly as returned, by its name or its alias', async () => {
    for (const name of ['ns__echo', 'ns:echo']) {
      expect((await call(name)).result).toEqual({
        content: [{ type: 'video', uri: 'x' }],
        _meta: { hop: 1 },
      });
    }
  });

  it('answers an unknown tool with the configured error', async () => {
    expect((await call('unknown_tool')).error).toEqual({
      code: -32601,
      message: 'Tool not found: unknown_tool',
    });
  });
});
