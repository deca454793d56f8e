import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  decodeFrame,
  type Frame,
  isPromiseLike,
  LATEST_PROTOCOL_VERSION,
  McpSession,
  type ServerPort,
  type ServerTransport,
} from '@mcpkit/protocol';
import { answerByEra } from './modern.js';
import { ANSWERED, sendEmpty, sendJson } from './respond.js';

/**
 * Plain JSON-RPC over HTTP, as the servers the apps stand in for serve it (`POST /` of MCP System
 * Info, `POST /api/mcp` of the CODEFLUSS MCP server, `POST /messages/`): the body
 * is one message or a batch, every JSON-RPC reply — errors included — is HTTP 200, and a body
 * that needs no reply gets 202. Stateless: each POST is served in a throwaway session of its own,
 * which the server never tracks (nothing can reach it after the reply).
 *
 * A request whose `_meta` claims MCP 2026-07-28 is served by that revision's HTTP rules instead
 * (its headers checked against the body, 400/404 for refusals, as on the Streamable endpoint):
 * "every reply 200" is the promise of those servers' APIs, which predate it.
 */
export class PlainHttpHandler implements ServerTransport {
  #port: ServerPort | undefined;

  attach(port: ServerPort): void {
    if (this.#port) throw new Error('this handler is already connected to a server');
    this.#port = port;
  }

  handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    // Not an async method: a modern call answered synchronously costs no promise of its own.
    try {
      const port = this.#port;
      if (!port) throw new Error('PlainHttpHandler is not connected: call server.connect(handler)');
      const frame = decodeFrame(body);
      // The era is the body's to say (MCP 2026-07-28): a modern request is served statelessly.
      const modern = answerByEra(port, req, res, frame, auth, false);
      if (modern !== false) return modern === true ? ANSWERED : modern;
      return this.#postLegacy(port, res, frame, auth);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async #postLegacy(
    port: ServerPort,
    res: ServerResponse,
    frame: Frame,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    const session = new McpSession();
    session.protocolVersion = LATEST_PROTOCOL_VERSION;
    let done = false;
    // A client that goes away mid-call will read no answer: its calls are cancelled, so a
    // handler (a gateway's backend call) stops working for nobody.
    res.once('close', () => {
      if (!done) session.abortInFlight(() => new Error('the client closed the request'));
    });
    const reply = port.dispatch(frame, { session, auth });
    const text = isPromiseLike(reply) ? await reply : reply;
    done = true;
    if (text === undefined) sendEmpty(res, 202);
    else sendJson(res, 200, text);
  }
}
