/**
 * What `fuzz.test.ts` sends: ONE fast-check arbitrary mixing everything a peer can put on the
 * wire — JSON-RPC with real MCP methods and junk ones, random params (deep, wide, huge strings
 * below the body limit, odd numbers, unicode, `__proto__` keys, the 2026-07-28 `_meta`
 * envelope), random and invalid ids (objects, floats, huge integers, null), notifications,
 * responses, batches (empty, mixed, nested, oversized), invalid and truncated JSON, bytes that
 * are not UTF-8, empty lines — and, for HTTP, random Content-Type, Accept, Mcp-Session-Id,
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers.
 *
 * Messages are built as text, member by member, so ids and numbers JSON.stringify cannot write
 * (`123456789012345678901234567890`, `1e400`, `-0`) and duplicate members go out as they are.
 */
import { MCP_LOGGING_LEVELS } from '@mcpkit/protocol';
import fc from 'fast-check';

/** In a generated header, stands for the driver's live session id (filled in when sent). */
export const LIVE_SESSION = '<live session>';

/** One input: a stdio line (the driver ends it) or an HTTP body, and the HTTP headers. */
export interface FuzzInput {
  /** What kind of input it is, for the statistics and reports. */
  readonly kind: string;
  readonly body: string | Uint8Array;
  /** Sent over HTTP only; `LIVE_SESSION` is replaced with the live session id. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface InputOptions {
  /** The app's tool names (random ones are mixed in). */
  readonly tools: readonly string[];
  /** Resource URIs worth reading (random ones are mixed in). */
  readonly uris: readonly string[];
  /** Whether `initialize` may be sent (not while fuzzing a stdio server before its handshake). */
  readonly initialize: boolean;
  /** The body limit: huge strings stay below it. */
  readonly maxBytes: number;
}

const REQUESTS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'sampling/createMessage',
  'roots/list',
  'elicitation/create',
];
const NOTIFICATIONS = [
  'notifications/initialized',
  'initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/message',
  'notifications/tools/list_changed',
];
const JUNK_METHODS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'rpc.discover',
  'rpc.',
  'tools/',
  'tools/call/',
  'TOOLS/LIST',
  'tools\u0000list',
  ' ping',
  'notifications/',
  '../../etc/passwd',
  '$/cancelRequest',
  'x'.repeat(5000),
];
const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const MODERN = '2026-07-28';
const LOG_LEVELS = MCP_LOGGING_LEVELS;

/** A JSON text, for values JSON.stringify can write. */
const j = (value: unknown): string => JSON.stringify(value) ?? 'null';
/** A JSON object text from members that are already JSON text (duplicates kept). */
const obj = (members: readonly (readonly [string, string])[]): string =>
  `{${members.map(([k, v]) => `${j(k)}:${v}`).join(',')}}`;

/** Visible ASCII, for header values a client may send at all. */
const ascii = (maxLength: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength,
  });

const strings = fc.oneof(
  { arbitrary: fc.string(), weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme' }), weight: 2 },
  // Lone surrogates and every other code unit: JSON.stringify escapes what it must.
  { arbitrary: fc.string({ unit: 'binary' }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '\u0000',
      '\u202e\u2066rtl',
      '😀'.repeat(50),
      'e\u0301\u0301\u0301',
      '\ufeff',
      '\\',
      '"',
      '</script>',
      '$' + '{jndi:ldap://x}',
      "'; DROP TABLE projects; --",
    ),
    weight: 1,
  },
);

/** Number texts, odd ones included. */
const numbers = fc.oneof(
  { arbitrary: fc.integer().map(String), weight: 3 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(j), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '-0',
      '0.0',
      '1e400',
      '-1e400',
      '1e-400',
      '1E+2',
      '9007199254740993',
      '-9223372036854775809',
      '123456789012345678901234567890',
      '0.1e1',
      '5e-324',
      '1.7976931348623157e308',
    ),
    weight: 2,
  },
);

