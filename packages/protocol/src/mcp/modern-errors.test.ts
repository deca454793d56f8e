/**
 * `errors.modernEra`: the one place a server whose 2025-era contract uses legacy codes maps them
 * for 2026-07-28 requests — whatever threw them (a tool, a resource, a hook) and however (at once
 * or later) — while 2025 sessions keep the contract.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RpcError } from '../jsonrpc/errors.js';
import { connectRaw, type RawPeer } from '../testing/index.js';
import { META } from './era.js';
import { defineResourceTemplate } from './resource.js';
import { McpServer } from './server.js';
import { defineTool } from './tool.js';

const modern = (params: Record<string, unknown> = {}) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'modern-errors-test', version: '0.1.0' },
  },
});

/** A contract's code -32011 ("locked") is -32600 in the modern era; every other code is kept. */
const modernEra = (error: RpcError) =>
  error.code === -32011 ? new RpcError(-32600, error.message, error.data) : error;

function server(): McpServer {
  return new McpServer({
    name: 'legacy-codes',
    version: '0.0.1',
    errors: {
      modernEra,
      scopeDenied: (tool, scope) => new RpcError(-32011, 'Locked', { tool, scope }),
    },
  })
    .addTool(
      defineTool({
        name: 'sync_fail',
        description: 'Throws at once',
        handler: () => {
          throw new RpcError(-32011, 'Locked', { why: 'sync' });
        },
      }),
      defineTool({
        name: 'async_fail',
        description: 'Rejects later',
        inputSchema: z.object({ code: z.number().int() }),
        handler: async ({ code }) => {
          await Promise.resolve();
          throw new RpcError(code, 'Failed', { why: 'async' });
        },
      }),
      defineTool({
        name: 'crash',
        description: 'Throws something that is no RpcError',
        handler: () => {
          throw new Error('boom');
        },
      }),
      defineTool({
        name: 'guarded',
        description: 'Needs a scope',
        requiredScopes: ['admin'],
        handler: () => 'ok',
      }),
    )
    .addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'mem://{id}',
        name: 'm',
        read: () => {
          throw new RpcError(-32011, 'Locked', { why: 'read' });
        },
      }),
      defineResourceTemplate({
        uriTemplate: 'crash://{id}',
        name: 'c',
        read: async () => {
          throw new Error('secret detail');
        },
      }),
    );
}

let peer: RawPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

describe('errors.modernEra', () => {
  const auth = { subject: 'u', scopes: new Set(['user']) };

  it('maps what a modern request hears, from handlers (sync and async), reads and hooks', async () => {
    peer = connectRaw(server(), { auth });
    const call = (name: string, args?: Record<string, unknown>) =>
      peer?.error('tools/call', modern({ name, ...(args ? { arguments: args } : {}) }));
    expect(await call('sync_fail')).toEqual({
      code: -32600,
      message: 'Locked',
      data: { why: 'sync' },
    });
    expect(await call('async_fail', { code: -32011 })).toEqual({
      code: -32600,
      message: 'Failed',
      data: { why: 'async' },
    });
    expect(await call('guarded')).toMatchObject({ code: -32600, data: { scope: 'admin' } });
    expect(await peer.error('resources/read', modern({ uri: 'mem://x' }))).toMatchObject({
      code: -32600,
      data: { why: 'read' },
    });
  });

  it('keeps codes the mapping keeps, and a tool that crashes still answers with a tool result', async () => {
    peer = connectRaw(server(), { auth });
    const failed = await peer.error(
      'tools/call',
      modern({ name: 'async_fail', arguments: { code: -32602 } }),
    );
    expect(failed).toMatchObject({ code: -32602, message: 'Failed' });
    const crashed = await peer.request('tools/call', modern({ name: 'crash' }));
    // A crash of a tool is a tool result (isError), untouched by the mapping.
    expect(crashed.result).toMatchObject({ isError: true });
    expect(crashed.error).toBeUndefined();
    // Anything but an RpcError passes the mapping by: -32603 without its details, as always.
    expect(await peer.error('resources/read', modern({ uri: 'crash://x' }))).toEqual({
      code: -32603,
      message: 'Internal error',
    });
  });

  it('leaves 2025 sessions their contract', async () => {
    peer = connectRaw(server(), { auth });
    await peer.initialize();
    expect(await peer.error('tools/call', { name: 'sync_fail' })).toMatchObject({ code: -32011 });
    expect(
      await peer.error('tools/call', { name: 'async_fail', arguments: { code: -32011 } }),
    ).toMatchObject({ code: -32011 });
    expect(await peer.error('tools/call', { name: 'guarded' })).toMatchObject({ code: -32011 });
    expect(await peer.error('resources/read', { uri: 'mem://x' })).toMatchObject({
      code: -32011,
    });
  });
});
