import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Dispatcher, type DispatchInputs, type EngineLogger } from './dispatcher.js';
import { InvalidParamsError, RpcError } from './errors.js';
import { method, type RequestContext } from './method.js';
import { createJsonRpcServer, createJsonRpcServerWith } from './server.js';
import type { JsonRpcId } from './types.js';

interface Reply {
  jsonrpc: string;
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const noExtra: DispatchInputs<unknown> = { extra: undefined };

/** Send raw text and return the raw reply text (undefined when nothing is sent). */
async function raw<E>(
  server: Dispatcher<E>,
  text: string,
  options?: DispatchInputs<E>,
): Promise<string | undefined> {
  return await server.handleFrame(text, options ?? (noExtra as DispatchInputs<E>));
}

/** Send one message (object or raw text) and parse the single reply. */
async function call<E>(
  server: Dispatcher<E>,
  message: unknown,
  options?: DispatchInputs<E>,
): Promise<Reply | undefined> {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  const out = await raw(server, text, options);
  if (out === undefined) return undefined;
  const parsed = JSON.parse(out) as unknown;
  if (Array.isArray(parsed)) throw new Error(`expected a single reply, got a batch: ${out}`);
  return parsed as Reply;
}

/** Send a batch and parse the array reply. */
async function callBatch<E>(
  server: Dispatcher<E>,
  messages: unknown[],
  options?: DispatchInputs<E>,
): Promise<Reply[] | undefined> {
  const out = await raw(server, JSON.stringify(messages), options);
  if (out === undefined) return undefined;
  const parsed = JSON.parse(out) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`expected a batch reply, got: ${out}`);
  return parsed as Reply[];
}

function req(id: JsonRpcId, methodName: string, params?: unknown) {
  return params === undefined
    ? { jsonrpc: '2.0', id, method: methodName }
    : { jsonrpc: '2.0', id, method: methodName, params };
}

