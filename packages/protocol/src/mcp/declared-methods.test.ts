/**
 * A server serves the methods of resources, prompts and completions exactly while it declares
 * the capability (initialize and server/discover), in both eras: a client never finds a method
 * the handshake said is not there, nor misses one it said is.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { method } from '../jsonrpc/method.js';
import { connectRaw, type RawPeer } from '../testing/index.js';
import { META } from './era.js';
import { definePrompt } from './prompt.js';
import { defineResource, defineResourceTemplate } from './resource.js';
import { McpServer } from './server.js';

const modern = (params: Record<string, unknown> = {}) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'declared-test', version: '0.1.0' },
  },
});

/** Each optional capability and a request of each method it brings. */
const METHODS: [capability: string, method: string, params: Record<string, unknown>][] = [
  ['resources', 'resources/list', {}],
  ['resources', 'resources/templates/list', {}],
  ['resources', 'resources/read', { uri: 'mem://nothing' }],
  ['prompts', 'prompts/list', {}],
  ['prompts', 'prompts/get', { name: 'nothing' }],
  [
    'completions',
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } },
  ],
];

let peer: RawPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

describe('methods of undeclared capabilities', () => {
  it.each(METHODS)('%s undeclared: %s is -32601 in both eras', async (capability, name, params) => {
    const server = new McpServer({ name: 'bare', version: '0.0.1' });
    peer = connectRaw(server);
    const init = await peer.initialize();
    expect((init.result as { capabilities: object }).capabilities).not.toHaveProperty(capability);
    expect(await peer.error(name, params)).toMatchObject({ code: -32601, data: { method: name } });
    const discover = await peer.result<{ capabilities: object }>('server/discover', modern());
    expect(discover.capabilities).not.toHaveProperty(capability);
    expect(await peer.error(name, modern(params))).toMatchObject({
      code: -32601,
      data: { method: name },
    });
  });

  it('2025 subscribe and unsubscribe are -32601 without resources', async () => {
    peer = connectRaw(new McpServer({ name: 'bare', version: '0.0.1' }));
    await peer.initialize();
    for (const name of ['resources/subscribe', 'resources/unsubscribe'])
      expect((await peer.error(name, { uri: 'mem://a' })).code).toBe(-32601);
  });

  it('serves a kind from its first entry on, and keeps serving it once the last is removed', async () => {
    const server = new McpServer({ name: 'grows', version: '0.0.1' });
    peer = connectRaw(server);
    await peer.initialize();
    expect((await peer.error('prompts/list')).code).toBe(-32601);
    server.addPrompt(definePrompt({ name: 'hello', get: () => 'hi' }));
    expect(server.capabilities()).toHaveProperty('prompts');
    expect(await peer.result('prompts/list')).toMatchObject({ prompts: [{ name: 'hello' }] });
    expect(await peer.result('prompts/list', modern())).toMatchObject({
      prompts: [{ name: 'hello' }],
    });
    // A 2025 session was told prompts exist: after list_changed it lists again, and an empty
    // list is the true answer, not "no such method".
    server.removePrompt('hello');
    expect(server.capabilities()).toHaveProperty('prompts');
    expect(await peer.result('prompts/list')).toMatchObject({ prompts: [] });
    expect(await peer.result('prompts/list', modern())).toMatchObject({ prompts: [] });
  });

  it('declares completions only for a template or prompt that completes', async () => {
    const server = new McpServer({ name: 'c', version: '0.0.1' }).addResourceTemplate(
      defineResourceTemplate({ uriTemplate: 'mem://{id}', name: 'plain', read: () => 'x' }),
    );
    peer = connectRaw(server);
    await peer.initialize();
    const ref = {
      ref: { type: 'ref/resource', uri: 'mem://{id}' },
      argument: { name: 'id', value: 'a' },
    };
    expect(server.capabilities()).not.toHaveProperty('completions');
    expect((await peer.error('completion/complete', ref)).code).toBe(-32601);
    server.addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'mem://ids/{id}',
        name: 'ids',
        read: () => 'x',
        complete: { id: () => ['ab', 'ac'] },
      }),
    );
    expect(server.capabilities()).toHaveProperty('completions', {});
    const completed = await peer.result('completion/complete', {
      ref: { type: 'ref/resource', uri: 'mem://ids/{id}' },
      argument: { name: 'id', value: 'a' },
    });
    expect(completed).toMatchObject({ completion: { values: ['ab', 'ac'] } });
  });

  it('serves a resource-only server its resource methods and nothing of prompts', async () => {
    const server = new McpServer({ name: 'r', version: '0.0.1' }).addResource(
      defineResource({ uri: 'mem://a', name: 'a', read: () => 'a' }),
    );
    peer = connectRaw(server);
    await peer.initialize();
    expect(await peer.result('resources/list')).toMatchObject({ resources: [{ uri: 'mem://a' }] });
    expect(await peer.result('resources/templates/list', modern())).toMatchObject({
      resourceTemplates: [],
    });
    expect((await peer.error('prompts/list', modern())).code).toBe(-32601);
  });

  it('refuses addMethods for an MCP method name, served or not', () => {
    const server = new McpServer({ name: 'm', version: '0.0.1' });
    expect(() => server.addMethods(method('prompts/list', () => ({ prompts: [] })))).toThrow(
      "method 'prompts/list' is an MCP method",
    );
    // Nothing of the refused call was registered.
    expect(server.capabilities()).not.toHaveProperty('prompts');
  });
});
