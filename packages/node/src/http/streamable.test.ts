import type { McpServer } from '@mcpkit/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createEverythingServer } from '../fixtures/everything.js';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

type Json = Record<string, unknown>;
type Message = Json & { id?: unknown; method?: string; params?: Json; result?: Json; error?: Json };

const ACCEPT_BOTH = 'application/json, text/event-stream';

let open: ServedHttp[] = [];
let controllers: AbortController[] = [];

afterEach(async () => {
  for (const c of controllers) c.abort();
  controllers = [];
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close()));
});

async function start(options: McpHttpOptions = {}, mcp: McpServer = createEverythingServer()) {
  const served = await serveHttp(mcp, options);
  open.push(served);
  return { http: served.http, mcp, endpoint: served.mcpUrl };
}

function controller(): AbortController {
  const c = new AbortController();
  controllers.push(c);
  return c;
}

interface PostOptions {
  session?: string | undefined;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function post(endpoint: string, body: unknown, options: PostOptions = {}) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    ...(options.session ? { 'mcp-session-id': options.session } : {}),
    ...options.headers,
  };
  return fetch(endpoint, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: options.signal ?? controller().signal,
  });
}

const request = (id: number, method: string, params?: Json) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

const initialize = (id = 1, params: Json = {}) =>
  request(id, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test-client', version: '1.0.0' },
    ...params,
  });

/** Initialize a session (and send notifications/initialized); returns its id. */
async function openSession(
  endpoint: string,
  params: Json = {},
  headers: Record<string, string> = {},
) {
  const res = await post(endpoint, initialize(1, params), { headers });
  expect(res.status).toBe(200);
  const session = res.headers.get('mcp-session-id');
  expect(session).toBeTruthy();
  await res.json();
  const done = await post(
    endpoint,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { session: session ?? '', headers },
  );
  expect(done.status).toBe(202);
  return session as string;
}

/** Split SSE text into the JSON-RPC messages of its `data:` lines. */
function parseSse(text: string): Message[] {
  const messages: Message[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) messages.push(JSON.parse(data.join('\n')) as Message);
  }
  return messages;
}

/** The messages of a POST's answer, whether plain JSON or an SSE stream. */
async function messagesOf(res: Response): Promise<Message[]> {
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (type.startsWith('text/event-stream')) return parseSse(text);
  const value = JSON.parse(text) as Message | Message[];
  return Array.isArray(value) ? value : [value];
}

