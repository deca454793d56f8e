// @module-tag process
/**
 * The real third-party `@modelcontextprotocol/server-everything` behind the gateway, driven by
 * the official SDK client over stdio and Streamable HTTP, and by plain JSON-RPC POSTs. Every
 * answer relayed by the gateway is compared with what the same server answers directly.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type HttpProcess,
  isAlive,
  killGroup,
  postJson,
  removeTempDirs,
  spawnHttpServer,
  tempDir,
  waitFor,
  waitGone,
} from '@mcpkit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const APP = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(APP, 'dist', 'cli.js');
const EVERYTHING = join(
  APP,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const NS = 'everything';
const OWN_TOOLS = ['gateway_status', 'get_events', 'search', 'restart_backend'];
const STATIC_DOC = 'demo://resource/static/document/architecture.md';

interface BackendStatus {
  status: string;
  namespace: string;
  tool_count: number;
  resource_count: number;
  prompt_count: number;
  pid: number | null;
  restarts: number;
  last_error: string | null;
  calls: number;
}
interface Status {
  gateway: { name: string; version: string };
  backends: Record<string, BackendStatus>;
}

let dir: string;
let configFile: string;
/** server-everything without the gateway: what every relayed answer is compared with. */
let direct: Client;
let directTools: Tool[];

beforeAll(async () => {
  dir = tempDir('gateway-everything-');
  configFile = join(dir, 'gateway.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { name: 'mcpkit-gateway' },
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    }),
  );
  // The gateway declares sampling and elicitation upstream (it forwards them), so the reference
  // client does too: server-everything offers its trigger-* tools only to such clients.
  direct = new Client(
    { name: 'reference', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  await direct.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      stderr: 'ignore',
    }),
  );
  directTools = (await direct.listTools()).tools;
});

afterAll(async () => {
  await direct?.close();
  removeTempDirs();
});

/** Kills what a test left behind; a backend runs in its own process group. */
function reap(pids: (number | null | undefined)[]) {
  for (const pid of pids) if (pid && isAlive(pid)) killGroup(pid);
}

/** Whether `pid` is gone within `ms`. */
const goneWithin = async (pid: number, ms: number) => (await waitGone([pid], ms)).length === 0;

async function status(client: Client): Promise<Status> {
  const result = await client.callTool({ name: 'gateway_status', arguments: {} });
  return result.structuredContent as unknown as Status;
}

