import { describe, expect, it } from 'vitest';
import {
  classify,
  decodeFrame,
  encodeBatch,
  encodeMessage,
  encodeRequestWithMeta,
  encodeResponse,
  type Incoming,
} from './codec.js';
import type { JsonRpcResponse } from './types.js';

/** Decode a frame that must hold a single message and return that message. */
function single(text: string): Incoming {
  const frame = decodeFrame(text);
  if (frame.kind !== 'single') throw new Error(`expected a single message, got ${frame.kind}`);
  return frame.message;
}

/** Classify a value that must be invalid and return its reply. */
function invalidReply(value: unknown) {
  const message = classify(value);
  if (message.kind !== 'invalid') throw new Error(`expected invalid, got ${message.kind}`);
  return message.reply;
}

describe('decodeFrame', () => {
  it('answers invalid JSON with a -32700 parse error and id null', () => {
    for (const text of [
      '{',
      '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
      'nul',
    ]) {
      const frame = decodeFrame(text);
      expect(frame.kind).toBe('invalid');
      if (frame.kind !== 'invalid') continue;
      expect(frame.reply.jsonrpc).toBe('2.0');
      expect(frame.reply.id).toBeNull();
      expect(frame.reply.error.code).toBe(-32700);
      expect(frame.reply.error.message).toBe('Parse error');
    }
  });

  it('treats an empty or whitespace-only frame as empty', () => {
    for (const text of ['', ' ', '\t', '\r\n', ' \n\t\r ', '\uFEFF', '\uFEFF  \n']) {
      expect(decodeFrame(text)).toEqual({ kind: 'empty' });
    }
  });

  it('does not treat non-JSON-whitespace as empty', () => {
    const frame = decodeFrame('\u00a0');
    expect(frame.kind).toBe('invalid');
    if (frame.kind === 'invalid') expect(frame.reply.error.code).toBe(-32700);
  });

  it('tolerates a leading byte-order mark', () => {
    const message = single('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(message).toEqual({ kind: 'request', id: 1, method: 'ping', params: undefined });
  });

  it('accepts surrounding JSON whitespace', () => {
    const message = single('  \n{"jsonrpc":"2.0","method":"ping"}\r\n ');
    expect(message).toEqual({ kind: 'notification', method: 'ping', params: undefined });
  });

  it('answers an empty batch with a single -32600 and id null', () => {
    for (const text of ['[]', ' [ ] ']) {
      const frame = decodeFrame(text);
      expect(frame.kind).toBe('invalid');
      if (frame.kind !== 'invalid') continue;
      expect(frame.reply).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
  });

  it('classifies each batch element individually', () => {
    const frame = decodeFrame(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'sum', params: [1, 2, 4] },
        { jsonrpc: '2.0', method: 'notify_hello', params: [7] },
        { foo: 'boo' },
        1,
        { jsonrpc: '2.0', id: 2, result: 19 },
        [],
      ]),
    );
    expect(frame.kind).toBe('batch');
    if (frame.kind !== 'batch') return;
    expect(frame.messages.map((m) => m.kind)).toEqual([
      'request',
      'notification',
      'invalid',
      'invalid',
      'response',
      'invalid',
    ]);
    expect(frame.messages[0]).toEqual({ kind: 'request', id: 1, method: 'sum', params: [1, 2, 4] });
    expect(frame.messages[1]).toEqual({
      kind: 'notification',
      method: 'notify_hello',
      params: [7],
    });
    expect(frame.messages[4]).toEqual({
      kind: 'response',
      response: { jsonrpc: '2.0', id: 2, result: 19 },
    });
  });

  it('turns a batch of one invalid value into a batch, not a single', () => {
    const frame = decodeFrame('[1]');
    expect(frame.kind).toBe('batch');
    if (frame.kind !== 'batch') return;
    expect(frame.messages).toHaveLength(1);
    const [first] = frame.messages;
    expect(first?.kind).toBe('invalid');
    if (first?.kind === 'invalid') {
      expect(first.reply.id).toBeNull();
      expect(first.reply.error.code).toBe(-32600);
    }
  });

  it('classifies non-object single values as invalid requests with id null', () => {
    for (const text of ['1', '"x"', 'null', 'true']) {
      const message = single(text);
      expect(message.kind).toBe('invalid');
      if (message.kind !== 'invalid') continue;
      expect(message.reply.id).toBeNull();
      expect(message.reply.error.code).toBe(-32600);
    }
  });
});

