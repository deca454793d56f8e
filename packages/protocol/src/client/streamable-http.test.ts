import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcError } from '../jsonrpc/errors.js';
import {
  type ScriptedHandler,
  type ScriptedRequest,
  scriptHttp,
  stopScriptedHttp,
  watchAbortListeners,
} from '../testing/scripted-http.js';
import { McpClient } from './client.js';
import { TransportError } from './errors.js';
import { StreamableHttpClientTransport } from './streamable-http.js';

afterEach(stopScriptedHttp);

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted', version: '1' },
};

/** Answers initialize (with a session id) and notifications; the rest goes to `then`. */
function lifecycle(then: ScriptedHandler, sessionId = 'sess-1'): ScriptedHandler {
  return (req, res, seen) => {
    if (req.method === 'POST' && seen.body?.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: seen.body.id, result: INIT }));
    } else if (req.method === 'POST' && seen.body?.id === undefined) {
      res.writeHead(202).end();
    } else if (req.method === 'DELETE') {
      res.writeHead(200).end();
    } else {
      then(req, res, seen);
    }
  };
}

const result = (id: number | undefined, value: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: value });

describe('StreamableHttpClientTransport', () => {
  it('reads SSE whose lines end with CRLF', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res, seen) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n\r\n`,
        );
        res.end(`event: message\r\ndata: ${result(seen.body?.id, { tools: [] })}\r\n\r\n`);
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    const logs: unknown[] = [];
    client.on('notifications/message', (p) => logs.push(p?.data));
    await expect(client.listTools()).resolves.toEqual([]);
    expect(logs).toEqual(['hi']);
    await client.close();
  });

  it('sends the session id and protocol version after initialize, and DELETE on close', async () => {
    const { url, seen } = await scriptHttp(
      lifecycle((req, res, s) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(result(s.body?.id, {}));
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    await client.ping();
    await client.close();
    const [init, initialized, ...rest] = seen;
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(initialized?.body?.method).toBe('notifications/initialized');
    for (const later of [initialized, ...rest]) {
      expect(later?.headers['mcp-session-id']).toBe('sess-1');
      expect(later?.headers['mcp-protocol-version']).toBe('2025-11-25');
    }
    expect(seen.map((s) => s.method)).toContain('DELETE');
    // initialized reached the server before the first request went out.
    const ping = seen.find((s) => s.body?.method === 'ping');
    expect(seen.indexOf(ping as ScriptedRequest)).toBeGreaterThan(
      seen.indexOf(initialized as ScriptedRequest),
    );
  });

  it('names the method (and the tool, prompt or resource) of every POST in headers, initialize included', async () => {
    const { url, seen } = await scriptHttp(
      lifecycle((req, res, s) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(result(s.body?.id, { content: [], messages: [], contents: [] }));
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    await client.callTool('get_weather', { city: 'Oslo' });
    await client.getPrompt('résumé');
    await client.readResource('file:///a%20b.txt?x=1');
    await client.close();
    const posts = seen
      .filter((s) => s.method === 'POST')
      .map((s) => [s.body?.method, s.headers['mcp-method'], s.headers['mcp-name']]);
    expect(posts).toEqual([
      ['initialize', 'initialize', undefined],
      ['notifications/initialized', 'notifications/initialized', undefined],
      ['tools/call', 'tools/call', 'get_weather'],
      ['prompts/get', 'prompts/get', `=?base64?${Buffer.from('résumé').toString('base64')}?=`],
      ['resources/read', 'resources/read', 'file:///a%20b.txt?x=1'],
    ]);
  });

  it('gives each POST a signal of its own, so no abort listener piles up on one (many calls)', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res, s) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        // Half the answers as SSE streams, half as JSON: both ways a response ends.
        if (Number(s.body?.id) % 2 === 0) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return void res.end(`event: message\ndata: ${result(s.body?.id, {})}\n\n`);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(result(s.body?.id, {}));
      }),
    );
    // fetch keeps a listener on the signal it is given until the request is collected: those of
    // the per-request signals are left out; any other signal must not gain one per request.
    const real = globalThis.fetch;
    const signals: AbortSignal[] = [];
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      if (init?.method === 'POST' && init.signal) signals.push(init.signal);
      return real(input, init);
    });
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    const watch = watchAbortListeners();
    try {
      for (let i = 0; i < 30; i++) await client.ping();
      await Promise.all(Array.from({ length: 20 }, () => client.ping()));
    } finally {
      watch.stop();
      spy.mockRestore();
    }
    await client.close();
    expect(signals.length).toBeGreaterThanOrEqual(50);
    expect(new Set(signals).size).toBe(signals.length);
    expect(watch.most(new Set(signals))).toBeLessThan(3);
  });

  it('gives up a POST still in flight when the transport closes: its connection is dropped', async () => {
    let held = 0;
    let dropped = 0;
    const { url } = await scriptHttp(
      lifecycle((req, res) => {
        if (req.method === 'GET') return;
        held++; // never answered
        res.on('close', () => dropped++);
      }),
    );
    const transport = new StreamableHttpClientTransport({ url, openStream: false });
    const client = await McpClient.connect(transport);
    const pending = client.ping().then(
      () => 'answered',
      (err: unknown) => err,
    );
    await vi.waitFor(() => expect(held).toBe(1));
    await client.close();
    expect(await pending).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(dropped).toBe(1));
  });

  it('resumes a stream that ended before its answer, after the retry the server set, with Last-Event-ID', async () => {
    let closedAt = 0;
    let callId: number | undefined;
    const { url, seen } = await scriptHttp(
      lifecycle((req, res, s) => {
        if (req.method === 'GET' && !req.headers['last-event-id']) {
          return void res.writeHead(405).end();
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (req.method === 'POST') {
          callId = s.body?.id;
          // Priming event: an id and empty data, with the reconnection delay; then close.
          res.write('id: ev-1\nretry: 300\ndata: \n\n');
          setTimeout(() => {
            closedAt = Date.now();
            res.end();
          }, 20);
          return;
        }
        // The resumed stream answers the call and, like a session's GET stream, stays open.
        res.write(`id: ev-2\ndata: ${result(callId, { content: [], isError: false })}\n\n`);
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    // The wait is the delay the transport scheduled (the server's `retry`), not a measured one.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      await expect(client.callTool('x')).resolves.toEqual({ content: [], isError: false });
      expect(timers.mock.calls.map(([, ms]) => ms)).toContain(300);
    } finally {
      timers.mockRestore();
    }
    const resume = seen.find((s) => s.method === 'GET' && s.headers['last-event-id']);
    expect(resume?.headers['last-event-id']).toBe('ev-1');
    expect(resume?.headers['mcp-session-id']).toBe('sess-1');
    // After the stream ended, not while it was open.
    expect(resume?.at).toBeGreaterThanOrEqual(closedAt);
    await client.close();
  });

  it('answers a request with the JSON-RPC error an HTTP error status carries', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: 'Bad Request: nope' },
          }),
        );
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    const err = await client.ping().catch((e: unknown) => e);
    expect(RpcError.is(err)).toBe(true);
    expect(err).toMatchObject({ code: -32600, message: 'Bad Request: nope' });
    await client.close();
  });

  it('fails a request with a TransportError for a status without a JSON-RPC body', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    const err = await client.ping().catch((e: unknown) => e);
    expect(TransportError.is(err)).toBe(true);
    expect((err as TransportError).status).toBe(502);
    await expect(client.ping()).rejects.toMatchObject({ status: 502 });
    await client.close();
  });

  it('fails a request whose SSE stream ends without an answer and without an event id', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n');
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    await expect(client.ping()).rejects.toSatisfy(
      (e: unknown) => TransportError.is(e) && /without answering/.test((e as Error).message),
    );
    await client.close();
  });

  it('ends the connection when the server no longer knows the session (404)', async () => {
    const { url } = await scriptHttp(
      lifecycle((req, res) => {
        if (req.method === 'GET') return void res.writeHead(405).end();
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32001, message: 'Session not found' },
          }),
        );
      }),
    );
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    await expect(client.ping()).rejects.toMatchObject({ status: 404 });
    await client.closed;
    await expect(client.ping()).rejects.toThrow(/closed/);
  });

  it('fails a request with a TransportError when the server is unreachable', async () => {
    const { url } = await scriptHttp(lifecycle((_req, res) => res.writeHead(405).end()));
    const client = await McpClient.connect(new StreamableHttpClientTransport({ url }));
    await stopScriptedHttp();
    await expect(client.ping()).rejects.toSatisfy((e: unknown) => TransportError.is(e));
    await client.close();
  });

  it('delivers notifications from the GET stream and reopens it when it drops', async () => {
    let gets = 0;
    const { url, seen } = await scriptHttp(
      lifecycle((req, res, s) => {
        if (req.method === 'GET') {
          gets++;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`id: g${gets}\nretry: 50\n`);
          res.write(
            `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"n":${gets}}}\n\n`,
          );
          if (gets === 1) setTimeout(() => res.end(), 10);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(result(s.body?.id, {}));
      }),
    );
    const client = new McpClient();
    const changes: unknown[] = [];
    client.on('notifications/tools/list_changed', (p) => changes.push(p?.n));
    await client.connect(new StreamableHttpClientTransport({ url }));
    // The second stream's event, waited for (a hang guard within the test's 20 s, not a bet on
    // the reconnect's speed).
    await vi.waitFor(() => expect(changes).toEqual([1, 2]), { timeout: 15_000 });
    const second = seen.filter((s) => s.method === 'GET')[1];
    expect(second?.headers['last-event-id']).toBe('g1');
    await client.close();
  });
});
