/**
 * The limits a caller meets (README "Limits"), through the tools, each past its edge: a -32004
 * Validation error naming the limit — never an internal error, never a stalled or crashed server
 * — and nothing written. Design-token alias chains (5,000-alias documents and ones past the token
 * limit, as the adversarial review sent), token counts, JSON nesting of tokens and of block content (100,000
 * deep, as raw frames and over HTTP), blocks per project, and list_blocks pages (300 blocks of
 * 60 KB, the review's 36 MB reply) with their cursor in the text.
 */

import { serveHttp } from '@mcpkit/node';
import type { AuthInfo, McpServer } from '@mcpkit/protocol';
import { connectRaw, postJson, type RawPeer, type RawReply, removeTempDirs } from '@mcpkit/testing';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authInfo } from '../src/auth.js';
import { newId } from '../src/db/ids.js';
import type { Store, User } from '../src/db/types.js';
import { TOKEN_LIMITS, validateTokens } from '../src/dtcg.js';
import { generateKey } from '../src/keys.js';
import { createProjectsServer, projectsHttpOptions } from '../src/server.js';
import { tempStore } from './helpers.js';

type Json = Record<string, unknown>;
type RpcReply = RawReply<Json> & { error?: { code: number; message: string; data?: Json } };
interface BlockOut {
  id: string;
  position: number;
  content: unknown;
}

let store: Store;
let file: string;
let server: McpServer;
let peer: RawPeer;
let user: User;
let auth: AuthInfo;
let key: string;

beforeAll(async () => {
  ({ store, file } = await tempStore());
  user = await store.createUser('limits@example.com');
  const made = generateKey();
  key = made.key;
  auth = authInfo(
    await store.createApiKey(user.id, made.prefix, made.hash, ['read', 'write']),
    user,
  );
  server = createProjectsServer({ store });
  peer = connectRaw(server, { auth });
});

afterAll(async () => {
  await peer.close();
  await store.close();
  removeTempDirs();
});

const call = (name: string, args: Json) =>
  peer.request('tools/call', { name, arguments: args }) as Promise<RpcReply>;

async function ok<T>(name: string, args: Json): Promise<T> {
  const reply = await call(name, args);
  expect(reply.error, `${name} failed: ${JSON.stringify(reply.error)}`).toBeUndefined();
  expect(reply.result?.isError).toBe(false);
  return reply.result?.structuredContent as T;
}

/** A -32004 whose error names the limit; anything else (an internal error included) fails. */
function expectValidation(reply: RpcReply, field: string | RegExp, error: RegExp) {
  expect(
    reply.result,
    `expected -32004, got ${JSON.stringify(reply.result)?.slice(0, 300)}`,
  ).toBeUndefined();
  expect(reply.error).toMatchObject({ code: -32004, message: 'Validation error' });
  const data = reply.error?.data as { field: string; error: string };
  if (typeof field === 'string') expect(data.field).toBe(field);
  else expect(data.field).toMatch(field);
  expect(data.error).toMatch(error);
}

const newProject = async (name: string) => (await store.createProject(user.id, { name })).id;

