import { decodeFrame, type Frame } from '../jsonrpc/codec.js';
import { RpcError } from '../jsonrpc/errors.js';
import type { FrameSink } from '../jsonrpc/transport.js';
import type { JsonRpcId } from '../jsonrpc/types.js';
import type { McpServer } from '../mcp/server.js';
import type { McpSession } from '../mcp/session.js';
import type { McpConnectionOptions } from '../mcp/transport.js';
import type { CallToolResult } from '../mcp/types.js';
import { LATEST_PROTOCOL_VERSION } from '../mcp/versions.js';
import { createLinkedTransports } from '../transports/memory.js';

/** A JSON-RPC error object as it came from the server. */
export interface RawErrorObject {
  /** The error code (-32700 … -32000, or the server's own). */
  code: number;
  /** One short sentence. */
  message: string;
  /** Whatever the server added about the failure. */
  data?: unknown;
}

/** A JSON-RPC reply as it came from the server, parsed. */
export interface RawReply<R = Record<string, unknown>> {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /**
   * The id of the request it answers; null when the server could not read one. Parsed with
   * `JSON.parse`, so never a `bigint`.
   */
  id: string | number | null;
  /** What a successful call returned. */
  result?: R;
  /** Why the call failed. */
  error?: RawErrorObject;
}

/** A notification or request the server sent (`id` only on requests). */
export interface RawMessage {
  /** The method, e.g. `notifications/tools/list_changed` or `sampling/createMessage`. */
  method: string;
  /** Its params, if it had any. */
  params?: Record<string, unknown>;
  /** The id of a request. */
  id?: JsonRpcId;
}

/** How {@link connectRaw} connects: `server.connect()` options, answers to server requests. */
export interface RawPeerOptions extends McpConnectionOptions {
  /**
   * Answers the server's requests (`sampling/createMessage`, `elicitation/create` …): return the
   * result, or throw (an RpcError keeps its code). Default: every request fails with -32601.
   */
  onRequest?: (method: string, params: Record<string, unknown> | undefined) => unknown;
}

/**
 * A client that speaks raw JSON-RPC to an McpServer over an in-memory channel: what the server
 * sends arrives exactly as serialized, with nothing in between to tidy it up.
 */
export interface RawPeer {
  /** The server's session for this client: negotiated version, log level, subscriptions … */
  readonly session: McpSession;
  /** Notifications the server sent, in order. */
  readonly notifications: RawMessage[];
  /** Requests the server sent, in order (each answered by `onRequest`). */
  readonly requests: RawMessage[];
  /** Every frame the server sent, as text, in order: replies, notifications, requests. */
  readonly received: string[];
  /**
   * Send one frame: a string as is (malformed JSON included), anything else JSON-encoded.
   * Resolves with the text of the reply that answers it (matched by id; a batch by its array,
   * or a null-id error), or with undefined once the server has handled a frame that asks for no
   * reply (notifications, responses) — or when the connection ends first. Ids must be unique
   * among the requests in flight: reusing the id of one that is still waiting resolves the
   * earlier send with undefined.
   */
  send(frame: unknown): Promise<string | undefined>;
  /**
   * Send a request with the next free numeric id; resolves with the parsed reply. Throws when
   * none comes, or when it is not a JSON-RPC 2.0 reply to that id.
   */
  request<R = Record<string, unknown>>(method: string, params?: unknown): Promise<RawReply<R>>;
  /** `request()` that must succeed: resolves with `result`; throws on an error reply. */
  result<R = Record<string, unknown>>(method: string, params?: unknown): Promise<R>;
  /**
   * `request()` that must fail: resolves with the error object; throws when the reply has a
   * `result` (a reply with both is no JSON-RPC reply).
   */
  error(method: string, params?: unknown): Promise<RawErrorObject>;
  /**
   * `tools/call` through `request()`: `{ name }`, plus `arguments` when `args` is given (a tool
   * called without arguments is a case of its own).
   */
  callTool(name: string, args?: Record<string, unknown>): Promise<RawReply<CallToolResult>>;
  /** Send a notification; resolves once the server has handled it. */
  notify(method: string, params?: unknown): Promise<void>;
  /**
   * `initialize` (latest protocol version, no client capabilities unless given) followed by
   * `notifications/initialized`; resolves with the initialize reply.
   */
  initialize(params?: Record<string, unknown>): Promise<RawReply>;
  /**
   * Resolves after everything the server does without waiting on I/O or timers has happened:
   * frames it sent by then have arrived (a `list_changed` after `addTool`, say).
   */
  settle(): Promise<void>;
  /** Close the client's side; resolves once the server has closed the connection and session. */
  close(): Promise<void>;
}

