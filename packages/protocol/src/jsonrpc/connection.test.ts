import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLinkedTransports } from '../transports/memory.js';
import { StdioTransport } from '../transports/stdio.js';
import { ConnectionClosedError, RequestTimeoutError } from './client.js';
import { JsonRpcConnection } from './connection.js';
import { RpcError } from './errors.js';
import { method } from './method.js';
import { createJsonRpcServer } from './server.js';
import type { FrameSink } from './transport.js';

/** Two connections joined back to back, as a parent and a child process would be. */
function pair(options: { requestTimeoutMs?: number } = {}) {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  const abandoned: [number, string, string][] = [];
  const started: string[] = [];
  const b: JsonRpcConnection<{ side: string }> = new JsonRpcConnection({
    transport: new StdioTransport({ input: aToB, output: bToA }),
    dispatcher: createJsonRpcServer<{ side: string }>(
      method(
        'subtract',
        ['minuend', 'subtrahend'],
        ({ minuend, subtrahend }) => Number(minuend) - Number(subtrahend),
      ),
      method('whoami', (_p, ctx) => ctx.extra.side),
      method('ask_back', async () => `peer says ${await b.request('name')}`),
      method('wait', (_p, ctx) => {
        started.push(String(ctx.id));
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () =>
            reject(new RpcError(-32800, 'Request cancelled')),
          );
        });
      }),
    ),
    extra: { side: 'b' },
  }).start();
  const a = new JsonRpcConnection({
    transport: new StdioTransport({ input: bToA, output: aToB }),
    dispatcher: createJsonRpcServer(method('name', () => 'a')),
    onAbandon: (id, m, why) => abandoned.push([id, m, why]),
    ...options,
  }).start();
  return { a, b, abandoned, started };
}

describe('JsonRpcConnection', () => {
  it('sends requests and correlates the answers, by position and by name', async () => {
    const { a } = pair();
    const results = await Promise.all([
      a.request('subtract', [42, 23]),
      a.request('subtract', { subtrahend: 23, minuend: 42 }),
      a.request('whoami'),
    ]);
    expect(results).toEqual([19, 19, 'b']);
  });

  it('serves and calls on the same channel in both directions', async () => {
    const { a } = pair();
    expect(await a.request('ask_back')).toBe('peer says a');
  });

  it('rejects with the RpcError the peer answered', async () => {
    const { a } = pair();
    const err = await a.request('nope').catch((e: unknown) => e);
    expect(RpcError.is(err)).toBe(true);
    expect(err).toMatchObject({
      code: -32601,
      message: 'Method not found',
      data: { method: 'nope' },
    });
  });

  it('times a request out, reports it abandoned, and ignores the late answer', async () => {
    const { a, abandoned } = pair({ requestTimeoutMs: 30 });
    const err = await a.request('wait').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(abandoned).toEqual([[1, 'wait', 'timeout']]);
    expect(await a.request('whoami')).toBe('b');
  });

  it('aborts a running handler when the caller cancels it', async () => {
    const { a, b, started } = pair();
    const pending = a.request('wait', [], { timeoutMs: 0 });
    while (started.length === 0) await new Promise((r) => setTimeout(r, 1));
    expect(b.cancel(Number(started[0]))).toBe(true);
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    expect(b.cancel(12345)).toBe(false);
  });

  it('rejects pending requests when the peer closes', async () => {
    const { a, b } = pair();
    const pending = a.request('wait', [], { timeoutMs: 0 });
    await b.close();
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    await a.closed;
    await expect(a.request('whoami')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('refuses to start twice', () => {
    const { a } = pair();
    expect(() => a.start()).toThrow(/already started/);
  });
});

describe('JsonRpcConnection whose transport closed while a call ran', () => {
  it('drops the late answer instead of rejecting unhandled', async () => {
    const [server, client] = createLinkedTransports();
    let release!: (value: string) => void;
    const logged: string[] = [];
    const conn = new JsonRpcConnection({
      transport: server,
      dispatcher: createJsonRpcServer(
        method('slow', () => new Promise<string>((resolve) => (release = resolve))),
      ),
      drainTimeoutMs: 1000,
      logger: { debug: (_o, msg) => logged.push(msg ?? ''), error: () => {}, warn: () => {} },
    }).start();
    const frames: string[] = [];
    client.start({ frame: (t) => frames.push(t), rejected: () => {}, end: () => {} });
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slow' }));
    await new Promise((r) => setImmediate(r));
    await server.close();
    release('late');
    await conn.closed;
    expect(frames).toEqual([]);
    expect(logged).toContain('answer dropped: the connection has ended');
  });

  it('does not throw into the reader when the transport refuses a synchronous answer', () => {
    let sink: FrameSink | undefined;
    const warned: string[] = [];
    new JsonRpcConnection({
      transport: {
        start: (to) => {
          sink = to;
        },
        send: () => {
          throw new Error('refused');
        },
        close: async () => {},
      },
      dispatcher: createJsonRpcServer(method('now', () => 'at once')),
      logger: { debug: () => {}, error: () => {}, warn: (_o, msg) => warned.push(msg ?? '') },
    }).start();
    // An answered request, a parse error and an oversized frame: each answer is refused.
    expect(() => sink?.frame('{"jsonrpc":"2.0","id":1,"method":"now"}')).not.toThrow();
    expect(() => sink?.frame('{')).not.toThrow();
    expect(() => sink?.rejected('too_large', 1 << 30)).not.toThrow();
    expect(warned.filter((m) => m === 'answer dropped: the transport refused it')).toHaveLength(3);
  });
});

describe('JsonRpcConnection toward a noisy peer', () => {
  it('reports frames that are not JSON-RPC instead of answering them', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (c: Buffer) => {
      written += c.toString();
    });
    const noise: string[] = [];
    const connection = new JsonRpcConnection({
      transport: new StdioTransport({ input, output }),
      onInvalidFrame: (text, reason) => noise.push(`${reason}:${text}`),
    }).start();
    const answer = connection.request('ping');
    input.write('Starting server v1 ...\n"just a string"\n');
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'pong' })}\n`);
    await expect(answer).resolves.toBe('pong');
    expect(noise).toEqual(['invalid:Starting server v1 ...', 'invalid:"just a string"']);
    // Only our own request went out: no error replies to the noise.
    expect(written.trim().split('\n')).toEqual(['{"jsonrpc":"2.0","id":1,"method":"ping"}']);
    await connection.close();
  });
});