function note(methodName: string, params?: unknown) {
  return params === undefined
    ? { jsonrpc: '2.0', method: methodName }
    : { jsonrpc: '2.0', method: methodName, params };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Reject instead of hanging when `promise` does not settle within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

function fakeLogger() {
  return {
    error: vi.fn<EngineLogger['error']>(),
    warn: vi.fn<EngineLogger['warn']>(),
    debug: vi.fn<EngineLogger['debug']>(),
  };
}

const subtract = method('subtract', ['minuend', 'subtrahend'], ({ minuend, subtrahend }) => {
  return Number(minuend) - Number(subtrahend);
});

describe('named-parameter methods', () => {
  const server = createJsonRpcServer(
    subtract,
    method('greet', ['name', 'greeting?'], ({ name, greeting }) => ({ name, greeting })),
    method('ping', [], () => 'pong'),
  );

  it('subtracts with params by position', async () => {
    expect(await call(server, req(1, 'subtract', [42, 23]))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 19,
    });
    expect(await call(server, req(2, 'subtract', [23, 42]))).toMatchObject({ id: 2, result: -19 });
  });

  it('subtracts with params by name, in any order', async () => {
    expect(await call(server, req(3, 'subtract', { subtrahend: 23, minuend: 42 }))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: 19,
    });
    expect(await call(server, req(4, 'subtract', { minuend: 42, subtrahend: 23 }))).toMatchObject({
      id: 4,
      result: 19,
    });
  });

  it('rejects too many positional params with -32602 and a detail', async () => {
    const reply = await call(server, req(5, 'subtract', [1, 2, 3]));
    expect(reply).toMatchObject({ id: 5, error: { code: -32602, message: 'Invalid params' } });
    expect(reply?.error?.data).toMatchObject({ detail: expect.stringMatching(/at most 2/) });
  });

  it('rejects a missing positional param with -32602 naming it', async () => {
    const reply = await call(server, req(6, 'subtract', [42]));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toEqual({
      detail: expect.stringContaining('subtrahend'),
      param: 'subtrahend',
    });
  });

  it('rejects a missing named param with -32602 naming it', async () => {
    const reply = await call(server, req(7, 'subtract', { minuend: 42 }));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({
      detail: expect.stringContaining('subtrahend'),
      param: 'subtrahend',
    });
  });

  it('rejects absent params when some are required', async () => {
    const reply = await call(server, req(8, 'subtract'));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({ detail: expect.any(String) });
  });

  it('rejects an unknown named param with -32602 naming it', async () => {
    const reply = await call(server, req(9, 'subtract', { minuend: 1, subtrahend: 2, extra: 3 }));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({
      detail: expect.stringContaining('extra'),
      param: 'extra',
    });
  });

  it('treats names that look like Object.prototype members as unknown params', async () => {
    const reply = await call(
      server,
      '{"jsonrpc":"2.0","id":10,"method":"subtract","params":{"minuend":1,"subtrahend":2,"__proto__":3}}',
    );
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({ param: '__proto__' });
  });

  it('lets an optional name be omitted by position or by name', async () => {
    expect(await call(server, req(11, 'greet', ['ann']))).toMatchObject({
      result: { name: 'ann' },
    });
    expect(await call(server, req(12, 'greet', { name: 'bob' }))).toMatchObject({
      result: { name: 'bob' },
    });
  });

  it('passes an optional name when given, without the ? suffix', async () => {
    expect(await call(server, req(13, 'greet', ['ann', 'hi']))).toMatchObject({
      result: { name: 'ann', greeting: 'hi' },
    });
    expect(await call(server, req(14, 'greet', { greeting: 'yo', name: 'bob' }))).toMatchObject({
      result: { name: 'bob', greeting: 'yo' },
    });
    const bad = await call(server, req(15, 'greet', { name: 'bob', 'greeting?': 'yo' }));
    expect(bad?.error?.code).toBe(-32602);
  });

  it('still requires a required name after an optional one is declared', async () => {
    const reply = await call(server, req(16, 'greet', { greeting: 'hi' }));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({ param: 'name' });
  });

  it('accepts no params for a method that declares none, and rejects extras', async () => {
    expect(await call(server, req(17, 'ping'))).toMatchObject({ result: 'pong' });
    expect(await call(server, req(18, 'ping', []))).toMatchObject({ result: 'pong' });
    expect(await call(server, req(19, 'ping', {}))).toMatchObject({ result: 'pong' });
    expect((await call(server, req(20, 'ping', [1])))?.error?.code).toBe(-32602);
    expect((await call(server, req(21, 'ping', { a: 1 })))?.error?.code).toBe(-32602);
  });

  it('does not call the handler when params are invalid', async () => {
    const handler = vi.fn(() => 0);
    const s = createJsonRpcServer(method('m', ['a'], handler));
    await call(s, req(1, 'm', [1, 2]));
    await call(s, req(2, 'm', {}));
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('raw methods', () => {
  it('receive params exactly as sent', async () => {
    const seen: unknown[] = [];
    const server = createJsonRpcServer(
      method('echo', (params) => {
        seen.push(params);
        return params ?? 'none';
      }),
    );
    expect(await call(server, req(1, 'echo', [1, 'a']))).toMatchObject({ result: [1, 'a'] });
    expect(await call(server, req(2, 'echo', { k: true }))).toMatchObject({ result: { k: true } });
    expect(await call(server, req(3, 'echo'))).toMatchObject({ result: 'none' });
    expect(seen).toEqual([[1, 'a'], { k: true }, undefined]);
  });
});

describe('schema methods (zod 4)', () => {
  const server = createJsonRpcServer(
    method(
      'add',
      z.object({ a: z.number(), b: z.number().optional() }),
      ({ a, b }) => a + (b ?? 0),
    ),
    method('user', z.object({ user: z.object({ age: z.number() }) }), ({ user }) => user.age),
    method('len', z.object({ s: z.string().transform((s) => s.length) }), ({ s }) => s * 2),
    method(
      'claim',
      z.object({ name: z.string() }).refine(async (v) => v.name !== 'taken', {
        message: 'name is taken',
        path: ['name'],
      }),
      async ({ name }) => `claimed ${name}`,
    ),
    method('list', z.array(z.number()), (xs) => xs.length),
  );

  it('maps positional params onto schema keys in declaration order', async () => {
    expect(await call(server, req(1, 'add', [40, 2]))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 42,
    });
    expect(await call(server, req(2, 'add', [5]))).toMatchObject({ id: 2, result: 5 });
  });

  it('accepts params by name', async () => {
    expect(await call(server, req(3, 'add', { b: 2, a: 40 }))).toMatchObject({ result: 42 });
  });

  it('passes the schema output (after transforms) to the handler', async () => {
    expect(await call(server, req(4, 'len', ['abcd']))).toMatchObject({ result: 8 });
  });

  it('answers a validation failure with -32602 and data.issues', async () => {
    const reply = await call(server, req(5, 'add', { a: 'x' }));
    expect(reply).toMatchObject({ id: 5, error: { code: -32602, message: 'Invalid params' } });
    const data = reply?.error?.data as { issues: { path: string; message: string }[] };
    expect(data.issues).toEqual([{ path: 'a', message: expect.any(String) }]);
    expect(data.issues[0]?.message.length).toBeGreaterThan(0);
  });

  it('reports each failing path, dotted for nested values', async () => {
    const reply = await call(server, req(6, 'user', { user: { age: 'old' } }));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toEqual({
      issues: [{ path: 'user.age', message: expect.any(String) }],
    });
    const missing = await call(server, req(7, 'add', []));
    expect(missing?.error?.data).toEqual({ issues: [{ path: 'a', message: expect.any(String) }] });
  });

  it('rejects too many positional params for an object schema', async () => {
    const reply = await call(server, req(8, 'add', [1, 2, 3]));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({ detail: expect.stringMatching(/at most 2/) });
  });

  it('runs async refinements', async () => {
    expect(await call(server, req(9, 'claim', { name: 'free' }))).toMatchObject({
      id: 9,
      result: 'claimed free',
    });
    expect(await call(server, req(10, 'claim', ['free']))).toMatchObject({
      result: 'claimed free',
    });
    const reply = await call(server, req(11, 'claim', { name: 'taken' }));
    expect(reply).toMatchObject({ id: 11, error: { code: -32602 } });
    expect(reply?.error?.data).toEqual({ issues: [{ path: 'name', message: 'name is taken' }] });
  });

  it('rejects positional params for a schema without object keys', async () => {
    const reply = await call(server, req(12, 'list', [1, 2]));
    expect(reply?.error?.code).toBe(-32602);
    expect(reply?.error?.data).toMatchObject({ detail: expect.stringContaining('by name') });
  });

  it('does not answer a notification whose params fail validation', async () => {
    expect(await call(server, note('add', { a: 'x' }))).toBeUndefined();
    expect(await call(server, note('claim', { name: 'taken' }))).toBeUndefined();
  });
});

describe('errors', () => {
  it('answers an unknown method with -32601 naming it', async () => {
    const server = createJsonRpcServer(subtract);
    expect(await call(server, req('u', 'foobar'))).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32601, message: 'Method not found', data: { method: 'foobar' } },
    });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'answers %s with -32601 unless registered',
    async (name) => {
      const server = createJsonRpcServer(subtract);
      const reply = await call(server, req(1, name));
      expect(reply?.error).toEqual({
        code: -32601,
        message: 'Method not found',
        data: { method: name },
      });
      server.register(method(name, () => `called ${name}`));
      expect(await call(server, req(2, name))).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: `called ${name}`,
      });
    },
  );

  it('answers a handler throwing a plain Error with -32603 and leaks nothing', async () => {
    const secret = 'db password hunter2 at /srv/app/secret.ts';
    const server = createJsonRpcServer(
      method('crash', () => {
        throw new Error(secret);
      }),
    );
    const text = await raw(server, JSON.stringify(req(1, 'crash')));
    expect(text).toBeDefined();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secret.ts');
    expect(text).not.toContain('stack');
    expect(text).not.toContain('    at ');
    expect(JSON.parse(text as string)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'Internal error' },
    });
  });

  it('answers an async handler rejecting with a plain Error with -32603 and leaks nothing', async () => {
    const server = createJsonRpcServer(
      method('crash', async () => {
        await Promise.resolve();
        throw new TypeError('cannot read secretToken of undefined');
      }),
    );
    const text = await raw(server, JSON.stringify(req(2, 'crash')));
    expect(text).not.toContain('secretToken');
    expect(JSON.parse(text as string)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: 'Internal error' },
    });
  });

  it('answers a non-Error thrown value with -32603', async () => {
    const server = createJsonRpcServer(
      method('str', () => {
        throw 'raw string secret';
      }),
      method('undef', () => Promise.reject(undefined)),
    );
    const text = await raw(server, JSON.stringify(req(1, 'str')));
    expect(text).not.toContain('raw string secret');
    expect(JSON.parse(text as string)).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(await call(server, req(2, 'undef'))).toMatchObject({ id: 2, error: { code: -32603 } });
  });

  it('echoes an RpcError thrown by a handler exactly', async () => {
    const server = createJsonRpcServer(
      method('custom', () => {
        throw new RpcError(-32001, 'Resource locked', { resource: 'r1', retryAfter: 5 });
      }),
      method('bare', () => {
        throw new RpcError(-32099, 'No data');
      }),
      method('asyncCustom', async () => {
        throw new RpcError(42, 'app error', [1, 2]);
      }),
      method('invalidParams', () => {
        throw new InvalidParamsError('bad shape', { field: 'x' });
      }),
    );
    expect(await call(server, req(1, 'custom'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Resource locked', data: { resource: 'r1', retryAfter: 5 } },
    });
    const bare = await call(server, req(2, 'bare'));
    expect(bare?.error).toEqual({ code: -32099, message: 'No data' });
    expect(bare?.error).not.toHaveProperty('data');
    expect(await call(server, req(3, 'asyncCustom'))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: 42, message: 'app error', data: [1, 2] },
    });
    expect((await call(server, req(4, 'invalidParams')))?.error).toEqual({
      code: -32602,
      message: 'bad shape',
      data: { field: 'x' },
    });
  });

  it('answers a result JSON cannot express with -32603 for the same id', async () => {
    const server = createJsonRpcServer(method('big', () => ({ n: 1n })));
    expect(await call(server, req(7, 'big'))).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603 },
    });
  });

  it('logs a crashing handler through the logger, but not an RpcError', async () => {
    const logger = fakeLogger();
    const thrown = new Error('kaboom');
    const server = createJsonRpcServerWith(
      { logger },
      method('crash', () => {
        throw thrown;
      }),
      method('asyncCrash', async () => {
        throw thrown;
      }),
      method('rpc', () => {
        throw new RpcError(-32001, 'expected');
      }),
    );
    await call(server, req(1, 'crash'));
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ err: thrown, method: 'crash' }),
      expect.any(String),
    );
    await call(server, req(2, 'asyncCrash'));
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.error).toHaveBeenLastCalledWith(
      expect.objectContaining({ err: thrown, method: 'asyncCrash' }),
      expect.any(String),
    );
    await call(server, req(3, 'rpc'));
    expect(logger.error).toHaveBeenCalledTimes(2);
  });

  it('logs a crashing notification handler even though nothing is answered', async () => {
    const logger = fakeLogger();
    const server = createJsonRpcServerWith(
      { logger },
      method('crash', () => {
        throw new Error('in a notification');
      }),
    );
    expect(await call(server, note('crash'))).toBeUndefined();
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'crash' }),
      expect.any(String),
    );
  });
});