/** An id as JSON text: valid ones, and objects, floats, huge integers, booleans. */
const ids = fc.oneof(
  { arbitrary: fc.integer({ min: -3, max: 1000 }).map(String), weight: 6 },
  { arbitrary: fc.string({ maxLength: 12 }).map(j), weight: 3 },
  { arbitrary: fc.constant('null'), weight: 1 },
  { arbitrary: numbers, weight: 2 },
  { arbitrary: strings.map(j), weight: 1 },
  {
    arbitrary: fc.constantFrom('{}', '{"a":1}', '[]', '[1]', 'true', 'false', '""'),
    weight: 1,
  },
);

const jsonrpcField = fc.oneof(
  { arbitrary: fc.constant('"2.0"'), weight: 20 },
  { arbitrary: fc.constantFrom('"1.0"', '2.0', '2', '"2"', 'null', '"2.0 "', '{}'), weight: 1 },
);

/** Any JSON value as text: small mostly, sometimes deep or wide. */
const anyJson = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map(j), weight: 6 },
  { arbitrary: fc.jsonValue({ maxDepth: 12, depthSize: 'large' }).map(j), weight: 1 },
  { arbitrary: fc.jsonValue({ stringUnit: 'grapheme' }).map(j), weight: 1 },
  { arbitrary: numbers, weight: 1 },
);

/** Structures built as text: deep nesting, wide objects and arrays, `__proto__` keys. */
/** How many levels, keys or elements: mostly up to a thousand, now and then 20,000. */
const counts = fc.oneof(
  { arbitrary: fc.integer({ min: 10, max: 1000 }), weight: 9 },
  { arbitrary: fc.integer({ min: 1000, max: 20_000 }), weight: 1 },
);

const shaped = fc.oneof(
  {
    arbitrary: fc
      .tuple(counts, fc.boolean())
      .map(([depth, arrays]) =>
        arrays
          ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
          : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      ),
    weight: 2,
  },
  {
    arbitrary: counts.map((n) =>
      obj(Array.from({ length: n }, (_, i) => [`k${i}`, String(i)] as const)),
    ),
    weight: 1,
  },
  { arbitrary: counts.map((n) => `[${'0,'.repeat(n)}0]`), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":true}}',
      '{"__proto__":null,"name":"x"}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"name":"get_uptime","arguments":{"__proto__":{"isAdmin":true}}}',
      '{"toString":1,"valueOf":2,"hasOwnProperty":3}',
      '{"a":1,"a":2}',
    ),
    weight: 4,
  },
);

/** A string of 64 KiB up to the body limit, in units of 1, 2, 4 and 6 bytes of JSON. */
const huge = (maxBytes: number) =>
  fc
    .tuple(
      fc.integer({ min: 64 * 1024, max: Math.max(64 * 1024, maxBytes - 4096) }),
      fc.constantFrom(
        ['a', 1] as const,
        ['é', 2] as const,
        ['😀', 4] as const,
        ['\\u0000', 6] as const,
      ),
    )
    .map(([bytes, [unit, size]]) => `"${unit.repeat(Math.floor(bytes / size))}"`);

/** The 2026-07-28 envelope, right or broken. */
const envelope = fc.oneof(
  {
    arbitrary: fc.constant(
      obj([
        ['io.modelcontextprotocol/protocolVersion', j(MODERN)],
        ['io.modelcontextprotocol/clientCapabilities', '{}'],
      ]),
    ),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({
        version: fc.oneof(fc.constantFrom(MODERN, ...VERSIONS).map(j), anyJson),
        capabilities: fc.oneof(fc.constant('{}'), anyJson),
        info: fc.option(fc.oneof(fc.constant('{"name":"fuzz","version":"1"}'), anyJson), {
          nil: undefined,
        }),
        level: fc.option(fc.oneof(fc.constantFrom(...LOG_LEVELS).map(j), anyJson), {
          nil: undefined,
        }),
      })
      .map(({ version, capabilities, info, level }) =>
        obj([
          ['io.modelcontextprotocol/protocolVersion', version],
          ['io.modelcontextprotocol/clientCapabilities', capabilities],
          ...(info === undefined ? [] : [['io.modelcontextprotocol/clientInfo', info] as const]),
          ...(level === undefined ? [] : [['io.modelcontextprotocol/logLevel', level] as const]),
        ]),
      ),
    weight: 2,
  },
  { arbitrary: fc.constant('{"progressToken":1}'), weight: 1 },
  { arbitrary: fc.constant('{"progressToken":"p"}'), weight: 1 },
);

