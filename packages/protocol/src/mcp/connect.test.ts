import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeFrame } from '../jsonrpc/codec.js';
import { JsonRpcConnection } from '../jsonrpc/connection.js';
import { createJsonRpcServer } from '../jsonrpc/server.js';
import type { FrameSink } from '../jsonrpc/transport.js';
import { connectRaw } from '../testing/raw.js';
import { createLinkedTransports } from '../transports/memory.js';
import { definePrompt } from './prompt.js';
import { defineResource, defineResourceTemplate } from './resource.js';
import { McpServer } from './server.js';
import type { AuthInfo } from './session.js';
import { defineTool } from './tool.js';
import type { ServerPort, ServerTransport } from './transport.js';
import type { CallToolResult } from './types.js';

const base = { name: 'connect-test', version: '1.0.0' };
const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => String(a + b),
});
const whoami = defineTool({
  name: 'whoami',
  description: 'Who the call is from',
  handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody',
});
const secret = defineTool({
  name: 'secret',
  description: 'Needs scope admin',
  requiredScopes: ['admin'],
  handler: () => 'the secret',
});
const textOf = (result: CallToolResult | undefined) =>
  result?.content[0]?.type === 'text' ? result.content[0].text : undefined;
const auth = (subject: string, ...scopes: string[]): AuthInfo => ({
  subject,
  scopes: new Set(scopes),
});

describe('connect() over a channel transport', () => {
  it('serves a client like stdio does: one session, calls both ways, closed on EOF', async () => {
    const server = new McpServer(base).addTool(add);
    const [clientSide, serverSide] = createLinkedTransports();
    const connection = server.connect(serverSide);
    expect(server.sessionCount).toBe(1);

    // The client end is an ordinary JSON-RPC connection: it does not know it is in memory.
    const client = new JsonRpcConnection({ transport: clientSide }).start();
    const init = await client.request<{ protocolVersion: string; serverInfo: unknown }>(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    );
    expect(init.protocolVersion).toBe('2025-11-25');
    expect(init.serverInfo).toEqual({ name: 'connect-test', version: '1.0.0' });
    client.notify('notifications/initialized');
    const result = await client.request<CallToolResult>('tools/call', {
      name: 'add',
      arguments: { a: 2, b: 3 },
    });
    expect(textOf(result)).toBe('5');
    expect(connection.session.initialized).toBe(true);
    expect(connection.session.clientInfo).toEqual({ name: 'c', version: '1' });

    await client.close();
    await connection.closed;
    expect(connection.session.closed).toBe(true);
    expect(server.sessionCount).toBe(0);
  });

  it('gives every connection a session of its own', async () => {
    const server = new McpServer(base);
    const a = connectRaw(server);
    const b = connectRaw(server);
    expect(a.session).not.toBe(b.session);
    expect(server.sessionCount).toBe(2);
    await a.request('logging/setLevel', { level: 'error' });
    expect(a.session.logLevel).toBe('error');
    expect(b.session.logLevel).toBeUndefined();
    await a.close();
    expect(server.sessionCount).toBe(1);
    await b.close();
    expect(server.sessionCount).toBe(0);
  });

  it('close() from the server side lets a running call answer, then ends the client', async () => {
    let release!: () => void;
    const server = new McpServer(base).addTool(
      defineTool({
        name: 'slow',
        description: 'Waits for the test',
        handler: () => new Promise<string>((resolve) => (release = () => resolve('finished'))),
      }),
    );
    const [clientSide, serverSide] = createLinkedTransports();
    const connection = server.connect(serverSide);
    const frames: string[] = [];
    let ended = false;
    const sink: FrameSink = {
      frame: (text) => frames.push(text),
      rejected: () => {},
      end: () => {
        ended = true;
      },
    };
    clientSide.start(sink);
    clientSide.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}');
    await new Promise((resolve) => setTimeout(resolve, 5));

    const closing = connection.close();
    expect(ended).toBe(false);
    release();
    await closing;
    expect(frames.map((f) => JSON.parse(f).id)).toEqual([7]);
    expect(JSON.parse(frames[0] as string).result.content[0].text).toBe('finished');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(true);
    expect(server.sessionCount).toBe(0);
  });

  it('aborts calls still running when the client is gone longer than drainTimeoutMs', async () => {
    let aborted = false;
    const server = new McpServer(base).addTool(
      defineTool({
        name: 'forever',
        description: 'Runs until aborted',
        handler: (_args, ctx) =>
          new Promise<string>((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              resolve('stopped');
            });
          }),
      }),
    );
    const peer = connectRaw(server, { drainTimeoutMs: 20 });
    const pending = peer.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever"}}',
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    await peer.close();
    expect(aborted).toBe(true);
    // An aborted call is not answered.
    await expect(pending).resolves.toBeUndefined();
    expect(peer.received).toEqual([]);
    expect(server.sessionCount).toBe(0);
  });

  it('passes auth to every call of the connection', async () => {
    const server = new McpServer(base).addTool(whoami, secret);
    const admin = connectRaw(server, { auth: auth('ada', 'admin') });
    const guest = connectRaw(server, { auth: auth('bob') });
    const anonymous = connectRaw(server);
    const call = async (peer: typeof admin, name: string) =>
      (await peer.request<CallToolResult>('tools/call', { name })).result;

    expect(textOf(await call(admin, 'whoami'))).toBe('ada');
    expect(textOf(await call(guest, 'whoami'))).toBe('bob');
    expect(textOf(await call(anonymous, 'whoami'))).toBe('nobody');
    expect(textOf(await call(admin, 'secret'))).toBe('the secret');
    const denied = await guest.request('tools/call', { name: 'secret' });
    expect(denied.error?.code).toBe(-32600);
    // No auth and no server-wide scopes: nothing restricts the call.
    expect(textOf(await call(anonymous, 'secret'))).toBe('the secret');
  });

  it('tells the client when it stops waiting for an answer (notifications/cancelled)', async () => {
    const server = new McpServer(base).addTool(
      defineTool({
        name: 'ask',
        description: 'Asks the client to sample',
        handler: async (_args, ctx) => {
          try {
            await ctx.sample({ messages: [], maxTokens: 1 });
            return 'answered';
          } catch (err) {
            return `gave up: ${(err as Error).message}`;
          }
        },
      }),
    );
    // The client never answers.
    const peer = connectRaw(server, {
      requestTimeoutMs: 20,
      onRequest: () => new Promise(() => {}),
    });
    await peer.initialize({ capabilities: { sampling: {} } });
    const reply = await peer.request<CallToolResult>('tools/call', { name: 'ask' });
    expect(textOf(reply.result)).toMatch(/^gave up/);
    expect(peer.requests.map((r) => r.method)).toEqual(['sampling/createMessage']);
    expect(peer.notifications).toEqual([
      {
        method: 'notifications/cancelled',
        params: { requestId: peer.requests[0]?.id, reason: 'request timeout' },
      },
    ]);
  });
});

