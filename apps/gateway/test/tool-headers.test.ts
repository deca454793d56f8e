// @module-tag process
/**
 * A backend tool that mirrors an argument into a header (`x-mcp-header`, MCP 2026-07-28
 * Streamable HTTP §Custom Headers from Tool Parameters), behind the gateway: a modern HTTP
 * client's `Mcp-Param-*` header is checked against the arguments before the call is forwarded,
 * as the backend itself would — an intermediary routing on the header and the tool that runs
 * must never disagree.
 */
import { serveHttp } from '@mcpkit/node';
import { encodeHeaderValue, META } from '@mcpkit/protocol';
import { postJson } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { everythingBackend } from './helpers.js';

const TOOL = 'every__test_custom_headers_server';
let gateway: Gateway;
let http: Awaited<ReturnType<typeof serveHttp>>;

beforeAll(async () => {
  gateway = new Gateway(parseConfig({ mcpServers: { every: everythingBackend('2026-07-28') } }), {
    events: EventLog.open(':memory:'),
  });
  await gateway.start();
  http = await serveHttp(gateway.server);
});

afterAll(async () => {
  await http?.close();
  await gateway?.stop();
});

/** A modern tools/call of TOOL for `region`, with the headers given. */
const call = (region: string, headers: Record<string, string>) =>
  postJson<{ error?: { code: number; data?: unknown }; result?: unknown }>(
    http.mcpUrl,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: TOOL,
        arguments: { region },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'raw', version: '1' },
        },
      },
    },
    {
      headers: {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': TOOL,
        ...headers,
      },
    },
  );

describe("a backend tool's x-mcp-header declarations, through the gateway", () => {
  it('are listed as the backend declared them, and mirrored by a modern client', async () => {
    const client = await http.connect({ protocol: '2026-07-28' });
    const tool = (await client.listTools()).find((t) => t.name === TOOL);
    expect(JSON.stringify(tool?.inputSchema)).toContain('"x-mcp-header":"Region"');
    const result = await client.callTool(TOOL, { region: 'ap-south' });
    expect(result.content).toEqual([{ type: 'text', text: 'region: ap-south' }]);
  });

  it('refuse a call whose Mcp-Param header disagrees with its argument, or lacks it, before the backend sees it', async () => {
    const before = gateway.backends.get('every')?.calls ?? 0;
    const other = await call('eu-west', { 'mcp-param-region': encodeHeaderValue('us-east') });
    expect(other.status).toBe(400);
    expect(other.body?.error).toMatchObject({
      code: -32020,
      data: { header: 'Mcp-Param-Region', headerValue: 'us-east', bodyValue: 'eu-west' },
    });
    const missing = await call('eu-west', {});
    expect(missing.status).toBe(400);
    expect(missing.body?.error).toMatchObject({
      code: -32020,
      data: { header: 'Mcp-Param-Region', problem: 'missing' },
    });
    expect(gateway.backends.get('every')?.calls).toBe(before);
    const agreed = await call('eu-west', { 'mcp-param-region': 'eu-west' });
    expect(agreed.status).toBe(200);
    expect(agreed.body?.result).toMatchObject({ content: [{ text: 'region: eu-west' }] });
  });
});