/** Params for a method: what its handler reads, filled with random values, or anything. */
function paramsFor(method: string, options: InputOptions): fc.Arbitrary<string | undefined> {
  const toolName = fc.oneof(
    { arbitrary: fc.constantFrom(...options.tools), weight: 4 },
    { arbitrary: fc.constantFrom(...JUNK_METHODS), weight: 1 },
    { arbitrary: strings, weight: 1 },
  );
  const uri = fc.oneof(
    { arbitrary: fc.constantFrom(...options.uris), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        'file:///etc/passwd',
        'codefluss://design-system/../../x',
        '',
        'x',
      ),
      weight: 1,
    },
    { arbitrary: strings, weight: 1 },
  );
  const argsObject = fc.oneof(
    { arbitrary: fc.constant('{}'), weight: 3 },
    {
      arbitrary: fc
        .dictionary(
          fc.constantFrom(
            'name',
            'id',
            'projectId',
            'cursor',
            'limit',
            'query',
            'per_cpu',
            'text',
            'content',
            'tokens',
            'description',
          ),
          anyJson,
          { maxKeys: 4 },
        )
        .map((d) => obj(Object.entries(d))),
      weight: 4,
    },
    { arbitrary: anyJson, weight: 1 },
    { arbitrary: shaped, weight: 1 },
  );
  let specific: fc.Arbitrary<string>;
  switch (method) {
    case 'initialize':
      specific = fc
        .record({
          version: fc.oneof(fc.constantFrom(...VERSIONS, MODERN, '1.0', '').map(j), anyJson),
          capabilities: fc.oneof(
            fc.constant('{}'),
            fc.constant('{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}'),
            anyJson,
          ),
          info: fc.oneof(fc.constant('{"name":"fuzz","version":"0"}'), anyJson),
        })
        .map(({ version, capabilities, info }) =>
          obj([
            ['protocolVersion', version],
            ['capabilities', capabilities],
            ['clientInfo', info],
          ]),
        );
      break;
    case 'tools/call':
    case 'prompts/get':
      specific = fc
        .tuple(toolName, fc.option(argsObject, { nil: undefined }))
        .map(([name, args]) =>
          obj([['name', j(name)], ...(args === undefined ? [] : [['arguments', args] as const])]),
        );
      break;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      specific = uri.map((u) => obj([['uri', j(u)]]));
      break;
    case 'logging/setLevel':
      specific = fc
        .oneof(fc.constantFrom(...LOG_LEVELS, 'verbose', 'DEBUG').map(j), anyJson)
        .map((level) => obj([['level', level]]));
      break;
    case 'completion/complete':
      specific = fc
        .tuple(
          fc.constantFrom('ref/prompt', 'ref/resource', 'ref/tool', 'x'),
          uri,
          strings,
          strings,
        )
        .map(([type, u, name, value]) =>
          obj([
            [
              'ref',
              obj([['type', j(type)], type === 'ref/resource' ? ['uri', j(u)] : ['name', j(name)]]),
            ],
            [
              'argument',
              obj([
                ['name', j(name)],
                ['value', j(value)],
              ]),
            ],
          ]),
        );
      break;
    case 'notifications/cancelled':
      specific = fc
        .tuple(ids, fc.option(strings, { nil: undefined }))
        .map(([id, reason]) =>
          obj([
            ['requestId', id],
            ...(reason === undefined ? [] : [['reason', j(reason)] as const]),
          ]),
        );
      break;
    case 'notifications/progress':
      specific = fc.tuple(ids, numbers, numbers).map(([token, progress, total]) =>
        obj([
          ['progressToken', token],
          ['progress', progress],
          ['total', total],
        ]),
      );
      break;
    default:
      specific = fc
        .option(strings, { nil: undefined })
        .map((cursor) => (cursor === undefined ? '{}' : obj([['cursor', j(cursor)]])));
  }
  // Any object params may carry `_meta`: the modern envelope, or a progress token.
  const withMeta = fc
    .tuple(specific, envelope)
    .map(([params, meta]) =>
      params === '{}' ? obj([['_meta', meta]]) : `${params.slice(0, -1)},"_meta":${meta}}`,
    );
  return fc.oneof(
    { arbitrary: specific, weight: 400 },
    { arbitrary: withMeta, weight: 150 },
    { arbitrary: fc.constant(undefined), weight: 100 },
    { arbitrary: anyJson, weight: 100 },
    { arbitrary: shaped, weight: 50 },
    // About one message in 800: a few MB each, so kept rare to keep the run fast.
    { arbitrary: huge(options.maxBytes).map((s) => obj([['name', s]])), weight: 1 },
  );
}

