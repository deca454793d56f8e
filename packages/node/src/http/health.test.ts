/** `/healthz`, `/readyz` and the graceful drain of createMcpHttpServer. */

import { connect, type Socket } from 'node:net';
import { MemoryStateStore } from '@mcpkit/fleet';
import { defineTool, McpServer } from '@mcpkit/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Health, NotReadyError, ReadinessDetail } from './health.js';
import type { McpHttpOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

let open: ServedHttp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  const servers = open;
  open = [];
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
});

/**
 * Resolved each time the slow tool's handler starts: a test waits for its call to be in flight
 * by this, not by a guess of how long the request takes to get there.
 */
let callStarted: () => void = () => {};
const nextCallStarted = () =>
  new Promise<void>((resolve) => {
    callStarted = resolve;
  });

/** A server with a tool that takes `ms` milliseconds (or until its call is cancelled). */
function slowServer(): McpServer {
  return new McpServer({ name: 'slow', version: '1.0.0' }).addTool(
    defineTool({
      name: 'slow',
      description: 'Answers after a while',
      handler: async (args: Record<string, unknown>, ctx) => {
        callStarted();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Number(args.ms ?? 200));
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return 'done';
      },
      inputJsonSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    }),
  );
}

async function start(options: McpHttpOptions = {}) {
  const served = await serveHttp(slowServer(), { plainPaths: ['/rpc'], ...options });
  open.push(served);
  return served;
}