/** `{"a":{"a":…1…}}`, `depth` objects deep, as JSON text (JSON.stringify cannot build it). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** A tools/call frame as text, with `rawArgs` spliced in as they are. */
const frame = (id: number, name: string, rawArgs: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${rawArgs}}}`;
async function sendRaw(text: string): Promise<RpcReply> {
  const reply = await peer.send(text);
  if (reply === undefined) throw new Error('no reply');
  return JSON.parse(reply) as RpcReply;
}

/** One alias chain: t0 a number, t1 → t0, t2 → t1, …: `count` tokens, `count - 1` aliases. */
function aliasChain(count: number) {
  const group: Json = { $type: 'number', t0: { $value: 1 } };
  for (let i = 1; i < count; i++) group[`t${i}`] = { $value: `{chain.t${i - 1}}` };
  return { chain: group };
}

// ---------------------------------------------------------------------------------------------

describe('design tokens: alias chains, size and nesting', () => {
  it.each([
    [5_000, 't33', /^an alias chain is at most 32 references long; this one is 33$/],
    [
      TOKEN_LIMITS.tokens + 1,
      `t${TOKEN_LIMITS.tokens}`,
      /^a token document holds at most 10,000 tokens$/,
    ],
    [
      2 * TOKEN_LIMITS.tokens,
      `t${TOKEN_LIMITS.tokens}`,
      /^a token document holds at most 10,000 tokens$/,
    ],
  ])(
    'a %s-token alias chain → -32004 on chain.%s naming the limit; nothing stored',
    async (count, at, error) => {
      const projectId = await newProject(`Kette ${count}`);
      const before = await store.getDesignSystem(projectId);
      const reply = await call('update_design_tokens', {
        projectId,
        tokens: aliasChain(count),
        mode: 'replace',
      });
      expectValidation(reply, `tokens.chain.${at}`, error);
      expect(await store.getDesignSystem(projectId)).toEqual(before);
    },
  );

  it('a chain of exactly 32 aliases is stored; 33 is refused, at the token one past it', async () => {
    const projectId = await newProject('Kette 32');
    await ok('update_design_tokens', { projectId, tokens: aliasChain(33), mode: 'replace' });
    const reply = await call('update_design_tokens', {
      projectId,
      tokens: aliasChain(34),
      mode: 'replace',
    });
    expectValidation(
      reply,
      'tokens.chain.t33',
      /^an alias chain is at most 32 references long; this one is 33$/,
    );
  });

  it('a merge is checked as the document it makes: the limits hold for what is stored', async () => {
    const projectId = await newProject('Merge-Grenze');
    const group: Json = { $type: 'number' };
    for (let i = 0; i < TOKEN_LIMITS.tokens - 20; i++) group[`n${i}`] = { $value: i };
    await ok('update_design_tokens', { projectId, tokens: { many: group }, mode: 'replace' });
    // 20 short of the limit stored; 40 more go 20 past it.
    const more: Json = {};
    for (let i = 0; i < 40; i++) more[`m${i}`] = { $value: i, $type: 'number' };
    const reply = await call('update_design_tokens', { projectId, tokens: { more } });
    expectValidation(reply, /^tokens\.more\.m\d+$/, /holds at most 10,000 tokens/);
  });

  it('a stored document past the limits (from before them) is fixed by replace', async () => {
    const projectId = await newProject('Altlast');
    await store.setDesignSystem(projectId, aliasChain(40));
    expectValidation(
      await call('update_design_tokens', {
        projectId,
        tokens: { extra: { $value: 1, $type: 'number' } },
      }),
      'tokens.chain.t33',
      /alias chain/,
    );
    await ok('update_design_tokens', { projectId, tokens: aliasChain(10), mode: 'replace' });
  });

  it('JSON nested 100,000 deep in $value, $extensions or a group → -32004, not an internal error', async () => {
    const projectId = await newProject('Tief');
    const before = await store.getDesignSystem(projectId);
    const deep = nestedText(100_000);
    for (const [tokens, mode] of [
      [`{"t":{"$type":"border","$value":${deep}}}`, 'replace'],
      [`{"$extensions":{"com.example":${deep}}}`, 'merge'],
      [`{"g":${deep}}`, 'merge'],
      [`{"color":{"brand":${deep}}}`, 'merge'],
    ]) {
      const reply = await sendRaw(
        frame(
          7,
          'update_design_tokens',
          `{"projectId":"${projectId}","tokens":${tokens},"mode":"${mode}"}`,
        ),
      );
      expectValidation(reply, /^tokens\./, /nests objects and arrays at most 64 deep/);
    }
    expect(await store.getDesignSystem(projectId)).toEqual(before);
  });

  it('a document over 1 MiB → -32004 naming the size limit', async () => {
    const projectId = await newProject('Groß');
    const reply = await call('update_design_tokens', {
      projectId,
      tokens: {
        big: { $type: 'number', t: { $value: 1, $description: 'x'.repeat(TOKEN_LIMITS.bytes) } },
      },
    });
    expectValidation(
      reply,
      'tokens',
      /^a token document is at most 1,048,576 bytes of JSON; this one is longer$/,
    );
  });

  it('concurrent merges into one project all land (read, merge, write one after the other)', async () => {
    const projectId = await newProject('Gleichzeitig');
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ok('update_design_tokens', {
          projectId,
          tokens: { spacing: { [`s${i}`]: { $value: { value: i, unit: 'px' } } } },
        }),
      ),
    );
    const spacing = (await store.getDesignSystem(projectId))?.tokens.spacing as Json;
    for (let i = 0; i < 8; i++)
      expect(spacing[`s${i}`]).toEqual({ $value: { value: i, unit: 'px' } });
    expect(validateTokens((await store.getDesignSystem(projectId))?.tokens)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('block content nested deeper than 64', () => {
  it('100,000 deep: create_block and update_block answer -32004 on content (raw frames)', async () => {
    const projectId = await newProject('Block tief');
    const block = await ok<BlockOut>('create_block', { projectId, type: 'text', content: 'alt' });
    const deep = nestedText(100_000);
    const created = await sendRaw(
      frame(11, 'create_block', `{"projectId":"${projectId}","type":"text","content":${deep}}`),
    );
    expectValidation(created, 'content', /must nest objects and arrays at most 64 deep/);
    const updated = await sendRaw(
      frame(12, 'update_block', `{"blockId":"${block.id}","content":${deep}}`),
    );
    expectValidation(updated, 'content', /at most 64 deep \(too deep at content\.a\.a/);
    expect((await store.listBlocks(projectId)).items.map((b) => b.content)).toEqual(['alt']);
    // The connection serves on.
    expect(await peer.request('ping')).toMatchObject({ result: {} });
  });

  it('64 deep is stored; 65 is refused', async () => {
    const projectId = await newProject('Block 64');
    const at64 = JSON.parse(nestedText(64)) as Json;
    const block = await ok<BlockOut>('create_block', { projectId, type: 'text', content: at64 });
    expect(block.content).toEqual(at64);
    const reply = await call('create_block', {
      projectId,
      type: 'text',
      content: [JSON.parse(nestedText(64))],
    });
    expectValidation(reply, 'content', /at most 64 deep \(too deep at content\[0\]\.a/);
  });

  it('over HTTP (POST /api/mcp): -32004, and the server answers the next request', async () => {
    const http = await serveHttp(
      createProjectsServer({ store }),
      projectsHttpOptions(store, { points: 1000, windowSec: 60 }),
    );
    try {
      const projectId = await newProject('Block HTTP');
      const post = (body: string) =>
        postJson<RpcReply>(`${http.url}/api/mcp`, body, { token: key });
      const reply = await post(
        frame(
          1,
          'create_block',
          `{"projectId":"${projectId}","type":"text","content":${nestedText(100_000)}}`,
        ),
      );
      expect(reply.status).toBe(200);
      expectValidation(reply.body as RpcReply, 'content', /at most 64 deep/);
      expect((await post('{"jsonrpc":"2.0","id":2,"method":"ping"}')).body).toMatchObject({
        result: {},
      });
    } finally {
      await http.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** `count` blocks of `bytes` of content each, straight into the SQLite file, in one transaction. */
function seedBlocks(projectId: string, count: number, bytes: number, from = 0): string[] {
  const db = new SqliteDatabase(file);
  const ids: string[] = [];
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      'insert into blocks (id, project_id, position, type, content, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
    );
    const at = new Date().toISOString();
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = newId('blk');
        ids.push(id);
        // {"n":i,"text":"xxx…"}: `bytes` long in all.
        const head = JSON.stringify({ n: from + i, text: '' });
        const content = `${head.slice(0, -2)}${'x'.repeat(Math.max(0, bytes - head.length))}"}`;
        insert.run(id, projectId, from + i, 'text', content, at, at);
      }
    })();
  } finally {
    db.close();
  }
  return ids;
}