describe('results', () => {
  it('answers a handler returning undefined with result null', async () => {
    const server = createJsonRpcServer(
      method('nothing', () => undefined),
      method('asyncNothing', async () => {}),
    );
    const text = await raw(server, JSON.stringify(req(1, 'nothing')));
    expect(text).toContain('"result":null');
    expect(JSON.parse(text as string)).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    expect(await call(server, req(2, 'asyncNothing'))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: null,
    });
  });

  it('answers a result JSON cannot express as a value (function, symbol) with result null', async () => {
    const server = createJsonRpcServer(
      method('fn', () => () => 1),
      method('sym', () => Symbol('s')),
    );
    expect(await call(server, req(1, 'fn'))).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    expect(await call(server, req(2, 'sym'))).toEqual({ jsonrpc: '2.0', id: 2, result: null });
  });

  it('passes falsy results through unchanged', async () => {
    const server = createJsonRpcServer(
      method('zero', () => 0),
      method('empty', () => ''),
      method('no', () => false),
      method('nil', () => null),
    );
    expect((await call(server, req(1, 'zero')))?.result).toBe(0);
    expect((await call(server, req(2, 'empty')))?.result).toBe('');
    expect((await call(server, req(3, 'no')))?.result).toBe(false);
    expect((await call(server, req(4, 'nil')))?.result).toBeNull();
  });

  it('awaits async handlers', async () => {
    const server = createJsonRpcServer(
      method('slow', ['x'], async ({ x }) => {
        await new Promise((r) => setTimeout(r, 5));
        return { doubled: Number(x) * 2 };
      }),
    );
    expect(await call(server, req('s', 'slow', [21]))).toEqual({
      jsonrpc: '2.0',
      id: 's',
      result: { doubled: 42 },
    });
  });

  it('answers synchronous handlers synchronously', () => {
    const server = createJsonRpcServer(subtract);
    const single = server.handleFrame(JSON.stringify(req(1, 'subtract', [3, 1])), noExtra);
    expect(typeof single).toBe('string');
    const batch = server.handleFrame(
      JSON.stringify([req(1, 'subtract', [3, 1]), req(2, 'nope')]),
      noExtra,
    );
    expect(typeof batch).toBe('string');
  });

  it.each([
    ['0', 0],
    ['-1', -1],
    ['""', ''],
    ['null', null],
    ['"1"', '1'],
  ])('echoes request id %s exactly', async (_label, id) => {
    const server = createJsonRpcServer(subtract);
    const ok = await call(server, req(id, 'subtract', [2, 1]));
    expect(ok?.id).toBe(id);
    expect(ok?.result).toBe(1);
    const failed = await call(server, req(id, 'missing'));
    expect(failed?.id).toBe(id);
    expect(failed?.error?.code).toBe(-32601);
  });

  it('answers a fractional id (JSON-RPC 2.0: SHOULD NOT) with -32600, echoing it', async () => {
    const server = createJsonRpcServer(subtract);
    const refused = await call(server, req(1.5, 'subtract', [2, 1]));
    expect(refused).toMatchObject({ id: 1.5, error: { code: -32600 } });
  });
});