const rpc = (served: ServedHttp, body: unknown) =>
  fetch(`${served.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * A call of the slow tool taking `ms`, once its handler runs: the pending response, in a box so
 * that awaiting this does not await the call.
 */
async function slowCallRunning(
  served: ServedHttp,
  ms: number,
): Promise<{ reply: Promise<Response> }> {
  const running = nextCallStarted();
  const reply = rpc(served, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'slow', arguments: { ms } },
  });
  await running;
  return { reply };
}

describe('health probes', () => {
  it('/healthz answers 200 without auth and whatever the Host', async () => {
    const served = await start({ auth: { tokens: [{ token: 'secret-token-123', scopes: [] }] } });
    const res = await fetch(`${served.url}/healthz`, { headers: { host: 'evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
    // The MCP endpoints still want the token.
    expect((await fetch(`${served.url}/mcp`, { method: 'POST' })).status).toBe(401);
  });

  it('/readyz names each check; a failing one makes it 503 without saying why', async () => {
    const state = new MemoryStateStore();
    let fail = false;
    const served = await start({
      state,
      health: {
        checks: {
          database: () => {
            if (fail) throw new Error('password=hunter2 rejected');
          },
        },
      },
    });
    const ok = await fetch(`${served.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      status: 'ready',
      checks: { state: { ok: true }, database: { ok: true } },
    });
    fail = true;
    const bad = await fetch(`${served.url}/readyz`);
    expect(bad.status).toBe(503);
    const text = await bad.text();
    expect(JSON.parse(text)).toMatchObject({
      status: 'not ready',
      checks: { state: { ok: true }, database: { ok: false } },
    });
    expect(text).not.toContain('hunter2');
    // A store that went away fails its own check.
    fail = false;
    await state.close();
    expect((await fetch(`${served.url}/readyz`)).status).toBe(503);
  });

  it('fails a check that does not answer in time, and aborts its signal', async () => {
    let aborted = false;
    let checking: () => void = () => {};
    const checkRuns = new Promise<void>((resolve) => {
      checking = resolve;
    });
    const warned: object[] = [];
    const logger = { error: () => {}, warn: (obj: object) => warned.push(obj), debug: () => {} };
    const served = await start({
      logger,
      health: {
        timeoutMs: 100,
        checks: {
          stuck: (signal) =>
            new Promise<void>(() => {
              checking();
              signal.addEventListener('abort', () => {
                aborted = true;
              });
            }),
        },
      },
    });
    // The timeout is the subject: its clock is faked (setTimeout only — the sockets are real),
    // so the probe is failed by the check's 100 ms, not by however long the request took.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const res = fetch(`${served.url}/readyz`);
    await checkRuns;
    await vi.advanceTimersByTimeAsync(99);
    expect(aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(aborted).toBe(true);
    vi.useRealTimers();
    expect((await res).status).toBe(503);
    // The reason is logged, naming the check's own timeout (not the 2 s default).
    expect(warned).toEqual([
      { check: 'stuck', err: expect.objectContaining({ message: 'no answer within 100 ms' }) },
    ]);
  });

  it('shows the detail a check chose, and logs an expected failure once, without a stack', async () => {
    const lines: { level: string; obj: object; msg?: string }[] = [];
    const log = (level: string) => (obj: object, msg?: string) => lines.push({ level, obj, msg });
    const logger = { error: log('error'), warn: log('warn'), info: log('info'), debug: () => {} };
    let starting = true;
    const served = await start({
      logger,
      health: {
        checks: {
          backends: () => {
            if (starting) throw new NotReadyError("backend 'a' is starting", { starting: ['a'] });
            return new ReadinessDetail({ failed: ['b'] });
          },
          plain: () => ({ secret: 'not shown' }),
        },
      },
    });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${served.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        checks: { backends: { ok: false, detail: { starting: ['a'] } }, plain: { ok: true } },
      });
    }
    starting = false;
    const ready = await fetch(`${served.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { checks: Record<string, object> };
    expect(body.checks.backends).toMatchObject({ ok: true, detail: { failed: ['b'] } });
    // Only what a check wraps is shown: a value it happens to resolve to is not.
    expect(body.checks.plain).not.toHaveProperty('detail');
    // Three failing probes, one line (no error object, so no stack); then its recovery.
    expect(lines).toEqual([
      { level: 'info', obj: { check: 'backends' }, msg: "not ready: backend 'a' is starting" },
      { level: 'info', obj: { check: 'backends' }, msg: 'readiness check passes' },
    ]);
  });

  it('answers HEAD without a body, other methods 405, and can be moved or switched off', async () => {
    const served = await start({ health: { livePath: '/live', readyPath: false } });
    const head = await fetch(`${served.url}/live`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${served.url}/live`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${served.url}/readyz`)).status).toBe(404);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(404);
  });

  it('takes checks added later, refusing a name twice', async () => {
    const served = await start();
    served.http.health.addCheck('backend', () => Promise.reject(new Error('down')));
    expect(() => served.http.health.addCheck('backend', () => {})).toThrow(/already registered/);
    expect((await fetch(`${served.url}/readyz`)).status).toBe(503);
    expect(served.http.health.removeCheck('backend')).toBe(true);
    expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
    expect(new Health({ checks: { a: () => {} } }).livePath).toBe('/healthz');
  });
});

describe('graceful drain', () => {
  it('finishes the call in flight, reports draining, refuses new connections, then closes', async () => {
    const served = await start();
    const inFlight = (await slowCallRunning(served, 300)).reply;
    // The drain's timeout is a hang guard, not a race with the 300 ms call.
    const drained = served.http.drain(60_000);
    expect((await served.http.health.readiness()).draining).toBe(true);
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.headers.get('connection')).toBe('close');
    expect(await reply.json()).toMatchObject({ id: 1, result: { content: [{ text: 'done' }] } });
    await drained;
    await expect(fetch(`${served.url}/healthz`)).rejects.toThrow();
  });

  it('keeps serving through drainDelayMs — readyz 503, Connection: close — then stops', async () => {
    const served = await start({ drainDelayMs: 300 });
    // The delay is the subject: its clock is faked (setTimeout only — the sockets are real), so
    // the requests below are served inside it however slow the machine, and the test says when
    // it has run out.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    const drained = served.http.drain(5000).then(() => {
      done = true;
    });
    const ready = await fetch(`${served.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'draining' });
    const call = await rpc(served, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(call.status).toBe(200);
    expect(call.headers.get('connection')).toBe('close');
    await call.text();
    // Still serving 1 ms before the delay is up; the drain goes on once it is.
    await vi.advanceTimersByTimeAsync(299);
    expect(done).toBe(false);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    await drained;
    await expect(fetch(`${served.url}/healthz`)).rejects.toThrow();
  });

  it('answers a request sent but not yet read when the drain starts, and the call in flight', async () => {
    const served = await start();
    const { port } = new URL(served.url);
    // A keep-alive connection that has had one answer and is idle as far as the server knows.
    const socket = connect(Number(port), '127.0.0.1');
    const responses = collectResponses(socket);
    const request = (id: number) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
      return `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    socket.write(request(1));
    expect(await responses.next()).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive[\s\S]*"id":1/);
    const inFlight = (await slowCallRunning(served, 300)).reply;
    // The latch: the second request is in the server's receive buffer (a loopback write is done
    // when write returns), unread, when the drain starts — in the same tick.
    socket.write(request(2));
    const drained = served.http.drain(60_000);
    const second = await responses.next();
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/connection: close/i);
    expect(second).toContain('"id":2');
    expect((await inFlight).status).toBe(200);
    await drained;
    socket.destroy();
  });

  it('gives up on a call that outlasts the drain timeout and closes anyway', async () => {
    const served = await start();
    const inFlight = (await slowCallRunning(served, 60_000)).reply.catch((err: unknown) => err);
    // Resolves although the call would take a minute: the drain gave up on it after 200 ms.
    await served.http.drain(200);
    // The connection was closed under it: the client sees a failure, not a hang.
    expect(await inFlight).toBeInstanceOf(Error);
  });
});

/** Each HTTP response read off a raw socket, in order (one per `next()`); an error or reset rejects. */
function collectResponses(socket: Socket): { next(): Promise<string> } {
  let buffer = '';
  const waiting: { resolve: (text: string) => void; reject: (err: Error) => void }[] = [];
  let failure: Error | undefined;
  const flush = () => {
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head === -1 || waiting.length === 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, head))?.[1] ?? 0);
      if (buffer.length < head + 4 + length) return;
      const text = buffer.slice(0, head + 4 + length);
      buffer = buffer.slice(head + 4 + length);
      waiting.shift()?.resolve(text);
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    flush();
  });
  const fail = (err: Error) => {
    failure = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('connection closed')));
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        if (failure) return reject(failure);
        waiting.push({ resolve, reject });
        flush();
      }),
  };
}
