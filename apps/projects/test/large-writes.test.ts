/**
 * One large write must not stall the server for everyone else (README "Limits"). A document past
 * a limit is refused by the cheap checks — the HTTP body size before the body is parsed, then
 * nesting, size and token count before the stored document is read, merged or validated — and
 * the largest document the limits allow is written while other callers are answered.
 */

import { Agent, request } from 'node:http';
import { serveHttp } from '@mcpkit/node';
import type { AuthInfo } from '@mcpkit/protocol';
import { connectRaw, postJson, removeTempDirs } from '@mcpkit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authInfo } from '../src/auth.js';
import type { Store, User } from '../src/db/types.js';
import { TOKEN_LIMITS, tokenLimitProblem, validateTokensSliced } from '../src/dtcg.js';
import { generateKey } from '../src/keys.js';
import { createProjectsServer, MAX_REQUEST_BYTES, projectsHttpOptions } from '../src/server.js';
import { tempStore } from './helpers.js';

// Validation is the expensive step: its calls are counted.
const hooks = vi.hoisted(() => ({
  /** Hears every store call the server makes, by method name. */
  onStore: undefined as ((method: string, args: unknown[]) => void) | undefined,
}));
vi.mock('../src/dtcg.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/dtcg.js')>();
  return {
    ...actual,
    validateTokensSliced: vi.fn(actual.validateTokensSliced),
  };
});
const validated = vi.mocked(validateTokensSliced);

type Json = Record<string, unknown>;
interface RpcReply {
  id: number | null;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

let store: Store;
/** Calls of each store method the server made since the last reset. */
const storeCalls = new Map<string, number>();
let counted: Store;
let owner: { user: User; key: string; auth: AuthInfo };
let other: { key: string };

async function withKey(email: string) {
  const user = await store.createUser(email);
  const made = generateKey();
  const row = await store.createApiKey(user.id, made.prefix, made.hash, ['read', 'write']);
  return { user, key: made.key, auth: authInfo(row, user) };
}

beforeAll(async () => {
  ({ store } = await tempStore());
  counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        storeCalls.set(String(key), (storeCalls.get(String(key)) ?? 0) + 1);
        hooks.onStore?.(String(key), args);
        return value.apply(target, args);
      };
    },
  });
  owner = await withKey('writer@example.com');
  other = await withKey('other@example.com');
});

beforeEach(() => {
  storeCalls.clear();
  validated.mockClear();
});

afterAll(async () => {
  await store.close();
  removeTempDirs();
});

const srgb = (i: number) => ({
  colorSpace: 'srgb',
  components: [(i % 256) / 255, ((i >> 8) % 256) / 255, 0.5],
  hex: '#336699',
});

/** `count` colour tokens, a third values and the rest references, with descriptions. */
function manyTokens(count: number, description: string): Json {
  const doc: Json = {};
  for (let g = 0; g * 1_000 < count; g++) {
    const group: Json = { $type: 'color' };
    for (let i = g * 1_000; i < Math.min(count, (g + 1) * 1_000); i++) {
      group[`t${i}`] = {
        $value: i % 3 === 0 ? srgb(i) : `{g${g}.t${g * 1_000}}`,
        $description: description,
      };
    }
    doc[`g${g}`] = group;
  }
  return doc;
}

/**
 * The largest document the limits allow, each at its maximum: TOKEN_LIMITS.tokens colour tokens
 * in groups nested groupDepth deep, in alias chains of aliasChain references, an `$extensions`
 * value nested to jsonDepth, and `$description`s filling it to exactly `bytes`.
 */
