/**
 * Every message the projects server sends, in both eras, checked against the published JSON
 * schema of the revision it speaks (the kit's `connectWire`: MCP 2025-11-25 for a session that
 * initialized, 2026-07-28 for requests that carry its envelope) — lists, reads, tool calls and
 * every error path — and each error's code by condition and era: the CODEFLUSS protocol page's
 * codes in 2025 sessions, the 2026-07-28 spec's in the modern era (README "Errors").
 */

import type { AuthInfo } from '@mcpkit/protocol';
import { connectWire, type RawPeer, removeTempDirs, type WireEra } from '@mcpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/db/types.js';
import { UI_EXTENSION, UI_MIME_TYPE } from '../src/design-system-view.js';
import { createProjectsServer } from '../src/server.js';
import { tempStore } from './helpers.js';

const VIEW = '<!doctype html><html><body>view</body></html>';
/** A host that draws MCP Apps views: resources/list then shows the view too. */
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };

let store: Store;
let writer: AuthInfo;
let reader: AuthInfo;
let own: string;
let foreign: string;

const auth = (userId: string, scopes: string[]): AuthInfo => ({
  subject: `key-${userId}`,
  scopes: new Set(scopes),
  data: { userId },
});

beforeAll(async () => {
  ({ store } = await tempStore());
  const ada = await store.createUser('ada@example.com');
  const bo = await store.createUser('bo@example.com');
  writer = auth(ada.id, ['read', 'write']);
  reader = auth(ada.id, ['read']);
  own = (await store.createProject(ada.id, { name: 'Atelier' })).id;
  foreign = (await store.createProject(bo.id, { name: 'Not hers' })).id;
});
afterAll(async () => {
  await store.close();
  removeTempDirs();
});

let peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.map((p) => p.close()));
  peers = [];
});

/** A schema-checking client of one era (the kit's `connectWire`), closed after each test. */
async function client(era: WireEra, who: AuthInfo) {
  const server = createProjectsServer({ store, loadDesignSystemView: async () => VIEW });
  const c = await connectWire(server, era, { auth: who, capabilities: UI_CAPS });
  peers.push(c.peer);
  const code = async (method: string, params?: Record<string, unknown>) =>
    (await c.error(method, params))?.code;
  const call = (name: string, args: Record<string, unknown>) =>
    code('tools/call', { name, arguments: args });
  return { ...c, code, call };
}

describe.each(['legacy', 'modern'] as const)('the projects server on the wire (%s era)', (era) => {
  it('lists, reads and calls within the schema', async () => {
    const c = await client(era, writer);
    const tools = (await c.send('tools/list')).result?.tools as unknown[];
    expect(tools.length).toBeGreaterThan(10);
    const listed = (await c.send('resources/list')).result?.resources as { uri: string }[];
    // Concrete URIs only: the design-system template is a template, listed as one.
    expect(listed.map((r) => r.uri)).toEqual([
      'codefluss://projects',
      'ui://projects/design-system',
    ]);
    const templates = (await c.send('resources/templates/list')).result?.resourceTemplates as {
      uriTemplate: string;
    }[];
    expect(templates.map((t) => t.uriTemplate)).toContain('codefluss://design-system/{projectId}');
    await c.send('resources/read', { uri: 'codefluss://projects' });
    await c.send('resources/read', { uri: `codefluss://design-system/${own}` });
    await c.send('resources/read', { uri: 'ui://projects/design-system' });
    await c.send('completion/complete', {
      ref: { type: 'ref/resource', uri: 'codefluss://design-system/{projectId}' },
      argument: { name: 'projectId', value: '' },
    });
    expect(await c.call('list_projects', {})).toBeUndefined();
    expect(await c.call('get_project', { projectId: own })).toBeUndefined();
    expect(await c.call('get_design_system', { projectId: own })).toBeUndefined();
    expect(await c.call('create_project', { name: `Wire ${era}` })).toBeUndefined();
    expect(await c.problems()).toEqual([]);
  });

  it('answers each failure with the code of its condition in this era, within the schema', async () => {
    const c = await client(era, writer);
    const r = await client(era, reader);
    const legacy = era === 'legacy';
    // Authorization: a read-only key calling a write tool; a project of another user.
    expect(await r.call('create_project', { name: 'Nope' })).toBe(legacy ? -32002 : -32600);
    expect(await c.call('get_project', { projectId: foreign })).toBe(legacy ? -32002 : -32600);
    expect(await c.code('resources/read', { uri: `codefluss://design-system/${foreign}` })).toBe(
      legacy ? -32002 : -32600,
    );
    // Not found: a project, a resource of a missing project, a URI nothing serves.
    expect(await c.call('get_project', { projectId: 'proj_missing' })).toBe(
      legacy ? -32003 : -32602,
    );
    expect(await c.code('resources/read', { uri: 'codefluss://design-system/proj_gone' })).toBe(
      legacy ? -32003 : -32602,
    );
    expect(await c.code('resources/read', { uri: 'codefluss://nothing' })).toBe(
      legacy ? -32003 : -32602,
    );
    // Validation of a value the schema admits; arguments the schema refuses; an unknown tool.
    expect(await c.call('create_project', { name: '   ' })).toBe(legacy ? -32004 : -32602);
    expect(await c.call('get_project', {})).toBe(-32602);
    expect(await c.call('no_such_tool', {})).toBe(-32602);
    // Methods of capabilities the server does not declare.
    expect(await c.code('prompts/list')).toBe(-32601);
    expect(await c.code('prompts/get', { name: 'x' })).toBe(-32601);
    expect([...(await c.problems()), ...(await r.problems())]).toEqual([]);
  });
});
