/**
 * The cache hints a 2026-07-28 client gets from the gateway's lists are derived from its
 * backends' own: the shortest `ttlMs` and the most private `cacheScope` of the backends that
 * contribute to a list; a backend that gives none (a 2025 one) makes the list uncacheable.
 */

import { serveHttp } from '@mcpkit/node';
import { type CacheHint, defineTool, McpServer, META } from '@mcpkit/protocol';
import { connectRaw } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

const modern = {
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'modern-client', version: '1' },
  },
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A backend on HTTP whose tools/list carries `hint`. */
async function backend(name: string, hint: CacheHint): Promise<string> {
  const server = new McpServer({ name, version: '1', cache: { 'tools/list': hint } }).addTool(
    defineTool({ name: 'ping', description: 'Pong', handler: () => 'pong' }),
  );
  const http = await serveHttp(server);
  cleanups.push(() => http.close());
  return http.mcpUrl;
}

async function toolsListHint(
  backends: Record<string, { url: string; protocol?: 'auto' | 'legacy' }>,
): Promise<Record<string, unknown>> {
  const gateway = new Gateway(parseConfig({ mcpServers: backends }), {
    events: EventLog.open(':memory:'),
  });
  await gateway.start();
  const peer = connectRaw(gateway.server);
  cleanups.push(async () => {
    await peer.close();
    await gateway.stop();
  });
  const list = await peer.result<Record<string, unknown>>('tools/list', modern);
  return { ttlMs: list.ttlMs, cacheScope: list.cacheScope };
}

describe("the gateway's cache hints", () => {
  it('takes the shortest time and the narrowest scope of its backends', async () => {
    const a = await backend('a', { ttlMs: 60_000, cacheScope: 'public' });
    const b = await backend('b', { ttlMs: 5_000, cacheScope: 'public' });
    await expect(toolsListHint({ a: { url: a }, b: { url: b } })).resolves.toEqual({
      ttlMs: 5_000,
      cacheScope: 'public',
    });
    const c = await backend('c', { ttlMs: 90_000, cacheScope: 'private' });
    await expect(toolsListHint({ a: { url: a }, c: { url: c } })).resolves.toEqual({
      ttlMs: 60_000,
      cacheScope: 'private',
    });
  });

  it('makes a list uncacheable when a backend gives no hint (a 2025 link)', async () => {
    const a = await backend('a', { ttlMs: 60_000, cacheScope: 'public' });
    const old = await backend('old', { ttlMs: 60_000, cacheScope: 'public' });
    await expect(
      toolsListHint({ a: { url: a }, old: { url: old, protocol: 'legacy' } }),
    ).resolves.toEqual({ ttlMs: 0, cacheScope: 'private' });
  });
});
