/**
 * Per-caller limits over HTTP without auth. Every 2026-07-28 request is a connection of its own,
 * so "its connection" would make each listen a caller and leave only the server's ceiling; every
 * local client shares 127.0.0.1, so the address alone would make all of them one caller. The
 * caller is the address and the client's name (`clientInfo.name`), as a 2025 session's identity.
 */
import { McpServer, META } from '@mcpkit/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServedHttp, serveHttp } from './serve.js';

let served: ServedHttp | undefined;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await served?.close();
  served = undefined;
});

/** A modern `subscriptions/listen` from client program `name`, held open until the test ends. */
async function listen(url: string, id: number, name: string): Promise<Response> {
  const abort = new AbortController();
  aborts.push(abort);
  return await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name, version: '1' },
        },
      },
    }),
  });
}

describe('per-caller limits of modern HTTP requests without auth', () => {
  it("count one client program's listens together, and leave another program its own share", async () => {
    const server = new McpServer({
      name: 'callers',
      version: '1',
      maxSubscriptions: 10,
      maxSubscriptionsPerCaller: 2,
    });
    served = await serveHttp(server);
    await listen(served.mcpUrl, 1, 'flooder');
    await listen(served.mcpUrl, 2, 'flooder');
    expect(server.subscriptionCount).toBe(2);
    const third = await listen(served.mcpUrl, 3, 'flooder');
    expect(await third.json()).toMatchObject({
      id: 3,
      error: { code: -32603, data: { limit: 2, scope: 'caller' } },
    });
    // Another program on the same address is another caller.
    await listen(served.mcpUrl, 4, 'editor');
    expect(server.subscriptionCount).toBe(3);
  });
});