/** The frame's reply, by what it is keyed on: an id, or "anything loose" (batch, null id). */
type Expected = { kind: 'id'; key: string } | { kind: 'loose' } | { kind: 'none' };

const keyOf = (id: JsonRpcId): string => (typeof id === 'string' ? `s${id}` : `n${id}`);

function expectedReply(frame: Frame): Expected {
  switch (frame.kind) {
    case 'empty':
      return { kind: 'none' };
    case 'invalid':
      return { kind: 'loose' };
    case 'single': {
      const message = frame.message;
      // A null id's reply is keyed like any error that names no request.
      if (message.kind === 'request')
        return message.id === null ? { kind: 'loose' } : { kind: 'id', key: keyOf(message.id) };
      if (message.kind === 'invalid') {
        const id = message.reply.id;
        return id === null ? { kind: 'loose' } : { kind: 'id', key: keyOf(id) };
      }
      return { kind: 'none' };
    }
    case 'batch':
      return frame.messages.some((m) => m.kind === 'request' || m.kind === 'invalid')
        ? { kind: 'loose' }
        : { kind: 'none' };
  }
}

/**
 * An `initialize` request frame, for tests that write the handshake themselves: the newest
 * protocol version, no client capabilities and `clientInfo` raw-peer, unless `params` says
 * otherwise.
 *
 * @example
 * ```ts
 * server.send(initializeRequest(1, { protocolVersion: '2024-11-05' }));
 * ```
 */
export function initializeRequest(
  id: JsonRpcId,
  params: Record<string, unknown> = {},
): { jsonrpc: '2.0'; id: JsonRpcId; method: 'initialize'; params: Record<string, unknown> } {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw-peer', version: '0.0.0' },
      ...params,
    },
  };
}

/** After every microtask of the current turn: what the server does synchronously is done. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Connect a raw JSON-RPC client to `server` — `server.connect()` over `createLinkedTransports()`,
 * the path a stdio client takes, minus the pipe. `options.auth` is who the client acts as.
 *
 * @example
 * ```ts
 * const peer = connectRaw(server, { auth });
 * await peer.initialize();
 * const reply = await peer.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
 * expect(await peer.send('{"jsonrpc":"2.0","id":1,"method":')).toContain('-32700');
 * await peer.close();
 * ```
 */