/** A method name as JSON text, and the string it is when it is one. */
interface Method {
  text: string;
  name: string | undefined;
}

function methods(options: InputOptions): fc.Arbitrary<Method> {
  const requests = options.initialize ? REQUESTS : REQUESTS.filter((m) => m !== 'initialize');
  const named = (arb: fc.Arbitrary<string>) => arb.map((name) => ({ text: j(name), name }));
  return fc.oneof(
    { arbitrary: named(fc.constantFrom(...requests)), weight: 12 },
    { arbitrary: named(fc.constantFrom(...NOTIFICATIONS)), weight: 3 },
    { arbitrary: named(fc.constantFrom(...JUNK_METHODS)), weight: 1 },
    { arbitrary: named(strings), weight: 1 },
    {
      arbitrary: fc.constantFrom('1', 'null', '{}', '[]', 'true').map((text) => ({
        text,
        name: undefined,
      })),
      weight: 1,
    },
  );
}

/** One JSON-RPC message as text, with the method and name it calls (for the headers). */
interface Message {
  text: string;
  method: string | undefined;
  name: string | undefined;
}

function messages(options: InputOptions): fc.Arbitrary<Message> {
  const extras = fc.oneof(
    { arbitrary: fc.constant([]), weight: 30 },
    {
      arbitrary: fc.constantFrom<(readonly [string, string])[]>(
        [['extra', '1']],
        [['id', '7']],
        [['method', '"ping"']],
        [['result', '{}']],
        [['__proto__', '{"polluted":true}']],
      ),
      weight: 1,
    },
  );
  // Everything but the method, per method, built once (`chain` would rebuild it every time).
  const rests = new Map<string, ReturnType<typeof restOf>>();
  const restOf = (key: string) =>
    fc.tuple(
      jsonrpcField,
      // A quarter are notifications (no id).
      fc.option(ids, { nil: undefined, freq: 4 }),
      paramsFor(key, options),
      extras,
      fc.boolean(),
    );
  const known = new Set([...REQUESTS, ...NOTIFICATIONS]);
  const call = methods(options).chain((method) => {
    const key = method.name !== undefined && known.has(method.name) ? method.name : '';
    let rest = rests.get(key);
    if (!rest) {
      rest = restOf(key);
      rests.set(key, rest);
    }
    return rest.map(([jsonrpc, id, params, extra, reversed]): Message => {
      const members: (readonly [string, string])[] = [['jsonrpc', jsonrpc]];
      if (id !== undefined) members.push(['id', id]);
      members.push(['method', method.text]);
      if (params !== undefined) members.push(['params', params]);
      members.push(...extra);
      if (reversed) members.reverse();
      const name = params?.match(/^\{"(?:name|uri)":("(?:[^"\\]|\\.)*")/)?.[1];
      return {
        text: obj(members),
        method: method.name,
        name: name === undefined ? undefined : (JSON.parse(name) as string),
      };
    });
  });
  const response = fc
    .tuple(
      jsonrpcField,
      fc.option(ids, { nil: undefined, freq: 8 }),
      fc.option(anyJson, { nil: undefined, freq: 3 }),
      fc.option(
        fc.oneof(
          fc.tuple(fc.integer(), strings).map(([code, message]) =>
            obj([
              ['code', String(code)],
              ['message', j(message)],
            ]),
          ),
          anyJson,
        ),
        { nil: undefined, freq: 2 },
      ),
    )
    .map(([jsonrpc, id, result, error]): Message => {
      const members: (readonly [string, string])[] = [['jsonrpc', jsonrpc]];
      if (id !== undefined) members.push(['id', id]);
      if (result !== undefined) members.push(['result', result]);
      if (error !== undefined) members.push(['error', error]);
      return { text: obj(members), method: undefined, name: undefined };
    });
  return fc.oneof({ arbitrary: call, weight: 6 }, { arbitrary: response, weight: 1 });
}

/** A body: the message itself, or what becomes of it (batched, cut, broken). */
interface Frame {
  kind: string;
  body: string | Uint8Array;
  message: Message | undefined;
}

const NOT_JSON = [
  '{',
  '}',
  '[',
  '{"jsonrpc":"2.0",',
  '{"jsonrpc":"2.0","id":1 "method":"ping"}',
  '[1,]',
  '{"a":1}}',
  "{'jsonrpc':'2.0'}",
  'NaN',
  'undefined',
  '1e',
  '"unterminated',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}',
  '\u0000',
  '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
];

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate, truncated. */
const BAD_BYTES = [
  [0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xfe, 0xff],
];