describe('frames that are not answered with a result', () => {
  const server = createJsonRpcServer(subtract);

  it('answers invalid JSON with -32700 and id null', async () => {
    const reply = await call(
      server,
      '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    );
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('answers nothing to an empty frame', async () => {
    expect(await raw(server, '')).toBeUndefined();
    expect(await raw(server, '  \n')).toBeUndefined();
  });

  it('answers an invalid request object with -32600', async () => {
    expect(await call(server, { jsonrpc: '2.0', method: 1, params: 'bar' })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
  });

  it('answers an empty batch with a single -32600', async () => {
    expect(await call(server, '[]')).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('notifications', () => {
  it('are never answered, whatever happens', async () => {
    const calls: string[] = [];
    const server = createJsonRpcServer(
      method('ok', () => {
        calls.push('ok');
        return 'ignored';
      }),
      method('throws', () => {
        calls.push('throws');
        throw new Error('boom');
      }),
      method('rejects', async () => {
        calls.push('rejects');
        throw new RpcError(-32001, 'nope');
      }),
      method('async', async () => {
        calls.push('async');
        return 1;
      }),
      subtract,
    );
    expect(await raw(server, JSON.stringify(note('ok')))).toBeUndefined();
    expect(await raw(server, JSON.stringify(note('throws')))).toBeUndefined();
    expect(await raw(server, JSON.stringify(note('rejects')))).toBeUndefined();
    expect(await raw(server, JSON.stringify(note('async')))).toBeUndefined();
    expect(await raw(server, JSON.stringify(note('unknown.method')))).toBeUndefined();
    expect(await raw(server, JSON.stringify(note('subtract', [1])))).toBeUndefined();
    expect(calls).toEqual(['ok', 'throws', 'rejects', 'async']);
  });

  it('log an unknown method at debug level only', async () => {
    const logger = fakeLogger();
    const server = createJsonRpcServerWith({ logger });
    expect(await raw(server, JSON.stringify(note('nope')))).toBeUndefined();
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.debug).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'nope' }),
      expect.any(String),
    );
  });

  it('are answered when the message itself is invalid', async () => {
    const server = createJsonRpcServer(subtract);
    expect(await call(server, { jsonrpc: '2.0', method: 'subtract', params: 'x' })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
  });
});

describe('batches', () => {
  const server = createJsonRpcServer(
    method('sum', (params) => (params as number[]).reduce((a, b) => a + b, 0)),
    method('notify_hello', () => 'hello'),
    subtract,
    method('get_data', () => ['hello', 5]),
  );

  it('answer mixed requests, notifications and invalid elements', async () => {
    const replies = await callBatch(server, [
      req('1', 'sum', [1, 2, 4]),
      note('notify_hello', [7]),
      req('2', 'subtract', [42, 23]),
      { foo: 'boo' },
      req('5', 'foo.get', { name: 'myself' }),
      req('9', 'get_data'),
    ]);
    expect(replies).toHaveLength(5);
    expect(replies).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: '1', result: 7 },
        { jsonrpc: '2.0', id: '2', result: 19 },
        expect.objectContaining({
          jsonrpc: '2.0',
          id: null,
          error: expect.objectContaining({ code: -32600 }),
        }),
        {
          jsonrpc: '2.0',
          id: '5',
          error: { code: -32601, message: 'Method not found', data: { method: 'foo.get' } },
        },
        { jsonrpc: '2.0', id: '9', result: ['hello', 5] },
      ]),
    );
  });

  it('answer every invalid element of a batch', async () => {
    const replies = await callBatch(server, [1, 2, 3]);
    expect(replies).toHaveLength(3);
    for (const reply of replies ?? []) {
      expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
  });

  it('answer a batch of one request with an array of one', async () => {
    expect(await callBatch(server, [req(1, 'subtract', [5, 3])])).toEqual([
      { jsonrpc: '2.0', id: 1, result: 2 },
    ]);
  });

  it('answer nothing to an all-notification batch', async () => {
    const calls: number[] = [];
    const s = createJsonRpcServer(
      method('n', ['i'], ({ i }) => {
        calls.push(Number(i));
      }),
      method('slow', async () => {
        await new Promise((r) => setTimeout(r, 1));
      }),
    );
    expect(
      await raw(s, JSON.stringify([note('n', [1]), note('n', [2]), note('slow'), note('x')])),
    ).toBeUndefined();
    expect(calls).toEqual([1, 2]);
  });

  it('answer a batch over maxBatchSize with a single -32600 and run nothing', async () => {
    const handler = vi.fn(() => 1);
    const s = createJsonRpcServerWith({ maxBatchSize: 2 }, method('m', handler));
    const over = await call(s, JSON.stringify([req(1, 'm'), req(2, 'm'), req(3, 'm')]));
    expect(over).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request' },
    });
    expect(handler).not.toHaveBeenCalled();
    const atLimit = await callBatch(s, [req(1, 'm'), req(2, 'm')]);
    expect(atLimit).toHaveLength(2);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('run their requests concurrently', async () => {
    const aStarted = deferred();
    const bStarted = deferred();
    // Each handler waits for the other to have started: sequential execution would deadlock.
    const s = createJsonRpcServer(
      method('a', async () => {
        aStarted.resolve();
        await bStarted.promise;
        return 'a done';
      }),
      method('b', async () => {
        bStarted.resolve();
        await aStarted.promise;
        return 'b done';
      }),
    );
    const out = await within(
      Promise.resolve(s.handleFrame(JSON.stringify([req(1, 'a'), req(2, 'b')]), noExtra)),
      500,
      'batch with mutually waiting handlers',
    );
    expect(JSON.parse(out as string)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: 'a done' },
        { jsonrpc: '2.0', id: 2, result: 'b done' },
      ]),
    );
  });

  it('answer duplicate ids separately', async () => {
    const replies = await callBatch(server, [
      req(1, 'subtract', [10, 1]),
      req(1, 'subtract', [10, 2]),
    ]);
    expect(replies).toHaveLength(2);
    expect(replies).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: 9 },
        { jsonrpc: '2.0', id: 1, result: 8 },
      ]),
    );
  });

  it('isolate a crashing element from the others', async () => {
    const s = createJsonRpcServer(
      method('ok', () => 'fine'),
      method('crash', async () => {
        throw new Error('boom');
      }),
    );
    const replies = await callBatch(s, [req(1, 'ok'), req(2, 'crash'), req(3, 'ok')]);
    expect(replies).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: 'fine' },
        { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
        { jsonrpc: '2.0', id: 3, result: 'fine' },
      ]),
    );
    expect(replies).toHaveLength(3);
  });
});

