/**
 * The fuzz run's side of the wire (`fuzz.test.ts`): send one input to a server — a line on its
 * stdin, or one POST — read everything that comes back, and say precisely what is wrong with it.
 *
 * Every reply must be JSON-RPC 2.0: `jsonrpc: "2.0"`, an `id` that is one the input sent (or
 * null on an error: parse errors and invalid requests), exactly one of `result` and `error`, an
 * integer `error.code` and a string `error.message`; the server's own notifications and requests
 * must be well-formed too. On stdio nothing but JSON-RPC, and every request answered. Over HTTP
 * no status is 5xx but the documented 503 (too many sessions), a plain path answers 400/404
 * only to the 2026-07-28 era, and a body is JSON (or an SSE stream of JSON-RPC), or empty on
 * 202/204/405. Liveness: a `ping` every `LIVENESS_EVERY` inputs answered within `LIVENESS_MS`.
 */
import { once } from 'node:events';
import { Agent, type IncomingMessage, request } from 'node:http';
import { isAlive, type RawProcess, waitFor, within } from '@mcpkit/testing';
import { describeInput as describe, type FuzzInput, LIVE_SESSION, preview } from './fuzz-inputs.js';

/** A liveness ping goes out after this many inputs … */
export const LIVENESS_EVERY = 100;
/** … and must be answered within this long. */
export const LIVENESS_MS = 2_000;
/** How long one input may take to be answered before the server counts as hung. */
const HANG_MS = 10_000;

