import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcConnection } from '../jsonrpc/connection.js';
import { RpcError } from '../jsonrpc/errors.js';
import { method } from '../jsonrpc/method.js';
import { createJsonRpcServer } from '../jsonrpc/server.js';
import { StdioTransport } from './stdio.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function dispatcher() {
  return createJsonRpcServer(
    method('echo', (p) => p ?? null),
    method('slow', ['ms'], async ({ ms }) => {
      await sleep(Number(ms));
      return ms;
    }),
    method('fail', () => {
      throw new RpcError(-32001, 'Authentication failed', { reason: 'missing key' });
    }),
  );
}

/** A server connection on in-memory streams, with everything it writes split into lines. */
function harness(options: { maxFrameBytes?: number; output?: Writable } = {}) {
  const input = new PassThrough();
  const output = options.output ?? new PassThrough();
  const writes: string[] = [];
  if (output instanceof PassThrough)
    output.on('data', (c: Buffer) => writes.push(c.toString('utf8')));
  const transport = new StdioTransport({ input, output, ...options });
  const connection = new JsonRpcConnection({
    transport,
    dispatcher: dispatcher(),
    drainTimeoutMs: 200,
  }).start();
  const lines = () => writes.join('').split('\n').filter(Boolean);
  const replies = () => lines().map((l) => JSON.parse(l));
  /** Waits for `count` lines; `timeoutMs` is a hang guard (within the test's 20 s), not a bound. */
  async function until(count: number, timeoutMs = 15_000) {
    const start = Date.now();
    while (lines().length < count) {
      if (Date.now() - start > timeoutMs)
        throw new Error(`expected ${count} lines, got ${lines().length}`);
      await sleep(2);
    }
  }
  return { input, output, transport, connection, writes, lines, replies, until };
}

