/**
 * HTTP backends as the wire may really bring them: SSE with CRLF line endings, a stream closed
 * mid-call (resumed with Last-Event-ID after the server's retry), change notifications on the
 * session's GET stream, and a session the backend forgot. The gateway runs in-process and is
 * reached the way a user reaches it, with an MCP client over Streamable HTTP.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveHttp } from '@mcpkit/node';
import { defineTool, type McpClient, McpServer, META } from '@mcpkit/protocol';
import { connectRaw, waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway, VERSION } from '../src/gateway.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The gateway over `backendUrl`, served on HTTP, and an McpClient connected to it. */
async function gatewayFor(
  backendUrl: string,
  protocol: 'legacy' | 'auto' = 'legacy',
): Promise<{ client: McpClient; gateway: Gateway }> {
  const gateway = new Gateway(
    parseConfig({ mcpServers: { wire: { url: backendUrl, timeoutMs: 5000, protocol } } }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  const http = await serveHttp(gateway.server);
  const client = await http.connect();
  cleanups.push(async () => {
    await http.close();
    await gateway.stop();
  });
  return { client, gateway };
}

type Body = { id?: number; method?: string; params?: Record<string, unknown> };

/** A backend speaking raw Streamable HTTP, every answer written by hand. */
async function rawBackend(
  answer: (body: Body, req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      if (req.method === 'GET' && !req.headers['last-event-id'])
        return void res.writeHead(405).end();
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const body = (raw ? JSON.parse(raw) : {}) as Body;
      if (req.method === 'POST' && body.id === undefined) return void res.writeHead(202).end();
      answer(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const TOOL = { name: 'echo', description: 'Echo', inputSchema: { type: 'object' } };

/** initialize and tools/list answers for a raw backend with one tool. */
function basics(body: Body): unknown {
  if (body.method === 'initialize') {
    return {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'wire', version: '1' },
    };
  }
  if (body.method === 'tools/list') return { tools: [TOOL] };
  return undefined;
}

const reply = (id: number | undefined, result: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, result });

describe('the gateway in front of an HTTP backend', () => {
  it('reads a backend whose SSE lines end with CRLF', async () => {
    const url = await rawBackend((body, _req, res) => {
      const result = basics(body) ?? {
        content: [{ type: 'text', text: `echo ${JSON.stringify(body.params?.arguments)}` }],
      };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
      res.end(`event: message\r\ndata: ${reply(body.id, result)}\r\n\r\n`);
    });
    const { client, gateway } = await gatewayFor(url);
    expect(gateway.backends.get('wire')?.state).toBe('running');
    const result = await client.callTool('wire__echo', { x: 1 });
    expect(result.content).toEqual([{ type: 'text', text: 'echo {"x":1}' }]);
  });

  it('completes a call whose SSE stream the backend closed mid-call, resuming with Last-Event-ID', async () => {
    const resumedWith: (string | undefined)[] = [];
    let pendingId: number | undefined;
    const url = await rawBackend((body, req, res) => {
      const known = basics(body);
      if (req.method === 'POST' && known !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        return void res.end(reply(body.id, known));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.method === 'POST') {
        pendingId = body.id;
        // A priming event with an id and a retry, then the stream ends without the answer.
        res.write('id: call-1\nretry: 100\ndata: \n\n');
        return void setTimeout(() => res.end(), 20);
      }
      resumedWith.push(req.headers['last-event-id'] as string | undefined);
      res.end(
        `id: call-2\ndata: ${reply(pendingId, { content: [{ type: 'text', text: 'late but here' }] })}\n\n`,
      );
    });
    const { client } = await gatewayFor(url);
    const result = await client.callTool('wire__echo');
    expect(result.content).toEqual([{ type: 'text', text: 'late but here' }]);
    expect(resumedWith).toEqual(['call-1']);
  });

  it("learns of a backend's new tool from list_changed on the backend's GET stream", async () => {
    const backendServer = new McpServer({ name: 'grows', version: '1' }).addTool(
      defineTool({ name: 'first', description: 'First', handler: () => 'one' }),
    );
    const backendHttp = await serveHttp(backendServer);
    cleanups.push(() => backendHttp.close());
    // The backend's GET stream, as the backend's HTTP server took it (seen after its handler).
    let stream: ServerResponse | undefined;
    backendHttp.http.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'GET') stream = res;
    });
    const { client, gateway } = await gatewayFor(backendHttp.mcpUrl);
    const changed: unknown[] = [];
    client.on('notifications/tools/list_changed', () => changed.push(true));
    // The backend's GET stream opens after initialize; wait until the backend holds it (it has
    // answered it: the stream's headers are sent), not 100 ms more.
    await waitFor('the backend running', () => gateway.backends.get('wire')?.state === 'running');
    await waitFor('the backend holding the GET stream', () => stream?.headersSent === true);
    backendServer.addTool(
      defineTool({ name: 'second', description: 'Second', handler: () => 'two' }),
    );
    await waitFor('the new tool through the gateway', async () =>
      (await client.listTools()).some((t) => t.name === 'wire__second'),
    );
    await expect(client.callTool('wire__second')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'two' }],
    });
    expect(changed.length).toBeGreaterThan(0);
  });

  it('reconnects (initialize again) when the backend forgets the session', async () => {
    let sessions = 0;
    let current = '';
    const url = await rawBackend((body, req, res) => {
      if (body.method === 'initialize') {
        current = `s${++sessions}`;
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': current });
        return void res.end(reply(body.id, basics(body)));
      }
      if (
        req.headers['mcp-session-id'] !== current ||
        (body.method === 'tools/call' && sessions === 1)
      ) {
        // A restarted backend: it knows no session any more.
        current = '';
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32001, message: 'Session not found' },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply(body.id, basics(body) ?? { content: [{ type: 'text', text: 'ok' }] }));
    });
    const { client, gateway } = await gatewayFor(url);
    const first = await client.callTool('wire__echo').catch((err: unknown) => err);
    expect(first).toMatchObject({ message: expect.stringMatching(/session/i) });
    await waitFor(
      'a second session',
      () => (sessions === 2 && gateway.backends.get('wire')?.state === 'running') || undefined,
    );
    await expect(client.callTool('wire__echo')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
  });
});