/** A broken promise of the server's, with the input that showed it. */
export class FuzzFailure extends Error {
  override name = 'FuzzFailure';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textOf = (body: string | Uint8Array) =>
  typeof body === 'string' ? body : Buffer.from(body).toString('utf8');

/**
 * The ids a reply may carry for this body, as JSON text (`null` included): those of its
 * messages, or of a batch's. Over stdio (`perLine`) every line is a message of its own.
 */
export function idsIn(body: string | Uint8Array, perLine: boolean): string[] {
  const text = textOf(body);
  const keys: string[] = [];
  const add = (m: unknown) => {
    if (!isObject(m) || !('id' in m)) return;
    const id = m.id;
    if (id === null || typeof id === 'string' || typeof id === 'number') {
      keys.push(JSON.stringify(id));
    }
  };
  for (const chunk of perLine ? text.split('\n') : [text]) {
    let value: unknown;
    try {
      // A leading byte order mark is skipped by the servers (RFC 8259 §8.1 allows it).
      value = JSON.parse(chunk.replace(/^\uFEFF/, ''));
    } catch {
      continue;
    }
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return keys;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** Whether a message is a JSON-RPC 2.0 request beyond doubt: one that must get a reply. */
function isRequest(m: unknown): m is Json & { id: string | number } {
  return (
    isObject(m) &&
    m.jsonrpc === '2.0' &&
    typeof m.method === 'string' &&
    (typeof m.id === 'string' || Number.isSafeInteger(m.id)) &&
    (m.params === undefined || typeof m.params === 'object') &&
    m.params !== null &&
    Object.keys(m).every((k) => REQUEST_KEYS.has(k))
  );
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The lines of a stdio input the server decodes: those that are valid UTF-8 (others get -32700). */
function utf8Lines(body: string | Uint8Array): string[] {
  if (typeof body === 'string') return body.split('\n');
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i <= body.length; i++) {
    if (i < body.length && body[i] !== 0x0a) continue;
    try {
      lines.push(STRICT_UTF8.decode(body.subarray(start, i)));
    } catch {
      // not UTF-8: answered with a parse error under id null
    }
    start = i + 1;
  }
  return lines;
}

/** Whether a message's `_meta` claims MCP 2026-07-28 (the era router's test). */
function claimsModernEra(m: unknown): boolean {
  if (!isObject(m) || !isObject(m.params) || !isObject(m.params._meta)) return false;
  const meta = m.params._meta;
  return MODERN_META.some((key) => key in meta);
}

const MODERN_META = [
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientCapabilities',
];

/**
 * What a stdio input obliges the server to, in the order it says it: each request must be
 * answered (`owe`), and a `notifications/cancelled` releases the requests with that id sent
 * before it, this input's included (`cancel`: MCP, the server should not answer them). A request
 * sent after the cancellation is owed again.
 */
function obligations(body: string | Uint8Array): { kind: 'owe' | 'cancel'; key: string }[] {
  const steps: { kind: 'owe' | 'cancel'; key: string }[] = [];
  for (const line of utf8Lines(body)) {
    let value: unknown;
    try {
      value = JSON.parse(line.replace(/^\uFEFF/, ''));
    } catch {
      continue;
    }
    // A batch holding a request of the modern era is refused whole, with one error (its
    // requests get no answers of their own): "2026-07-28 requests cannot be batched".
    const refusedWhole = Array.isArray(value) && value.some(claimsModernEra);
    for (const m of Array.isArray(value) ? value : [value]) {
      if (isRequest(m) && !refusedWhole) steps.push({ kind: 'owe', key: JSON.stringify(m.id) });
      else if (isObject(m) && m.method === 'notifications/cancelled' && isObject(m.params)) {
        steps.push({ kind: 'cancel', key: JSON.stringify(m.params.requestId) });
      }
    }
  }
  return steps;
}

/** How long a request may go unanswered on stdio (async handlers included). */
const OWED_MS = 30_000;

const RESPONSE_KEYS = new Set(['jsonrpc', 'id', 'result', 'error']);
const ERROR_KEYS = new Set(['code', 'message', 'data']);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** What is wrong with the shape of a response, or undefined. */
function responseProblem(m: unknown): string | undefined {
  if (!isObject(m)) return 'a reply that is not an object';
  if (m.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(m.jsonrpc)}`;
  const extra = Object.keys(m).find((k) => !RESPONSE_KEYS.has(k));
  if (extra !== undefined) return `a reply with a member "${extra}"`;
  if (!('id' in m)) return 'a reply without an id';
  const id = m.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
    return `id ${JSON.stringify(id)} is no string, number or null`;
  }
  if ('result' in m === 'error' in m) return 'not exactly one of result and error';
  if ('error' in m) {
    const e = m.error;
    if (!isObject(e)) return 'error is not an object';
    if (!Number.isInteger(e.code)) return `error.code ${JSON.stringify(e.code)} is no integer`;
    if (typeof e.message !== 'string') return 'error.message is no string';
    const odd = Object.keys(e).find((k) => !ERROR_KEYS.has(k));
    if (odd !== undefined) return `an error with a member "${odd}"`;
    // Escaped in the JSON text: a newline inside a string is `\n` there.
    if (/\\n\s+at \S/.test(JSON.stringify(e))) return 'a stack trace in the error';
  }
  return undefined;
}

/** What is wrong with a notification or request of the server's, or undefined. */
function serverMessageProblem(m: Json): string | undefined {
  if (m.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(m.jsonrpc)}`;
  if (typeof m.method !== 'string') return 'a method that is no string';
  const extra = Object.keys(m).find((k) => !MESSAGE_KEYS.has(k));
  if (extra !== undefined) return `a server message with a member "${extra}"`;
  if ('id' in m && typeof m.id !== 'string' && typeof m.id !== 'number') {
    return `a server request with id ${JSON.stringify(m.id)}`;
  }
  if ('params' in m && typeof m.params !== 'object') return 'params that are no object';
  return undefined;
}

/** What came back, counted: printed after each run. */
export class Tally {
  inputs = 0;
  readonly kinds = new Map<string, number>();
  /** `result`, or the error code. */
  readonly outcomes = new Map<string, number>();
  readonly statuses = new Map<number, number>();
  serverMessages = 0;
  /** The first few inputs answered -32603 (a handler threw something unexpected). */
  readonly internalErrors: string[] = [];

  add<K>(map: Map<K, number>, key: K): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  response(m: Json, input: FuzzInput | undefined): void {
    const error = m.error as { code?: number; message?: string } | undefined;
    this.add(this.outcomes, error ? String(error.code) : 'result');
    if (error?.code === -32603 && this.internalErrors.length < 5) {
      this.internalErrors.push(
        `${input ? describe(input) : '(input unknown)'}\n    → ${preview(JSON.stringify(m), 300)}`,
      );
    }
  }

  summary(): string {
    const sorted = <K>(map: Map<K, number>) =>
      [...map].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${String(k)}: ${n}`);
    const lines = [
      `${this.inputs} inputs (${sorted(this.kinds).join(', ')})`,
      `replies: ${sorted(this.outcomes).join(', ')}; server messages: ${this.serverMessages}`,
    ];
    if (this.statuses.size > 0) lines.push(`HTTP: ${sorted(this.statuses).join(', ')}`);
    for (const example of this.internalErrors) lines.push(`-32603 for ${example}`);
    return lines.join('\n  ');
  }
}

/** The exit of a process, once it is gone: raced against every wait. */
type Exit = { exited: unknown };

/**
 * A stdio server under fuzz. It takes the child's stdout over from the kit's `spawnRaw` (which
 * keeps every line, too much for a million inputs) and checks each line as it comes. After each
 * input a `ping` goes out; its answer (in order, after the input's own synchronous replies)
 * closes the input. Replies that come later (async handlers) are matched by id to inputs still
 * pending.
 */
export class StdioTarget {
  readonly tally = new Tally();
  readonly #raw: RawProcess;
  readonly #nonce = Math.random().toString(36).slice(2);
  /** Ids the inputs sent that no reply has used yet: how many, and since when. */
  readonly #pending = new Map<string, { count: number; at: number; input: FuzzInput }>();
  /**
   * Requests still to be answered, by id: how many, since when some were (reset when none are),
   * and the last input that sent one.
   */
  readonly #owed = new Map<string, { count: number; since: number; input: FuzzInput }>();
  readonly #waiters = new Map<string, (m: Json) => void>();
  readonly #problems: string[] = [];
  readonly #gone: Promise<Exit>;
  #partial = '';
  #current: FuzzInput | undefined;
  #calls = 0;

  constructor(raw: RawProcess) {
    this.#raw = raw;
    this.#gone = raw.exited.then((exit) => ({ exited: exit }));
    const stdout = raw.child.stdout;
    stdout.removeAllListeners('data');
    stdout.on('data', (chunk: string | Buffer) => this.#onData(String(chunk)));
  }

  /** Send one input, then a ping; resolves once the ping is answered, throws what went wrong. */
  async send(input: FuzzInput): Promise<void> {
    this.#current = input;
    this.tally.inputs++;
    this.tally.add(this.tally.kinds, input.kind);
    const now = Date.now();
    for (const key of idsIn(input.body, true)) {
      const entry = this.#pending.get(key);
      if (entry) {
        entry.count++;
        entry.at = now;
        entry.input = input;
      } else this.#pending.set(key, { count: 1, at: now, input });
    }
    for (const { kind, key } of obligations(input.body)) {
      // A cancelled request need not be answered (MCP: the server should not).
      if (kind === 'cancel') {
        this.#owed.delete(key);
        continue;
      }
      const entry = this.#owed.get(key);
      if (entry) {
        entry.count++;
        entry.input = input;
      } else this.#owed.set(key, { count: 1, since: now, input });
    }
    this.#raw.write(typeof input.body === 'string' ? input.body : Buffer.from(input.body));
    this.#raw.write('\n');
    await this.ping(HANG_MS, 'the ping sent right after the input');
    if (this.tally.inputs % LIVENESS_EVERY === 0) await this.ping(LIVENESS_MS, 'a liveness ping');
    if (this.tally.inputs % 1000 === 0) {
      this.#forgetOld(now - 60_000);
      this.#checkOwed(now - OWED_MS);
    }
    this.#throwProblems(input);
  }

  /** A ping that must be answered `{}` within `timeoutMs`. */
  async ping(timeoutMs = LIVENESS_MS, what = 'a liveness ping'): Promise<void> {
    const reply = await this.call('ping', undefined, timeoutMs, what);
    if (!isObject(reply.result) || Object.keys(reply.result).length > 0) {
      throw new FuzzFailure(
        `${what} was answered ${preview(JSON.stringify(reply))}${this.#context()}`,
      );
    }
  }

  /** The handshake: initialize (must succeed), then notifications/initialized. */
  async initialize(): Promise<void> {
    const reply = await this.call(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'mcpkit-fuzz', version: '0' },
      },
      HANG_MS,
      'initialize',
    );
    if (!isObject(reply.result)) {
      throw new FuzzFailure(`initialize failed: ${preview(JSON.stringify(reply))}`);
    }
    this.#raw.notify('notifications/initialized');
  }