function maximalTokens(): Json {
  const doc: Json = {};
  const groups: Json[] = [];
  const paths: string[] = [];
  let parent = doc;
  // Short group names (a … z, then aa, ab …), so that the byte limit leaves room for the tokens.
  const groupName = (level: number) =>
    level < 26 ? String.fromCharCode(97 + level) : `a${String.fromCharCode(97 + level - 26)}`;
  for (let level = 0; level < TOKEN_LIMITS.groupDepth; level++) {
    const group: Json = level === 0 ? { $type: 'color' } : {};
    const name = groupName(level);
    parent[name] = group;
    groups.push(group);
    paths.push(level === 0 ? name : `${paths[level - 1]}.${name}`);
    parent = group;
  }
  const tokens: Json[] = [];
  for (let i = 0; i < TOKEN_LIMITS.tokens; i++) {
    const at = i % TOKEN_LIMITS.groupDepth;
    const previous = (i - 1) % TOKEN_LIMITS.groupDepth;
    const token: Json = {
      $value: i % (TOKEN_LIMITS.aliasChain + 1) === 0 ? srgb(i) : `{${paths[previous]}.t${i - 1}}`,
    };
    (groups[at] as Json)[`t${i}`] = token;
    tokens.push(token);
  }
  let deep: Json = { end: true };
  for (let depth = 3; depth < TOKEN_LIMITS.jsonDepth; depth++) deep = { x: deep };
  doc.$extensions = { 'com.example.test': deep };
  let rest = TOKEN_LIMITS.bytes - Buffer.byteLength(JSON.stringify(doc));
  // `,"$description":""` is 19 bytes; what is left is spread over the tokens.
  const each = Math.floor(rest / tokens.length) - 19;
  expect(each).toBeGreaterThan(0);
  for (const token of tokens) token.$description = 'x'.repeat(each);
  rest = TOKEN_LIMITS.bytes - Buffer.byteLength(JSON.stringify(doc));
  for (const token of tokens) {
    const more = Math.min(rest, 64);
    if (more <= 0) break;
    token.$description = `${token.$description as string}${'x'.repeat(more)}`;
    rest -= more;
  }
  return doc;
}

const call = (id: number, name: string, args: Json) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The store methods of the design system, called since the last reset. */
const designSystemCalls = () =>
  ['getDesignSystem', 'setDesignSystem'].map((m) => storeCalls.get(m) ?? 0);

describe('a document past a limit is refused before the expensive work', () => {
  it('over HTTP, a 6 MB body: 413 and -32600 naming the body limit, never parsed into a tool call', async () => {
    const http = await serveHttp(
      createProjectsServer({ store: counted }),
      projectsHttpOptions(counted, { points: 1000, windowSec: 60 }),
    );
    try {
      const projectId = (await store.createProject(owner.user.id, { name: 'Groß' })).id;
      const body = JSON.stringify(
        call(1, 'update_design_tokens', { projectId, tokens: manyTokens(80_000, 'x'.repeat(5)) }),
      );
      expect(Buffer.byteLength(body)).toBeGreaterThan(6_000_000);
      const reply = await postJson<RpcReply>(`${http.url}/api/mcp`, body, { token: owner.key });
      expect(reply.status).toBe(413);
      expect(reply.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Payload Too Large', data: { maxBytes: 2_097_152 } },
      });
      expect(MAX_REQUEST_BYTES).toBe(2_097_152);
      // Not even the project was looked up: the request never became a tool call.
      expect(storeCalls.get('getProject') ?? 0).toBe(0);
      expect(validated).not.toHaveBeenCalled();
      expect(designSystemCalls()).toEqual([0, 0]);
      // The server serves on.
      const ping = await postJson<RpcReply>(
        `${http.url}/api/mcp`,
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { token: other.key },
      );
      expect(ping.body).toMatchObject({ id: 2, result: {} });
    } finally {
      await http.close();
    }
  });

  it.each([
    [
      'a document of 80,000 tokens, past the byte limit',
      () => manyTokens(80_000, 'x'.repeat(5)),
      'tokens',
      `a token document is at most ${TOKEN_LIMITS.bytes.toLocaleString('en-US')} bytes of JSON; this one is longer`,
    ],
    [
      'one token past the limit, small (within the byte limit)',
      () => {
        const many: Json = { $type: 'number' };
        for (let i = 0; i <= TOKEN_LIMITS.tokens; i++) many[`n${i}`] = { $value: i };
        return { many };
      },
      `tokens.many.n${TOKEN_LIMITS.tokens}`,
      `a token document holds at most ${TOKEN_LIMITS.tokens.toLocaleString('en-US')} tokens`,
    ],
  ])(
    '%s, merged: -32004 naming the limit; the stored document is neither read nor validated',
    async (_what, make, field, error) => {
      const projectId = (await store.createProject(owner.user.id, { name: 'Zu viel' })).id;
      const before = await store.getDesignSystem(projectId);
      const tokens = make();
      const peer = connectRaw(createProjectsServer({ store: counted }), { auth: owner.auth });
      try {
        storeCalls.clear();
        const reply = (await peer.callTool('update_design_tokens', {
          projectId,
          tokens,
        })) as RpcReply;
        expect(reply.result).toBeUndefined();
        expect(reply.error).toMatchObject({
          code: -32004,
          message: 'Validation error',
          data: { field, error },
        });
        expect(validated).not.toHaveBeenCalled();
        expect(designSystemCalls()).toEqual([0, 0]);
        expect(await store.getDesignSystem(projectId)).toEqual(before);
      } finally {
        await peer.close();
      }
    },
  );
});