/** Reads an SSE response event by event. */
function sseReader(res: Response) {
  if (!res.body) throw new Error('response has no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: Message[] = [];
  let ended = false;

  async function next(timeoutMs = 3000): Promise<Message | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for an SSE event');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('timed out waiting for an SSE event')),
          remaining,
        );
      });
      try {
        const { done, value } = await Promise.race([reader.read(), timeout]);
        if (done) ended = true;
        else buffer += decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
      let match = /\r?\n\r?\n/.exec(buffer);
      while (match) {
        queue.push(...parseSse(buffer.slice(0, match.index)));
        buffer = buffer.slice(match.index + match[0].length);
        match = /\r?\n\r?\n/.exec(buffer);
      }
      if (ended && buffer.trim() !== '') {
        queue.push(...parseSse(buffer));
        buffer = '';
      }
    }
    return queue.shift();
  }

  return {
    next,
    /** Wait for a message matching `predicate`, collecting those before it. */
    async until(predicate: (m: Message) => boolean, timeoutMs = 3000) {
      const seen: Message[] = [];
      for (;;) {
        const message = await next(timeoutMs);
        if (message === undefined) throw new Error('stream ended before the expected message');
        seen.push(message);
        if (predicate(message)) return seen;
      }
    },
    get ended() {
      return ended;
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

describe('Streamable HTTP: initialize and sessions', () => {
  it('initializes with 200 JSON and an Mcp-Session-Id, echoing a supported version', async () => {
    const { endpoint, http } = await start();
    const res = await post(endpoint, initialize());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const session = res.headers.get('mcp-session-id');
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const body = (await res.json()) as Message;
    expect(body.id).toBe(1);
    expect(body.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'mcpkit-everything' },
      capabilities: { tools: {} },
    });
    expect(http.streamable?.sessionCount).toBe(1);
  });

  it('answers an unknown protocol version with the newest it speaks', async () => {
    const { endpoint } = await start();
    const res = await post(endpoint, initialize(1, { protocolVersion: '1999-01-01' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
  });

  it('keeps no session for a failed initialize', async () => {
    const { endpoint, http } = await start();
    const res = await post(endpoint, request(1, 'initialize', { capabilities: {} }));
    const body = (await res.json()) as Message;
    expect(body.error).toMatchObject({ code: -32602 });
    expect(http.streamable?.sessionCount).toBe(0);
    // Only a response carrying an InitializeResult announces a session.
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const next = await post(endpoint, request(2, 'ping'));
    expect(next.status).toBe(400);
    await next.arrayBuffer();
  });

  it('answers notifications/initialized with 202 and no body', async () => {
    const { endpoint } = await start();
    const res = await post(endpoint, initialize());
    const session = res.headers.get('mcp-session-id') ?? '';
    await res.json();
    const done = await post(
      endpoint,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { session },
    );
    expect(done.status).toBe(202);
    expect(await done.text()).toBe('');
  });

  it('requires Mcp-Session-Id (400) and refuses an unknown one (404)', async () => {
    const { endpoint } = await start();
    await openSession(endpoint);
    const missing = await post(endpoint, request(2, 'ping'));
    expect(missing.status).toBe(400);
    // The body was read, so the refusal echoes the request's id.
    expect(await missing.json()).toMatchObject({ id: 2, error: { code: -32600 } });
    const unknown = await post(endpoint, request(3, 'ping'), { session: 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ id: 3, error: { message: 'Session not found' } });
    // A batch has no single id to echo; a notification none at all.
    const batch = await post(endpoint, [request(4, 'ping'), request(5, 'ping')]);
    expect(await batch.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('echoes an integer id beyond 2^53 exactly, in a reply and in a refusal', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const big = '9007199254740993';
    const ok = await post(endpoint, `{"jsonrpc":"2.0","id":${big},"method":"ping"}`, { session });
    expect(await ok.text()).toBe(`{"jsonrpc":"2.0","id":${big},"result":{}}`);
    const refused = await post(endpoint, `{"jsonrpc":"2.0","id":${big},"method":"ping"}`, {
      session,
      headers: { 'mcp-protocol-version': '1999-01-01' },
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${big},"error"`));
  });

  it('serves a request in a session', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(endpoint, request(2, 'ping'), { session });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe(session);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses an unsupported MCP-Protocol-Version with 400 and accepts the supported ones', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const bad = await post(endpoint, request(2, 'ping'), {
      session,
      headers: { 'mcp-protocol-version': '1999-01-01' },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      id: 2,
      error: { message: expect.stringContaining('1999-01-01') },
    });
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const ok = await post(endpoint, request(3, 'ping'), {
        session,
        headers: { 'mcp-protocol-version': version },
      });
      expect(ok.status, version).toBe(200);
      expect(await ok.json()).toMatchObject({ id: 3, result: {} });
    }
  });

  it('refuses initialize inside a batch with 400', async () => {
    const { endpoint, http } = await start();
    const res = await post(endpoint, [initialize(1), request(2, 'ping')]);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
    expect(http.streamable?.sessionCount).toBe(0);
  });

  it('refuses an Accept header naming neither JSON nor SSE with 406', async () => {
    const { endpoint } = await start();
    const res = await post(endpoint, initialize(), { headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    await res.arrayBuffer();
  });

  it('answers invalid JSON with 400 and -32700', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(endpoint, '{"jsonrpc":', { session });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe('Streamable HTTP: limits', () => {
  it('answers initialize beyond maxSessions with 503 and Retry-After', async () => {
    const { endpoint, http } = await start({ streamable: { maxSessions: 1 } });
    await openSession(endpoint);
    const res = await post(endpoint, initialize(2));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await res.json()).toMatchObject({ error: { code: -32000 } });
    expect(http.streamable?.sessionCount).toBe(1);
  });

  it('caps the sessions of one caller: its idlest session makes room; with every one streaming, 503', async () => {
    const { endpoint, http } = await start({ streamable: { maxSessionsPerIdentity: 2 } });
    const first = await openSession(endpoint);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await openSession(endpoint);
    // The same caller (remote address) again: the idlest of its sessions, the first, is ended.
    const third = await openSession(endpoint);
    expect(http.streamable?.sessionCount).toBe(2);
    const gone = await post(endpoint, request(2, 'ping'), { session: first });
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
    // Both left have a GET stream open: nothing is idle, so the next initialize is refused.
    const streams = [second, third].map((session) =>
      fetch(endpoint, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': session },
        signal: controller().signal,
      }),
    );
    for (const res of await Promise.all(streams)) expect(res.status).toBe(200);
    const refused = await post(endpoint, initialize(3));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      error: { code: -32000, message: 'Too many sessions for this client' },
    });
    expect(http.streamable?.sessionCount).toBe(2);
  });

  it('counts sessions per token subject: another caller is not limited by the first', async () => {
    const tokens = [
      { token: 'a'.repeat(32), subject: 'alice' },
      { token: 'b'.repeat(32), subject: 'bob' },
    ];
    const { endpoint, http } = await start({
      auth: { tokens },
      streamable: { maxSessionsPerIdentity: 1 },
    });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const alice = await openSession(endpoint, {}, bearer(tokens[0]?.token as string));
    await openSession(endpoint, {}, bearer(tokens[1]?.token as string));
    expect(http.streamable?.sessionCount).toBe(2);
    // Alice again: her own first session makes room; Bob's stays.
    await openSession(endpoint, {}, bearer(tokens[0]?.token as string));
    expect(http.streamable?.sessionCount).toBe(2);
    const gone = await post(endpoint, request(2, 'ping'), {
      session: alice,
      headers: bearer(tokens[0]?.token as string),
    });
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
  });

  it('without auth, gives each client program on an address its own share: a leaking one ends only its own sessions', async () => {
    const { endpoint, http } = await start({ streamable: { maxSessionsPerIdentity: 2 } });
    const named = (name: string) => ({ clientInfo: { name, version: '1' } });
    const editor = await openSession(endpoint, named('editor'));
    // Another program on the same address (every local client is 127.0.0.1) opens session after
    // session: its own idlest makes room, the editor's idle session is not touched.
    for (let i = 0; i < 4; i++) await openSession(endpoint, named('leaky-agent'));
    expect(http.streamable?.sessionCount).toBe(3);
    const alive = await post(endpoint, request(2, 'ping'), { session: editor });
    expect(alive.status).toBe(200);
    await alive.arrayBuffer();
    // And a third program still gets a session of its own.
    await openSession(endpoint, named('inspector'));
    expect(http.streamable?.sessionCount).toBe(4);
  });

  it('forgets a session left idle longer than sessionIdleMs', async () => {
    const { endpoint, http } = await start({ streamable: { sessionIdleMs: 40 } });
    const session = await openSession(endpoint);
    expect(http.streamable?.sessionCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(http.streamable?.sessionCount).toBe(0);
    const res = await post(endpoint, request(2, 'ping'), { session });
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });

  it('answers a body that is not UTF-8 with 400 and -32700', async () => {
    const { endpoint } = await start();
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body: Buffer.from([0x7b, 0xff, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe('Streamable HTTP: answers as SSE streams', () => {
  it('streams progress notifications before the final response, then ends', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(
      endpoint,
      request(5, 'tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: 'tok-1' },
      }),
      { session },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('mcp-session-id')).toBe(session);
    // text() resolves only once the server ends the stream.
    const messages = parseSse(await res.text());
    const final = messages.findIndex((m) => m.id === 5);
    expect(final).toBe(messages.length - 1);
    const progress = messages.slice(0, final).filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const p of progress) expect(p.params?.progressToken).toBe('tok-1');
    expect(progress.map((p) => p.params?.progress)).toEqual([0, 50, 100]);
    expect(messages[final]).toMatchObject({
      result: { content: [{ type: 'text', text: 'tok-1' }] },
    });
  });

  it('echoes a progress token beyond 2^53 digit for digit, in a 2025 session and a 2026-07-28 request', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    // JSON.parse rounds it to …992: a client matching its progress by token would hear nothing.
    const big = '9007199254740993';
    const body = (id: number, meta: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{${meta}"progressToken":${big}}}}`;
    const legacy = await post(endpoint, body(5, ''), { session });
    const envelope =
      '"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},';
    const modern = await post(endpoint, body(6, envelope), {
      headers: {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'test_tool_with_progress',
      },
    });
    for (const res of [legacy, modern]) {
      expect(res.status).toBe(200);
      const text = await res.text();
      const tokens = [...text.matchAll(/"progressToken":(-?\d+)/g)].map((m) => m[1]);
      expect(tokens).toEqual([big, big, big]);
      // The tool saw the token the client sent, too.
      expect(text).toContain(`"text":"${big}"`);
    }
  });

  it('answers a cheap call as plain JSON', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(
      endpoint,
      request(6, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }),
      { session },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ id: 6, result: { structuredContent: { sum: 3 } } });
  });

  it('streams log messages at the level the client set', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const set = await post(endpoint, request(2, 'logging/setLevel', { level: 'info' }), {
      session,
    });
    expect(await set.json()).toMatchObject({ id: 2, result: {} });
    const res = await post(
      endpoint,
      request(3, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }),
      { session },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = await messagesOf(res);
    const logs = messages.filter((m) => m.method === 'notifications/message');
    expect(logs).toHaveLength(3);
    expect(logs.map((m) => m.params?.level)).toEqual(['info', 'info', 'info']);
    expect(logs[0]?.params?.data).toBe('Tool execution started');
    expect(messages.at(-1)).toMatchObject({
      id: 3,
      result: { content: [{ text: 'Tool with logging executed successfully' }] },
    });
  });

  it('sends no log messages below the level the client set', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const set = await post(endpoint, request(2, 'logging/setLevel', { level: 'error' }), {
      session,
    });
    await set.json();
    const res = await post(
      endpoint,
      request(3, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }),
      { session },
    );
    const messages = await messagesOf(res);
    expect(messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ id: 3, result: { isError: false } });
  });
});

