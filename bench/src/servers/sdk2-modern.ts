/**
 * Baseline: the official SDK v2's recommended modern (2026-07-28) HTTP setup as its README and
 * d.ts show it — `createMcpHandler(factory)` from @modelcontextprotocol/server (a fresh
 * McpServer from the factory for every request, stateless by construction), mounted on plain
 * node:http with `toNodeHandler` from @modelcontextprotocol/node behind the documented
 * localhost Host/Origin guards. Default options (`legacy: 'stateless'`, `responseMode: 'auto'`);
 * the bench sends it modern requests only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { announce } from './http-child.js';

/** The same `add` tool as sdk-tools.ts, registered with the v2 API. */
function sdk2Server(): McpServer {
  const server = new McpServer({ name: 'bench', version: '0.0.0' });
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

const handle = toNodeHandler(createMcpHandler(() => sdk2Server()));
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const http = createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  void handle(req, res);
});
http.listen(0, '127.0.0.1', () => {
  announce((http.address() as AddressInfo).port, () => {
    http.closeAllConnections();
    http.close();
  });
});