/**
 * POSTs `message` over `agent`'s kept-alive connection: the request leaves in this turn, so the
 * server can read it in its next.
 */
function postOver(agent: Agent, url: string, key: string, message: unknown): Promise<RpcReply> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      agent,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Bearer ${key}`,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(JSON.parse(text) as RpcReply));
    });
    req.end(body);
  });
}

describe('the largest document the limits allow', () => {
  it('is written while another caller is served: a call sent once the write began is served before it is stored', async () => {
    const doc = maximalTokens();
    expect(Buffer.byteLength(JSON.stringify(doc))).toBe(TOKEN_LIMITS.bytes);
    expect(tokenLimitProblem(doc)).toBeUndefined();
    const http = await serveHttp(
      createProjectsServer({ store: counted }),
      projectsHttpOptions(counted, { points: 1000, windowSec: 60 }),
    );
    // The other caller's connection is open before the write starts (one socket, kept alive),
    // so that its call reaches the server as soon as the event loop lets it read.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const url = `${http.url}/api/mcp`;
      const warm = await postOver(agent, url, other.key, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(warm).toMatchObject({ result: {} });
      const projectId = (await store.createProject(owner.user.id, { name: 'Maximal' })).id;
      // Server-side events, in the order they happen: the write's handler begins (it looks up
      // the project), the other call is served (it lists projects), the write is stored.
      const events: string[] = [];
      let began!: () => void;
      const writing = new Promise<void>((resolve) => {
        began = resolve;
      });
      hooks.onStore = (method, args) => {
        if (method === 'getProject' && args[0] === projectId) {
          events.push('write began');
          began();
        }
        if (method === 'listProjects') events.push('other served');
        if (method === 'setDesignSystem') events.push('write stored');
      };
      const write = postJson<RpcReply>(
        url,
        call(1, 'update_design_tokens', { projectId, tokens: doc, mode: 'replace' }),
        { token: owner.key },
      );
      await writing;
      // Another user, another client: a tool call that reads the database.
      const list = postOver(agent, url, other.key, call(2, 'list_projects', {}));
      expect((await list).result).toMatchObject({ isError: false });
      const written = await write;
      expect(written.body?.error).toBeUndefined();
      expect(written.body?.result).toMatchObject({ isError: false });
      expect(validated).toHaveBeenCalledTimes(1);
      expect(events).toEqual(['write began', 'other served', 'write stored']);
    } finally {
      hooks.onStore = undefined;
      agent.destroy();
      await http.close();
    }
  });
});