  /** A request of the fuzzer's own (an id no input can guess), answered within `timeoutMs`. */
  async call(method: string, params: unknown, timeoutMs: number, what: string): Promise<Json> {
    const id = `fuzz-${this.#nonce}-${++this.#calls}`;
    const answered = new Promise<Json>((resolve) => this.#waiters.set(id, resolve));
    this.#raw.send(
      params === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params },
    );
    let reply: Json | Exit;
    try {
      reply = await within(Promise.race([answered, this.#gone]), timeoutMs, what);
    } catch (err) {
      throw new FuzzFailure(
        `${(err as Error).message} (process ${isAlive(this.#raw.pid) ? 'alive' : 'gone'})${this.#context()}`,
      );
    } finally {
      this.#waiters.delete(id);
    }
    if ('exited' in reply) {
      throw new FuzzFailure(`the server exited: ${JSON.stringify(reply.exited)}${this.#context()}`);
    }
    return reply;
  }

  /** The end of a run: alive, answering, every request answered, nothing wrong came late. */
  async finish(owedMs = OWED_MS): Promise<void> {
    await this.ping();
    if (!isAlive(this.#raw.pid)) throw new FuzzFailure('the server is gone');
    await waitFor('every request answered', () => this.#owed.size === 0, owedMs, 50).catch(
      () => undefined,
    );
    this.#checkOwed(Number.POSITIVE_INFINITY);
    this.#throwProblems(undefined);
  }

  /** A problem for each id with requests unanswered since before `before`. */
  #checkOwed(before: number): void {
    for (const [key, entry] of this.#owed) {
      if (entry.since >= before) continue;
      this.#owed.delete(key);
      this.#problem(
        `${entry.count} request(s) with id ${key} never answered`,
        '(no stdout line)',
        entry.input,
      );
    }
  }

  #context(): string {
    const input = this.#current ? describe(this.#current) : '(none yet)';
    return `\n  last input: ${input}\n  stderr (end): ${preview(this.#raw.stderr().slice(-1500), 1500)}`;
  }

  #throwProblems(input: FuzzInput | undefined): void {
    if (this.#problems.length === 0) return;
    const shown = this.#problems.splice(0, 5);
    throw new FuzzFailure(
      `${shown.join('\n')}${input ? `\n  (found while sending ${describe(input)})` : ''}`,
    );
  }

  #problem(what: string, line: string, input: FuzzInput | undefined): void {
    if (this.#problems.length >= 20) return;
    this.#problems.push(
      `${what}\n  stdout line: ${preview(line)}\n  input: ${input ? describe(input) : '(unknown)'}`,
    );
  }