describe('list changes reach connected clients', () => {
  const readme = defineResource({ uri: 'docs://readme', name: 'readme', read: () => '# hi' });
  const user = defineResourceTemplate({
    uriTemplate: 'users://{id}',
    name: 'user',
    read: (uri) => uri,
  });
  const greet = definePrompt({ name: 'greet', get: () => 'Hello' });
  const changed = (kind: string) => ({ method: `notifications/${kind}/list_changed` });

  async function setup() {
    const server = new McpServer(base);
    const ready = connectRaw(server);
    await ready.initialize();
    // Not initialized yet: told nothing (MCP: no notifications before initialized).
    const early = connectRaw(server);
    return { server, ready, early };
  }

  it('after adding and removing a tool', async () => {
    const { server, ready, early } = await setup();
    server.addTool(add);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('tools')]);
    expect(server.removeTool('add')).toBe(true);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('tools'), changed('tools')]);
    expect(early.notifications).toEqual([]);
  });

  it('after adding and removing a resource', async () => {
    const { server, ready, early } = await setup();
    server.addResource(readme);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('resources')]);
    expect(server.removeResource('docs://readme')).toBe(true);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('resources'), changed('resources')]);
    expect(early.notifications).toEqual([]);
  });

  it('after adding and removing a resource template', async () => {
    const { server, ready, early } = await setup();
    server.addResourceTemplate(user);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('resources')]);
    expect(server.listResourceTemplates()).toEqual([user]);
    expect(server.removeResourceTemplate('users://{id}')).toBe(true);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('resources'), changed('resources')]);
    expect(early.notifications).toEqual([]);
  });

  it('after adding and removing a prompt', async () => {
    const { server, ready, early } = await setup();
    server.addPrompt(greet);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('prompts')]);
    expect(server.removePrompt('greet')).toBe(true);
    await ready.settle();
    expect(ready.notifications).toEqual([changed('prompts'), changed('prompts')]);
    expect(early.notifications).toEqual([]);
  });

  it('not when nothing changed: an unknown name removed, an empty add', async () => {
    const { server, ready } = await setup();
    expect(server.removeTool('nope')).toBe(false);
    expect(server.removeResource('docs://nope')).toBe(false);
    expect(server.removeResourceTemplate('nope://{x}')).toBe(false);
    expect(server.removePrompt('nope')).toBe(false);
    server.addTool().addResource().addResourceTemplate().addPrompt();
    await ready.settle();
    expect(ready.notifications).toEqual([]);
  });

  it('a rejected add registers nothing and tells nobody', async () => {
    const { server, ready } = await setup();
    server.addTool(add).addResource(readme).addResourceTemplate(user).addPrompt(greet);
    await ready.settle();
    ready.notifications.length = 0;
    const other = defineTool({ name: 'other', description: 'x', handler: () => 'x' });
    expect(() => server.addTool(other, add)).toThrow(/tool 'add' is already registered/);
    expect(() => server.addTool(other, other)).toThrow(/already registered/);
    expect(() => server.addResource(readme)).toThrow(/already registered/);
    expect(() => server.addResourceTemplate(user)).toThrow(/already registered/);
    expect(() => server.addPrompt(greet)).toThrow(/already registered/);
    expect(server.listTools().map((t) => t.name)).toEqual(['add']);
    expect(server.getTool('other')).toBeUndefined();
    expect(server.listResources()).toEqual([readme]);
    expect(server.listResourceTemplates()).toEqual([user]);
    expect(server.listPrompts()).toEqual([greet]);
    await ready.settle();
    expect(ready.notifications).toEqual([]);
  });

  it('the lists are copies: changing one changes nothing on the server', async () => {
    const server = new McpServer(base).addTool(add);
    const tools = server.listTools();
    tools.length = 0;
    expect(server.listTools()).toEqual([add]);
    const list = await connectRaw(server).request<{ tools: unknown[] }>('tools/list');
    expect(list.result?.tools).toHaveLength(1);
  });
});