/** The assertions both SDK transports share. */
function relaysEverything(connect: () => Client, progressSlack: number) {
  it('lists every backend tool under ns__tool with the backend entry untouched', async () => {
    const client = connect();
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...OWN_TOOLS, ...directTools.map((t) => `${NS}__${t.name}`)].sort(),
    );
    for (const tool of directTools) {
      const relayed = tools.find((t) => t.name === `${NS}__${tool.name}`);
      expect(relayed).toEqual({ ...tool, name: `${NS}__${tool.name}` });
    }
    const echo = tools.find((t) => t.name === `${NS}__echo`);
    expect(echo?.description).toBe('Echoes back the input string');
    expect(echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
  });

  it('calls echo', async () => {
    const result = await connect().callTool({
      name: `${NS}__echo`,
      arguments: { message: 'hello through the gateway' },
    });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Echo: hello through the gateway' }],
    });
  });

  it('relays structured content, images and annotations untouched', async () => {
    const client = connect();
    // listTools first: the SDK client validates structuredContent against the outputSchema.
    await client.listTools();
    for (const [name, args] of [
      ['get-structured-content', { location: 'Chicago' }],
      ['get-tiny-image', {}],
      ['get-annotated-message', { messageType: 'success', includeImage: true }],
      ['get-sum', { a: 2, b: 40 }],
    ] as const) {
      const relayed = await client.callTool({ name: `${NS}__${name}`, arguments: args });
      expect(relayed).toEqual(await direct.callTool({ name, arguments: args }));
    }
    const structured = await client.callTool({
      name: `${NS}__get-structured-content`,
      arguments: { location: 'Chicago' },
    });
    expect(structured.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
    const image = await client.callTool({ name: `${NS}__get-tiny-image`, arguments: {} });
    expect(image.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }),
    );
  });

  it("relays the backend's tool errors as they are", async () => {
    const client = connect();
    const relayed = await client.callTool({ name: `${NS}__echo`, arguments: {} });
    expect(relayed.isError).toBe(true);
    expect(relayed).toEqual(await direct.callTool({ name: 'echo', arguments: {} }));
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const err = await connect()
      .callTool({ name: `${NS}__no-such-tool`, arguments: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toContain(`${NS}__no-such-tool`);
  });

  it('lists the prompts under ns__prompt and gets one', async () => {
    const client = connect();
    const relayed = (await client.listPrompts()).prompts;
    const reference = (await direct.listPrompts()).prompts;
    expect(relayed).toEqual(reference.map((p) => ({ ...p, name: `${NS}__${p.name}` })));
    const args = { city: 'Berlin', state: 'BE' };
    const got = await client.getPrompt({ name: `${NS}__args-prompt`, arguments: args });
    expect(got).toEqual(await direct.getPrompt({ name: 'args-prompt', arguments: args }));
    expect(JSON.stringify(got.messages)).toContain('Berlin');
  });

  it("forwards completion of a prompt's argument to the backend", async () => {
    const client = connect();
    const relayed = await client.complete({
      ref: { type: 'ref/prompt', name: `${NS}__completable-prompt` },
      argument: { name: 'department', value: 'E' },
    });
    const reference = await direct.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(reference.completion.values.length).toBeGreaterThan(0);
    expect(relayed.completion.values).toEqual(reference.completion.values);
  });

  it('lists the resources and templates and reads them', async () => {
    const client = connect();
    const resources = (await client.listResources()).resources;
    expect(resources).toEqual((await direct.listResources()).resources);
    expect(resources.map((r) => r.uri)).toContain(STATIC_DOC);
    const templates = (await client.listResourceTemplates()).resourceTemplates;
    expect(templates).toEqual((await direct.listResourceTemplates()).resourceTemplates);

    const read = await client.readResource({ uri: STATIC_DOC });
    expect(read).toEqual(await direct.readResource({ uri: STATIC_DOC }));
    expect(read.contents[0]).toMatchObject({ uri: STATIC_DOC, mimeType: 'text/markdown' });
    expect((read.contents[0] as { text?: string }).text).toContain('Architecture');

    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(dynamic.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/3' });
    expect((dynamic.contents[0] as { text?: string }).text).toMatch(/^Resource 3: /);
  });

  it('relays the progress of a long-running tool to onprogress', async () => {
    const steps = 4;
    const seen: Progress[] = [];
    const result = await connect().callTool(
      { name: `${NS}__trigger-long-running-operation`, arguments: { duration: 0.8, steps } },
      undefined,
      // The SDK's request deadline: a hang guard for a 0.8 s operation through two processes.
      { onprogress: (p) => seen.push(p), timeout: 30_000 },
    );
    expect(result.content).toEqual([
      {
        type: 'text',
        text: `Long running operation completed. Duration: 0.8 seconds, Steps: ${steps}.`,
      },
    ]);
    // The backend sends its last notification right before its result; the SDK client may
    // settle the call first and drop that one, directly as well as through the gateway.
    expect(seen.length).toBeGreaterThanOrEqual(steps - progressSlack);
    expect(seen.length).toBeLessThanOrEqual(steps);
    seen.forEach((p, i) => {
      expect(p).toMatchObject({ progress: i + 1, total: steps });
    });
  });

  it("relays the backend's log messages, with the backend as logger", async () => {
    const client = connect();
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    // Turning simulated logging on sends one message at once, then one every 5 s.
    await client.callTool({ name: `${NS}__toggle-simulated-logging`, arguments: {} });
    try {
      await waitFor('a log message relayed', () => messages.length > 0, 30_000);
    } finally {
      await client.callTool({ name: `${NS}__toggle-simulated-logging`, arguments: {} });
    }
    expect(messages.length).toBeGreaterThan(0);
    expect(messages[0]).toMatchObject({ logger: NS, data: expect.stringMatching(/message/) });
  });

  it('shows the backend running with its counts in gateway_status', async () => {
    const s = await status(connect());
    expect(s.gateway.name).toBe('mcpkit-gateway');
    expect(s.backends[NS]).toMatchObject({
      status: 'running',
      namespace: NS,
      tool_count: directTools.length,
      resource_count: (await direct.listResources()).resources.length,
      prompt_count: (await direct.listPrompts()).prompts.length,
      restarts: 0,
      last_error: null,
    });
    expect(s.backends[NS]?.pid).toEqual(expect.any(Number));
    expect(s.backends[NS]?.calls).toBeGreaterThan(0);
  });
}

describe('server-everything behind the gateway, SDK client over stdio', () => {
  let client: Client;
  let stderr = '';
  let backendPid: number | null = null;
  let gatewayPid: number | undefined;

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--config', configFile, '--events', join(dir, 'stdio.db'), '--log-level', 'warn'],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'everything-test', version: '1.0.0' });
    await client.connect(transport);
    gatewayPid = transport.pid ?? undefined;
    backendPid = (await status(client)).backends[NS]?.pid ?? null;
  });

  afterAll(async () => {
    await client?.close();
    reap([backendPid, gatewayPid]);
  });

  it('initializes as the gateway, with the capabilities it relays', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'mcpkit-gateway', version: '0.1.0' });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: expect.any(Object),
      prompts: expect.any(Object),
      resources: expect.any(Object),
    });
    expect(stderr).not.toMatch(/"level":(50|60)/);
  });

  relaysEverything(() => client, 1);

  it('records the relayed calls in the event log', async () => {
    await client.callTool({ name: `${NS}__echo`, arguments: { message: 'logged' } });
    const result = await client.callTool({
      name: 'get_events',
      arguments: { event_type: 'gateway.tool_call', limit: 1000 },
    });
    const { events } = result.structuredContent as {
      events: { tool: string; backend: string; status: string }[];
    };
    expect(events).toContainEqual(
      expect.objectContaining({ tool: `${NS}__echo`, backend: NS, status: 'success' }),
    );
  });

  it('stops the backend when the client disconnects', async () => {
    expect(backendPid).toEqual(expect.any(Number));
    await client.close();
    expect(await goneWithin(backendPid as number, 30_000)).toBe(true);
    if (gatewayPid !== undefined) expect(await goneWithin(gatewayPid, 30_000)).toBe(true);
  });
});

