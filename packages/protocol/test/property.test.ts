/**
 * Property tests: whatever arrives, the engine answers with nothing or with well-formed JSON-RPC
 * replies, and never throws.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonRpcConnection, method, RpcError, StdioTransport } from '../src/index.js';
import { createJsonRpcServer } from '../src/jsonrpc/server.js';

const server = createJsonRpcServer(
  method('subtract', ['minuend', 'subtrahend'], ({ minuend, subtrahend }) => {
    if (typeof minuend !== 'number' || typeof subtrahend !== 'number')
      throw new TypeError('not numbers');
    return minuend - subtrahend;
  }),
  method('echo', (params) => params),
  method('typed', z.object({ a: z.number().int(), b: z.string().optional() }), ({ a, b }) => ({
    a,
    b,
  })),
  method('app_error', () => {
    throw new RpcError(-32004, 'Validation error', { field: 'x' });
  }),
  method('async_echo', async (params) => {
    await Promise.resolve();
    return params;
  }),
);
const METHODS = [
  'subtract',
  'echo',
  'typed',
  'app_error',
  'async_echo',
  'missing',
  'rpc.discover',
  '__proto__',
];

function expectWellFormedResponse(r: unknown): void {
  expect(typeof r === 'object' && r !== null && !Array.isArray(r)).toBe(true);
  const o = r as Record<string, unknown>;
  for (const key of Object.keys(o)) expect(['jsonrpc', 'id', 'result', 'error']).toContain(key);
  expect(o.jsonrpc).toBe('2.0');
  expect('id' in o).toBe(true);
  expect(o.id === null || typeof o.id === 'string' || typeof o.id === 'number').toBe(true);
  expect('result' in o !== 'error' in o).toBe(true);
  if ('error' in o) {
    const e = o.error as Record<string, unknown>;
    expect(Number.isInteger(e.code)).toBe(true);
    expect(typeof e.message).toBe('string');
    // No stack traces leak into replies: in the JSON text a newline is the two characters `\n`.
    expect(JSON.stringify(e)).not.toMatch(/\\n\s+at /);
  }
}

/** Returns the parsed replies (as a list) after checking their shape. */
async function replies(text: string): Promise<unknown[]> {
  const out = await server.handleFrame(text, { extra: undefined });
  if (out === undefined) return [];
  const parsed: unknown = JSON.parse(out);
  if (Array.isArray(parsed)) {
    expect(parsed.length).toBeGreaterThan(0);
    parsed.forEach(expectWellFormedResponse);
    return parsed;
  }
  expectWellFormedResponse(parsed);
  return [parsed];
}

const anyId = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const jsonish = fc.record(
  {
    jsonrpc: fc.oneof(
      fc.constant('2.0'),
      fc.constant('2.0'),
      fc.constant('1.0'),
      fc.constant(2),
      fc.jsonValue(),
    ),
    id: fc.oneof(anyId, anyId, fc.boolean(), fc.object()),
    method: fc.oneof(
      fc.constantFrom(...METHODS),
      fc.constantFrom(...METHODS),
      fc.string(),
      fc.integer(),
    ),
    params: fc.oneof(
      fc.array(fc.jsonValue()),
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.jsonValue(),
    ),
    result: fc.jsonValue(),
    error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

describe('property: any input gets nothing or well-formed replies', () => {
  it('arbitrary text frames', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (text) => {
        await replies(text);
      }),
      { numRuns: 500 },
    );
  });

  it('arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        await replies(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('JSON-RPC-shaped messages and batches of them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonish, fc.array(jsonish, { maxLength: 8 })), async (value) => {
        const out = await replies(JSON.stringify(value));
        const items = Array.isArray(value) ? value : [value];
        // Every well-formed request is answered exactly once, under its own id.
        for (const item of items) {
          const m = item as Record<string, unknown>;
          const isRequest =
            m.jsonrpc === '2.0' &&
            typeof m.method === 'string' &&
            'id' in m &&
            (m.id === null || typeof m.id === 'string' || typeof m.id === 'number') &&
            (!('params' in m) || (typeof m.params === 'object' && m.params !== null));
          if (isRequest) {
            expect(out.some((r) => (r as { id: unknown }).id === m.id)).toBe(true);
          }
        }
        if (Array.isArray(value) && value.length > 0) {
          const notifications = value.filter(
            (m) =>
              m.jsonrpc === '2.0' &&
              typeof m.method === 'string' &&
              !('id' in m) &&
              (m.params === undefined || (typeof m.params === 'object' && m.params !== null)),
          );
          expect(out.length).toBeLessThanOrEqual(value.length - notifications.length);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a stream cut into arbitrary chunks gives the same replies as the whole stream', async () => {
    const frame = fc.oneof(
      jsonish.map((v) => JSON.stringify(v)),
      fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\n') && !s.includes('\r')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(frame, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(64), { maxLength: 20 }),
        fc.boolean(),
        async (frames, cuts, crlf) => {
          const bytes = Buffer.from(`${frames.join(crlf ? '\r\n' : '\n')}\n`);
          const expected = (
            await Promise.all(frames.map((f) => server.handleFrame(f, { extra: undefined })))
          ).filter((r): r is string => r !== undefined);
          const input = new PassThrough();
          const output = new PassThrough();
          let written = '';
          output.on('data', (c: Buffer) => {
            written += c.toString('utf8');
          });
          const connection = new JsonRpcConnection({
            transport: new StdioTransport({ input, output }),
            dispatcher: server,
          }).start();
          let at = 0;
          for (const cut of cuts) {
            input.write(bytes.subarray(at, at + cut));
            at += cut;
          }
          input.end(bytes.subarray(at));
          await connection.closed;
          const got = written.split('\n').filter(Boolean);
          expect(got.sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});