describe('a 2026-07-28 client in front of a backend of either era', () => {
  it.each([
    ['legacy', {}],
    [
      'auto',
      {
        [META.protocolVersion]: '2026-07-28',
        [META.clientCapabilities]: { sampling: {}, elicitation: {} },
        [META.clientInfo]: { name: 'mcpkit-gateway', version: VERSION },
        [META.logLevel]: 'debug',
      },
    ],
  ] as const)(
    "link %s: forwards _meta without the client's envelope: the backend gets trace context and the gateway's own envelope",
    async (protocol, envelope) => {
      const backendServer = new McpServer({ name: 'echo-meta', version: '1' }).addTool(
        defineTool({
          name: 'meta',
          description: "Echoes the request's _meta",
          handler: (_args, ctx) => JSON.stringify(ctx.meta ?? null),
        }),
      );
      const backendHttp = await serveHttp(backendServer);
      cleanups.push(() => backendHttp.close());
      const { gateway } = await gatewayFor(backendHttp.mcpUrl, protocol);
      const peer = connectRaw(gateway.server);
      cleanups.push(() => peer.close());
      const result = await peer.result<{ content: { text: string }[]; resultType?: string }>(
        'tools/call',
        {
          name: 'wire__meta',
          _meta: {
            [META.protocolVersion]: '2026-07-28',
            [META.clientCapabilities]: {},
            [META.clientInfo]: { name: 'modern-client', version: '1' },
            traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          },
        },
      );
      // The client got a modern answer from the gateway …
      expect(result.resultType).toBe('complete');
      // … and the backend saw the trace context, and on a modern link the gateway's envelope —
      // never the client's (its clientInfo, its capabilities).
      expect(JSON.parse(result.content[0]?.text ?? 'null')).toEqual({
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        ...envelope,
      });
    },
  );
});