describe('Streamable HTTP: requests to the client', () => {
  it('round-trips sampling/createMessage on the POST stream', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint, { capabilities: { sampling: {} } });
    const res = await post(
      endpoint,
      request(10, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'Say hi' } }),
      { session },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseReader(res);
    try {
      const before = await stream.until((m) => m.method === 'sampling/createMessage');
      const sampling = before.at(-1) as Message;
      expect(sampling.id).toBeDefined();
      expect(sampling.params).toMatchObject({
        maxTokens: 100,
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      });
      const answer = await post(
        endpoint,
        {
          jsonrpc: '2.0',
          id: sampling.id,
          result: {
            role: 'assistant',
            content: { type: 'text', text: 'Hi there' },
            model: 'test-model',
            stopReason: 'endTurn',
          },
        },
        { session },
      );
      expect(answer.status).toBe(202);
      expect(await answer.text()).toBe('');
      const after = await stream.until((m) => m.id === 10);
      expect(after.at(-1)).toMatchObject({
        id: 10,
        result: { isError: false, content: [{ type: 'text', text: 'LLM response: Hi there' }] },
      });
      expect(await stream.next()).toBeUndefined();
      expect(stream.ended).toBe(true);
    } finally {
      await stream.cancel();
    }
  });

  it('fails a sampling tool for a client without the sampling capability', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(
      endpoint,
      request(11, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'Say hi' } }),
      { session },
    );
    expect(res.status).toBe(200);
    const messages = await messagesOf(res);
    expect(messages.some((m) => m.method === 'sampling/createMessage')).toBe(false);
    const reply = messages.find((m) => m.id === 11);
    expect(reply?.error).toMatchObject({
      code: -32601,
      message: expect.stringContaining('sampling'),
    });
  });
});

