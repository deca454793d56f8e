/**
 * A request the server sends the client and then cancels (MCP `notifications/cancelled`): the
 * client's handler hears of it, and its answer is not sent — "the receiver SHOULD NOT send a
 * response for the cancelled request" — while the requests not cancelled are answered.
 */
import { describe, expect, it } from 'vitest';
import { createLinkedTransports, McpClient } from '../src/index.js';

describe('McpClient, a server request cancelled', () => {
  it('answers nothing for it, and the others as ever', async () => {
    const [near, far] = createLinkedTransports();
    const received: Record<string, unknown>[] = [];
    far.start({
      frame: (text) => {
        const message = JSON.parse(text);
        received.push(message);
        if (message.method === 'initialize') {
          far.send(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: {
                protocolVersion: '2025-06-18',
                capabilities: {},
                serverInfo: { name: 'scripted', version: '1' },
              },
            }),
          );
        }
      },
      rejected: () => {},
      end: () => {},
    });
    const heard: unknown[] = [];
    const client = new McpClient({
      clientInfo: { name: 'c', version: '1' },
      protocol: 'legacy',
      capabilities: { sampling: {} },
      handlers: {
        sampling: (_params, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => heard.push(ctx.signal.reason));
            // Answers a little later, cancelled or not.
            setTimeout(
              () =>
                resolve({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } }),
              20,
            );
          }),
      },
    });
    await client.connect(near);
    const ask = (id: string) =>
      far.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'sampling/createMessage',
          params: { messages: [], maxTokens: 1 },
        }),
      );
    ask('s-1');
    ask('s-2');
    far.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 's-1', reason: 'user stopped it' },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answered = received.filter((m) => m.id === 's-1' || m.id === 's-2').map((m) => m.id);
    expect(answered).toEqual(['s-2']);
    expect(heard).toEqual(['user stopped it']);
    await client.close();
  });
});