  #forgetOld(before: number): void {
    for (const [key, entry] of this.#pending) if (entry.at < before) this.#pending.delete(key);
  }

  #onData(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#onLine(line);
  }

  #onLine(line: string): void {
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      this.#problem('stdout carries a line that is not JSON', line, this.#current);
      return;
    }
    if (Array.isArray(m)) {
      if (m.length === 0) this.#problem('an empty batch reply', line, this.#current);
      for (const element of m) this.#onResponse(element, line);
    } else if (isObject(m) && 'method' in m) {
      this.#onServerMessage(m, line);
    } else {
      this.#onResponse(m, line);
    }
  }

  #onServerMessage(m: Json, line: string): void {
    this.tally.serverMessages++;
    const problem = serverMessageProblem(m);
    if (problem) {
      this.#problem(problem, line, this.#current);
      return;
    }
    // A request of the server's (roots, sampling …): refuse it, so nothing waits on the fuzzer.
    if ('id' in m) {
      this.#raw.send({
        jsonrpc: '2.0',
        id: m.id,
        error: { code: -32601, message: 'the fuzzer answers no requests' },
      });
    }
  }

  #onResponse(m: unknown, line: string): void {
    const problem = responseProblem(m);
    if (problem || !isObject(m)) {
      this.#problem(problem ?? 'not an object', line, this.#current);
      return;
    }
    const id = m.id;
    const waiter = typeof id === 'string' ? this.#waiters.get(id) : undefined;
    if (waiter) {
      waiter(m);
      return;
    }
    const key = JSON.stringify(id);
    const owed = this.#owed.get(key);
    if (owed && --owed.count === 0) this.#owed.delete(key);
    const entry = this.#pending.get(key);
    this.tally.response(m, entry?.input ?? this.#current);
    if (id === null && 'error' in m) return;
    if (!entry) {
      this.#problem(`a reply under id ${key}, which no input sent`, line, this.#current);
      return;
    }
    if (--entry.count === 0) this.#pending.delete(key);
  }
}

/** An HTTP answer, read to the end. */
interface HttpReply {
  status: number;
  contentType: string;
  text: string;
}

