import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLinkedTransports } from '../transports/memory.js';
import { encodeResponse } from './codec.js';
import { JsonRpcConnection } from './connection.js';
import { editResultText, RESULT_TEXT_MIN, resultSpan, resultText } from './result-text.js';

/** The text of the span `resultSpan` finds in `text`, or undefined. */
const spanOf = (text: string): string | undefined => {
  const span = resultSpan(text);
  return span && text.slice(span[0], span[1]);
};

describe('resultSpan', () => {
  it('finds the result wherever the members stand, without the whitespace around it', () => {
    expect(spanOf('{"jsonrpc":"2.0","id":1,"result":{"a":1}}')).toBe('{"a":1}');
    expect(spanOf('{"result":{"a":[1,{"b":2}]},"jsonrpc":"2.0","id":1}')).toBe('{"a":[1,{"b":2}]}');
    expect(spanOf('\ufeff { "id" : 1 ,\n "result" :\t{ "a" : 1 } \r\n, "jsonrpc":"2.0" } ')).toBe(
      '{ "a" : 1 }',
    );
  });

  it('is not fooled by "result" nested, in values, or in strings with escaped quotes', () => {
    const text =
      '{"jsonrpc":"result","id":"\\"result\\":{}","result":{"result":{"x":"}\\\\"},"s":"\\"},{"}}';
    expect(spanOf(text)).toBe('{"result":{"x":"}\\\\"},"s":"\\"},{"}');
    expect(JSON.parse(spanOf(text) as string)).toEqual(JSON.parse(text).result);
  });

  it('gives up where what JSON.parse decoded cannot be told for sure', () => {
    // Twice: JSON.parse keeps the last one.
    expect(resultSpan('{"result":{"a":1},"id":1,"result":{"a":2}}')).toBeUndefined();
    // A key with escapes may spell `result`.
    expect(resultSpan('{"result":{"a":1},"id":1,"\\u0072esult":{"a":2}}')).toBeUndefined();
    // Only object results are relayed as text.
    expect(resultSpan('{"jsonrpc":"2.0","id":1,"result":[1]}')).toBeUndefined();
    expect(resultSpan('{"jsonrpc":"2.0","id":1,"result":"x"}')).toBeUndefined();
    expect(resultSpan('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}')).toBeUndefined();
    expect(resultSpan('[{"jsonrpc":"2.0","id":1,"result":{}}]')).toBeUndefined();
  });

  it('finds exactly the text that decodes to the result, for any response', () => {
    const ws = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');
    const object = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(object, fc.jsonValue(), ws, ws, fc.boolean(), (result, id, w1, w2, first) => {
        const members = [
          `${w1}"jsonrpc"${w2}:"2.0"`,
          `"id":${w2}${JSON.stringify(id)}`,
          `"result"${w1}:${w2}${JSON.stringify(result, null, w1.length)}${w1}`,
        ];
        if (first) members.reverse();
        const text = `${w2}{${members.join(`${w1},`)}}${w1}`;
        const span = spanOf(text);
        expect(span).toBeDefined();
        expect(JSON.parse(span as string)).toEqual(JSON.parse(text).result);
      }),
      { numRuns: 500 },
    );
  });
});

describe('a connection that keeps result texts', () => {
  /** A client connection, and a peer answering every request with `reply(id)`, as sent. */
  function peer(reply: (id: number) => string, keepResultText = true) {
    const [near, far] = createLinkedTransports();
    far.start({
      frame: (text) => far.send(reply(JSON.parse(text).id)),
      rejected: () => {},
      end: () => {},
    });
    return new JsonRpcConnection({ transport: near, keepResultText }).start();
  }
  const filler = 'é'.repeat(RESULT_TEXT_MIN);
  const result = `{ "n": 1.0, "s": "\\u00e9${filler}", "content": [] }`;

  it("writes a relayed result as the peer's bytes, not serialized again", async () => {
    const conn = peer((id) => `{"result":${result},"jsonrpc":"2.0","id":${id}}`);
    const value = await conn.request('anything');
    expect(resultText(value)).toBe(result);
    expect(encodeResponse({ jsonrpc: '2.0', id: 'c-7', result: value })).toBe(
      `{"jsonrpc":"2.0","id":"c-7","result":${result}}`,
    );
    // A copy is a new object: serialized as any other.
    const copy = { ...(value as object) };
    expect(encodeResponse({ jsonrpc: '2.0', id: 1, result: copy })).toBe(
      `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(copy)}}`,
    );
  });

  it('keeps nothing for small replies, or unless asked', async () => {
    const small = peer((id) => `{"jsonrpc":"2.0","id":${id},"result":{ "n": 1.0 }}`);
    expect(resultText(await small.request('anything'))).toBeUndefined();
    const off = peer((id) => `{"jsonrpc":"2.0","id":${id},"result":${result}}`, false);
    const value = await off.request('anything');
    expect(resultText(value)).toBeUndefined();
    expect(encodeResponse({ jsonrpc: '2.0', id: 1, result: value })).toBe(
      `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(JSON.parse(result))}}`,
    );
  });
});

describe('editResultText', () => {
  /** A result decoded by a connection that keeps texts, with its text. */
  async function relayed(text: string): Promise<object> {
    const [near, far] = createLinkedTransports();
    far.start({
      frame: (frame) => far.send(`{"jsonrpc":"2.0","id":${JSON.parse(frame).id},"result":${text}}`),
      rejected: () => {},
      end: () => {},
    });
    const conn = new JsonRpcConnection({ transport: near, keepResultText: true }).start();
    return (await conn.request('anything')) as object;
  }
  const big = `"${'x'.repeat(RESULT_TEXT_MIN)}"`;

  it('drops the named members, appends the added ones, and leaves the rest as written', async () => {
    const original = await relayed(
      `{ "resultType" : "complete", "a": 1.0 ,\t"_meta":{"s":1}, "b": [ ${big} ], "ttlMs":0 }`,
    );
    const edited = { a: 1, b: [JSON.parse(big)], _meta: { k: 'v' } };
    editResultText(original, edited, new Set(['resultType', '_meta', 'ttlMs']), {
      _meta: { k: 'v' },
    });
    expect(resultText(edited)).toBe(`{"a": 1.0,"b": [ ${big} ],"_meta":{"k":"v"}}`);
    expect(JSON.parse(resultText(edited) as string)).toEqual(edited);
  });

  it('does nothing for a result without text, or with a key it cannot read for sure', async () => {
    const edited = {};
    editResultText({ a: 1 }, edited, new Set(['a']));
    expect(resultText(edited)).toBeUndefined();
    const escaped = await relayed(`{ "\\u0061": ${big}, "b": 1 }`);
    editResultText(escaped, edited, new Set(['a']));
    expect(resultText(edited)).toBeUndefined();
  });
});
