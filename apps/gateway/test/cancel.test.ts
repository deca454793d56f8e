/**
 * A client's cancellation crosses the gateway into the backend call, for clients of both eras
 * and backend links of both eras: the backend's handler sees its signal abort, and the client
 * gets no response for the cancelled call.
 */

import { serveHttp } from '@mcpkit/node';
import { defineTool, McpServer, META } from '@mcpkit/protocol';
import { connectRaw, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

const started: string[] = [];
const cancelled: string[] = [];
/** What the gateway logged at error: a client's cancel is routine, never one. */
const errors: unknown[] = [];
let gateway: Gateway;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const backend = new McpServer({ name: 'waits', version: '1' }).addTool(
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled (or 10 s)',
      handler: (args, ctx) =>
        new Promise<string>((resolve) => {
          const tag = String(args.tag);
          started.push(tag);
          const timer = setTimeout(() => resolve('not cancelled'), 10_000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            cancelled.push(tag);
            resolve('cancelled');
          });
        }),
    }),
  );
  const http = await serveHttp(backend);
  closers.push(() => http.close());
  gateway = new Gateway(
    parseConfig({
      mcpServers: {
        old: { url: http.mcpUrl, protocol: 'legacy' },
        new: { url: http.mcpUrl, protocol: '2026-07-28' },
      },
    }),
    {
      events: EventLog.open(':memory:'),
      logger: { error: (obj, msg) => errors.push([msg, obj]), warn() {}, debug() {} },
    },
  );
  await gateway.start();
});

afterAll(async () => {
  await gateway?.stop();
  for (const close of closers) await close();
});

const envelope = {
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 'modern-client', version: '1' },
};

describe.each(['legacy', 'modern'] as const)('a %s client cancels a call', (era) => {
  it.each(['old', 'new'])('on the %s link: the backend call is cancelled', async (link) => {
    const peer = connectRaw(gateway.server);
    if (era === 'legacy') await peer.initialize();
    const tag = `${era}-${link}`;
    const meta = era === 'modern' ? { _meta: envelope } : {};
    const id = `call-${tag}`;
    void peer.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `${link}__wait`, arguments: { tag }, ...meta },
    });
    await waitFor('the backend call started', () => started.includes(tag) || undefined);
    await peer.notify('notifications/cancelled', { requestId: id, ...meta });
    await waitFor('the backend call cancelled', () => cancelled.includes(tag) || undefined);
    expect(cancelled.filter((t) => t === tag)).toHaveLength(1);
    // MCP cancellation: "SHOULD NOT send a response for the cancelled request" — nor the error
    // the abandoned backend call ends the gateway's handler with.
    await peer.settle();
    const ids = peer.received.map((text) => (JSON.parse(text) as { id?: unknown }).id);
    expect(ids).not.toContain(id);
    expect(errors).toEqual([]);
    await peer.close();
  });
});

describe('a plain-POST client that goes away mid-call', () => {
  it.each(['old', 'new'])('cancels the backend call on the %s link (/messages/)', async (link) => {
    const served = await serveHttp(gateway.server, { plainPaths: ['/messages/'] });
    closers.push(() => served.close());
    const tag = `plain-${link}`;
    const controller = new AbortController();
    const pending = fetch(`${served.url}/messages/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: `${link}__wait`, arguments: { tag } },
      }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await waitFor('the backend call started', () => started.includes(tag) || undefined);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor('the backend call cancelled', () => cancelled.includes(tag) || undefined);
  });
});