describe('StdioTransport with a connection', () => {
  it('answers each request of a chunk and coalesces the replies, sixteen to a write', async () => {
    const h = harness();
    const batch = Array.from({ length: 50 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'echo', params: [i] }),
    );
    h.input.write(`${batch.join('\n')}\n`);
    await h.until(50);
    // Not one write of 50: the reader starts on the first ones while the rest are answered.
    expect(h.writes.map((w) => w.split('\n').length - 1)).toStrictEqual([16, 16, 16, 2]);
    expect(h.replies().map((r) => r.result[0])).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('sends frames queued by different tasks of one loop turn in one write (a relay forwarding calls)', async () => {
    const output = new PassThrough();
    const writes: string[] = [];
    output.on('data', (c: Buffer) => writes.push(c.toString('utf8')));
    const transport = new StdioTransport({ input: new PassThrough(), output });
    transport.start({ frame: () => {}, rejected: () => {}, end: () => {} });
    // As a gateway's handlers do: each call reaches the send after its own promise steps, and
    // calls arrive on different sockets — separate callbacks of one phase of the loop. Three
    // immediates run in one check phase whatever the machine's load (three 0 ms timers need not
    // share a timers phase on a busy machine, and once in CI they did not).
    const forward = async (n: number) => {
      for (let i = 0; i < n; i++) await Promise.resolve();
      transport.send(`{"n":${n}}`);
    };
    await new Promise<void>((resolve) => {
      setImmediate(() => void forward(1));
      setImmediate(() => void forward(3));
      setImmediate(() => {
        void forward(5).then(() => setImmediate(resolve));
      });
    });
    await new Promise((r) => setImmediate(r));
    expect(writes.join('')).toBe('{"n":1}\n{"n":3}\n{"n":5}\n');
    expect(writes).toHaveLength(1);
    await transport.close();
  });

  it('keeps multibyte text intact when its bytes are split across chunks', async () => {
    const h = harness();
    const frame = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'ü', method: 'echo', params: ['Grüße 😀 日本'] })}\n`,
    );
    for (let i = 0; i < frame.length; i += 3) h.input.write(frame.subarray(i, i + 3));
    await h.until(1);
    expect(h.replies()).toEqual([{ jsonrpc: '2.0', id: 'ü', result: ['Grüße 😀 日本'] }]);
  });

  it('tolerates CRLF line ends, empty lines and whitespace-only lines', async () => {
    const h = harness();
    h.input.write('\r\n   \r\n{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}\r\n\n\t\n');
    h.input.write('{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}\r\n');
    await h.until(2);
    expect(h.replies()).toEqual([
      { jsonrpc: '2.0', id: 1, result: [1] },
      { jsonrpc: '2.0', id: 2, result: [2] },
    ]);
  });

  it('answers an oversized frame with -32600 and goes on serving', async () => {
    const h = harness({ maxFrameBytes: 1024 });
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'echo',
      params: ['x'.repeat(4096)],
    });
    for (let i = 0; i < huge.length; i += 500) h.input.write(huge.slice(i, i + 500));
    h.input.write('\n{"jsonrpc":"2.0","id":2,"method":"echo","params":["small"]}\n');
    await h.until(2);
    const [tooLarge, next] = h.replies();
    expect(tooLarge).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { bytes: huge.length } },
    });
    expect(next).toEqual({ jsonrpc: '2.0', id: 2, result: ['small'] });
  });

  it('answers bytes that are not UTF-8 with -32700', async () => {
    const h = harness();
    h.input.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":["'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"]}\n'),
      ]),
    );
    await h.until(1);
    expect(h.replies()[0]).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('survives deep nesting: parses it, and answers what cannot be serialized with -32603', async () => {
    const h = harness();
    const depth = 100_000;
    h.input.write(
      `{"jsonrpc":"2.0","id":7,"method":"echo","params":${'['.repeat(depth)}${']'.repeat(depth)}}\n`,
    );
    h.input.write('{"jsonrpc":"2.0","id":8,"method":"echo","params":[8]}\n');
    await h.until(2);
    const [deep, next] = h.replies();
    expect(deep).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603 } });
    expect(next).toEqual({ jsonrpc: '2.0', id: 8, result: [8] });
  });

  it('answers both requests that share an id', async () => {
    const h = harness();
    h.input.write(
      '{"jsonrpc":"2.0","id":1,"method":"slow","params":[20]}\n{"jsonrpc":"2.0","id":1,"method":"slow","params":[1]}\n',
    );
    await h.until(2);
    expect(h.replies()).toEqual([
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 1, result: 20 },
    ]);
  });

  it('carries application errors with their code, message and data', async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":"a","method":"fail"}\n');
    await h.until(1);
    expect(h.replies()[0]).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32001, message: 'Authentication failed', data: { reason: 'missing key' } },
    });
  });

  it('finishes in-flight calls and flushes their replies before closing at end of input', async () => {
    const h = harness();
    h.input.end(
      '{"jsonrpc":"2.0","id":1,"method":"slow","params":[30]}\n{"jsonrpc":"2.0","id":2,"method":"echo"}',
    );
    await h.connection.closed;
    expect(h.replies()).toEqual([
      { jsonrpc: '2.0', id: 2, result: null },
      { jsonrpc: '2.0', id: 1, result: 30 },
    ]);
    expect(h.output.writableEnded).toBe(true);
  });

  it('pauses reading while the output pushes back, with never more than one drain listener', async () => {
    const received: string[] = [];
    let maxDrainListeners = 0;
    let pausedWhileBlocked = false;
    let inputEnded = false;
    const output: Writable = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _enc, cb) {
        received.push(chunk.toString());
        maxDrainListeners = Math.max(maxDrainListeners, output.listenerCount('drain'));
        if (!inputEnded && h.input.isPaused()) pausedWhileBlocked = true;
        setTimeout(cb, 1); // a slow reader
      },
    });
    const h = harness({ output });
    const total = 400;
    for (let i = 0; i < total; i++) {
      h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'echo', params: [i] })}\n`);
      if (i % 50 === 0) await sleep(1);
    }
    const count = () => received.join('').split('\n').filter(Boolean).length;
    while (count() < total) await sleep(5);
    inputEnded = true;
    h.input.end();
    await h.connection.closed;
    const ids = received
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(maxDrainListeners).toBeLessThanOrEqual(1);
    expect(pausedWhileBlocked).toBe(true);
  });

  it('ends the connection without throwing when the reader goes away (EPIPE)', async () => {
    const output = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const h = harness({ output });
    h.input.write('{"jsonrpc":"2.0","id":1,"method":"echo"}\n');
    await h.connection.closed;
    expect(h.connection.inflight).toBe(0);
  });

  it('gives up on calls that outlive the drain deadline and aborts their signal', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let aborted = false;
    const server = createJsonRpcServer(
      method(
        'hang',
        (_p, ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              resolve('late');
            }),
          ),
      ),
    );
    const connection = new JsonRpcConnection({
      transport: new StdioTransport({ input, output }),
      dispatcher: server,
      drainTimeoutMs: 30,
    }).start();
    input.end('{"jsonrpc":"2.0","id":1,"method":"hang"}\n');
    await connection.closed;
    expect(aborted).toBe(true);
  });
});