/** What a well-behaved client sends (pings, the live session's set-up). */
const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** Statuses that come without a body. */
const EMPTY_STATUSES = new Set([202, 204, 405]);
/** The one 5xx the apps document: 503 with Retry-After when /mcp has too many sessions. */
const DOCUMENTED_5XX = new Set([503]);

/** Whether an input speaks MCP 2026-07-28: the envelope in its body, or the version header. */
function claimsModern(input: FuzzInput): boolean {
  return (
    input.headers['mcp-protocol-version'] === '2026-07-28' ||
    MODERN_META.some((key) => textOf(input.body).includes(`"${key}"`))
  );
}

/** A 400 -32020 to an input that carries a request metadata header (any era: see httpProblems). */
function refusedForItsHeaders(input: FuzzInput, reply: HttpReply): boolean {
  const carries =
    input.headers['mcp-method'] !== undefined || input.headers['mcp-name'] !== undefined;
  return carries && reply.status === 400 && reply.text.includes('"code":-32020');
}

/** The JSON-RPC messages of an SSE body (`data:` lines of each event; priming events have none). */
function sseMessages(text: string): string[] {
  const out: string[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''));
    if (data.length > 0 && data.join('') !== '') out.push(data.join('\n'));
  }
  return out;
}

/** What is wrong with an HTTP answer to a body whose messages carried `ids`. */
export function httpProblems(
  reply: HttpReply,
  ids: readonly string[],
  tally: Tally,
  input: FuzzInput,
  plain = false,
): string[] {
  const problems: string[] = [];
  tally.add(tally.statuses, reply.status);
  if (reply.status >= 500 && !DOCUMENTED_5XX.has(reply.status)) {
    problems.push(`HTTP ${reply.status}`);
  }
  // The plain paths answer every JSON-RPC reply 200 — but a request of the modern era (its
  // `_meta`, or the header naming it), which gets that revision's 400/404, and a 2025-era body
  // whose Mcp-Method or Mcp-Name header disagrees with it (400, -32020: an intermediary routing
  // on the header must not be shown another call than the one that runs).
  if (
    plain &&
    (reply.status === 400 || reply.status === 404) &&
    !claimsModern(input) &&
    !refusedForItsHeaders(input, reply)
  ) {
    problems.push(`HTTP ${reply.status} on a plain path for an input of the 2025 era`);
  }
  if (reply.text === '') {
    if (!EMPTY_STATUSES.has(reply.status)) problems.push(`HTTP ${reply.status} with an empty body`);
    return problems;
  }
  const allowed = new Set(ids);
  const check = (m: unknown) => {
    if (isObject(m) && 'method' in m) {
      tally.serverMessages++;
      const problem = serverMessageProblem(m);
      if (problem) problems.push(problem);
      return;
    }
    const problem = responseProblem(m);
    if (problem || !isObject(m)) {
      problems.push(problem ?? 'not an object');
      return;
    }
    tally.response(m, input);
    if (m.id === null && 'error' in m) return;
    const key = JSON.stringify(m.id);
    if (!allowed.has(key)) problems.push(`a reply under id ${key}, which the input did not send`);
  };
  const parse = (text: string) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      problems.push(`a body that is not JSON: ${preview(text)}`);
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) problems.push('an empty batch reply');
      value.forEach(check);
    } else check(value);
  };
  if (reply.contentType.startsWith('text/event-stream')) {
    for (const data of sseMessages(reply.text)) parse(data);
  } else if (reply.contentType.startsWith('application/json')) {
    parse(reply.text);
  } else {
    problems.push(`a body of type ${JSON.stringify(reply.contentType)}`);
  }
  return problems;
}

/**
 * An HTTP server under fuzz, at one path: the plain JSON-RPC path (stateless) or Streamable HTTP
 * `/mcp` (a live session of its own, opened again when the fuzz ends it). One keep-alive
 * connection, inputs one after the other.
 */
export class HttpTarget {
  readonly tally = new Tally();
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly #auth: Record<string, string>;
  readonly #streamable: boolean;
  readonly #pid: number;
  readonly #stderr: () => string;
  #session: string | undefined;
  #pings = 0;