describe('Streamable HTTP: GET streams and DELETE', () => {
  const openGet = (endpoint: string, session: string, accept = 'text/event-stream') =>
    fetch(endpoint, {
      method: 'GET',
      headers: { accept, 'mcp-session-id': session },
      signal: controller().signal,
    });

  it('opens one GET stream per session, refuses a second (409), ends it on DELETE', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const first = await openGet(endpoint, session);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(first.headers.get('mcp-session-id')).toBe(session);
    const stream = sseReader(first);
    try {
      const second = await openGet(endpoint, session);
      expect(second.status).toBe(409);
      await second.arrayBuffer();
      expect(stream.ended).toBe(false);

      const del = await fetch(endpoint, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session },
      });
      expect(del.status).toBe(204);
      // The session's stream ends with it.
      expect(await stream.next()).toBeUndefined();
      expect(stream.ended).toBe(true);

      const after = await post(endpoint, request(2, 'ping'), { session });
      expect(after.status).toBe(404);
      await after.arrayBuffer();
      const again = await openGet(endpoint, session);
      expect(again.status).toBe(404);
      await again.arrayBuffer();
      const delAgain = await fetch(endpoint, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session },
      });
      expect(delAgain.status).toBe(404);
      await delAgain.arrayBuffer();
    } finally {
      await stream.cancel();
    }
  });

  it('refuses a GET that does not accept text/event-stream with 406', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await openGet(endpoint, session, 'application/json');
    expect(res.status).toBe(406);
    await res.arrayBuffer();
  });

  it('delivers notifications/resources/updated for a subscription on the GET stream', async () => {
    const { endpoint, mcp } = await start();
    const session = await openSession(endpoint);
    const uri = 'test://watched-resource';
    const sub = await post(endpoint, request(2, 'resources/subscribe', { uri }), { session });
    expect(await sub.json()).toMatchObject({ id: 2, result: {} });
    const get = await openGet(endpoint, session);
    expect(get.status).toBe(200);
    const stream = sseReader(get);
    try {
      expect(mcp.resourceUpdated('test://other-resource')).toBe(0);
      expect(mcp.resourceUpdated(uri)).toBe(1);
      const message = await stream.next();
      expect(message).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri },
      });
    } finally {
      await stream.cancel();
    }
  });
});

