/**
 * A raw client of one MCP era that checks every frame it receives against that era's published
 * schema (`wireProblems`): the replies by the method they answer, the notifications as they come.
 * What an app's wire test drives — every list, read, call and error path — to prove it speaks
 * both revisions exactly.
 */
import type { AuthInfo, McpServer } from '@mcpkit/protocol';
import { connectRaw, type RawPeer } from '@mcpkit/protocol/testing';
import { type SchemaRevision, wireProblems } from './wire-schema.js';

/** `legacy`: a 2025-11-25 session that initialized; `modern`: 2026-07-28 envelopes, no session. */
export type WireEra = 'legacy' | 'modern';

const REVISION: Readonly<Record<WireEra, SchemaRevision>> = {
  legacy: '2025-11-25',
  modern: '2026-07-28',
};

/** What `connectWire` takes besides the server and the era. */
export interface WireClientOptions {
  /** Who the client acts as (`server.connect`'s `auth`). */
  auth?: AuthInfo;
  /** The client's capabilities: `initialize`'s, or each modern request's `_meta`. */
  capabilities?: Record<string, unknown>;
}

/** A reply as the client read it. */
export interface WireReply {
  /** The result, when the request succeeded. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, when it did not. */
  error?: { code: number; message: string; data?: unknown };
}

/** A schema-checking client of one era, connected (initialized or discovered). */
export interface WireClient {
  /** The raw peer underneath (its notifications, requests, `close`). */
  readonly peer: RawPeer;
  /** Send a request in this era's shape; its reply's schema problems are kept. */
  send(method: string, params?: Record<string, unknown>): Promise<WireReply>;
  /** The error `method` is answered with; undefined for a result. */
  error(method: string, params?: Record<string, unknown>): Promise<WireReply['error']>;
  /** Schema problems of everything received so far, the notifications included. */
  problems(): Promise<string[]>;
}

/**
 * Connect a schema-checking client of `era` to `server` in process: a legacy client initializes
 * (and fails unless 2025-11-25 is agreed), a modern one calls `server/discover`.
 *
 * @example
 * ```ts
 * const c = await connectWire(server, 'modern');
 * await c.send('tools/list');
 * expect(await c.error('resources/read', { uri: 'mem://gone' })).toMatchObject({ code: -32602 });
 * expect(await c.problems()).toEqual([]);
 * await c.peer.close();
 * ```
 */
export async function connectWire(
  server: McpServer,
  era: WireEra,
  options: WireClientOptions = {},
): Promise<WireClient> {
  const peer = connectRaw(server, options.auth ? { auth: options.auth } : {});
  const revision = REVISION[era];
  const capabilities = options.capabilities ?? {};
  const clientInfo = { name: 'wire-client', version: '0.1.0' };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': clientInfo,
  };
  const found: string[] = [];
  let id = 0;
  const send = async (method: string, params: Record<string, unknown> = {}) => {
    const text = await peer.send({
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: era === 'modern' ? { ...params, _meta: meta } : params,
    });
    if (text === undefined) throw new Error(`${method}: no reply`);
    found.push(...wireProblems(revision, text, method).map((p) => `${method}: ${p}`));
    return JSON.parse(text) as WireReply;
  };
  if (era === 'legacy') {
    const init = await send('initialize', { protocolVersion: revision, capabilities, clientInfo });
    if (init.result?.protocolVersion !== revision) {
      await peer.close();
      throw new Error(`initialize did not agree on ${revision}: ${JSON.stringify(init)}`);
    }
    await peer.notify('notifications/initialized');
  } else {
    await send('server/discover');
  }
  return {
    peer,
    send,
    error: async (method, params) => (await send(method, params)).error,
    problems: async () => {
      await peer.settle();
      const notes = peer.notifications.flatMap((n) =>
        wireProblems(revision, { jsonrpc: '2.0', ...n }).map((p) => `${n.method}: ${p}`),
      );
      return [...found, ...notes];
    },
  };
}