describe('classify: requests and notifications', () => {
  it('classifies a message with an id as a request', () => {
    expect(classify({ jsonrpc: '2.0', id: 7, method: 'm', params: { a: 1 } })).toEqual({
      kind: 'request',
      id: 7,
      method: 'm',
      params: { a: 1 },
    });
  });

  it('classifies a message with id null as a request (not a notification)', () => {
    expect(classify({ jsonrpc: '2.0', id: null, method: 'm' })).toEqual({
      kind: 'request',
      id: null,
      method: 'm',
      params: undefined,
    });
  });

  it('classifies a message without an id as a notification', () => {
    expect(classify({ jsonrpc: '2.0', method: 'm', params: [1] })).toEqual({
      kind: 'notification',
      method: 'm',
      params: [1],
    });
  });

  it('accepts array and object params, and absent params', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'm', params: [] })).toMatchObject({
      kind: 'request',
      params: [],
    });
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'm', params: {} })).toMatchObject({
      kind: 'request',
      params: {},
    });
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'm' })).toMatchObject({
      kind: 'request',
      params: undefined,
    });
  });

  it.each([
    ['a string', 'bar'],
    ['a number', 3],
    ['null', null],
    ['a boolean', true],
  ])('rejects params that are %s with -32600', (_label, params) => {
    const reply = invalidReply({ jsonrpc: '2.0', id: 5, method: 'm', params });
    expect(reply.error.code).toBe(-32600);
    expect(reply.error.message).toBe('Invalid Request');
    expect(reply.id).toBe(5);
  });

  it('rejects a non-string method with -32600, echoing the id', () => {
    const reply = invalidReply({ jsonrpc: '2.0', id: 'abc', method: 1, params: 'bar' });
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 'abc', error: { code: -32600 } });
  });

  it('rejects a message with neither method nor result/error', () => {
    const reply = invalidReply({ jsonrpc: '2.0', id: 3 });
    expect(reply).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('rejects an object without jsonrpc', () => {
    const reply = invalidReply({ foo: 'boo' });
    expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('classify: jsonrpc version', () => {
  it.each([
    ['the number 2.0', 2.0],
    ['the string "2"', '2'],
    ['the string "1.0"', '1.0'],
    ['the string "2.0 "', '2.0 '],
    ['null', null],
  ])('rejects jsonrpc as %s with -32600', (_label, version) => {
    const reply = invalidReply({ jsonrpc: version, id: 1, method: 'm' });
    expect(reply.error.code).toBe(-32600);
    expect(reply.id).toBe(1);
  });

  it('rejects a missing jsonrpc member with -32600', () => {
    const reply = invalidReply({ id: 1, method: 'm' });
    expect(reply.error.code).toBe(-32600);
    expect(reply.id).toBe(1);
  });

  it('rejects jsonrpc given as the number 2.0 in raw JSON text', () => {
    const message = single('{"jsonrpc":2.0,"id":9,"method":"m"}');
    expect(message.kind).toBe('invalid');
    if (message.kind === 'invalid') {
      expect(message.reply.error.code).toBe(-32600);
      expect(message.reply.id).toBe(9);
    }
  });

  it('rejects a notification with a wrong version (answered with id null)', () => {
    const reply = invalidReply({ jsonrpc: '1.0', method: 'm' });
    expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('classify: id handling', () => {
  it.each([
    ['0', 0],
    ['-1', -1],
    ['a large integer', 9007199254740991],
    ['the empty string', ''],
    ['a string', 'req-1'],
    ['a numeric string', '1'],
    ['null', null],
  ])('echoes id %s exactly on a request', (_label, id) => {
    const message = classify({ jsonrpc: '2.0', id, method: 'm' });
    expect(message.kind).toBe('request');
    if (message.kind === 'request') expect(message.id).toBe(id);
  });

  it.each([
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ['the empty string', ''],
    ['a string', 'x'],
  ])('echoes id %s on an otherwise invalid request', (_label, id) => {
    const reply = invalidReply({ jsonrpc: '2.0', id, method: 'm', params: 'nope' });
    expect(reply.id).toBe(id);
    expect(reply.error.code).toBe(-32600);
  });

  it('echoes the id when the version is wrong', () => {
    expect(invalidReply({ jsonrpc: '1.0', id: 'keep-me', method: 'm' }).id).toBe('keep-me');
  });

  it.each([
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['a boolean', true],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
  ])('answers an id that is %s with -32600 and id null', (_label, id) => {
    const reply = invalidReply({ jsonrpc: '2.0', id, method: 'm' });
    expect(reply.id).toBeNull();
    expect(reply.error.code).toBe(-32600);
  });

  it('answers an id that overflows to Infinity in raw JSON with id null', () => {
    const message = single('{"jsonrpc":"2.0","id":1e400,"method":"m"}');
    expect(message.kind).toBe('invalid');
    if (message.kind === 'invalid') expect(message.reply.id).toBeNull();
  });

  it('keeps ids distinct by type: "1" is not 1', () => {
    const s = classify({ jsonrpc: '2.0', id: '1', method: 'm' });
    const n = classify({ jsonrpc: '2.0', id: 1, method: 'm' });
    expect(s).toMatchObject({ kind: 'request', id: '1' });
    expect(n).toMatchObject({ kind: 'request', id: 1 });
  });

  it('echoes ids exactly through a decoded frame', () => {
    const frame = decodeFrame(
      '[{"jsonrpc":"2.0","id":0,"method":"a"},{"jsonrpc":"2.0","id":-1,"method":"b"},' +
        '{"jsonrpc":"2.0","id":"","method":"c"},{"jsonrpc":"2.0","id":1.5,"method":"d"},' +
        '{"jsonrpc":"2.0","id":null,"method":"e"}]',
    );
    expect(frame.kind).toBe('batch');
    if (frame.kind !== 'batch') return;
    const ids = frame.messages.map((m) => (m.kind === 'request' ? m.id : 'not-a-request'));
    expect(ids).toEqual([0, -1, '', 'not-a-request', null]);
  });

  it('echoes integer ids beyond 2^53 exactly as received', () => {
    for (const raw of ['9007199254740993', '-9007199254740993', '123456789012345678901234567890']) {
      const message = single(`{"jsonrpc":"2.0","id":${raw},"method":"m"}`);
      expect(message).toMatchObject({ kind: 'request', id: BigInt(raw) });
      if (message.kind !== 'request') return;
      expect(encodeResponse({ jsonrpc: '2.0', id: message.id, result: {} })).toBe(
        `{"jsonrpc":"2.0","id":${raw},"result":{}}`,
      );
      expect(
        encodeResponse({ jsonrpc: '2.0', id: message.id, error: { code: 1, message: 'x' } }),
      ).toBe(`{"jsonrpc":"2.0","id":${raw},"error":{"code":1,"message":"x"}}`);
    }
    // A safe integer stays a number; 2^53 itself is exact in a double but beyond the safe range.
    expect(single('{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}')).toMatchObject({
      id: 9007199254740991,
    });
    expect(single('{"id" : 9007199254740992 , "jsonrpc":"2.0","method":"m"}')).toMatchObject({
      id: 9007199254740992n,
    });
  });

  it('takes each big id of a batch from its own element, not from params or strings', () => {
    const frame = decodeFrame(
      '[{"jsonrpc":"2.0","method":"a","params":{"id":1},"id":9007199254740993},' +
        '7,{"jsonrpc":"2.0","id":1,"method":"b"},' +
        '{"jsonrpc":"2.0","method":"c","params":["\\"id\\":5,"],"\\u0069d":9007199254740995}]',
    );
    if (frame.kind !== 'batch') throw new Error(frame.kind);
    const ids = frame.messages.map((m) => (m.kind === 'request' ? m.id : m.kind));
    expect(ids).toEqual([9007199254740993n, 'invalid', 1, 9007199254740995n]);
  });

  it('decodes the id a cancellation names exactly where JSON.parse rounds it to another', () => {
    const named = (text: string) => {
      const message = single(text);
      return message.kind === 'notification' || message.kind === 'request'
        ? (message.params as Record<string, unknown>).requestId
        : message.kind;
    };
    const cancel = (requestId: string, extra = '') =>
      `{"jsonrpc":"2.0","method":"notifications/cancelled",${extra}"params":{"reason":"r","requestId" : ${requestId}}}`;
    // 9007199254741001 parses as 9007199254741000: a call never sent would name one in flight.
    expect(named(cancel('9007199254741001'))).toBe(9007199254741001n);
    expect(named(cancel('-18014398509481987'))).toBe(-18014398509481987n);
    expect(named(cancel('18014398509481987', '"id":9007199254741003,'))).toBe(18014398509481987n);
    // A double that is the very integer names the same call as a bigint id of its digits.
    expect(named(cancel('9007199254741000'))).toBe(9007199254741000);
    expect(named(cancel('"9007199254741001"'))).toBe('9007199254741001');
    // Only where an id is named: the same member of another method, or deeper, is left alone.
    const other = single(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"requestId":9007199254741001}}',
    );
    expect(other.kind === 'request' && other.params).toEqual({ requestId: 9007199254741000 });
    const frame = decodeFrame(
      '[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":{"requestId":9007199254741001},"requestId":1}},' +
        `${cancel('9007199254741003')},` +
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"k":"\\"requestId\\":5"},"params.requestId":9007199254741001}]',
    );
    if (frame.kind !== 'batch') throw new Error(frame.kind);
    expect(
      frame.messages.map((m) =>
        m.kind === 'notification' ? (m.params as Record<string, unknown>).requestId : m.kind,
      ),
    ).toEqual([1, 9007199254741003n, 2]);
  });

  it("takes a request's progress token beyond 2^53 from the text, to be echoed digit for digit", () => {
    const token = (text: string) => {
      const m = single(text);
      if (m.kind !== 'request') throw new Error(m.kind);
      return (m.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
    };
    const call = (t: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":${t}}}}`;
    // Rounded by JSON.parse to …992: the client would never hear its own token.
    expect(token(call('9007199254740993'))).toBe(9007199254740993n);
    // Exactly a double, but String() of it is 1e+21: not the digits the client sent.
    expect(token(call('1000000000000000000000'))).toBe(1000000000000000000000n);
    expect(token(call('-9007199254740993'))).toBe(-9007199254740993n);
    // Safe integers, fractions and strings stay as parsed; only `_meta` of `params` counts.
    expect(token(call('42'))).toBe(42);
    expect(token(call('1e300'))).toBe(1e300);
    expect(token(call('"9007199254740993"'))).toBe('9007199254740993');
    const elsewhere = single(
      '{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":{"_meta":{"progressToken":9007199254740993}},"_meta":{"progressToken":7}}}',
    );
    if (elsewhere.kind !== 'request') throw new Error(elsewhere.kind);
    expect(elsewhere.params).toEqual({
      x: { _meta: { progressToken: 9007199254740992 } },
      _meta: { progressToken: 7 },
    });
  });

  it('encodes a bigint in an outgoing message digit for digit, as a JSON number', () => {
    const tagLike = 'bigint-00000000-0000-0000-0000-000000000000-0';
    const message = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: {
        progressToken: 18014398509481987n,
        progress: 1,
        tags: [-9007199254741001n, tagLike],
      },
    };
    expect(encodeMessage(message)).toBe(
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":18014398509481987,"progress":1,"tags":[-9007199254741001,"${tagLike}"]}}`,
    );
    expect(encodeMessage({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(() => encodeMessage(cyclic)).toThrow(TypeError);
  });

  it('answers a big id that is invalid otherwise with the exact id', () => {
    const message = single('{"jsonrpc":"1.0","id":9007199254740993,"method":"m"}');
    if (message.kind !== 'invalid') throw new Error(message.kind);
    expect(encodeResponse(message.reply)).toMatch(/^\{"jsonrpc":"2.0","id":9007199254740993,/);
  });

  it('answers a fractional id with -32600 echoing it, and keeps accepting null', () => {
    const message = single('{"jsonrpc":"2.0","id":1.5,"method":"m"}');
    expect(message).toMatchObject({
      kind: 'invalid',
      reply: { id: 1.5, error: { code: -32600, data: { detail: 'id must be an integer' } } },
    });
    expect(single('{"jsonrpc":"2.0","id":null,"method":"m"}')).toMatchObject({
      kind: 'request',
      id: null,
    });
  });

  it('answers -32603 with the exact big id when a result cannot be serialized', () => {
    expect(encodeResponse({ jsonrpc: '2.0', id: 9007199254740993n, result: { n: 1n } })).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32603,"message":"Internal error","data":{"detail":"the result could not be serialized as JSON"}}}',
    );
  });
});

describe('classify: responses', () => {
  it('classifies a success response', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, result: { ok: true } })).toEqual({
      kind: 'response',
      response: { jsonrpc: '2.0', id: 1, result: { ok: true } },
    });
  });

  it('classifies a success response whose result is null', () => {
    expect(classify({ jsonrpc: '2.0', id: 'a', result: null })).toEqual({
      kind: 'response',
      response: { jsonrpc: '2.0', id: 'a', result: null },
    });
  });

  it('classifies an error response with integer code and string message', () => {
    expect(
      classify({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }),
    ).toEqual({
      kind: 'response',
      response: { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    });
  });

  it('keeps error data and drops unknown error members', () => {
    const message = classify({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32001, message: 'custom', data: { why: 'x' }, extra: 1 },
    });
    expect(message).toEqual({
      kind: 'response',
      response: {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32001, message: 'custom', data: { why: 'x' } },
      },
    });
  });

  it('classifies an error response with id null', () => {
    expect(
      classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
    ).toMatchObject({ kind: 'response', response: { id: null } });
  });

  it('rejects a response carrying both result and error', () => {
    const reply = invalidReply({
      jsonrpc: '2.0',
      id: 4,
      result: 1,
      error: { code: 1, message: 'x' },
    });
    expect(reply).toMatchObject({ id: 4, error: { code: -32600 } });
  });

  it.each([
    ['a non-integer code', { code: 1.5, message: 'x' }],
    ['a string code', { code: '1', message: 'x' }],
    ['a missing code', { message: 'x' }],
    ['a numeric message', { code: 1, message: 2 }],
    ['a missing message', { code: 1 }],
    ['null', null],
    ['a string', 'oops'],
    ['an array', [1, 'x']],
  ])('rejects an error object with %s', (_label, error) => {
    const reply = invalidReply({ jsonrpc: '2.0', id: 6, error });
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 6, error: { code: -32600 } });
  });

  it('rejects a response without an id', () => {
    expect(classify({ jsonrpc: '2.0', result: 1 }).kind).toBe('invalid');
  });

  it('rejects a response with the wrong version', () => {
    expect(classify({ jsonrpc: '1.0', id: 1, result: 1 }).kind).toBe('invalid');
  });
});

