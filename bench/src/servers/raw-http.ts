/**
 * Ceiling: a raw node:http JSON echo — read the body, JSON.parse it, JSON.stringify a small
 * JSON-RPC result back. The least any HTTP JSON-RPC server must do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from './http-child.js';

interface Call {
  id?: unknown;
  params?: { arguments?: { a?: number; b?: number } };
}

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body: string;
    try {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call;
      const args = call.params?.arguments;
      const sum = (args?.a ?? 0) + (args?.b ?? 0);
      body = JSON.stringify({
        jsonrpc: '2.0',
        id: call.id ?? null,
        result: { content: [{ type: 'text', text: String(sum) }], isError: false },
      });
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  });
});
http.listen(0, '127.0.0.1', () => {
  announce((http.address() as AddressInfo).port, () => {
    http.closeAllConnections();
    http.close();
  });
});
