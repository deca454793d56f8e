/**
 * Client tokens mapped to backends: a backend with `scopes` is listed and callable only with a
 * token that holds them (HTTP, tokens with scopes); the others stay open to every client.
 */

import { serveHttp } from '@mcpkit/node';
import { McpClient, StreamableHttpClientTransport } from '@mcpkit/protocol';
import { connectRaw } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { snapshot } from '../src/status/snapshot.js';
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

describe('backend scopes guard everything the backend offers, and its activity', () => {
  const session = async (subject: string, scopes: string[]) => {
    const peer = connectRaw(gateway.server, { auth: { subject, scopes: new Set(scopes) } });
    await peer.initialize();
    return peer;
  };

  it('lists, reads and gets its resources, templates and prompts only with its scopes', async () => {
    const ops = await session('ops', ['ops']);
    const guest = await session('guest', []);
    try {
      const resources = async (p: typeof ops) =>
        (await p.result<{ resources: { uri: string }[] }>('resources/list')).resources.length;
      expect(await resources(ops)).toBeGreaterThan(0);
      expect(await resources(guest)).toBe(0);
      const templates = async (p: typeof ops) =>
        (await p.result<{ resourceTemplates: unknown[] }>('resources/templates/list'))
          .resourceTemplates.length;
      expect(await templates(ops)).toBeGreaterThan(0);
      expect(await templates(guest)).toBe(0);
      const prompts = async (p: typeof ops) =>
        (await p.result<{ prompts: { name: string }[] }>('prompts/list')).prompts.map(
          (x) => x.name,
        );
      expect(await prompts(ops)).toContain('guarded__greet');
      expect(await prompts(guest)).not.toContain('guarded__greet');
      const readme = (await ops.result<{ resources: { uri: string }[] }>('resources/list'))
        .resources[0]?.uri as string;
      expect(await ops.result('resources/read', { uri: readme })).toHaveProperty('contents');
      expect((await guest.error('resources/read', { uri: readme })).code).toBe(-32002);
      expect(
        (await guest.error('prompts/get', { name: 'guarded__greet', arguments: { name: 'x' } }))
          .code,
      ).toBe(-32602);
      // search finds for each caller only what it may use.
      const found = async (p: typeof ops) =>
        JSON.stringify(
          (await p.result('tools/call', { name: 'search', arguments: { query: 'echo' } }))
            .structuredContent,
        );
      expect(await found(ops)).toContain('guarded__echo');
      expect(await found(guest)).not.toContain('guarded');
    } finally {
      await ops.close();
      await guest.close();
    }
  });

  it('keeps its status, events and log lines from callers without its scopes', async () => {
    const ops = await session('ops', ['ops']);
    const guest = await session('guest', []);
    try {
      await ops.result('tools/call', { name: 'guarded__log_twice', arguments: {} });
      await ops.settle();
      await guest.settle();
      const logs = (p: typeof ops) =>
        p.notifications.filter((n) => n.method === 'notifications/message').length;
      expect(logs(ops)).toBe(2);
      expect(logs(guest)).toBe(0);
      const status = async (p: typeof ops) =>
        Object.keys(
          (
            (await p.result('tools/call', { name: 'gateway_status', arguments: {} }))
              .structuredContent as { backends: Record<string, unknown> }
          ).backends,
        );
      expect(await status(ops)).toEqual(['open', 'guarded']);
      expect(await status(guest)).toEqual(['open']);
      const events = async (p: typeof ops) =>
        new Set(
          (
            (await p.result('tools/call', { name: 'get_events', arguments: { limit: 1000 } }))
              .structuredContent as { events: { backend: string | null }[] }
          ).events.map((e) => e.backend),
        );
      expect(await events(ops)).toContain('guarded');
      expect(await events(guest)).not.toContain('guarded');
      // The status page's state, as each would see it.
      const pageOf = (scopes: string[]) =>
        snapshot(gateway, Date.now(), { subject: 'x', scopes: new Set(scopes) }).backends.map(
          (b) => b.name,
        );
      expect(pageOf(['ops'])).toEqual(['open', 'guarded']);
      expect(pageOf([])).toEqual(['open']);
    } finally {
      await ops.close();
      await guest.close();
    }
  });
});