describe('sendLogMessage', () => {
  it('reaches every connected client whose log level lets it through', async () => {
    const server = new McpServer(base);
    const all = connectRaw(server);
    const errorsOnly = connectRaw(server);
    await errorsOnly.request('logging/setLevel', { level: 'error' });
    expect(server.sendLogMessage('info', 'hello', 'backend')).toBe(1);
    expect(server.sendLogMessage('critical', { disk: 'full' })).toBe(2);
    await all.settle();
    expect(all.notifications).toEqual([
      {
        method: 'notifications/message',
        params: { level: 'info', logger: 'backend', data: 'hello' },
      },
      { method: 'notifications/message', params: { level: 'critical', data: { disk: 'full' } } },
    ]);
    expect(errorsOnly.notifications).toEqual([
      { method: 'notifications/message', params: { level: 'critical', data: { disk: 'full' } } },
    ]);
  });
});

describe('connect() of a request-based transport', () => {
  /** A transport that answers frames handed to it, each with a session of its own. */
  class Direct implements ServerTransport {
    port: ServerPort | undefined;
    attach(port: ServerPort): void {
      this.port = port;
    }
  }

  it('attaches it, returns it, and serves through its port', async () => {
    const server = new McpServer(base).addTool(whoami);
    const transport = server.connect(new Direct());
    const port = transport.port as ServerPort;
    const session = port.openSession();
    expect(server.sessionCount).toBe(1);
    const reply = await port.dispatch(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}',
      { session, auth: auth('carol') },
    );
    expect(JSON.parse(reply as string).result.content[0].text).toBe('carol');
    // A decoded frame works as well as text.
    const decoded = decodeFrame('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    expect(await port.dispatch(decoded, { session })).toBe('{"jsonrpc":"2.0","id":2,"result":{}}');
    port.closeSession(session);
    expect(session.closed).toBe(true);
    expect(server.sessionCount).toBe(0);
  });

  it('routes the client’s answers to the server’s requests to onResponse', async () => {
    const server = new McpServer(base);
    const port = server.connect(new Direct()).port as ServerPort;
    const session = port.openSession();
    const seen: unknown[] = [];
    const reply = await port.dispatch(
      '{"jsonrpc":"2.0","id":"s-1","result":{"ok":true}}',
      {
        session,
      },
      (response) => seen.push(response),
    );
    expect(reply).toBeUndefined();
    expect(seen).toEqual([{ jsonrpc: '2.0', id: 's-1', result: { ok: true } }]);
  });
});

describe('createJsonRpcServer is not an MCP server', () => {
  it('has no MCP methods', async () => {
    const [clientSide, serverSide] = createLinkedTransports();
    new JsonRpcConnection({ transport: serverSide, dispatcher: createJsonRpcServer() }).start();
    const client = new JsonRpcConnection({ transport: clientSide }).start();
    await expect(client.request('initialize', {})).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });
});