function frames(options: InputOptions): fc.Arbitrary<Frame> {
  const message = messages(options);
  const single = message.map((m): Frame => ({ kind: 'message', body: m.text, message: m }));
  const element = fc.oneof(
    { arbitrary: message.map((m) => m.text), weight: 8 },
    { arbitrary: anyJson, weight: 1 },
    {
      arbitrary: fc.constantFrom('[]', '[[]]', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'),
      weight: 1,
    },
  );
  const batch = fc.array(element, { maxLength: 12 }).map(
    (xs): Frame => ({
      kind: xs.length === 0 ? 'empty batch' : 'batch',
      body: `[${xs.join(',')}]`,
      message: undefined,
    }),
  );
  const oversized = fc
    .tuple(
      fc.integer({ min: 95, max: 130 }),
      fc.constantFrom(
        '1',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      ),
    )
    .map(
      ([n, x]): Frame => ({
        kind: 'large batch',
        body: `[${Array(n).fill(x).join(',')}]`,
        message: undefined,
      }),
    );
  const nested = fc.array(message, { minLength: 1, maxLength: 3 }).map(
    (ms): Frame => ({
      kind: 'nested batch',
      body: `[[${ms.map((m) => m.text).join(',')}]]`,
      message: undefined,
    }),
  );
  const truncated = fc.tuple(message, fc.nat()).map(
    ([m, at]): Frame => ({
      kind: 'truncated',
      body: m.text.slice(0, at % m.text.length),
      message: undefined,
    }),
  );
  const notUtf8 = fc
    .tuple(message, fc.nat(), fc.constantFrom(...BAD_BYTES))
    .map(([m, at, bad]): Frame => {
      const bytes = Buffer.from(m.text, 'utf8');
      const cut = at % (bytes.length + 1);
      return {
        kind: 'not UTF-8',
        body: Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]),
        message: undefined,
      };
    });
  const randomBytes = fc
    .uint8Array({ maxLength: 200 })
    // A newline would end the stdio frame early; keep one input one line.
    .map(
      (b): Frame => ({
        kind: 'random bytes',
        body: b.map((x) => (x === 10 ? 32 : x)),
        message: undefined,
      }),
    );
  const notJson = fc
    .oneof(fc.constantFrom(...NOT_JSON), strings)
    .map((s): Frame => ({ kind: 'not JSON', body: s, message: undefined }));
  const notObject = anyJson.map(
    (s): Frame => ({ kind: 'not an object', body: s, message: undefined }),
  );
  const empty = fc
    .constantFrom('', ' ', '\t', '\r', '  \t ')
    .map((s): Frame => ({ kind: 'empty', body: s, message: undefined }));
  // Valid over HTTP, many broken frames over stdio (each line on its own).
  const pretty = message.map((m): Frame => {
    let text = m.text;
    try {
      text = JSON.stringify(JSON.parse(m.text), null, 2);
    } catch {
      // not JSON after all (a huge number parses, so this is rare): sent as it is
    }
    return { kind: 'pretty-printed', body: text, message: m };
  });
  return fc.oneof(
    { arbitrary: single, weight: 40 },
    { arbitrary: batch, weight: 8 },
    { arbitrary: oversized, weight: 1 },
    { arbitrary: nested, weight: 2 },
    { arbitrary: truncated, weight: 4 },
    { arbitrary: notUtf8, weight: 3 },
    { arbitrary: randomBytes, weight: 1 },
    { arbitrary: notJson, weight: 4 },
    { arbitrary: notObject, weight: 2 },
    { arbitrary: empty, weight: 2 },
    { arbitrary: pretty, weight: 1 },
  );
}

