import type { ServerResponse } from 'node:http';
import { isPromiseLike } from '../jsonrpc/method.js';
import { type AuthInfo, McpSession } from '../mcp/session.js';
import type { ServerPort, ServerTransport } from '../mcp/transport.js';
import { LATEST_PROTOCOL_VERSION } from '../mcp/versions.js';
import { sendEmpty, sendJson } from './respond.js';

/**
 * Plain JSON-RPC over HTTP, as the servers the apps stand in for serve it (`POST /` of MCP System
 * Info, `POST /api/mcp` of the CODEFLUSS MCP server, `POST /messages/`): the body
 * is one message or a batch, every JSON-RPC reply — errors included — is HTTP 200, and a body
 * that needs no reply gets 202. Stateless: each POST is served in a throwaway session of its own,
 * which the server never tracks (nothing can reach it after the reply).
 */
export class PlainHttpHandler implements ServerTransport {
  #port: ServerPort | undefined;

  attach(port: ServerPort): void {
    if (this.#port) throw new Error('this handler is already connected to a server');
    this.#port = port;
  }

  async handlePost(res: ServerResponse, body: string, auth: AuthInfo | undefined): Promise<void> {
    const port = this.#port;
    if (!port) throw new Error('PlainHttpHandler is not connected: call server.connect(handler)');
    const session = new McpSession();
    session.protocolVersion = LATEST_PROTOCOL_VERSION;
    const reply = port.dispatch(body, { session, auth });
    const text = isPromiseLike(reply) ? await reply : reply;
    if (text === undefined) sendEmpty(res, 202);
    else sendJson(res, 200, text);
  }
}
