/**
 * Change notifications across the gateway, both eras on both sides: a backend's tool list change
 * and a resource update reach a 2025 client (unasked list_changed, resources/subscribe) and a
 * 2026-07-28 client (through its subscriptions/listen), from backends on 2025 and modern links,
 * over stdio and Streamable HTTP (a 2025 HTTP backend's GET stream, a modern one's listen).
 */

import { serveHttp } from '@mcpkit/node';
import { createLinkedTransports, McpClient, type McpServer } from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { EVERYTHING, everythingBackend } from './helpers.js';

let gateway: Gateway;
const clients: McpClient[] = [];
const closers: (() => Promise<void>)[] = [];

/** The same fixture on Streamable HTTP, in this process. */
async function httpBackend(protocol: 'legacy' | '2026-07-28') {
  const { createEverythingServer } = (await import(EVERYTHING)) as {
    createEverythingServer: () => McpServer;
  };
  const server = createEverythingServer();
  const http = await serveHttp(server);
  closers.push(() => http.close());
  servers.set(protocol, server);
  return { url: http.mcpUrl, protocol };
}
const servers = new Map<string, McpServer>();

beforeAll(async () => {
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        old: everythingBackend('legacy'),
        new: everythingBackend('2026-07-28'),
        old_http: await httpBackend('legacy'),
        new_http: await httpBackend('2026-07-28'),
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await gateway?.stop();
  for (const close of closers) await close();
});

async function connect(protocol: 'legacy' | '2026-07-28'): Promise<McpClient> {
  const [clientSide, serverSide] = createLinkedTransports();
  gateway.server.connect(serverSide);
  const client = new McpClient({ protocol, listChanged: true, timeoutMs: 10_000 });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

describe.each(['legacy', '2026-07-28'] as const)('a %s client of the gateway', (era) => {
  it.each(['old', 'new', 'old_http', 'new_http'])(
    'hears of a tool list change of the %s backend and sees the new tool',
    async (name) => {
      const client = await connect(era);
      let told = 0;
      client.on('notifications/tools/list_changed', () => told++);
      const dynamic = `${name}__test_dynamic_tool`;
      const listed = async () => (await client.listTools()).some((t) => t.name === dynamic);
      const before = await listed();
      const untouched = gateway.server.getTool(`${name}__add`);
      await client.callTool(`${name}__test_trigger_tool_change`);
      await waitFor('list_changed', () => told > 0 || undefined);
      await waitFor('the changed list', async () =>
        (await listed()) !== before ? true : undefined,
      );
      // One backend change, one notification: not one per tool the gateway re-registered. The
      // changed list was served after the re-registration, and a ping sent now is answered after
      // whatever it notified (the in-memory link keeps order): nothing is left on its way.
      await client.ping();
      expect(told).toBe(1);
      // The tools that did not change stay registered as they were (no churn).
      expect(gateway.server.getTool(`${name}__add`)).toBe(untouched);
    },
  );

  it.each(['old', 'new', 'old_http', 'new_http'])(
    'hears of an update of a resource of the %s backend it subscribed to',
    async (name) => {
      const client = await connect(era);
      const resources = await client.listResources();
      // Both backends have test://watched-resource: the second one's is rewritten by the gateway.
      const uri = resources.find(
        (r) =>
          r.name === 'watched-resource' &&
          gateway.routes().resources.get(r.uri)?.backend.name === name,
      )?.uri;
      expect(uri).toBeDefined();
      const updated: unknown[] = [];
      client.on('notifications/resources/updated', (params) => updated.push(params?.uri));
      await client.subscribe(uri as string);
      await client.callTool(`${name}__test_trigger_resource_update`);
      await waitFor('resources/updated', () => updated.includes(uri) || undefined);
    },
  );
});

it("hears a modern HTTP backend again after the backend ended the gateway's listen", async () => {
  const backendServer = servers.get('2026-07-28') as McpServer;
  await waitFor('the link listening', () => backendServer.subscriptionCount > 0 || undefined);
  backendServer.closeSubscriptions();
  await waitFor('the link listening again', () => backendServer.subscriptionCount > 0 || undefined);
  const client = await connect('legacy');
  let told = 0;
  client.on('notifications/tools/list_changed', () => told++);
  await client.callTool('new_http__test_trigger_tool_change');
  await waitFor('list_changed', () => told > 0 || undefined);
});
