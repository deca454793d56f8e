// @module-tag process
/**
 * What each tool does, on SQLite: CRUD round trips, cursor pagination, block ordering and moves,
 * validation errors, design tokens (merge, replace, the derived `io.codefluss` extension),
 * completion, resource subscriptions; then the built CLI: the stdio identity (API key or
 * `--user`), the key commands and `--seed-demo`. The CLI half needs `pnpm build` first.
 */

import { existsSync, statSync, writeFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { AuthInfo, JsonRpcId, McpServer } from '@mcpkit/protocol';
import {
  connectRaw,
  initializeRequest,
  killSpawned,
  type RawPeer,
  type RawReply,
  removeTempDirs,
  runProcess,
  spawnRaw,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuthenticator, authInfo } from '../src/auth.js';
import { openStore } from '../src/db/store.js';
import type { Store, User } from '../src/db/types.js';
import { DEMO_EMAIL } from '../src/demo.js';
import { defaultTokens, EXTENSION_KEY, validateTokens } from '../src/dtcg.js';
import { generateKey, hashKey, KEY_PREFIX, SHOWN_CHARS } from '../src/keys.js';
import { createProjectsServer } from '../src/server.js';
import { CLI, cleanEnv, requireCli, tempStore, userWithKey } from './helpers.js';

type Json = Record<string, unknown>;
/** A reply as the wire has it; error data is an object in every reply of this server. */
type RpcReply = RawReply<Json> & { error?: { data?: Json } };
interface ProjectOut {
  id: string;
  name: string;
  description: string | null;
  domain: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
  blockCount?: number;
}
interface BlockOut {
  id: string;
  projectId: string;
  position: number;
  type: string;
  content: unknown;
  createdAt: string;
  updatedAt: string;
}
interface TokensOut {
  projectId: string;
  tokens: Json;
  updatedAt: string;
}

let store: Store;
let server: McpServer;
/** One connection per caller, as each client has its own (auth belongs to a connection). */
const peers = new Map<AuthInfo | null, RawPeer>();
let alice: User;
let bob: User;
let aliceAuth: AuthInfo;
let bobAuth: AuthInfo;

beforeAll(async () => {
  ({ store } = await tempStore());
  alice = await store.createUser('alice@example.com', 'Alice');
  bob = await store.createUser('bob@example.com', 'Bob');
  const key = async (user: User) => {
    const { prefix, hash } = generateKey();
    return authInfo(await store.createApiKey(user.id, prefix, hash, ['read', 'write']), user);
  };
  aliceAuth = await key(alice);
  bobAuth = await key(bob);
  server = createProjectsServer({ store });
});

afterAll(async () => {
  await Promise.all([...peers.values()].map((peer) => peer.close()));
  await store.close();
  killSpawned();
  removeTempDirs();
});

/** The connection of `auth` (default alice; null: no auth), opened on first use. */
function peerOf(auth: AuthInfo | null = aliceAuth): RawPeer {
  let peer = peers.get(auth);
  if (!peer) {
    peer = connectRaw(server, auth ? { auth } : {});
    peers.set(auth, peer);
  }
  return peer;
}

const call = (name: string, args: Json, auth?: AuthInfo | null) =>
  peerOf(auth).request('tools/call', { name, arguments: args }) as Promise<RpcReply>;

/** A successful tool call's structuredContent (fails the test otherwise). */
async function ok<T>(name: string, args: Json, auth?: AuthInfo | null): Promise<T> {
  const reply = await call(name, args, auth);
  expect(reply.error, `${name} failed: ${JSON.stringify(reply.error)}`).toBeUndefined();
  expect(reply.result?.isError).toBe(false);
  return reply.result?.structuredContent as T;
}

/** A failed tool call's JSON-RPC error. */
async function fails(name: string, args: Json, auth?: AuthInfo | null) {
  const reply = await call(name, args, auth);
  expect(reply.result, `${name} should have failed`).toBeUndefined();
  return reply.error as NonNullable<RpcReply['error']>;
}

const newProject = (name = 'Projekt', extra: Json = {}, auth?: AuthInfo) =>
  ok<ProjectOut>('create_project', { name, ...extra }, auth);

// ---------------------------------------------------------------------------------------------

describe('projects', () => {
  it('create → get → update → list → delete round trip', async () => {
    const created = await newProject('  Meine Website  ', {
      description: 'Blog',
      domain: 'Meine-Website.EXAMPLE',
      status: 'published',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^proj_[a-z0-9]+$/),
      name: 'Meine Website',
      description: 'Blog',
      domain: 'meine-website.example',
      status: 'published',
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    expect(Object.keys(created)).not.toContain('userId');
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);

    const got = await ok<ProjectOut>('get_project', { projectId: created.id });
    expect(got).toEqual({ ...created, blockCount: 0 });

    // Only the fields given change.
    const updated = await ok<ProjectOut>('update_project', {
      projectId: created.id,
      description: null,
      status: 'archived',
    });
    expect(updated).toMatchObject({
      id: created.id,
      name: 'Meine Website',
      description: null,
      domain: 'meine-website.example',
      status: 'archived',
      createdAt: created.createdAt,
    });
    expect(updated.updatedAt >= created.updatedAt).toBe(true);
    const renamed = await ok<ProjectOut>('update_project', {
      projectId: created.id,
      name: 'Neu',
      domain: null,
    });
    expect(renamed).toMatchObject({ name: 'Neu', domain: null, status: 'archived' });
    expect(await ok<ProjectOut>('get_project', { projectId: created.id })).toMatchObject({
      name: 'Neu',
      domain: null,
      description: null,
      status: 'archived',
    });

    const listed = await ok<{ projects: ProjectOut[] }>('list_projects', { limit: 100 });
    expect(listed.projects.find((p) => p.id === created.id)).toMatchObject({ name: 'Neu' });

    const block = await ok<BlockOut>('create_block', {
      projectId: created.id,
      type: 'hero',
      content: {},
    });
    await store.createAsset(created.id, {
      name: 'a.png',
      mimeType: 'image/png',
      sizeBytes: 1,
      url: 'https://cdn.example/a.png',
    });
    expect(await ok('delete_project', { projectId: created.id })).toEqual({
      deleted: true,
      projectId: created.id,
    });
    expect(await fails('get_project', { projectId: created.id })).toEqual({
      code: -32003,
      message: 'Resource not found',
      data: { kind: 'project', id: created.id },
    });
    // Blocks, assets and tokens went with it.
    expect(await store.getBlock(block.id)).toBeUndefined();
    expect((await store.listAssets(created.id)).items).toEqual([]);
    expect(await store.getDesignSystem(created.id)).toBeUndefined();
    expect(await fails('delete_project', { projectId: created.id })).toMatchObject({
      code: -32003,
    });
  });

  it('a new project starts with the default design system', async () => {
    const p = await newProject('Mit Tokens');
    expect((await store.getDesignSystem(p.id))?.tokens).toEqual(defaultTokens());
  });

  it('create_project defaults: status draft, description and domain null', async () => {
    expect(await newProject('Minimal')).toMatchObject({
      status: 'draft',
      description: null,
      domain: null,
    });
  });
});

describe('list_projects pagination', () => {
  let user: User;
  let auth: AuthInfo;
  const ids: string[] = [];

  beforeAll(async () => {
    const made = await userWithKey(store, 'pager@example.com', ['read', 'write']);
    user = made.user;
    const found = await store.findApiKey(hashKey(made.key));
    if (!found) throw new Error('key not found');
    auth = authInfo(found.key, found.user);
    for (let i = 0; i < 7; i++) {
      ids.push((await newProject(`P${i}`, {}, auth)).id);
      // Newest first is by creation time, to the millisecond (then by id): projects made in the
      // same millisecond have no order of creation to keep, so make each in a millisecond of its own.
      await new Promise((r) => setTimeout(r, 2));
    }
  });

  it('chains nextCursor through every page, newest first, without gaps or repeats', async () => {
    const pages: ProjectOut[][] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const reply = await call('list_projects', cursor ? { limit: 3, cursor } : { limit: 3 }, auth);
      const page = reply.result?.structuredContent as {
        projects: ProjectOut[];
        nextCursor?: string;
      };
      pages.push(page.projects);
      // The text content is the compact list of the same page that the CODEFLUSS MCP server's
      // JSON-RPC protocol page shows.
      const content = reply.result?.content as { type: string; text: string }[];
      expect(JSON.parse(content[0]?.text ?? '')).toEqual(
        page.projects.map(({ id, name }) => ({ id, name })),
      );
      // A next page is announced in the text as well, as a second block: a host that shows the
      // model only the text still tells it there is more, and how to get it.
      expect(content.slice(1)).toEqual(
        page.nextCursor
          ? [{ type: 'text', text: JSON.stringify({ nextCursor: page.nextCursor }) }]
          : [],
      );
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((p) => p.id)).toEqual([...ids].reverse());
    expect(pages.flat().map((p) => p.name)).toEqual(['P6', 'P5', 'P4', 'P3', 'P2', 'P1', 'P0']);
    expect(await store.countProjects(user.id)).toBe(7);
  });

  it('a page exactly at the end has no nextCursor; the default page holds them all', async () => {
    const full = await ok<{ projects: ProjectOut[]; nextCursor?: string }>(
      'list_projects',
      { limit: 7 },
      auth,
    );
    expect(full.projects).toHaveLength(7);
    expect(full).not.toHaveProperty('nextCursor');
    const all = await ok<{ projects: ProjectOut[]; nextCursor?: string }>(
      'list_projects',
      {},
      auth,
    );
    expect(all.projects.map((p) => p.id)).toEqual([...ids].reverse());
    expect(all).not.toHaveProperty('nextCursor');
  });

  it('a project created while paging does not disturb the pages after the cursor', async () => {
    const first = await ok<{ projects: ProjectOut[]; nextCursor?: string }>(
      'list_projects',
      { limit: 2 },
      auth,
    );
    const extra = await newProject('Später', {}, auth);
    const rest = await ok<{ projects: ProjectOut[] }>(
      'list_projects',
      { limit: 100, cursor: first.nextCursor },
      auth,
    );
    expect(rest.projects.map((p) => p.id)).not.toContain(extra.id);
    expect([...first.projects, ...rest.projects].map((p) => p.id)).toEqual([...ids].reverse());
    await ok('delete_project', { projectId: extra.id }, auth);
  });

  it.each([0, 101, 1.5])('limit %s → -32602 on field limit', async (limit) => {
    expect(await fails('list_projects', { limit }, auth)).toMatchObject({
      code: -32602,
      message: 'Invalid params',
      data: { field: 'limit', error: expect.any(String) },
    });
  });

  it('lists only the caller’s projects', async () => {
    const mine = await ok<{ projects: ProjectOut[] }>('list_projects', { limit: 100 }, bobAuth);
    for (const p of mine.projects) expect(ids).not.toContain(p.id);
  });
});

