import { connect, type Socket } from 'node:net';

/**
 * A raw HTTP/1.1 `subscriptions/listen` (2026-07-28) to `url`'s `/mcp`, on a socket of its own
 * (a held request takes its connection), with the headers a conforming client sends. What the
 * socket does with the answer is the caller's: read it, or `pause()` it to play a client that
 * stops reading. `body` is the whole JSON-RPC request.
 */
export function openRawListen(url: string, body: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  // A server that ends the stream may reset the socket; the caller hears it as 'close'.
  socket.on('error', () => {});
  socket.write(
    [
      'POST /mcp HTTP/1.1',
      `Host: ${hostname}:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28',
      'Mcp-Method: subscriptions/listen',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
  return socket;
}
