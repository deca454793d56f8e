/**
 * Scopes guard everything a server offers, not only its tools: a resource, resource template or
 * prompt with `requiredScopes` is in no list of a caller without them, and reading, getting,
 * completing or subscribing to it answers as if it did not exist — in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectRaw, type RawPeer } from '../testing/index.js';
import { META } from './era.js';
import { definePrompt } from './prompt.js';
import { defineResource, defineResourceTemplate } from './resource.js';
import { McpServer } from './server.js';
import { holdsScopes } from './session.js';

let peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.map((p) => p.close()));
  peers = [];
});

function server(): McpServer {
  return new McpServer({ name: 'scoped', version: '1' })
    .addResource(defineResource({ uri: 'mem://open', name: 'open', read: () => 'open' }))
    .addResource(
      defineResource({
        uri: 'mem://secret',
        name: 'secret',
        requiredScopes: ['ops'],
        read: () => 'secret',
      }),
    )
    .addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'mem://vault/{id}',
        name: 'vault',
        requiredScopes: ['ops'],
        list: () => [{ uri: 'mem://vault/1', name: 'vault 1' }],
        complete: { id: () => ['1', '2'] },
        read: (uri) => `vault ${uri}`,
      }),
    )
    .addPrompt(definePrompt({ name: 'hello', get: () => 'hi' }))
    .addPrompt(
      definePrompt({
        name: 'runbook',
        requiredScopes: ['ops'],
        arguments: z.object({ step: z.string() }),
        complete: { step: () => ['restart'] },
        get: ({ step }) => `do ${step}`,
      }),
    );
}

async function as(app: McpServer, scopes: string[]): Promise<RawPeer> {
  const peer = connectRaw(app, {
    auth: { subject: scopes.join() || 'guest', scopes: new Set(scopes) },
  });
  peers.push(peer);
  await peer.initialize();
  return peer;
}

describe('requiredScopes of resources, templates and prompts', () => {
  it('lists them only to a caller holding the scopes', async () => {
    const app = server();
    const ops = await as(app, ['ops']);
    const guest = await as(app, []);
    const uris = async (p: RawPeer) =>
      (await p.result<{ resources: { uri: string }[] }>('resources/list')).resources.map(
        (r) => r.uri,
      );
    expect(await uris(ops)).toEqual(['mem://open', 'mem://secret', 'mem://vault/1']);
    expect(await uris(guest)).toEqual(['mem://open']);
    const templates = async (p: RawPeer) =>
      (await p.result<{ resourceTemplates: unknown[] }>('resources/templates/list'))
        .resourceTemplates.length;
    expect(await templates(ops)).toBe(1);
    expect(await templates(guest)).toBe(0);
    const prompts = async (p: RawPeer) =>
      (await p.result<{ prompts: { name: string }[] }>('prompts/list')).prompts.map((x) => x.name);
    expect(await prompts(ops)).toEqual(['hello', 'runbook']);
    expect(await prompts(guest)).toEqual(['hello']);
  });

  it('answers a caller without them as if they did not exist: read, subscribe, get, complete', async () => {
    const app = server();
    const guest = await as(app, []);
    const ops = await as(app, ['ops']);
    const missing = await guest.error('resources/read', { uri: 'mem://nowhere' });
    for (const uri of ['mem://secret', 'mem://vault/7']) {
      const refused = await guest.error('resources/read', { uri });
      expect({ ...refused, data: undefined, message: undefined }).toEqual({
        ...missing,
        data: undefined,
        message: undefined,
      });
      expect(refused.message).not.toContain('scope');
      expect((await guest.error('resources/subscribe', { uri })).code).toBe(missing.code);
    }
    expect(await guest.error('prompts/get', { name: 'runbook', arguments: { step: 'x' } })).toEqual(
      await guest.error('prompts/get', { name: 'nope' }).then((e) => ({
        ...e,
        message: 'Unknown prompt: runbook',
        data: { prompt: 'runbook' },
      })),
    );
    const complete = (p: RawPeer, ref: Record<string, unknown>, name: string) =>
      p.send({
        jsonrpc: '2.0',
        id: `c-${name}`,
        method: 'completion/complete',
        params: { ref, argument: { name, value: '' } },
      });
    const promptRef = { type: 'ref/prompt', name: 'runbook' };
    const templateRef = { type: 'ref/resource', uri: 'mem://vault/{id}' };
    expect(JSON.parse((await complete(guest, promptRef, 'step')) as string).error.code).toBe(
      -32602,
    );
    expect(JSON.parse((await complete(guest, templateRef, 'id')) as string).error.code).toBe(
      -32602,
    );
    // The caller with the scope reads, gets and completes them.
    expect(await ops.result('resources/read', { uri: 'mem://vault/7' })).toMatchObject({
      contents: [{ text: 'vault mem://vault/7' }],
    });
    expect(
      await ops.result('prompts/get', { name: 'runbook', arguments: { step: 'x' } }),
    ).toMatchObject({
      messages: [{ content: { text: 'do x' } }],
    });
    expect(
      JSON.parse((await complete(ops, templateRef, 'id')) as string).result.completion.values,
    ).toEqual(['1', '2']);
  });

  it('leaves what a 2026-07-28 listen may watch to the same rule', async () => {
    const app = server();
    const guest = connectRaw(app, { auth: { subject: 'guest', scopes: new Set() } });
    peers.push(guest);
    void guest.send({
      jsonrpc: '2.0',
      id: 'l',
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: ['mem://open', 'mem://secret', 'mem://vault/1'] },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'guest', version: '1' },
        },
      },
    });
    await guest.settle();
    expect(guest.notifications[0]?.params?.notifications).toEqual({
      resourceSubscriptions: ['mem://open'],
    });
    app.resourceUpdated('mem://secret');
    await guest.settle();
    expect(guest.notifications.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
    ]);
  });
});

describe('holdsScopes', () => {
  it('needs every required scope, except without auth or with allScopes', () => {
    const auth = (scopes: string[], allScopes?: boolean) => ({
      subject: 's',
      scopes: new Set(scopes),
      ...(allScopes ? { allScopes } : {}),
    });
    expect(holdsScopes(auth(['a', 'b']), ['a', 'b'])).toBe(true);
    expect(holdsScopes(auth(['a']), ['a', 'b'])).toBe(false);
    expect(holdsScopes(auth([]), [])).toBe(true);
    expect(holdsScopes(auth([]), undefined)).toBe(true);
    expect(holdsScopes(undefined, ['a'])).toBe(true);
    expect(holdsScopes(auth([], true), ['a'])).toBe(true);
  });
});