export function connectRaw(server: McpServer, options: RawPeerOptions = {}): RawPeer {
  const [clientSide, serverSide] = createLinkedTransports();
  const { onRequest, ...connectOptions } = options;
  const connection = server.connect(serverSide, connectOptions);
  const notifications: RawMessage[] = [];
  const requests: RawMessage[] = [];
  const received: string[] = [];
  const byId = new Map<string, (text: string | undefined) => void>();
  const loose: ((text: string | undefined) => void)[] = [];
  let ended = false;
  let nextId = 1;

  const answer = async (id: JsonRpcId, method: string, params?: Record<string, unknown>) => {
    let reply: Record<string, unknown>;
    try {
      if (!onRequest) throw new RpcError(-32601, 'Method not found', { method });
      const result = await onRequest(method, params);
      reply = { jsonrpc: '2.0', id, result: result === undefined ? null : result };
    } catch (err) {
      const error = RpcError.is(err)
        ? err.toJSON()
        : { code: -32603, message: err instanceof Error ? err.message : String(err) };
      reply = { jsonrpc: '2.0', id, error };
    }
    if (!ended) clientSide.send(JSON.stringify(reply));
  };

  const sink: FrameSink = {
    frame(text) {
      received.push(text);
      const message = JSON.parse(text) as unknown;
      if (Array.isArray(message)) {
        loose.shift()?.(text);
        return;
      }
      const m = message as RawMessage & { id?: JsonRpcId | null };
      if (typeof m.method === 'string') {
        const entry: RawMessage = { method: m.method };
        if (m.params !== undefined) entry.params = m.params;
        if (m.id === undefined || m.id === null) {
          notifications.push(entry);
        } else {
          entry.id = m.id;
          requests.push(entry);
          void answer(m.id, m.method, m.params);
        }
        return;
      }
      if (m.id === null || m.id === undefined) {
        loose.shift()?.(text);
        return;
      }
      const key = keyOf(m.id);
      const waiter = byId.get(key);
      if (waiter) {
        byId.delete(key);
        waiter(text);
      }
    },
    rejected() {},
    end() {
      ended = true;
      for (const waiter of byId.values()) waiter(undefined);
      byId.clear();
      for (const waiter of loose.splice(0)) waiter(undefined);
    },
  };
  clientSide.start(sink);

  const send = (message: unknown): Promise<string | undefined> => {
    if (ended) return Promise.resolve(undefined);
    const frame = typeof message === 'string' ? message : JSON.stringify(message);
    const expected = expectedReply(decodeFrame(frame));
    const reply = new Promise<string | undefined>((resolve) => {
      if (expected.kind === 'id') {
        byId.get(expected.key)?.(undefined);
        byId.set(expected.key, resolve);
      } else if (expected.kind === 'loose') {
        loose.push(resolve);
      } else {
        void turn().then(() => resolve(undefined));
      }
    });
    clientSide.send(frame);
    return reply;
  };

  const request = async <R = Record<string, unknown>>(
    method: string,
    params?: unknown,
  ): Promise<RawReply<R>> => {
    const id = nextId++;
    const text = await send(
      JSON.stringify(
        params === undefined
          ? { jsonrpc: '2.0', id, method }
          : { jsonrpc: '2.0', id, method, params },
      ),
    );
    if (text === undefined) throw new Error(`no reply to ${method} (id ${id})`);
    const reply = JSON.parse(text) as RawReply<R>;
    if (reply.jsonrpc !== '2.0' || reply.id !== id) {
      throw new Error(`not a JSON-RPC 2.0 reply to ${method} (id ${id}): ${text}`);
    }
    return reply;
  };

  const result = async <R = Record<string, unknown>>(method: string, params?: unknown) => {
    const reply = await request<R>(method, params);
    if (reply.error || !('result' in reply)) {
      throw new Error(`${method} failed: ${JSON.stringify(reply.error ?? reply)}`);
    }
    return reply.result as R;
  };

  const error = async (method: string, params?: unknown): Promise<RawErrorObject> => {
    const reply = await request(method, params);
    if ('result' in reply || !reply.error) {
      throw new Error(`${method} did not fail: ${JSON.stringify(reply)}`);
    }
    return reply.error;
  };

  const notify = async (method: string, params?: unknown): Promise<void> => {
    await send(
      JSON.stringify(
        params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      ),
    );
  };

  return {
    session: connection.session,
    notifications,
    requests,
    received,
    send,
    request,
    result,
    error,
    callTool: (name, args) =>
      request<CallToolResult>(
        'tools/call',
        args === undefined ? { name } : { name, arguments: args },
      ),
    notify,
    async initialize(params = {}) {
      const reply = await request('initialize', initializeRequest(0, params).params);
      if (reply.error) throw new Error(`initialize failed: ${JSON.stringify(reply.error)}`);
      await notify('notifications/initialized');
      return reply;
    },
    settle: turn,
    async close() {
      await clientSide.close();
      await connection.closed;
    },
  };
}
