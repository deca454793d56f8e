/**
 * A stream whose client stops reading is ended once it falls MAX_QUEUED_BYTES behind, instead of
 * having every later notification queued for it in memory; a client that reads is not touched.
 */
import type { Socket } from 'node:net';
import { defineResource, McpServer, META } from '@mcpkit/protocol';
import { openRawListen } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServedHttp, serveHttp } from './serve.js';
import { MAX_QUEUED_BYTES } from './sse.js';

let served: ServedHttp | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await served?.close();
  served = undefined;
});

const URI = `mem://${'u'.repeat(2000)}`;

/** A raw HTTP/1.1 `subscriptions/listen` of URI on a socket that is paused: it never reads. */
function listenWithoutReading(url: string): Socket {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'l',
    method: 'subscriptions/listen',
    params: {
      notifications: { resourceSubscriptions: [URI] },
      _meta: {
        [META.protocolVersion]: '2026-07-28',
        [META.clientCapabilities]: {},
        [META.clientInfo]: { name: 'stalled', version: '1' },
      },
    },
  });
  const socket = openRawListen(url, body);
  socket.pause();
  sockets.push(socket);
  return socket;
}

describe('a stream whose client stops reading', () => {
  it('is ended once it is MAX_QUEUED_BYTES behind, and its listen with it', async () => {
    const server = new McpServer({ name: 'sse', version: '1' }).addResource(
      defineResource({ uri: URI, name: 'u', read: () => 'u' }),
    );
    served = await serveHttp(server);
    listenWithoutReading(served.url);
    await waitUntil(() => server.subscriptionCount === 1);
    // ~2 KB per notification: the kernel's socket buffers fill first, then the server's queue.
    // Bounded: far more than buffers and the bound take, and it stops as soon as the listen ends.
    const rounds = 20_000;
    let sent = 0;
    while (server.subscriptionCount === 1 && sent < rounds) {
      for (let i = 0; i < 50; i++) server.resourceUpdated(URI);
      sent += 50;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.subscriptionCount).toBe(0);
    expect(sent).toBeLessThan(rounds);
    // What it took: the kernel's buffers plus at most MAX_QUEUED_BYTES (and one message) queued.
    expect(sent * 2000).toBeGreaterThan(MAX_QUEUED_BYTES);
  });

  it('leaves a client that reads alone, however many notifications it gets', async () => {
    const server = new McpServer({ name: 'sse', version: '1' }).addResource(
      defineResource({ uri: URI, name: 'u', read: () => 'u' }),
    );
    served = await serveHttp(server);
    const socket = listenWithoutReading(served.url);
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.resume();
    await waitUntil(() => server.subscriptionCount === 1);
    const total = 4 * MAX_QUEUED_BYTES;
    let sent = 0;
    while (sent * 2000 < total) {
      for (let i = 0; i < 20; i++) server.resourceUpdated(URI);
      sent += 20;
      // A reader keeps up: wait for what was sent so far to arrive before sending more.
      await waitUntil(() => received >= sent * 2000);
    }
    expect(server.subscriptionCount).toBe(1);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 20_000 && !check(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(check()).toBe(true);
}