describe('encodeResponse', () => {
  it('serializes a success and an error response', () => {
    expect(JSON.parse(encodeResponse({ jsonrpc: '2.0', id: 1, result: [1, 'a'] }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: [1, 'a'],
    });
    expect(
      JSON.parse(
        encodeResponse({ jsonrpc: '2.0', id: 'x', error: { code: -32000, message: 'm', data: 1 } }),
      ),
    ).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32000, message: 'm', data: 1 } });
  });

  it.each([
    ['0', 0],
    ['-1', -1],
    ['""', ''],
    ['1.5', 1.5],
    ['null', null],
  ])('echoes id %s exactly', (_label, id) => {
    expect(JSON.parse(encodeResponse({ jsonrpc: '2.0', id, result: true })).id).toBe(id);
  });

  it.each([
    ['a string with quotes and backslashes', 'a"b\\c'],
    ['a string with control and non-ASCII characters', 'line\nbreak \u2028 é 😀'],
    ['a very large number', 1e21],
    ['a very small number', 5e-324],
    ['the largest safe integer', Number.MAX_SAFE_INTEGER],
  ])('round-trips id that is %s as valid JSON', (_label, id) => {
    const text = encodeResponse({ jsonrpc: '2.0', id, result: 1 });
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id, result: 1 });
    const failure = encodeResponse({ jsonrpc: '2.0', id, error: { code: 1, message: 'x' } });
    expect(JSON.parse(failure).id).toBe(id);
  });

  it.each([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['an object whose toJSON returns undefined', { toJSON: () => undefined }],
  ])('keeps result present (as null) when the result is %s', (_label, result) => {
    const out = JSON.parse(encodeResponse({ jsonrpc: '2.0', id: 3, result }));
    expect(out).toEqual({ jsonrpc: '2.0', id: 3, result: null });
    expect(Object.hasOwn(out, 'result')).toBe(true);
  });

  it('serializes a result that uses toJSON', () => {
    const out = JSON.parse(
      encodeResponse({ jsonrpc: '2.0', id: 1, result: { when: new Date(0), n: [1, 'x', null] } }),
    );
    expect(out.result).toEqual({ when: '1970-01-01T00:00:00.000Z', n: [1, 'x', null] });
  });

  it('turns a result whose toJSON throws into -32603 for the same id', () => {
    const result = {
      toJSON() {
        throw new Error('secret detail');
      },
    };
    const text = encodeResponse({ jsonrpc: '2.0', id: 'tj', result });
    expect(text).not.toContain('secret detail');
    expect(JSON.parse(text)).toMatchObject({ id: 'tj', error: { code: -32603 } });
  });

  it('turns a BigInt result into -32603 for the same id', () => {
    const out = JSON.parse(encodeResponse({ jsonrpc: '2.0', id: 42, result: { n: 10n } }));
    expect(out).toMatchObject({
      jsonrpc: '2.0',
      id: 42,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(out).not.toHaveProperty('result');
  });

  it('turns a circular result into -32603 for the same id', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const out = JSON.parse(encodeResponse({ jsonrpc: '2.0', id: 'c', result: circular }));
    expect(out).toMatchObject({ jsonrpc: '2.0', id: 'c', error: { code: -32603 } });
    expect(out).not.toHaveProperty('result');
  });

  it('turns unserializable error data into -32603 for the same id', () => {
    const out = JSON.parse(
      encodeResponse({ jsonrpc: '2.0', id: 0, error: { code: -32001, message: 'x', data: 1n } }),
    );
    expect(out).toMatchObject({ id: 0, error: { code: -32603 } });
  });
});