/** The gateway as an HTTP server on a free port. */
const startHttpGateway = (events: string): Promise<HttpProcess> =>
  spawnHttpServer(
    process.execPath,
    [
      CLI,
      '--config',
      configFile,
      '--events',
      events,
      '--transport',
      'http',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      'info',
    ],
    { timeoutMs: 30_000 },
  );

describe('server-everything behind the gateway over HTTP', () => {
  let gateway: HttpProcess;
  let client: Client;
  let backendPid: number | null = null;

  beforeAll(async () => {
    gateway = await startHttpGateway(join(dir, 'http.db'));
    client = new Client({ name: 'everything-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gateway.url)));
    backendPid = (await status(client)).backends[NS]?.pid ?? null;
  });

  afterAll(async () => {
    await client?.close().catch(() => {});
    if (gateway) {
      gateway.kill();
      await gateway.exited;
    }
    reap([backendPid]);
  });

  it('listens on 127.0.0.1 and serves Streamable HTTP at /mcp', () => {
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'mcpkit-gateway' });
  });

  describe('SDK client over Streamable HTTP', () => {
    relaysEverything(() => client, 1);
  });

  describe('plain JSON-RPC POST /messages/ (as the `POST /messages/` endpoint doc shows)', () => {
    const post = async (body: unknown, path = '/messages/') => {
      const res = await postJson(new URL(path, gateway.url), body);
      return { status: res.status, type: res.headers.get('content-type'), body: res.body };
    };

    it('initializes', async () => {
      const res = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '0' },
        },
      });
      expect(res.status).toBe(200);
      expect(res.type).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: expect.any(String),
          serverInfo: { name: 'mcpkit-gateway' },
          capabilities: { tools: expect.any(Object) },
        },
      });
    });

    it('lists the backend tools', async () => {
      const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(res.status).toBe(200);
      const { result } = res.body as { result: { tools: Tool[] } };
      const echo = directTools.find((t) => t.name === 'echo');
      expect(result.tools.find((t) => t.name === `${NS}__echo`)).toEqual({
        ...echo,
        name: `${NS}__echo`,
      });
      expect(result.tools).toHaveLength(directTools.length + OWN_TOOLS.length);
    });

    it('calls echo, at /messages/ and /messages', async () => {
      for (const path of ['/messages/', '/messages']) {
        const res = await post(
          {
            jsonrpc: '2.0',
            id: 3,
            method: 'tools/call',
            params: { name: `${NS}__echo`, arguments: { message: `plain ${path}` } },
          },
          path,
        );
        expect(res).toEqual({
          status: 200,
          type: expect.stringMatching(/^application\/json/),
          body: {
            jsonrpc: '2.0',
            id: 3,
            result: { content: [{ type: 'text', text: `Echo: plain ${path}` }] },
          },
        });
      }
    });

    it('answers a batch, an unknown tool and a notification', async () => {
      const batch = await post([
        {
          jsonrpc: '2.0',
          id: 'a',
          method: 'tools/call',
          params: { name: `${NS}__get-sum`, arguments: { a: 1, b: 2 } },
        },
        {
          jsonrpc: '2.0',
          id: 'b',
          method: 'tools/call',
          params: { name: `${NS}__missing`, arguments: {} },
        },
      ]);
      expect(batch.status).toBe(200);
      const replies = batch.body as { id: string; result?: unknown; error?: { code: number } }[];
      expect(replies).toHaveLength(2);
      const sum = replies.find((r) => r.id === 'a');
      expect(sum?.result).toEqual(
        await direct.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
      );
      expect(replies.find((r) => r.id === 'b')?.error).toMatchObject({ code: -32601 });

      const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(note.status).toBe(202);
      expect(note.body).toBeUndefined();
    });
  });

  it('shuts down on SIGTERM and stops the backend', async () => {
    await client.close();
    const exited = gateway.exited.then((exit) => exit.code);
    gateway.kill('SIGTERM');
    // Hang guards, not bounds.
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000));
    expect(await Promise.race([exited, timeout])).toBe(0);
    expect(backendPid).toEqual(expect.any(Number));
    expect(await goneWithin(backendPid as number, 30_000)).toBe(true);
  });
});