describe('blocks', () => {
  const positions = async (projectId: string) =>
    (await ok<{ blocks: BlockOut[] }>('list_blocks', { projectId })).blocks.map((b) => [
      b.position,
      b.type,
    ]);

  it('appends, inserts, clamps, moves both ways and closes gaps on delete', async () => {
    const p = await newProject('Seiten');
    const add = (type: string, position?: number) =>
      ok<BlockOut>('create_block', {
        projectId: p.id,
        type,
        content: { type },
        ...(position === undefined ? {} : { position }),
      });
    const a = await add('a');
    const b = await add('b');
    const c = await add('c');
    expect([a.position, b.position, c.position]).toEqual([0, 1, 2]);
    // Insert at the front: the others move down.
    const head = await add('head', 0);
    expect(head.position).toBe(0);
    // A position past the end lands at the end.
    const tail = await add('tail', 99);
    expect(tail.position).toBe(4);
    expect(await positions(p.id)).toEqual([
      [0, 'head'],
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'tail'],
    ]);

    // Move down: head 0 → 3.
    expect(await ok<BlockOut>('update_block', { blockId: head.id, position: 3 })).toMatchObject({
      id: head.id,
      position: 3,
      type: 'head',
    });
    expect(await positions(p.id)).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
      [3, 'head'],
      [4, 'tail'],
    ]);
    // Move up: tail 4 → 1.
    await ok('update_block', { blockId: tail.id, position: 1 });
    expect(await positions(p.id)).toEqual([
      [0, 'a'],
      [1, 'tail'],
      [2, 'b'],
      [3, 'c'],
      [4, 'head'],
    ]);
    // Past the end: clamped to the last position.
    await ok('update_block', { blockId: a.id, position: 50 });
    expect(await positions(p.id)).toEqual([
      [0, 'tail'],
      [1, 'b'],
      [2, 'c'],
      [3, 'head'],
      [4, 'a'],
    ]);

    // Changing type and content keeps the position.
    const changed = await ok<BlockOut>('update_block', {
      blockId: b.id,
      type: 'text',
      content: { markdown: 'neu' },
    });
    expect(changed).toMatchObject({ position: 1, type: 'text', content: { markdown: 'neu' } });
    expect(await ok<BlockOut>('get_block', { blockId: b.id })).toEqual(changed);

    // Delete in the middle: the gap closes.
    expect(await ok('delete_block', { blockId: c.id })).toEqual({ deleted: true, blockId: c.id });
    expect(await positions(p.id)).toEqual([
      [0, 'tail'],
      [1, 'text'],
      [2, 'head'],
      [3, 'a'],
    ]);
    expect(await fails('get_block', { blockId: c.id })).toMatchObject({
      code: -32003,
      data: { kind: 'block', id: c.id },
    });
    expect(await ok<ProjectOut>('get_project', { projectId: p.id })).toMatchObject({
      blockCount: 4,
    });
  });

  it('keeps any JSON content as it was sent', async () => {
    const p = await newProject('Inhalt');
    for (const content of [
      { nested: { list: [1, 'zwei', null, true], umlaut: 'Grüße 👋' } },
      ['a', 'b'],
      'plain text',
      42,
      null,
    ]) {
      const block = await ok<BlockOut>('create_block', { projectId: p.id, type: 'text', content });
      expect((await ok<BlockOut>('get_block', { blockId: block.id })).content).toEqual(content);
    }
  });

  it('accepts content just under 256 KiB', async () => {
    const p = await newProject('Groß');
    const content = { text: 'x'.repeat(256 * 1024 - 20) };
    const block = await ok<BlockOut>('create_block', { projectId: p.id, type: 'text', content });
    expect((await store.getBlock(block.id))?.content).toEqual(content);
  });
});