describe('responses', () => {
  it('are passed to onResponse and not answered', async () => {
    const onResponse = vi.fn();
    const server = createJsonRpcServer(subtract);
    const options: DispatchInputs<unknown> = { extra: undefined, onResponse };
    expect(
      await raw(server, JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'r' }), options),
    ).toBeUndefined();
    expect(
      await raw(
        server,
        JSON.stringify({ jsonrpc: '2.0', id: 'e', error: { code: -32001, message: 'm', data: 3 } }),
        options,
      ),
    ).toBeUndefined();
    expect(onResponse).toHaveBeenCalledTimes(2);
    expect(onResponse).toHaveBeenNthCalledWith(1, { jsonrpc: '2.0', id: 1, result: 'r' });
    expect(onResponse).toHaveBeenNthCalledWith(2, {
      jsonrpc: '2.0',
      id: 'e',
      error: { code: -32001, message: 'm', data: 3 },
    });
  });

  it('are dropped silently without onResponse', async () => {
    const server = createJsonRpcServer(subtract);
    expect(
      await raw(server, JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'r' })),
    ).toBeUndefined();
  });

  it('in a batch go to onResponse while requests are answered', async () => {
    const onResponse = vi.fn();
    const server = createJsonRpcServer(subtract);
    const replies = await callBatch(
      server,
      [{ jsonrpc: '2.0', id: 9, result: 'x' }, req(1, 'subtract', [2, 1])],
      { extra: undefined, onResponse },
    );
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 1, result: 1 }]);
    expect(onResponse).toHaveBeenCalledWith({ jsonrpc: '2.0', id: 9, result: 'x' });
    const onlyResponses = await raw(
      server,
      JSON.stringify([
        { jsonrpc: '2.0', id: 10, result: 1 },
        { jsonrpc: '2.0', id: 11, result: 2 },
      ]),
      { extra: undefined, onResponse },
    );
    expect(onlyResponses).toBeUndefined();
    expect(onResponse).toHaveBeenCalledTimes(3);
  });
});

