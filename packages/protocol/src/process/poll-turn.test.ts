import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { pollTurn } from './poll-turn.js';

describe('pollTurn', () => {
  it('serves I/O that arrived during a step before the next step, also when called from an I/O callback', async () => {
    // Two callers on one server: the first one's data handler (an I/O callback, as where a
    // request's handler starts) works in two steps; the second caller's data arrives during the
    // first step and must be served before the second.
    const order: string[] = [];
    const accepted: Socket[] = [];
    const server = createServer((s) => accepted.push(s));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const clients = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')] as const;
    await Promise.all(clients.map((s) => once(s, 'connect')));
    while (accepted.length < 2) await pollTurn();
    const [first, second] = accepted as [Socket, Socket];
    try {
      const done = new Promise<void>((resolve) => {
        second.on('data', () => order.push('other caller'));
        first.on('data', async () => {
          order.push('step 1');
          // Written to loopback at once: readable by the server before the loop polls again.
          clients[1].write('ping');
          await pollTurn();
          order.push('step 2');
          resolve();
        });
      });
      clients[0].write('work');
      await done;
      expect(order).toEqual(['step 1', 'other caller', 'step 2']);
    } finally {
      for (const s of [...clients, ...accepted]) s.destroy();
      server.close();
    }
  });
});
