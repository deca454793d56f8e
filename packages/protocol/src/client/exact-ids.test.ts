/**
 * McpClient serving a 2025 server's requests whose ids are beyond 2^53: a cancellation is matched
 * to the request it names exactly, never to the one its number rounds to (JSON.parse).
 */
import { describe, expect, it } from 'vitest';
import { createLinkedTransports } from '../transports/memory.js';
import { McpClient } from './client.js';

/** A 2025 server on an in-memory pair, written by hand: what the client sends is kept as text. */
function server() {
  const [clientSide, serverSide] = createLinkedTransports();
  const received: string[] = [];
  serverSide.start({
    frame: (text) => {
      received.push(text);
      const message = JSON.parse(text) as { id?: number; method?: string };
      if (message.method === 'initialize') {
        serverSide.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              serverInfo: { name: 'hand-written', version: '1' },
            },
          }),
        );
      } else if (message.method === 'ping') {
        serverSide.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
      }
    },
    rejected: () => {},
    end: () => {},
  });
  return { transport: clientSide, send: (text: string) => serverSide.send(text), received };
}

/** A client whose roots handler answers once released, telling when each call has started. */
async function client(transport: ReturnType<typeof server>['transport']) {
  let started = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const mcp = await McpClient.connect(transport, {
    handlers: {
      roots: async ({ signal }) => {
        started++;
        await Promise.race([
          released,
          new Promise((resolve) => signal.addEventListener('abort', resolve)),
        ]);
        return [{ uri: 'file:///exact' }];
      },
    },
  });
  return { mcp, started: () => started, release };
}

const rootsList = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"roots/list"}`;
const cancel = (id: string) =>
  `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`;
/** Turns of the event loop until `done` (in-memory frames need a few); a hang guard after that. */
const until = async (done: () => boolean) => {
  for (let turn = 0; !done(); turn++) {
    if (turn === 1000) throw new Error('never happened');
    await new Promise((resolve) => setImmediate(resolve));
  }
};

describe('McpClient: cancellations of server requests with ids beyond 2^53', () => {
  it('answers the request a cancellation only rounds to, and cancels the one it names', async () => {
    const peer = server();
    const { mcp, started, release } = await client(peer.transport);
    // 18014398509481988 is what JSON.parse makes of 18014398509481987: an id never sent.
    peer.send(rootsList('18014398509481988'));
    peer.send(rootsList('9007199254741003'));
    await until(() => started() === 2);
    peer.send(cancel('18014398509481987'));
    peer.send(cancel('9007199254741003'));
    release();
    const answered = (id: string) => peer.received.some((text) => text.includes(`"id":${id},`));
    await until(() => answered('18014398509481988'));
    expect(peer.received.filter((text) => text.includes('"result"'))).toEqual([
      '{"jsonrpc":"2.0","id":18014398509481988,"result":{"roots":[{"uri":"file:///exact"}]}}',
    ]);
    // The cancelled one got nothing (MCP: no response to a cancelled request), even after a ping.
    await mcp.ping();
    expect(answered('9007199254741003')).toBe(false);
    await mcp.close();
  });
});