describe('encodeBatch', () => {
  it('serializes responses as a JSON array in order', () => {
    const responses: JsonRpcResponse[] = [
      { jsonrpc: '2.0', id: 1, result: 7 },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
    ];
    expect(JSON.parse(encodeBatch(responses))).toEqual(responses);
  });

  it('serializes an empty list as []', () => {
    expect(encodeBatch([])).toBe('[]');
  });

  it('replaces only the unserializable element of a batch', () => {
    const out = JSON.parse(
      encodeBatch([
        { jsonrpc: '2.0', id: 1, result: 'ok' },
        { jsonrpc: '2.0', id: 2, result: 2n },
        { jsonrpc: '2.0', id: 3, result: 'ok' },
      ]),
    );
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({ jsonrpc: '2.0', id: 1, result: 'ok' });
    expect(out[1]).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32603 } });
    expect(out[2]).toEqual({ jsonrpc: '2.0', id: 3, result: 'ok' });
  });
});

describe("error data in the shape the CODEFLUSS MCP server's JSON-RPC protocol page shows", () => {
  it('explains a parse error and a missing method under data.detail', () => {
    const parse = decodeFrame('{"jsonrpc": "2.0", "method": "foobar, "params": "bar"');
    expect(parse).toMatchObject({
      kind: 'invalid',
      reply: { id: null, error: { code: -32700, data: { detail: expect.any(String) } } },
    });
    expect(classify({ jsonrpc: '2.0', id: 1 })).toEqual({
      kind: 'invalid',
      reply: {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message: 'Invalid Request',
          data: { detail: 'Missing required field: method' },
        },
      },
    });
  });
});