describe('list_blocks pages; blocks per project', () => {
  const textOf = (reply: RpcReply) =>
    ((reply.result?.content ?? []) as { type: string; text: string }[]).map((c) => c.text);

  it('300 blocks of 60 KB: pages of at most 512 KiB of content, chained by nextCursor, text included', async () => {
    const projectId = await newProject('Viele Blöcke');
    const ids = seedBlocks(projectId, 300, 60_000);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const reply = await call('list_blocks', cursor ? { projectId, cursor } : { projectId });
      const page = reply.result?.structuredContent as { blocks: BlockOut[]; nextCursor?: string };
      const replyBytes = Buffer.byteLength(JSON.stringify(reply));
      // 8 blocks of 60 KB fit 512 KiB; the reply holds them twice (structured and text).
      expect(page.blocks).toHaveLength(Math.min(ids.length - seen.length, 8));
      expect(replyBytes).toBeLessThan(2 * 512 * 1024 + 64 * 1024);
      const text = textOf(reply);
      expect(JSON.parse(text[0] ?? '')).toEqual({ blocks: page.blocks });
      if (page.nextCursor)
        expect(text).toEqual([text[0], JSON.stringify({ nextCursor: page.nextCursor })]);
      else expect(text).toHaveLength(1);
      seen.push(...page.blocks.map((b) => b.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toEqual(ids);
    expect(pages).toBe(38);
  });

  it('pages by limit (default 50), in position order; a last full page has no nextCursor', async () => {
    const projectId = await newProject('Seitenweise');
    const ids = seedBlocks(projectId, 120, 10);
    const first = await ok<{ blocks: BlockOut[]; nextCursor?: string }>('list_blocks', {
      projectId,
    });
    expect(first.blocks.map((b) => b.id)).toEqual(ids.slice(0, 50));
    expect(first.blocks.map((b) => b.position)).toEqual([...Array(50).keys()]);
    const rest = await ok<{ blocks: BlockOut[]; nextCursor?: string }>('list_blocks', {
      projectId,
      cursor: first.nextCursor,
      limit: 70,
    });
    expect(rest.blocks.map((b) => b.id)).toEqual(ids.slice(50));
    expect(rest).not.toHaveProperty('nextCursor');
    // A block inserted at the front while paging shifts the rest by one: the last block of the
    // page before is seen again (the cursor is a position).
    const small = await ok<{ blocks: BlockOut[]; nextCursor?: string }>('list_blocks', {
      projectId,
      limit: 10,
    });
    await ok('create_block', { projectId, type: 'text', content: 'vorne', position: 0 });
    const after = await ok<{ blocks: BlockOut[] }>('list_blocks', {
      projectId,
      limit: 10,
      cursor: small.nextCursor,
    });
    expect(after.blocks.map((b) => b.id)).toContain(ids[9]);
  });

  it.each([
    ['garbage', 'garbage'],
    [
      'a list_projects cursor',
      Buffer.from('["2024-01-01T00:00:00.000Z","proj_abc"]').toString('base64url'),
    ],
    ['a negative position', Buffer.from('[-1,"blk_abc"]').toString('base64url')],
  ])('%s as cursor → -32602 on cursor', async (_what, cursor) => {
    const projectId = await newProject('Cursor');
    const reply = await call('list_blocks', { projectId, cursor });
    expect(reply.error).toMatchObject({ code: -32602, data: { field: 'cursor' } });
  });

  it('a project holds at most 1,000 blocks: the next create_block is -32004 on projectId', async () => {
    const projectId = await newProject('Voll');
    seedBlocks(projectId, 999, 10);
    await ok('create_block', { projectId, type: 'text', content: 'der tausendste' });
    expect(await ok('get_project', { projectId })).toMatchObject({ blockCount: 1000 });
    const reply = await call('create_block', { projectId, type: 'text', content: 'zu viel' });
    expectValidation(reply, 'projectId', /^a project holds at most 1000 blocks; delete one/);
    expect(await store.countBlocks(projectId)).toBe(1000);
    // Room again after a delete.
    const one = (await store.listBlocks(projectId, { limit: 1 })).items[0];
    await ok('delete_block', { blockId: one?.id });
    await ok('create_block', { projectId, type: 'text', content: 'wieder Platz' });
  });
});