describe('request context', () => {
  interface Extra {
    user: string;
  }

  it('carries id, method, extra and a live, non-aborted signal', async () => {
    const seen: RequestContext<Extra>[] = [];
    const server = createJsonRpcServer<Extra>(
      method<Extra>('ctx', (_params, ctx) => {
        seen.push(ctx);
        return { aborted: ctx.signal.aborted };
      }),
    );
    const options: DispatchInputs<Extra> = { extra: { user: 'alice' } };
    expect(await call(server, req(7, 'ctx'), options)).toMatchObject({
      result: { aborted: false },
    });
    expect(await call(server, note('ctx'), options)).toBeUndefined();
    expect(seen).toHaveLength(2);
    const [forRequest, forNotification] = seen;
    expect(forRequest?.id).toBe(7);
    expect(forRequest?.method).toBe('ctx');
    expect(forRequest?.extra).toBe(options.extra);
    expect(forRequest?.signal).toBeInstanceOf(AbortSignal);
    expect(forRequest?.signal.aborted).toBe(false);
    expect(forNotification?.id).toBeUndefined();
    expect(forNotification?.method).toBe('ctx');
    expect(forNotification?.extra).toEqual({ user: 'alice' });
  });

  it('passes ctx to named-param and schema handlers too', async () => {
    const ids: unknown[] = [];
    const server = createJsonRpcServer(
      method('named', ['a'], (_p, ctx) => {
        ids.push(ctx.id);
      }),
      method('schema', z.object({ a: z.number() }), (_p, ctx) => {
        ids.push(ctx.id);
        return ctx.method;
      }),
    );
    await call(server, req('n', 'named', [1]));
    expect(await call(server, req(0, 'schema', [1]))).toMatchObject({ result: 'schema' });
    expect(ids).toEqual(['n', 0]);
  });

  it('takes its signal from signalFor, lazily, and reports settled ids', async () => {
    const controller = new AbortController();
    const signalFor = vi.fn(() => controller.signal);
    const settled = vi.fn();
    const server = createJsonRpcServer(
      method('reads', (_p, ctx) => ctx.signal === controller.signal),
      method('ignores', () => 'x'),
    );
    const options: DispatchInputs<unknown> = { extra: undefined, signalFor, settled };
    expect(await call(server, req(1, 'ignores'), options)).toMatchObject({ result: 'x' });
    expect(signalFor).not.toHaveBeenCalled();
    expect(await call(server, req(2, 'reads'), options)).toMatchObject({ result: true });
    expect(signalFor).toHaveBeenCalledWith(2, 'reads');
    expect(settled).toHaveBeenCalledWith(1);
    expect(settled).toHaveBeenCalledWith(2);
  });

  it('answers nothing — result or error — for a request settled says was cancelled (MCP)', async () => {
    const logger = fakeLogger();
    const server = createJsonRpcServerWith(
      { logger },
      method('ok', () => 'x'),
      method('rpc', async () => {
        throw new RpcError(-32000, 'the backend call was abandoned');
      }),
      method('crash', () => {
        throw new DOMException('This operation was aborted', 'AbortError');
      }),
    );
    const cancelled = new Set<JsonRpcId>([1, 2, 3]);
    const options: DispatchInputs<unknown> = {
      extra: undefined,
      settled: (id) => id !== undefined && cancelled.has(id),
    };
    expect(await call(server, req(1, 'ok'), options)).toBeUndefined();
    expect(await call(server, req(2, 'rpc'), options)).toBeUndefined();
    expect(await call(server, req(3, 'crash'), options)).toBeUndefined();
    // Failing once cancelled is what a handler is asked to do: not an error in the log.
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.debug).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'crash' }),
      expect.any(String),
    );
    // The rest are answered, in a batch too.
    expect(await callBatch(server, [req(1, 'ok'), req(4, 'ok'), req(2, 'rpc')], options)).toEqual([
      { jsonrpc: '2.0', id: 4, result: 'x' },
    ]);
    expect(await call(server, req(5, 'crash'), options)).toMatchObject({ error: { code: -32603 } });
    expect(logger.error).toHaveBeenCalledTimes(1);
  });
});

