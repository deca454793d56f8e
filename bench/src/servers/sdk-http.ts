/**
 * Baseline: the official SDK's stateless Streamable HTTP pattern as its documentation and
 * examples show it — for every POST a new McpServer and a new StreamableHTTPServerTransport
 * ({ sessionIdGenerator: undefined }), connected, handed the parsed body, closed when the
 * response closes. Plain node:http instead of express, so no framework cost is added.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { announce } from './http-child.js';
import { sdkServer } from './sdk-tools.js';

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function handle(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    sendError(res, 400, -32700, 'Parse error');
    return;
  }
  const server = sdkServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch {
    sendError(res, 500, -32603, 'Internal server error');
  }
}

const http = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/mcp') {
    sendError(res, 405, -32000, 'Method not allowed.');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void handle(req, res, Buffer.concat(chunks).toString('utf8'));
  });
});
http.listen(0, '127.0.0.1', () => {
  announce((http.address() as AddressInfo).port, () => {
    http.closeAllConnections();
    http.close();
  });
});