describe('Streamable HTTP with auth', () => {
  it('binds a session to the token that opened it', async () => {
    const { endpoint } = await start({
      auth: {
        tokens: [
          { token: 'token-alpha-1', subject: 'alpha' },
          { token: 'token-bravo-1', subject: 'bravo' },
        ],
      },
    });
    const a = { authorization: 'Bearer token-alpha-1' };
    const b = { authorization: 'Bearer token-bravo-1' };
    const session = await openSession(endpoint, {}, a);
    const mine = await post(endpoint, request(2, 'ping'), { session, headers: a });
    expect(mine.status).toBe(200);
    await mine.json();
    const theirs = await post(endpoint, request(3, 'ping'), { session, headers: b });
    expect(theirs.status).toBe(404);
    await theirs.arrayBuffer();
    const get = await fetch(endpoint, {
      headers: { ...b, accept: 'text/event-stream', 'mcp-session-id': session },
      signal: controller().signal,
    });
    expect(get.status).toBe(404);
    await get.arrayBuffer();
    const del = await fetch(endpoint, {
      method: 'DELETE',
      headers: { ...b, 'mcp-session-id': session },
    });
    expect(del.status).toBe(404);
    await del.arrayBuffer();
    // Still alive for its owner.
    const still = await post(endpoint, request(4, 'ping'), { session, headers: a });
    expect(still.status).toBe(200);
    await still.json();
  });
});