describe('registry', () => {
  it('rejects a duplicate method name', () => {
    const server = createJsonRpcServer(subtract);
    expect(() => server.register(method('subtract', () => 0))).toThrow(/already registered/);
    expect(() =>
      createJsonRpcServer(
        method('x', () => 1),
        method('x', () => 2),
      ),
    ).toThrow(/'x'/);
  });

  it('keeps the first definition when a duplicate is rejected', async () => {
    const server = createJsonRpcServer(method('x', () => 'first'));
    expect(() => server.register(method('x', () => 'second'))).toThrow();
    expect(await call(server, req(1, 'x'))).toMatchObject({ result: 'first' });
  });

  it('lists, checks and unregisters methods', async () => {
    const server = new Dispatcher().register(
      subtract,
      method('b', () => 1),
    );
    expect(server.methodNames).toEqual(['subtract', 'b']);
    expect(server.has('b')).toBe(true);
    expect(server.has('toString')).toBe(false);
    expect(server.unregister('b')).toBe(true);
    expect(server.unregister('b')).toBe(false);
    expect((await call(server, req(1, 'b')))?.error?.code).toBe(-32601);
    server.register(method('b', () => 2));
    expect(await call(server, req(2, 'b'))).toMatchObject({ result: 2 });
  });

  it('refuses an empty method name and a missing handler', () => {
    expect(() => method('', () => 1)).toThrow(TypeError);
    expect(() => method('m', ['a'], undefined as never)).toThrow(TypeError);
    expect(() => method('m', { not: 'a schema' } as never, () => 1)).toThrow(TypeError);
  });
});
