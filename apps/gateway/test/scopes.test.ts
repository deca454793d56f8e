/**
 * Client tokens mapped to backends: a backend with `scopes` is listed and callable only with a
 * token that holds them (HTTP, tokens with scopes); the others stay open to every client.
 */

import { serveHttp } from '@mcpkit/node';
import { McpClient, StreamableHttpClientTransport } from '@mcpkit/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backend } from './helpers.js';

const OPS = 'ops-token-0123456789';
const GUEST = 'guest-token-0123456789';
/** What `--token` / MCP_GATEWAY_TOKEN gives: the operator's token, every scope. */
const ROOT = 'root-token-0123456789';
let gateway: Gateway;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        open: backend('chora', { namespace: 'open' }),
        guarded: backend('rich', { scopes: ['ops'] }),
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  const served = await serveHttp(gateway.server, {
    auth: {
      tokens: [
        { token: OPS, subject: 'ops', scopes: ['ops'] },
        { token: GUEST, subject: 'guest', scopes: [] },
        { token: ROOT, subject: 'client', allScopes: true },
      ],
    },
  });
  url = served.mcpUrl;
  close = served.close;
});

afterAll(async () => {
  await close?.();
  await gateway?.stop();
});

async function as(token: string): Promise<McpClient> {
  return McpClient.connect(
    new StreamableHttpClientTransport({ url, headers: { Authorization: `Bearer ${token}` } }),
  );
}

describe('backend scopes', () => {
  it('lists and serves a scoped backend only to a token holding its scope', async () => {
    const ops = await as(OPS);
    const guest = await as(GUEST);
    try {
      const opsTools = (await ops.listTools()).map((t) => t.name);
      const guestTools = (await guest.listTools()).map((t) => t.name);
      expect(opsTools).toEqual(expect.arrayContaining(['open__list_generators', 'guarded__echo']));
      expect(guestTools).toContain('open__list_generators');
      expect(guestTools.some((n) => n.startsWith('guarded__'))).toBe(false);
      await expect(ops.callTool('guarded__echo', { text: 'hi' })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'hi' }],
      });
      await expect(guest.callTool('guarded__echo', { text: 'hi' })).rejects.toThrow(
        /requires scope 'ops'/,
      );
      await expect(guest.callTool('open__list_generators')).resolves.toBeDefined();
    } finally {
      await ops.close();
      await guest.close();
    }
  });

  it("lets the operator's token (--token) see and call everything, restart_backend too", async () => {
    const root = await as(ROOT);
    try {
      const tools = (await root.listTools()).map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['guarded__echo', 'restart_backend']));
      await expect(root.callTool('guarded__echo', { text: 'hi' })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'hi' }],
      });
      const restarted = await root.callTool('restart_backend', { backend: 'open' });
      expect(restarted.structuredContent).toMatchObject({ backend: 'open', state: 'running' });
    } finally {
      await root.close();
    }
  });
});