// ---------------------------------------------------------------------------------------------

describe('validation errors: -32004 with field and error, and nothing is written', () => {
  let project: ProjectOut;
  let block: BlockOut;
  beforeAll(async () => {
    project = await newProject('Validierung');
    block = await ok<BlockOut>('create_block', {
      projectId: project.id,
      type: 'hero',
      content: { title: 'alt' },
    });
  });

  const oversized = { text: 'x'.repeat(256 * 1024 + 1) };
  const cases: { name: string; tool: string; args: () => Json; field: string }[] = [
    { name: 'empty name', tool: 'create_project', args: () => ({ name: '' }), field: 'name' },
    { name: 'blank name', tool: 'create_project', args: () => ({ name: '   ' }), field: 'name' },
    {
      name: 'name over 200 characters',
      tool: 'create_project',
      args: () => ({ name: 'n'.repeat(201) }),
      field: 'name',
    },
    {
      name: 'empty name on update',
      tool: 'update_project',
      args: () => ({ projectId: project.id, name: '' }),
      field: 'name',
    },
    ...['not a domain', 'http://example.com', 'example', '-bad.example', 'a..example'].map(
      (domain) => ({
        name: `domain '${domain}'`,
        tool: 'create_project',
        args: () => ({ name: 'X', domain }),
        field: 'domain',
      }),
    ),
    {
      name: 'bad domain on update',
      tool: 'update_project',
      args: () => ({ projectId: project.id, domain: 'exa mple.com' }),
      field: 'domain',
    },
    ...['Hero', 'hero block', '', '1col', 'x'.repeat(65)].map((type) => ({
      name: `block type '${type.slice(0, 12)}'`,
      tool: 'create_block',
      args: () => ({ projectId: project.id, type, content: {} }),
      field: 'type',
    })),
    {
      name: 'bad block type on update',
      tool: 'update_block',
      args: () => ({ blockId: block.id, type: 'Bad Type' }),
      field: 'type',
    },
    {
      name: 'content over 256 KiB',
      tool: 'create_block',
      args: () => ({ projectId: project.id, type: 'text', content: oversized }),
      field: 'content',
    },
    {
      name: 'content over 256 KiB on update',
      tool: 'update_block',
      args: () => ({ blockId: block.id, content: oversized }),
      field: 'content',
    },
  ];

  it.each(cases)('$tool: $name → field $field', async ({ tool, args, field }) => {
    const before = {
      count: await store.countProjects(alice.id),
      project: await store.getProject(project.id),
      blocks: await store.listBlocks(project.id),
    };
    const error = await fails(tool, args());
    expect(error).toEqual({
      code: -32004,
      message: 'Validation error',
      data: { field, error: expect.any(String) },
    });
    expect(String(error.data?.error ?? '').length).toBeGreaterThan(0);
    expect({
      count: await store.countProjects(alice.id),
      project: await store.getProject(project.id),
      blocks: await store.listBlocks(project.id),
    }).toEqual(before);
  });

  it('arguments that do not fit the schema are -32602 with field and error', async () => {
    expect(await fails('get_project', {})).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: { field: 'projectId', error: 'Required field missing' },
    });
    // Present but of the wrong type: the schema's own message, not "missing".
    const wrongType = await fails('create_project', { name: 5 });
    expect(wrongType).toMatchObject({ code: -32602, data: { field: 'name' } });
    expect(wrongType.data).not.toMatchObject({ error: 'Required field missing' });
    expect(await fails('create_project', { name: 'X', status: 'deleted' })).toMatchObject({
      code: -32602,
      data: { field: 'status' },
    });
    expect(
      await fails('create_block', {
        projectId: project.id,
        type: 'text',
        content: 1,
        position: -1,
      }),
    ).toMatchObject({ code: -32602, data: { field: 'position' } });
    expect(
      await fails('update_design_tokens', { projectId: project.id, tokens: [] }),
    ).toMatchObject({ code: -32602, data: { field: 'tokens' } });
  });
});

