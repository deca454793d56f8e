// @module-tag process
/**
 * The examples of the JSON-RPC 2.0 specification (§7), sent verbatim over stdio to a real child
 * process. "-->" lines are what the client sends, "<--" what it must read back.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RawProcess, spawnRaw } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CALCULATOR = fileURLToPath(new URL('../dist/examples/calculator.js', import.meta.url));
let server: RawProcess;
let sentinel = 0;

beforeAll(() => {
  expect(existsSync(CALCULATOR), `${CALCULATOR} is missing: run \`pnpm build\` first`).toBe(true);
  server = spawnRaw(process.execPath, [CALCULATOR], { env: { LOG_LEVEL: 'debug' } });
});

afterAll(async () => {
  expect((await server.end()).code).toBe(0);
});

type Reply = { id: unknown; [key: string]: unknown };

/**
 * Send `request`, which must produce no output: a later request's reply must be the very next
 * line on stdout.
 */
async function expectSilence(request: string): Promise<void> {
  server.send(request);
  const id = `sentinel-${++sentinel}`;
  expect(await server.exchange({ jsonrpc: '2.0', method: 'get_data', id })).toEqual({
    jsonrpc: '2.0',
    result: ['hello', 5],
    id,
  });
}

describe('JSON-RPC 2.0 §7 examples over stdio', () => {
  it('rpc call with positional parameters', async () => {
    expect(
      await server.exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
      ),
    ).toEqual({
      jsonrpc: '2.0',
      result: 19,
      id: 1,
    });
    expect(
      await server.exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}',
      ),
    ).toEqual({
      jsonrpc: '2.0',
      result: -19,
      id: 2,
    });
  });

  it('rpc call with named parameters', async () => {
    expect(
      await server.exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
      ),
    ).toEqual({ jsonrpc: '2.0', result: 19, id: 3 });
    expect(
      await server.exchange(
        '{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}',
      ),
    ).toEqual({ jsonrpc: '2.0', result: 19, id: 4 });
  });

  it('a Notification', async () => {
    await expectSilence('{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}');
    await expectSilence('{"jsonrpc": "2.0", "method": "foobar"}');
  });

  it('rpc call of non-existent method', async () => {
    expect(
      await server.exchange('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}'),
    ).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: '1',
    });
  });

  it('rpc call with invalid JSON', async () => {
    expect(
      await server.exchange('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]'),
    ).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
  });

  it('rpc call with invalid Request object', async () => {
    expect(await server.exchange('{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).toMatchObject(
      {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request' },
        id: null,
      },
    );
  });

  it('rpc call Batch, invalid JSON', async () => {
    const reply = await server.exchange(
      '[ {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method" ]',
    );
    expect(reply).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
  });

  it('rpc call with an empty Array', async () => {
    expect(await server.exchange('[]')).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('rpc call with an invalid Batch (but not empty)', async () => {
    const reply = await server.exchange('[1]');
    expect(reply).toEqual([
      expect.objectContaining({
        jsonrpc: '2.0',
        error: expect.objectContaining({ code: -32600 }),
        id: null,
      }),
    ]);
  });

  it('rpc call with invalid Batch', async () => {
    const reply = await server.exchange<Reply[]>('[1,2,3]');
    expect(reply).toHaveLength(3);
    for (const r of reply) {
      expect(r).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request' },
        id: null,
      });
    }
  });

  it('rpc call Batch', async () => {
    const reply = (await server.exchange<Reply[]>(
      `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`.replace(/\n/g, ''),
    )) as Reply[];
    // Responses may come in any order; the client matches them by id.
    const find = (id: unknown) => reply.filter((r) => r.id === id);
    expect(find('1')).toEqual([{ jsonrpc: '2.0', result: 7, id: '1' }]);
    expect(find('2')).toEqual([{ jsonrpc: '2.0', result: 19, id: '2' }]);
    expect(find(null)).toEqual([
      expect.objectContaining({
        jsonrpc: '2.0',
        error: expect.objectContaining({ code: -32600, message: 'Invalid Request' }),
      }),
    ]);
    expect(find('5')).toEqual([
      expect.objectContaining({
        jsonrpc: '2.0',
        error: expect.objectContaining({ code: -32601, message: 'Method not found' }),
      }),
    ]);
    expect(find('9')).toEqual([{ jsonrpc: '2.0', result: ['hello', 5], id: '9' }]);
    expect(reply).toHaveLength(5);
  });

  it('rpc call Batch (all notifications)', async () => {
    await expectSilence(
      '[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]',
    );
  });

  it('wrote nothing but JSON-RPC on stdout, and logs on stderr', () => {
    expect(server.unread).toEqual([]);
    expect(server.stderr()).toContain('"msg":"sum"');
  });
});