describe('encodeRequestWithMeta', () => {
  const meta = encodeMessage({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', n: [1] });

  it('writes the params with the _meta text as it is, the same JSON as the whole object', () => {
    const params = { name: 'echo', arguments: { text: 'hi "there"' } };
    const frame = encodeRequestWithMeta(7, 'tools/call', params, meta);
    expect(JSON.parse(frame)).toStrictEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { ...params, _meta: JSON.parse(meta) },
    });
    // The caller's params are not touched.
    expect(params).toStrictEqual({ name: 'echo', arguments: { text: 'hi "there"' } });
  });

  it('writes params of their own _meta only for empty or absent params', () => {
    expect(JSON.parse(encodeRequestWithMeta('a', 'tools/list', {}, meta)).params).toStrictEqual({
      _meta: JSON.parse(meta),
    });
    expect(
      JSON.parse(encodeRequestWithMeta('a', 'tools/list', undefined, meta)).params,
    ).toStrictEqual({ _meta: JSON.parse(meta) });
  });

  it('writes a bigint id and bigint values digit for digit', () => {
    const frame = encodeRequestWithMeta(2n ** 64n, 'x', { big: 2n ** 70n }, meta);
    expect(frame).toContain(`"id":${2n ** 64n}`);
    expect(frame).toContain(`"big":${2n ** 70n}`);
  });

  it('refuses positional params, which have no place for _meta', () => {
    expect(() => encodeRequestWithMeta(1, 'x', [1, 2], meta)).toThrow(TypeError);
  });
});
