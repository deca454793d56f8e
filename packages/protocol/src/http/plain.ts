import type { ServerResponse } from 'node:http';
import { isPromiseLike } from '../jsonrpc/method.js';
import type { McpServer } from '../mcp/server.js';
import { type AuthInfo, McpSession } from '../mcp/session.js';
import { LATEST_PROTOCOL_VERSION } from '../mcp/versions.js';
import { sendEmpty, sendJson } from './respond.js';

/**
 * Plain JSON-RPC over HTTP (`POST /`, `POST /api/mcp`, `POST /messages/` in the seeds): the body
 * is one message or a batch, every JSON-RPC reply — errors included — is HTTP 200, and a body
 * that needs no reply gets 202. Stateless: each POST is served in a session of its own.
 */
export async function handlePlainPost(
  server: McpServer,
  res: ServerResponse,
  body: string,
  auth: AuthInfo | undefined,
): Promise<void> {
  const session = new McpSession();
  session.protocolVersion = LATEST_PROTOCOL_VERSION;
  const reply = server.dispatcher.handleFrame(body, {
    extra: { session, auth },
    signalFor: (id) => session.cancellation.signalFor(id),
    settled: (id) => session.cancellation.settled(id),
  });
  const text = isPromiseLike(reply) ? await reply : reply;
  if (text === undefined) sendEmpty(res, 202);
  else sendJson(res, 200, text);
}