describe('Streamable HTTP without sessions', () => {
  it('answers GET and DELETE with 405 and serves POSTs without session ids', async () => {
    const { endpoint, http } = await start({ streamable: { sessions: false } });
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(endpoint, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'whatever' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.arrayBuffer();
    }
    const init = await post(endpoint, initialize());
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(await init.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });

    const res = await post(
      endpoint,
      request(2, 'tools/call', { name: 'add', arguments: { a: 20, b: 22 } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ id: 2, result: { structuredContent: { sum: 42 } } });
    expect(http.streamable?.sessionCount).toBe(0);
  });
});

/** SSE events with their ids and raw data (the priming event has empty data). */
function rawEvents(text: string): { id?: string; retry?: string; data: string }[] {
  return text
    .split(/\n\n/)
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const event: { id?: string; retry?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('retry: ')) event.retry = line.slice(7);
        else if (line.startsWith('data:')) event.data = line.slice(5).trim();
      }
      return event;
    });
}

describe('Streamable HTTP: resumable streams (2025-11-25)', () => {
  it('primes a POST stream, closes it mid-call, and replays the result to a GET with Last-Event-ID', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint, { protocolVersion: '2025-11-25' });
    const headers = { 'mcp-protocol-version': '2025-11-25' };
    const res = await post(
      endpoint,
      request(7, 'tools/call', { name: 'test_reconnection', arguments: {} }),
      {
        session,
        headers,
      },
    );
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const first = rawEvents(await res.text());
    // Only the priming event: an id, a retry hint, empty data; then the server hung up.
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ data: '', retry: '500' });
    const primingId = first[0]?.id ?? '';
    expect(primingId).toMatch(/^[a-z0-9]+-0$/);

    const resumed = await fetch(endpoint, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'last-event-id': primingId,
        ...headers,
      },
      signal: controller().signal,
    });
    expect(resumed.status).toBe(200);
    const events = rawEvents(await resumed.text());
    expect(events).toHaveLength(1);
    expect(events[0]?.id).toBe(primingId.replace(/-0$/, '-1'));
    expect(JSON.parse(events[0]?.data ?? '')).toMatchObject({
      id: 7,
      result: {
        content: [{ type: 'text', text: expect.stringContaining('Reconnection test completed') }],
      },
    });

    // Everything was delivered: resuming after the last event replays nothing and ends.
    const again = await fetch(endpoint, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'last-event-id': events[0]?.id ?? '',
      },
      signal: controller().signal,
    });
    expect(rawEvents(await again.text())).toEqual([]);
  });

  it('numbers every event of a primed stream', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint, { protocolVersion: '2025-11-25' });
    const res = await post(
      endpoint,
      request(8, 'tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: 't' },
      }),
      { session },
    );
    const events = rawEvents(await res.text());
    const stream = events[0]?.id?.split('-')[0];
    expect(events.map((e) => e.id)).toEqual([0, 1, 2, 3, 4].map((n) => `${stream}-${n}`));
    expect(JSON.parse(events[4]?.data ?? '')).toMatchObject({ id: 8 });
  });

  it('answers an unknown or malformed Last-Event-ID with 404', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint, { protocolVersion: '2025-11-25' });
    for (const lastEventId of ['zzz-3', 'not an id']) {
      const res = await fetch(endpoint, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'last-event-id': lastEventId,
        },
        signal: controller().signal,
      });
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    }
  });

  it('does not prime streams of sessions on older revisions', async () => {
    const { endpoint } = await start();
    const session = await openSession(endpoint);
    const res = await post(
      endpoint,
      request(9, 'tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: 't' },
      }),
      { session },
    );
    const events = rawEvents(await res.text());
    expect(events).toHaveLength(4);
    expect(events.every((e) => e.id === undefined && e.data.length > 0)).toBe(true);
  });
});