/** A header that is mostly absent or right, sometimes wrong. */
/** A header: absent, right or wrong (named or random), in the proportions `[absent, right, wrong]`. */
function header(
  right: readonly string[],
  wrong: readonly string[],
  [absent, rightWeight, wrongWeight]: readonly [number, number, number],
) {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: absent },
    { arbitrary: fc.constantFrom(...right), weight: rightWeight },
    { arbitrary: fc.constantFrom(...wrong), weight: wrongWeight },
    { arbitrary: ascii(40), weight: 1 },
  );
}

/**
 * Mostly what a client sends, so most inputs reach the JSON-RPC layer; a few percent of each
 * header absent or wrong.
 */
const headerPicks = fc.record({
  contentType: header(
    ['application/json', 'application/json; charset=utf-8'],
    [
      'text/plain',
      'application/x-www-form-urlencoded',
      'APPLICATION/JSON',
      'application/vnd.x+json',
      'application/json; charset=latin1',
      '',
    ],
    [1, 60, 3],
  ),
  accept: header(
    ['application/json, text/event-stream'],
    ['application/json', 'text/event-stream', '*/*', 'text/html', ''],
    [1, 40, 4],
  ),
  session: header(
    [LIVE_SESSION],
    ['', 'nope', 'x'.repeat(300), '00000000-0000-0000-0000-000000000000'],
    [3, 40, 3],
  ),
  version: header([...VERSIONS, MODERN], ['2099-01-01', '', 'latest'], [60, 10, 2]),
  method: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 10 },
    { arbitrary: fc.constant('=body'), weight: 4 },
    { arbitrary: ascii(30), weight: 1 },
  ),
  name: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 10 },
    { arbitrary: fc.constant('=body'), weight: 3 },
    { arbitrary: fc.constantFrom('=?base64?!!?=', '=?base64?/w==?=', 'get_uptime'), weight: 1 },
  ),
});

/** At most `max` characters of `text`, quoted, for reports. */
export function preview(text: string, max = 400): string {
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${shown}… (${text.length} chars)` : shown;
}

/** An input for a report: its kind, its body (bytes in hex) and headers, cut short. */
export function describeInput(input: FuzzInput): string {
  const body =
    typeof input.body === 'string'
      ? preview(input.body)
      : `bytes ${preview(Buffer.from(input.body).toString('hex'))}`;
  const headers = Object.entries(input.headers).map(([k, v]) => `${k}: ${preview(v, 80)}`);
  return `${input.kind} ${body} headers {${headers.join(', ')}}`;
}

const SENDABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Mcp-Name as a client sends it: as is when plain ASCII, else `=?base64?…?=` (spec). */
function encodeName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const value = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(name)
    ? name
    : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  // Headers are limited (Node: 16 KiB in all): a huge name goes without its header.
  return value.length <= 2000 ? value : undefined;
}

/** The one arbitrary of the fuzz run. */
export function fuzzInputs(options: InputOptions): fc.Arbitrary<FuzzInput> {
  return fc.tuple(frames(options), headerPicks).map(([frame, picks]) => {
    const headers: Record<string, string> = {};
    // Node's client refuses control characters in a header value: such a value is left out.
    const set = (name: string, value: string | undefined) => {
      if (value !== undefined && SENDABLE.test(value)) headers[name] = value;
    };
    set('content-type', picks.contentType);
    set('accept', picks.accept);
    set('mcp-session-id', picks.session);
    set('mcp-protocol-version', picks.version);
    set('mcp-method', picks.method === '=body' ? frame.message?.method : picks.method);
    set('mcp-name', picks.name === '=body' ? encodeName(frame.message?.name) : picks.name);
    const input: FuzzInput = { kind: frame.kind, body: frame.body, headers };
    // How fast-check prints a counterexample.
    Object.defineProperty(input, fc.toStringMethod, { value: () => describeInput(input) });
    return input;
  });
}