  constructor(options: {
    url: string;
    streamable: boolean;
    token?: string | undefined;
    pid: number;
    stderr: () => string;
  }) {
    this.#url = new URL(options.url);
    this.#streamable = options.streamable;
    this.#auth = options.token ? { authorization: `Bearer ${options.token}` } : {};
    this.#pid = options.pid;
    this.#stderr = options.stderr;
  }

  /** On /mcp: initialize a session for the inputs that name the live one. */
  async open(): Promise<void> {
    if (!this.#streamable) return;
    const init = await this.#post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'fuzz-init',
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'mcpkit-fuzz', version: '0' },
        },
      }),
      JSON_HEADERS,
      HANG_MS,
    );
    if (init.status !== 200 || !init.session) {
      throw new FuzzFailure(`initialize failed: HTTP ${init.status} ${preview(init.text)}`);
    }
    this.#session = init.session;
    const done = await this.#post(
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      { ...JSON_HEADERS, 'mcp-session-id': init.session },
      HANG_MS,
    );
    if (done.status !== 202)
      throw new FuzzFailure(`notifications/initialized: HTTP ${done.status}`);
  }

  async send(input: FuzzInput): Promise<void> {
    this.tally.inputs++;
    this.tally.add(this.tally.kinds, input.kind);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.headers)) {
      if (value !== LIVE_SESSION) headers[name] = value;
      else if (this.#session) headers[name] = this.#session;
    }
    let reply: HttpReply;
    try {
      reply = await this.#post(input.body, headers, HANG_MS);
    } catch (err) {
      throw new FuzzFailure(`no answer: ${(err as Error).message}${this.#context(input)}`);
    }
    const problems = httpProblems(
      reply,
      idsIn(input.body, false),
      this.tally,
      input,
      !this.#streamable,
    );
    if (problems.length > 0) {
      throw new FuzzFailure(
        `${problems.join('; ')}\n  HTTP ${reply.status} ${reply.contentType} ${preview(reply.text)}${this.#context(input)}`,
      );
    }
    if (this.tally.inputs % LIVENESS_EVERY === 0) await this.ping();
  }

  /** A ping answered `{}` within `timeoutMs` (on /mcp in the live session, opened anew if gone). */
  async ping(timeoutMs = LIVENESS_MS): Promise<void> {
    const attempt = async () => {
      const body = `{"jsonrpc":"2.0","id":"fuzz-ping-${++this.#pings}","method":"ping"}`;
      const session = (): Record<string, string> =>
        this.#session ? { ...JSON_HEADERS, 'mcp-session-id': this.#session } : JSON_HEADERS;
      let reply = await this.#post(body, session(), timeoutMs);
      if (this.#streamable && reply.status === 404) {
        // The fuzz ended the live session (e.g. another client's session cap): open another.
        await this.open();
        reply = await this.#post(body, session(), timeoutMs);
      }
      return reply;
    };
    let reply: HttpReply;
    try {
      reply = await within(attempt(), timeoutMs, 'a liveness ping');
    } catch (err) {
      throw new FuzzFailure(`${(err as Error).message}${this.#context(undefined)}`);
    }
    if (reply.status !== 200 || !/"result":\{\}/.test(reply.text)) {
      throw new FuzzFailure(
        `a liveness ping was answered HTTP ${reply.status} ${preview(reply.text)}${this.#context(undefined)}`,
      );
    }
  }

  /** The end of a run: alive and answering. */
  async finish(): Promise<void> {
    await this.ping();
    if (!isAlive(this.#pid)) throw new FuzzFailure('the server is gone');
  }

  close(): void {
    this.#agent.destroy();
  }

  #context(input: FuzzInput | undefined): string {
    return `${input ? `\n  input: ${describe(input)}` : ''}\n  process ${isAlive(this.#pid) ? 'alive' : 'gone'}; stderr (end): ${preview(this.#stderr().slice(-1500), 1500)}`;
  }

  async #post(
    body: string | Uint8Array,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<HttpReply & { session: string | undefined }> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    // Exactly the headers given: one an input leaves out is not sent at all.
    const sent = { ...headers, ...this.#auth, 'content-length': String(bytes.length) };
    const req = request(this.#url, {
      method: 'POST',
      agent: this.#agent,
      headers: sent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    req.end(bytes);
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const session = res.headers['mcp-session-id'];
    return {
      status: res.statusCode ?? 0,
      contentType: res.headers['content-type'] ?? '',
      text: Buffer.concat(chunks).toString('utf8'),
      session: typeof session === 'string' ? session : undefined,
    };
  }
}