// ---------------------------------------------------------------------------------------------

describe('design tokens', () => {
  const color = (hex: string) => ({ colorSpace: 'srgb', components: [0, 0, 0], hex });

  it('get_design_system returns a valid DTCG document with the derived extension', async () => {
    const p = await newProject('DTCG');
    const ds = await ok<TokensOut>('get_design_system', { projectId: p.id });
    expect(validateTokens(ds.tokens)).toEqual([]);
    expect(ds.projectId).toBe(p.id);
    expect(ds.tokens.$extensions).toEqual({
      [EXTENSION_KEY]: { projectId: p.id, updatedAt: ds.updatedAt },
    });
    const { $extensions: _, ...plain } = ds.tokens;
    expect(plain).toEqual(defaultTokens());
  });

  it('merge (the default) adds and replaces tokens whole, keeps the rest', async () => {
    const p = await newProject('Merge');
    const before = await ok<TokensOut>('get_design_system', { projectId: p.id });
    const res = await ok<TokensOut>('update_design_tokens', {
      projectId: p.id,
      tokens: {
        color: { brand: { primary: { $value: color('#ff0000') } } },
        spacing: { xl: { $value: { value: 4, unit: 'rem' } } },
      },
    });
    const t = res.tokens as {
      color: { brand: { primary: Json; secondary: Json }; action: Json; $type: string };
      spacing: Record<string, Json>;
      font: Json;
      motion: Json;
    };
    // A token is replaced whole: the old $description is gone.
    expect(t.color.brand.primary).toEqual({ $value: color('#ff0000') });
    expect(t.color.brand.secondary).toEqual(
      (defaultTokens().color as { brand: { secondary: Json } }).brand.secondary,
    );
    expect(t.color.$type).toBe('color');
    expect(t.color.action).toEqual({ $value: '{color.brand.primary}' });
    expect(t.spacing.xl).toEqual({ $value: { value: 4, unit: 'rem' } });
    expect(t.spacing.md).toEqual({ $value: { value: 1, unit: 'rem' } });
    expect(t.font).toEqual(defaultTokens().font);
    expect(t.motion).toEqual(defaultTokens().motion);
    expect(validateTokens(res.tokens)).toEqual([]);
    expect(res.updatedAt >= before.updatedAt).toBe(true);
    // What get_design_system returns afterwards is what update returned.
    // (It adds the contrast report its view draws.)
    const { contrast, ...got } = await ok<TokensOut & { contrast: unknown[] }>(
      'get_design_system',
      { projectId: p.id },
    );
    expect(got).toEqual(res);
    expect(contrast.length).toBeGreaterThan(0);
  });

  it('replace drops everything not in the new document', async () => {
    const p = await newProject('Replace');
    const doc = { size: { $type: 'dimension', base: { $value: { value: 16, unit: 'px' } } } };
    const res = await ok<TokensOut>('update_design_tokens', {
      projectId: p.id,
      tokens: doc,
      mode: 'replace',
    });
    const { $extensions: _, ...plain } = res.tokens;
    expect(plain).toEqual(doc);
    expect((await store.getDesignSystem(p.id))?.tokens).toEqual(doc);
  });

  it('io.codefluss is derived, never stored from input; other extensions are kept', async () => {
    const p = await newProject('Extensions');
    const res = await ok<TokensOut>('update_design_tokens', {
      projectId: p.id,
      tokens: {
        $extensions: {
          [EXTENSION_KEY]: { projectId: 'proj_forged', updatedAt: '1999-01-01T00:00:00.000Z' },
          'com.example.tool': { exported: true },
        },
      },
    });
    expect(res.tokens.$extensions).toEqual({
      'com.example.tool': { exported: true },
      [EXTENSION_KEY]: { projectId: p.id, updatedAt: res.updatedAt },
    });
    const stored = (await store.getDesignSystem(p.id))?.tokens as { $extensions?: Json };
    expect(stored.$extensions).toEqual({ 'com.example.tool': { exported: true } });

    // Only the forged key: nothing of it is stored (replace, so nothing else is either).
    const q = await newProject('Extensions 2');
    await ok('update_design_tokens', {
      projectId: q.id,
      mode: 'replace',
      tokens: { $extensions: { [EXTENSION_KEY]: { projectId: 'proj_forged' } } },
    });
    expect((await store.getDesignSystem(q.id))?.tokens).toEqual({});
    const read = await ok<TokensOut>('get_design_system', { projectId: q.id });
    expect(read.tokens).toEqual({
      $extensions: { [EXTENSION_KEY]: { projectId: q.id, updatedAt: read.updatedAt } },
    });
  });

  const invalid: { name: string; tokens: Json; mode?: string; field: string }[] = [
    {
      name: 'a color that is a string',
      tokens: { color: { brand: { primary: { $value: 'red' } } } },
      field: 'tokens.color.brand.primary',
    },
    {
      name: 'an unknown $type',
      tokens: { misc: { odd: { $type: 'colour', $value: 1 } } },
      field: 'tokens.misc.odd',
    },
    {
      name: 'a dimension without unit',
      tokens: { spacing: { xl: { $value: { value: 4 } } } },
      field: 'tokens.spacing.xl',
    },
    {
      name: 'a reference to a token that does not exist',
      tokens: { color: { $type: 'color', link: { $value: '{color.nope}' } } },
      mode: 'replace',
      field: 'tokens.color.link',
    },
    {
      name: 'a reference cycle',
      tokens: {
        n: { $type: 'number', a: { $value: '{n.b}' }, b: { $value: '{n.a}' } },
      },
      mode: 'replace',
      field: 'tokens.n.a',
    },
    {
      name: 'a reference left dangling by replace',
      tokens: { color: { $type: 'color', action: { $value: '{color.brand.primary}' } } },
      mode: 'replace',
      field: 'tokens.color.action',
    },
    {
      name: 'a token name with a dot',
      tokens: { 'a.b': { $value: 1, $type: 'number' } },
      field: 'tokens.a.b',
    },
  ];

  it.each(invalid)(
    'rejects $name with -32004 on $field; the stored tokens stay',
    async ({ tokens, mode, field }) => {
      const p = await newProject('Ungültig');
      const before = await store.getDesignSystem(p.id);
      const error = await fails('update_design_tokens', {
        projectId: p.id,
        tokens,
        ...(mode ? { mode } : {}),
      });
      expect(error).toMatchObject({
        code: -32004,
        message: 'Validation error',
        data: { field, error: expect.any(String) },
      });
      expect(error.data?.problems).toEqual(expect.arrayContaining([expect.anything()]));
      expect(await store.getDesignSystem(p.id)).toEqual(before);
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('completion/complete for codefluss://design-system/{projectId}', () => {
  const complete = (value: string, auth?: AuthInfo | null, name = 'projectId') =>
    peerOf(auth).request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'codefluss://design-system/{projectId}' },
      argument: { name, value },
    });

  it('offers only the caller’s project ids, filtered by prefix', async () => {
    const bobs = await newProject('Bobs', {}, bobAuth);
    const mine = (await store.listProjects(alice.id, { limit: 100 })).items.map((p) => p.id);
    expect(mine.length).toBeGreaterThan(3);
    expect(mine.length).toBeLessThanOrEqual(100);

    const all = await complete('');
    const values = (all.result?.completion as { values: string[] } | undefined)?.values ?? [];
    expect([...values].sort()).toEqual([...mine].sort());
    expect(values).not.toContain(bobs.id);

    const target = mine[0] as string;
    const narrowed = await complete(target.slice(0, 9));
    const hits = (narrowed.result?.completion as { values: string[] } | undefined)?.values ?? [];
    expect(hits).toContain(target);
    for (const id of hits) expect(id.startsWith(target.slice(0, 9))).toBe(true);

    // Bob's id as the prefix: Alice gets nothing; Bob gets it.
    expect(await complete(bobs.id)).toMatchObject({
      result: { completion: { values: [], hasMore: false } },
    });
    expect(await complete(bobs.id, bobAuth)).toMatchObject({
      result: { completion: { values: [bobs.id] } },
    });
  });

  it('an unknown argument completes to nothing; no auth is -32001', async () => {
    expect(await complete('x', aliceAuth, 'other')).toMatchObject({
      result: { completion: { values: [], hasMore: false } },
    });
    expect((await complete('', null)).error?.code).toBe(-32001);
  });
});

// ---------------------------------------------------------------------------------------------

describe('resource subscriptions', () => {
  it('update_design_tokens notifies the subscribed session, and only while subscribed', async () => {
    const p = await newProject('Abo');
    const uri = `codefluss://design-system/${p.id}`;
    const watching = connectRaw(server, { auth: aliceAuth });
    const idle = connectRaw(server, { auth: aliceAuth });
    try {
      expect(await watching.request('resources/subscribe', { uri })).toMatchObject({
        result: {},
      });
      await ok('update_design_tokens', {
        projectId: p.id,
        tokens: { spacing: { xl: { $value: { value: 3, unit: 'rem' } } } },
      });
      await watching.settle();
      expect(watching.notifications).toEqual([
        { method: 'notifications/resources/updated', params: { uri } },
      ]);
      expect(idle.notifications).toEqual([]);

      // A rejected update changes nothing and tells nobody.
      await fails('update_design_tokens', {
        projectId: p.id,
        tokens: { spacing: { xl: { $value: 'big' } } },
      });
      await watching.settle();
      expect(watching.notifications).toHaveLength(1);

      // Another project's tokens are another URI.
      const other = await newProject('Anderes');
      await ok('update_design_tokens', { projectId: other.id, tokens: {} });
      await watching.settle();
      expect(watching.notifications).toHaveLength(1);

      await watching.request('resources/unsubscribe', { uri });
      await ok('update_design_tokens', { projectId: p.id, tokens: {} });
      await watching.settle();
      expect(watching.notifications).toHaveLength(1);
    } finally {
      await watching.close();
      await idle.close();
    }
  });

  it('creating and deleting projects notifies codefluss://projects subscribers', async () => {
    const watching = connectRaw(server, { auth: aliceAuth });
    try {
      await watching.request('resources/subscribe', { uri: 'codefluss://projects' });
      const p = await newProject('Liste');
      await ok('delete_project', { projectId: p.id });
      await watching.settle();
      expect(watching.notifications.map((n) => n.params)).toEqual([
        { uri: 'codefluss://projects' },
        { uri: 'codefluss://projects' },
      ]);
    } finally {
      await watching.close();
    }
  });
});

describe('subscriptions are reads: authorized, and news only for the owner', () => {
  it("refuses a subscription to another user's design system, an unknown URI, or without auth", async () => {
    const p = await newProject('Privat');
    const uri = `codefluss://design-system/${p.id}`;
    const asBob = connectRaw(server, { auth: bobAuth });
    const anonymous = connectRaw(server);
    try {
      expect((await asBob.request('resources/subscribe', { uri })).error).toMatchObject({
        code: -32002,
      });
      expect((await anonymous.request('resources/subscribe', { uri })).error).toMatchObject({
        code: -32001,
      });
      expect(
        (await asBob.request('resources/subscribe', { uri: 'codefluss://nope' })).error,
      ).toMatchObject({ code: -32003 });
      expect(asBob.session.subscriptions.size).toBe(0);
      expect(anonymous.session.subscriptions.size).toBe(0);
    } finally {
      await asBob.close();
      await anonymous.close();
    }
  });

  it("tells only the owner's sessions that their codefluss://projects changed", async () => {
    const mine = connectRaw(server, { auth: aliceAuth });
    const theirs = connectRaw(server, { auth: bobAuth });
    try {
      await mine.request('resources/subscribe', { uri: 'codefluss://projects' });
      await theirs.request('resources/subscribe', { uri: 'codefluss://projects' });
      await newProject('Nur für Alice');
      await mine.settle();
      expect(mine.notifications.map((n) => n.params)).toEqual([{ uri: 'codefluss://projects' }]);
      expect(theirs.notifications).toEqual([]);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });
});

describe('fixed edge cases', () => {
  it('answers a cursor the server did not issue with -32602 naming the field', async () => {
    for (const [tool, args] of [
      ['list_projects', { cursor: 'garbage' }],
      ['list_assets', { projectId: (await newProject('Cursor')).id, cursor: 'garbage' }],
    ] as const) {
      expect(await fails(tool, args)).toMatchObject({ code: -32602, data: { field: 'cursor' } });
    }
  });

  it('asks who is calling before looking an id up: no auth is -32001 even for unknown ids', async () => {
    for (const [tool, args] of [
      ['get_block', { blockId: 'blk_doesnotexist' }],
      ['update_block', { blockId: 'blk_doesnotexist', type: 'text' }],
      ['delete_block', { blockId: 'blk_doesnotexist' }],
      ['get_asset', { assetId: 'ast_doesnotexist' }],
    ] as const) {
      expect(await fails(tool, args, null)).toMatchObject({ code: -32001 });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The built CLI.

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  replies: RpcReply[];
}

/**
 * Runs the CLI in a clean environment; with `requests`, speaks JSON-RPC on its stdin and closes
 * stdin once every request with an id is answered (or at once if the process exits first).
 */
async function runCli(
  args: string[],
  env: Record<string, string>,
  requests: Json[] = [],
  timeoutMs = 15_000,
): Promise<CliRun> {
  requireCli();
  const options = { env: cleanEnv({ LOG_LEVEL: 'error', ...env }), inheritEnv: false };
  if (requests.length === 0) {
    const run = await runProcess(process.execPath, [CLI, ...args], { ...options, timeoutMs });
    if (run.timedOut) throw new Error(`CLI ${args.join(' ')} timed out; stderr: ${run.stderr}`);
    return { code: run.code, stdout: run.stdout, stderr: run.stderr, replies: [] };
  }
  const cli = spawnRaw(process.execPath, [CLI, ...args], options);
  for (const request of requests) cli.send(request);
  const ids = requests.flatMap((r) => (r.id === undefined ? [] : [r.id as JsonRpcId]));
  await Promise.race([Promise.all(ids.map((id) => cli.response(id, timeoutMs))), cli.exited]).catch(
    () => undefined,
  );
  const { code } = await cli.end(timeoutMs);
  const lines = cli.lines.filter((line) => line.trim() !== '');
  return {
    code,
    stdout: cli.lines.map((line) => `${line}\n`).join(''),
    stderr: cli.stderr(),
    replies: lines.map((line) => JSON.parse(line) as RpcReply),
  };
}

const initialize = initializeRequest(1, {
  protocolVersion: '2024-11-05',
  clientInfo: { name: 'test', version: '1.0.0' },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized', params: {} };
const listCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_projects' } };
const createCall = (name: string) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'create_project', arguments: { name } },
});
/** What the HTTP layer would make of `Authorization: Bearer <key>`. */
const authenticate = (on: Store, key: string) =>
  apiKeyAuthenticator(on)(key, new IncomingMessage(new Socket()));
const replyTo = (run: CliRun, id: number) => run.replies.find((r) => r.id === id);
const listed = (run: CliRun) => {
  const result = replyTo(run, 2)?.result as { content: { text: string }[] } | undefined;
  return JSON.parse(result?.content[0]?.text ?? 'null') as { id: string; name: string }[];
};

describe('the CLI (needs pnpm build)', () => {
  let dir: string;
  let file: string;
  let cliStore: Store;
  let readKey: string;
  let fullKey: string;
  let ownId: string;

  beforeAll(async () => {
    requireCli();
    dir = tempDir('projects-cli-');
    file = join(dir, 'projects.db');
    cliStore = await openStore(file);
    const carla = await userWithKey(cliStore, 'carla@example.com', ['read']);
    readKey = carla.key;
    fullKey = (await userWithKey(cliStore, 'carla@example.com', ['read', 'write'])).key;
    ownId = (await cliStore.createProject(carla.user.id, { name: 'Carlas Seite' })).id;
    const other = await cliStore.createUser('dora@example.com');
    await cliStore.createProject(other.id, { name: 'Doras Seite' });
  });
  afterAll(async () => {
    await cliStore.close();
  });

  describe('stdio identity', () => {
    it('CODEFLUSS_API_KEY: acts as the key’s user with the key’s scopes', async () => {
      const run = await runCli([], { DATABASE_URL: file, CODEFLUSS_API_KEY: readKey }, [
        initialize,
        initialized,
        listCall,
        createCall('Nur lesen'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(replyTo(run, 1)).toMatchObject({
        result: {
          protocolVersion: '2024-11-05',
          serverInfo: { name: 'codefluss-mcp-server', version: '1.0.0' },
        },
      });
      expect(replyTo(run, 2)).toMatchObject({ result: { isError: false } });
      expect(listed(run)).toEqual([{ id: ownId, name: 'Carlas Seite' }]);
      // A read-only key cannot write over stdio either.
      expect(replyTo(run, 3)?.error).toMatchObject({ code: -32002 });
      // stdout carries JSON-RPC only.
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
    });

    it('CODEFLUSS_API_KEY with write scope can create', async () => {
      const run = await runCli([], { DATABASE_URL: file, CODEFLUSS_API_KEY: fullKey }, [
        initialize,
        createCall('Per Schlüssel'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const created = replyTo(run, 3)?.result?.structuredContent as ProjectOut;
      expect(created.name).toBe('Per Schlüssel');
      const carla = await cliStore.getUserByEmail('carla@example.com');
      expect((await cliStore.getProject(created.id))?.userId).toBe(carla?.id);
      await cliStore.deleteProject(created.id);
    });

    it('--user <email>: acts as that user with read and write', async () => {
      const run = await runCli(['--user', 'carla@example.com', '--database-url', file], {}, [
        initialize,
        listCall,
        createCall('Lokal'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(listed(run)).toEqual([{ id: ownId, name: 'Carlas Seite' }]);
      const created = replyTo(run, 3)?.result?.structuredContent as ProjectOut;
      expect(created).toMatchObject({ name: 'Lokal', status: 'draft' });
      await cliStore.deleteProject(created.id);
    });

    it('without an identity over stdio refuses to start, saying what to set (exit 2)', async () => {
      const run = await runCli([], { DATABASE_URL: file });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'mcp-projects: over stdio, say who is calling: set CODEFLUSS_API_KEY (an API key) or --user <email> (local use)\n',
      );
    });

    /** Each way of starting the CLI on `url` exits 2 with exactly `message`, no password. */
    async function expectRefused(url: string, message: string): Promise<void> {
      for (const args of [
        ['--user', 'carla@example.com'],
        ['keys', 'list', '--user', 'x@y.z'],
      ]) {
        const run = await runCli(['--database-url', url, ...args], {});
        expect(run.code, `${url} ${args.join(' ')}`).toBe(2);
        expect(run.stderr).toBe(message);
        expect(run.stderr).not.toContain('s3cret');
      }
    }

    it("names PostgreSQL's reason in one line, exit 2, without the password", {
      tags: ['postgres'],
    }, async () => {
      await expectRefused(
        'postgres://nouser:s3cret@127.0.0.1:5432/test',
        'mcp-projects: cannot connect to PostgreSQL at 127.0.0.1:5432/test: role "nouser" does not exist\n',
      );
    });

    it('names the database it cannot open in one line, exit 2, never a stack', async () => {
      const junk = join(dirname(file), 'not-a-db.txt');
      writeFileSync(junk, 'x'.repeat(4096));
      const cases: [string, string][] = [
        [
          'mysql://root@localhost/db',
          "mcp-projects: unsupported database URL scheme 'mysql:' — use postgres://… (or postgresql://…), a SQLite file path, or file:…\n",
        ],
        [
          junk,
          `mcp-projects: cannot open the SQLite database at ${junk}: file is not a database\n`,
        ],
      ];
      for (const [url, message] of cases) await expectRefused(url, message);
      // The unsupported URL did not become a SQLite file named after it.
      expect(existsSync('mysql:')).toBe(false);
    });

    it('an unknown key or user stops the CLI with exit code 2 and a message', async () => {
      const badKey = await runCli([], {
        DATABASE_URL: file,
        CODEFLUSS_API_KEY: `${KEY_PREFIX}${'A'.repeat(32)}`,
      });
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).toContain('CODEFLUSS_API_KEY is not a valid, unrevoked key');
      expect(badKey.stdout).toBe('');
      const badUser = await runCli(['--user', 'nobody@example.com'], { DATABASE_URL: file });
      expect(badUser.code).toBe(2);
      expect(badUser.stderr).toContain('no user nobody@example.com');
    });
  });

  it('key commands: users create, keys create (printed once), keys list, keys revoke', async () => {
    const env = { DATABASE_URL: file };
    const created = await runCli(['users', 'create', 'x@y.z'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created user x@y\.z \(usr_[a-z0-9]+\)\n$/);
    // The same address again (in any case): a one-line refusal, no stack trace.
    const duplicate = await runCli(['users', 'create', 'X@Y.z'], env);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/user x@y\.z already exists/);
    expect(duplicate.stderr).not.toMatch(/\n\s+at /);

    const made = await runCli(['keys', 'create', '--user', 'x@y.z', '--scopes', 'read,write'], env);
    expect(made.code, made.stderr).toBe(0);
    // stdout is the key and nothing else.
    expect(made.stdout).toMatch(/^cf_live_sk_[0-9A-Za-z]{32}\n$/);
    const key = made.stdout.trim();
    const prefix = key.slice(0, SHOWN_CHARS);
    expect(made.stderr).toContain(prefix);
    expect(made.stderr).not.toContain(key);
    const found = await authenticate(cliStore, key);
    expect(found).toMatchObject({ subject: prefix });
    expect([...(found?.scopes ?? [])].sort()).toEqual(['read', 'write']);

    const list = await runCli(['keys', 'list', '--user', 'x@y.z'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(prefix);
    expect(list.stdout).toContain('read,write');
    expect(list.stdout).toContain('active');
    expect(list.stdout).not.toContain(key);
    expect(list.stdout).not.toContain(key.slice(SHOWN_CHARS));
    expect(list.stdout).not.toContain(hashKey(key));

    // The key works over stdio until it is revoked.
    const before = await runCli([], { ...env, CODEFLUSS_API_KEY: key }, [initialize, listCall]);
    expect(before.code, before.stderr).toBe(0);
    expect(listed(before)).toEqual([]);

    const revoked = await runCli(['keys', 'revoke', prefix], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('revoked 1 key\n');
    expect(await authenticate(cliStore, key)).toBeUndefined();
    const after = await runCli([], { ...env, CODEFLUSS_API_KEY: key }, [initialize, listCall]);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('not a valid, unrevoked key');
    const listedAfter = await runCli(['keys', 'list', '--user', 'x@y.z'], env);
    expect(listedAfter.stdout).toContain('REVOKED');

    const again = await runCli(['keys', 'revoke', prefix], env);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('revoked 0 keys\n');
  });

  it('users list and keys list without --user: every user, key prefixes only', async () => {
    const env = { DATABASE_URL: join(dir, 'listing.db') };
    expect((await runCli(['users', 'list'], env)).stdout).toBe('');
    for (const args of [
      ['users', 'create', 'b@y.z', '--name', 'Bea B'],
      ['users', 'create', 'a@y.z'],
      ['users', 'create', 'c@y.z'],
    ]) {
      expect((await runCli(args, env)).code).toBe(0);
    }
    const keys: Record<string, string> = {};
    for (const [user, scopes] of [
      ['a@y.z', 'read'],
      ['b@y.z', 'read,write'],
      ['b@y.z', 'read'],
    ] as const) {
      const made = await runCli(['keys', 'create', '--user', user, '--scopes', scopes], env);
      expect(made.code, made.stderr).toBe(0);
      keys[`${user} ${scopes}`] = made.stdout.trim();
    }
    const revoke = (keys['b@y.z read'] as string).slice(0, SHOWN_CHARS);
    expect((await runCli(['keys', 'revoke', revoke], env)).code).toBe(0);

    const users = await runCli(['users', 'list'], env);
    expect(users.code, users.stderr).toBe(0);
    const lines = users.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^a@y\.z {2}usr_\w+ {2}created \S+ {2}1 active key$/);
    expect(lines[1]).toMatch(
      /^b@y\.z {2}usr_\w+ {2}"Bea B" {2}created \S+ {2}1 active key \(1 revoked\)$/,
    );
    expect(lines[2]).toMatch(/^c@y\.z {2}usr_\w+ {2}created \S+ {2}0 active keys$/);

    const all = await runCli(['keys', 'list'], env);
    expect(all.code, all.stderr).toBe(0);
    const keyLines = all.stdout.trimEnd().split('\n');
    expect(keyLines).toHaveLength(3);
    expect(keyLines.map((l) => l.split('  ')[0])).toEqual(['a@y.z', 'b@y.z', 'b@y.z']);
    for (const key of Object.values(keys)) {
      expect(all.stdout).toContain(key.slice(0, SHOWN_CHARS));
      expect(all.stdout).not.toContain(key.slice(SHOWN_CHARS));
      expect(all.stdout).not.toContain(hashKey(key));
    }
    expect(all.stdout).toContain(`${revoke}  read  created`);
    expect(all.stdout).toMatch(/REVOKED/);
    // --user still narrows it to one user, without the owner column.
    const one = await runCli(['keys', 'list', '--user', 'a@y.z'], env);
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(one.stdout).toMatch(/^cf_live_sk_/);
    const extra = await runCli(['users', 'list', 'x'], env);
    expect(extra.code).toBe(2);
  });

  it('keys commands refuse bad input with exit code 2', async () => {
    const env = { DATABASE_URL: file };
    const noUser = await runCli(['keys', 'create', '--user', 'ghost@y.z'], env);
    expect(noUser.code).toBe(2);
    expect(noUser.stdout).toBe('');
    const badScope = await runCli(['keys', 'create', '--user', 'x@y.z', '--scopes', 'admin'], env);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain("unknown scope 'admin'");
    const shortPrefix = await runCli(['keys', 'revoke', 'cf_'], env);
    expect(shortPrefix.code).toBe(2);
  });

  it('a command group without its subcommand, or with an unknown one, names them (exit 2)', async () => {
    // A database that does not exist yet: a mistaken command must not create it.
    const env = { DATABASE_URL: join(dir, 'untouched', 'projects.db') };
    const cases: [string[], string][] = [
      [['users'], 'users needs a subcommand: create, list (see --help)'],
      [['keys'], 'keys needs a subcommand: create, list, revoke (see --help)'],
      [
        ['users', 'bogus'],
        "unknown command 'users bogus'; users subcommands: create, list (see --help)",
      ],
      [['frob'], "unknown command 'frob'; commands: users, keys, tokens (see --help)"],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`mcp-projects: ${message}\n`);
    }
    expect(existsSync(join(dir, 'untouched'))).toBe(false);
  });

  it('creates a new database, its directory and its WAL files readable by the owner only', async () => {
    const nested = join(dir, 'private', 'data');
    const db = join(nested, 'projects.db');
    // Under the usual umask 022, so that SQLite's own default (0644) would show.
    const run = await runProcess(
      '/bin/sh',
      [
        '-c',
        'umask 022 && exec "$0" "$@"',
        process.execPath,
        CLI,
        'users',
        'create',
        'a@example.com',
      ],
      { env: cleanEnv({ LOG_LEVEL: 'error', DATABASE_URL: db }), inheritEnv: false },
    );
    expect(run.code, run.stderr).toBe(0);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(db).toString(8)).toBe('600');
    expect(mode(join(dir, 'private')).toString(8)).toBe('700');
    expect(mode(nested).toString(8)).toBe('700');
    // While a store has it open in WAL mode, SQLite's side files take the main file's mode.
    const open = await openStore(db);
    try {
      await open.createUser('b@example.com');
      for (const side of ['-wal', '-shm']) {
        expect(existsSync(db + side), side).toBe(true);
        expect(mode(db + side).toString(8), side).toBe('600');
      }
    } finally {
      await open.close();
    }
  });

  it('--seed-demo creates the demo user and 3 projects, once', async () => {
    const demoFile = join(dir, 'demo.db');
    const args = ['--seed-demo', '--user', DEMO_EMAIL, '--database-url', demoFile];
    const first = await runCli(args, {}, [initialize, listCall]);
    expect(first.code, first.stderr).toBe(0);
    const names = listed(first).map((p) => p.name);
    expect([...names].sort()).toEqual(['Meine Website', 'Online-Shop', 'Portfolio']);

    const second = await runCli(args, {}, [initialize, listCall]);
    expect(second.code, second.stderr).toBe(0);
    expect(listed(second)).toEqual(listed(first));

    const demo = await openStore(demoFile);
    try {
      const user = await demo.getUserByEmail(DEMO_EMAIL);
      expect(user).toBeDefined();
      expect(await demo.countProjects(user?.id ?? '')).toBe(3);
      const site = listed(first).find((p) => p.name === 'Meine Website');
      expect((await demo.listBlocks(site?.id ?? '')).items.map((b) => b.type)).toEqual([
        'hero',
        'text',
        'gallery',
      ]);
      expect((await demo.listAssets(site?.id ?? '')).items).toHaveLength(2);
      expect(validateTokens((await demo.getDesignSystem(site?.id ?? ''))?.tokens)).toEqual([]);
    } finally {
      await demo.close();
    }
  });
});
