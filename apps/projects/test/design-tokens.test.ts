/**
 * The design-token tools and resource, through the server as a client calls them:
 * build_design_tokens for every platform (the built version, a write seen by the next build),
 * the `codefluss://projects/{projectId}/tokens/{platform}` resource (read, and subscribed in a
 * 2025-11-25 session and by a 2026-07-28 `subscriptions/listen`), check_color_contrast against
 * WCAG's reference ratios, and the history: list_design_token_versions, diff_design_tokens and
 * restore_design_tokens. Builds run in the TokenBuilder's worker, loaded from dist/: run
 * `pnpm build` (or `tsc -p tsconfig.build.json`) first.
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type AuthInfo, type McpServer, META } from '@mcpkit/protocol';
import {
  connectRaw,
  connectWire,
  type RawPeer,
  type RawReply,
  removeTempDirs,
  type WireEra,
} from '@mcpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authInfo } from '../src/auth.js';
import type { Store, User } from '../src/db/types.js';
import { defaultTokens } from '../src/dtcg.js';
import { generateKey } from '../src/keys.js';
import { createProjectsServer } from '../src/server.js';
import { PLATFORMS, type Platform } from '../src/tokens/build.js';
import { TokenBuilder } from '../src/tokens/builder.js';
import { flattenTokens } from '../src/tokens/flatten.js';
import { MAX_PAIRS } from '../src/tools/check-color-contrast.js';
import { tempStore } from './helpers.js';

type Json = Record<string, unknown>;
type RpcReply = RawReply<Json> & { error?: { data?: Json } };

interface BuiltFile {
  name: string;
  mimeType: string;
  contents: string;
}
interface BuildOut {
  projectId: string;
  platform: Platform;
  version: number;
  uri: string;
  files: BuiltFile[];
}
interface ContrastRow {
  foreground: string;
  background: string;
  ratio: number;
  passes: boolean;
  aa: boolean;
  aaLarge: boolean;
  aaa: boolean;
  aaaLarge: boolean;
}
interface ContrastOut {
  projectId: string;
  level: 'AA' | 'AAA';
  largeText: boolean;
  required: number;
  results: ContrastRow[];
  counts: { checked: number; passing: number; failing: number };
}
interface VersionOut {
  version: number;
  createdAt: string;
  author: string | null;
  note: string | null;
}
interface DiffOut {
  projectId: string;
  from: number;
  to: number;
  added: { path: string; type?: string; value: unknown }[];
  removed: { path: string; type?: string; value: unknown }[];
  changed: {
    path: string;
    changes: string[];
    from: { type?: string; value: unknown };
    to: { type?: string; value: unknown };
  }[];
  counts: { added: number; removed: number; changed: number; unchanged: number };
}

const WORKER = fileURLToPath(new URL('../dist/tokens/build-worker.js', import.meta.url));

let store: Store;
let builder: TokenBuilder;
let server: McpServer;
let alice: User;
let bob: User;
/** Alice's key with scopes read and write. */
let aliceAuth: AuthInfo;
/** Alice's read-only key. */
let readerAuth: AuthInfo;
let bobAuth: AuthInfo;
/** One connection per caller, opened on first use. */
const peers = new Map<AuthInfo, RawPeer>();
/** Connections a test opened of its own, closed after it. */
let extra: RawPeer[] = [];

beforeAll(async () => {
  if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: run \`pnpm build\` first`);
  ({ store } = await tempStore());
  alice = await store.createUser('alice@example.com', 'Alice');
  bob = await store.createUser('bob@example.com', 'Bob');
  const key = async (user: User, scopes: ('read' | 'write')[]) => {
    const { prefix, hash } = generateKey();
    return authInfo(await store.createApiKey(user.id, prefix, hash, scopes), user);
  };
  aliceAuth = await key(alice, ['read', 'write']);
  readerAuth = await key(alice, ['read']);
  bobAuth = await key(bob, ['read', 'write']);
  builder = new TokenBuilder();
  server = createProjectsServer({ store, builder });
});

afterEach(async () => {
  await Promise.all(extra.map((peer) => peer.close()));
  extra = [];
});

afterAll(async () => {
  await Promise.all([...peers.values()].map((peer) => peer.close()));
  await builder.close();
  await store.close();
  removeTempDirs();
});

function peerOf(auth: AuthInfo = aliceAuth): RawPeer {
  let peer = peers.get(auth);
  if (!peer) {
    peer = connectRaw(server, { auth });
    peers.set(auth, peer);
  }
  return peer;
}

/** A connection of its own (a subscriber), closed after the test. */
function ownPeer(auth: AuthInfo = aliceAuth): RawPeer {
  const peer = connectRaw(server, { auth });
  extra.push(peer);
  return peer;
}

const call = (name: string, args: Json, auth?: AuthInfo) =>
  peerOf(auth).request('tools/call', { name, arguments: args }) as Promise<RpcReply>;

/** A successful tool call's structuredContent (fails the test otherwise). */
async function ok<T>(name: string, args: Json, auth?: AuthInfo): Promise<T> {
  const reply = await call(name, args, auth);
  expect(reply.error, `${name} failed: ${JSON.stringify(reply.error)}`).toBeUndefined();
  expect(reply.result?.isError).toBe(false);
  return reply.result?.structuredContent as T;
}

/** A failed tool call's JSON-RPC error. */
async function fails(name: string, args: Json, auth?: AuthInfo) {
  const reply = await call(name, args, auth);
  expect(reply.result, `${name} should have failed`).toBeUndefined();
  return reply.error as NonNullable<RpcReply['error']>;
}

const read = (uri: string, auth?: AuthInfo) =>
  peerOf(auth).request('resources/read', { uri }) as Promise<RpcReply>;

const newProject = async (owner: User = alice, name = 'Tokens') =>
  (await store.createProject(owner.id, { name })).id;

/** An sRGB colour token value of a hex colour, its components exact. */
function srgb(hex: string, alpha?: number) {
  const n = Number.parseInt(hex.slice(1), 16);
  const components = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => c / 255);
  return alpha === undefined
    ? { colorSpace: 'srgb', components }
    : { colorSpace: 'srgb', components, alpha };
}

const write = (projectId: string, tokens: Json, mode?: 'replace') =>
  ok<{ version: number; tokens: Json }>('update_design_tokens', {
    projectId,
    tokens,
    ...(mode ? { mode } : {}),
  });

const build = (projectId: string, platform: string, auth?: AuthInfo) =>
  ok<BuildOut>('build_design_tokens', { projectId, platform }, auth);

const tokenUri = (projectId: string, platform: string) =>
  `codefluss://projects/${projectId}/tokens/${platform}`;

/** A document without the derived `$extensions` member the server adds to what it returns. */
function stored(doc: Json): Json {
  const { $extensions: _derived, ...rest } = doc;
  return rest;
}

/**
 * Each platform's files, and how each shows `color.text.muted` (#6b7280 in the starter tokens,
 * #123456 once written): by the platform's naming and notation.
 */
const BUILDS: Record<Platform, { files: string[]; muted: (hex: string) => string }> = {
  css: { files: ['tokens.css'], muted: (hex) => `--color-text-muted: ${hex};` },
  scss: { files: ['_tokens.scss'], muted: (hex) => `$color-text-muted: ${hex};` },
  js: { files: ['tokens.js', 'tokens.d.ts'], muted: (hex) => `ColorTextMuted = "${hex}"` },
  tailwind: { files: ['theme.css'], muted: (hex) => `--color-text-muted: ${hex};` },
  json: { files: ['tokens.json'], muted: (hex) => `"color-text-muted": "${hex}"` },
  swift: {
    files: ['Tokens.swift'],
    muted: (hex) => {
      const n = Number.parseInt(hex.slice(1), 16);
      const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map(
        (c) => Math.round((c / 255) * 1000) / 1000,
      );
      return `colorTextMuted = UIColor(red: ${r}, green: ${g}, blue: ${b}, alpha: 1)`;
    },
  },
  android: {
    files: ['tokens.xml'],
    muted: (hex) => `<color name="color_text_muted">#ff${hex.slice(1)}</color>`,
  },
};

// ---------------------------------------------------------------------------------------------

describe('build_design_tokens', () => {
  it('builds the starter tokens (version 0) into each platform’s files', async () => {
    const projectId = await newProject();
    expect(Object.keys(BUILDS).sort()).toEqual([...PLATFORMS].sort());
    for (const platform of PLATFORMS) {
      const reply = await call('build_design_tokens', { projectId, platform });
      const out = reply.result?.structuredContent as unknown as BuildOut;
      expect(out, platform).toMatchObject({
        projectId,
        platform,
        version: 0,
        uri: tokenUri(projectId, platform),
      });
      expect(
        out.files.map((f) => f.name),
        platform,
      ).toEqual(BUILDS[platform].files);
      expect(out.files[0]?.contents, platform).toContain(BUILDS[platform].muted('#6b7280'));
      // The text content is each file, headed by its name.
      expect(reply.result?.content).toEqual(
        out.files.map((f) => ({ type: 'text', text: `// ${f.name}\n${f.contents}` })),
      );
    }
    const js = await build(projectId, 'js');
    expect(js.files.map((f) => f.mimeType)).toEqual(['text/javascript', 'application/typescript']);
    expect(js.files[1]?.contents).toContain('export const ColorTextMuted: string;');
  });

  it('builds the new version after a write, the changed token on every platform', async () => {
    const projectId = await newProject();
    // Built (and kept by the builder) at version 0 first: the write must not be answered from it.
    for (const platform of PLATFORMS) await build(projectId, platform);
    const written = await write(projectId, {
      color: { text: { muted: { $value: srgb('#123456') } } },
    });
    expect(written.version).toBe(1);
    for (const platform of PLATFORMS) {
      const out = await build(projectId, platform);
      expect(out.version, platform).toBe(1);
      expect(out.files[0]?.contents, platform).toContain(BUILDS[platform].muted('#123456'));
      expect(out.files[0]?.contents, platform).not.toContain(BUILDS[platform].muted('#6b7280'));
    }
    // A read-only key builds too (building is reading).
    expect((await build(projectId, 'css', readerAuth)).version).toBe(1);
  });

  it('refuses another user’s project, a missing project and an unknown platform', async () => {
    const bobs = await newProject(bob);
    expect(await fails('build_design_tokens', { projectId: bobs, platform: 'css' })).toMatchObject({
      code: -32002,
      data: { reason: 'project belongs to another user' },
    });
    expect(
      await fails('build_design_tokens', { projectId: 'proj_missing', platform: 'css' }),
    ).toMatchObject({ code: -32003, data: { kind: 'project', id: 'proj_missing' } });
    expect(
      await fails('build_design_tokens', { projectId: await newProject(), platform: 'less' }),
    ).toMatchObject({ code: -32602, data: { field: 'platform' } });
  });
});

// ---------------------------------------------------------------------------------------------

describe('the token build resource', () => {
  it('is listed by resources/templates/list, with its platforms completed', async () => {
    const templates = (
      await peerOf().result<{ resourceTemplates: Json[] }>('resources/templates/list')
    ).resourceTemplates;
    expect(templates).toContainEqual(
      expect.objectContaining({
        uriTemplate: 'codefluss://projects/{projectId}/tokens/{platform}',
        name: 'Design tokens built',
      }),
    );
    const completed = await peerOf().result<{ completion: { values: string[] } }>(
      'completion/complete',
      {
        ref: { type: 'ref/resource', uri: 'codefluss://projects/{projectId}/tokens/{platform}' },
        argument: { name: 'platform', value: 's' },
      },
    );
    expect(completed.completion.values).toEqual(['scss', 'swift']);
  });

  it('reads as the build: the CSS, and the JS module with its .d.ts beside it', async () => {
    const projectId = await newProject();
    await write(projectId, { color: { text: { muted: { $value: srgb('#123456') } } } });
    const css = await build(projectId, 'css');
    const uri = tokenUri(projectId, 'css');
    expect((await read(uri)).result?.contents).toEqual([
      { uri, mimeType: 'text/css', text: css.files[0]?.contents },
    ]);
    expect(css.files[0]?.contents).toContain('--color-text-muted: #123456;');

    const js = await build(projectId, 'js');
    const jsUri = tokenUri(projectId, 'js');
    expect((await read(jsUri)).result?.contents).toEqual([
      { uri: jsUri, mimeType: 'text/javascript', text: js.files[0]?.contents },
      {
        uri: `${jsUri}/tokens.d.ts`,
        mimeType: 'application/typescript',
        text: js.files[1]?.contents,
      },
    ]);
  });

  it('refuses an unknown platform (not found), another user’s project and a missing one', async () => {
    const projectId = await newProject();
    const unknown = tokenUri(projectId, 'less');
    expect((await read(unknown)).error).toMatchObject({
      code: -32003,
      data: { kind: 'resource', id: unknown },
    });
    expect((await read(tokenUri(await newProject(bob), 'css'))).error).toMatchObject({
      code: -32002,
    });
    expect((await read(tokenUri('proj_missing', 'css'))).error).toMatchObject({
      code: -32003,
      data: { kind: 'project', id: 'proj_missing' },
    });
  });

  it('tells a 2025-11-25 session subscribed to it when the tokens change (write and restore)', async () => {
    const projectId = await newProject();
    const uri = tokenUri(projectId, 'tailwind');
    const watching = ownPeer();
    await watching.initialize({ protocolVersion: '2025-11-25' });
    expect(await watching.result('resources/subscribe', { uri })).toEqual({});
    await write(projectId, { color: { text: { muted: { $value: srgb('#123456') } } } });
    await watching.settle();
    expect(watching.notifications).toEqual([
      { method: 'notifications/resources/updated', params: { uri } },
    ]);
    // What the news is about: the resource now reads as the new tokens.
    const reread = await watching.result<{ contents: { text: string }[] }>('resources/read', {
      uri,
    });
    expect(reread.contents[0]?.text).toContain('--color-text-muted: #123456;');

    await write(projectId, { color: { text: { muted: { $value: srgb('#abcdef') } } } });
    await ok('restore_design_tokens', { projectId, version: 1 });
    await watching.settle();
    expect(watching.notifications).toHaveLength(3);
  });

  it('tells a 2026-07-28 subscriptions/listen naming it when the tokens change', async () => {
    const projectId = await newProject();
    const uri = tokenUri(projectId, 'tailwind');
    const c = await connectWire(server, 'modern', { auth: aliceAuth });
    extra.push(c.peer);
    const listening = c.peer.send({
      jsonrpc: '2.0',
      id: 'tw',
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: [uri] },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'listener', version: '1.0.0' },
        },
      },
    });
    await c.peer.settle();
    await write(projectId, { color: { text: { muted: { $value: srgb('#123456') } } } });
    await c.peer.settle();
    expect(c.peer.notifications).toEqual([
      {
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { resourceSubscriptions: [uri] },
          _meta: { [META.subscriptionId]: 'tw' },
        },
      },
      {
        method: 'notifications/resources/updated',
        params: { uri, _meta: { [META.subscriptionId]: 'tw' } },
      },
    ]);
    expect(await c.problems()).toEqual([]);
    await c.peer.close();
    await expect(listening).resolves.toBeUndefined();
  });

  it('cannot be subscribed to for another user’s project, in either era', async () => {
    const projectId = await newProject();
    const uri = tokenUri(projectId, 'tailwind');
    const asBob = ownPeer(bobAuth);
    await asBob.initialize({ protocolVersion: '2025-11-25' });
    expect(await asBob.error('resources/subscribe', { uri })).toMatchObject({ code: -32002 });
    expect(asBob.session.subscriptions.size).toBe(0);

    const modern = await connectWire(server, 'modern', { auth: bobAuth });
    extra.push(modern.peer);
    void modern.peer.send({
      jsonrpc: '2.0',
      id: 'bob',
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: [uri] },
        _meta: {
          [META.protocolVersion]: '2026-07-28',
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'listener', version: '1.0.0' },
        },
      },
    });
    await modern.peer.settle();
    await write(projectId, { color: { text: { muted: { $value: srgb('#123456') } } } });
    await Promise.all([asBob.settle(), modern.peer.settle()]);
    expect(asBob.notifications).toEqual([]);
    // The listen is acknowledged with nothing it may hear of, and hears nothing.
    expect(modern.peer.notifications).toEqual([
      {
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { resourceSubscriptions: [] },
          _meta: { [META.subscriptionId]: 'bob' },
        },
      },
    ]);
  });

  // A URI nothing serves is refused everywhere: subscribing is reading.
  it('refuses a subscription to an unknown platform as not found, as reading it is', async () => {
    const projectId = await newProject();
    const unknown = tokenUri(projectId, 'less');
    const watching = ownPeer();
    await watching.initialize({ protocolVersion: '2025-11-25' });
    expect((await watching.request('resources/subscribe', { uri: unknown })).error).toMatchObject({
      code: -32003,
      data: { kind: 'resource', id: unknown },
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('check_color_contrast', () => {
  const check = (projectId: string, args: Json = {}, auth?: AuthInfo) =>
    ok<ContrastOut>('check_color_contrast', { projectId, ...args }, auth);
  const pair = (foreground: string, background: string) => ({ foreground, background });

  it('gives WCAG’s reference ratios for CSS colours, failures first', async () => {
    const projectId = await newProject();
    const out = await check(projectId, {
      pairs: [pair('#000000', '#ffffff'), pair('#777777', '#ffffff'), pair('#ffffff', '#ffffff')],
    });
    expect(out).toEqual({
      projectId,
      level: 'AA',
      largeText: false,
      required: 4.5,
      results: [
        {
          ...pair('#ffffff', '#ffffff'),
          ratio: 1,
          passes: false,
          aa: false,
          aaLarge: false,
          aaa: false,
          aaaLarge: false,
        },
        {
          ...pair('#777777', '#ffffff'),
          ratio: 4.48,
          passes: false,
          aa: false,
          aaLarge: true,
          aaa: false,
          aaaLarge: false,
        },
        {
          ...pair('#000000', '#ffffff'),
          ratio: 21,
          passes: true,
          aa: true,
          aaLarge: true,
          aaa: true,
          aaaLarge: true,
        },
      ],
      counts: { checked: 3, passing: 1, failing: 2 },
    });
  });

  it('reads token paths (aliases resolved, braces allowed) as the colours they hold', async () => {
    const projectId = await newProject();
    const out = await check(projectId, {
      pairs: [
        pair('color.text.default', 'color.surface.background'),
        pair('{color.text.muted}', '{color.surface.background}'),
        pair('color.action', 'color.surface.background'),
      ],
    });
    // Tailwind's gray-900, gray-500 and blue-600 on white: 17.74, 4.83 and 5.17.
    expect(out.results.map((r) => [r.foreground, r.background, r.ratio])).toEqual([
      ['{color.text.muted}', '{color.surface.background}', 4.83],
      ['color.action', 'color.surface.background', 5.17],
      ['color.text.default', 'color.surface.background', 17.74],
    ]);
    expect(out.counts).toEqual({ checked: 3, passing: 3, failing: 0 });
  });

  it('checks every text colour on every surface colour when no pairs are named', async () => {
    const projectId = await newProject();
    // The starter tokens: each colour under color.text on each under color.surface.
    const paths = [...flattenTokens(defaultTokens()).keys()];
    const under = (group: string) => paths.filter((p) => p.startsWith(`color.${group}.`));
    const starter = await check(projectId);
    expect(starter.results.map((r) => `${r.foreground} on ${r.background}`).sort()).toEqual(
      under('text')
        .flatMap((t) => under('surface').map((s) => `${t} on ${s}`))
        .sort(),
    );
    expect(starter.results).toContainEqual(
      expect.objectContaining({ foreground: 'color.text.muted', ratio: 4.83 }),
    );

    // A document of known colours: the brand colour is neither text nor surface.
    await write(
      projectId,
      {
        color: {
          $type: 'color',
          brand: { primary: { $value: srgb('#2563eb') } },
          text: {
            default: { $value: srgb('#000000') },
            muted: { $value: srgb('#777777') },
            inverse: { $value: srgb('#eeeeee') },
          },
          surface: {
            background: { $value: srgb('#ffffff') },
            card: { $value: srgb('#000000') },
          },
        },
      },
      'replace',
    );
    const out = await check(projectId);
    // Failures first, each group by ratio.
    expect(out.results.map((r) => [r.foreground, r.background, r.ratio, r.passes])).toEqual([
      ['color.text.default', 'color.surface.card', 1, false],
      ['color.text.inverse', 'color.surface.background', 1.16, false],
      ['color.text.muted', 'color.surface.background', 4.48, false],
      ['color.text.muted', 'color.surface.card', 4.69, true],
      ['color.text.inverse', 'color.surface.card', 18.1, true],
      ['color.text.default', 'color.surface.background', 21, true],
    ]);
    expect(out.counts).toEqual({ checked: 6, passing: 3, failing: 3 });
  });

  it('judges by the level and text size asked for', async () => {
    const projectId = await newProject();
    const pairs = [
      pair('#777777', '#ffffff'),
      pair('color.text.muted', 'color.surface.background'),
    ];
    const verdicts = async (args: Json) => {
      const out = await check(projectId, { pairs, ...args });
      return [out.level, out.largeText, out.required, out.results.map((r) => r.passes)];
    };
    expect(await verdicts({})).toEqual(['AA', false, 4.5, [false, true]]);
    expect(await verdicts({ largeText: true })).toEqual(['AA', true, 3, [true, true]]);
    expect(await verdicts({ level: 'AAA' })).toEqual(['AAA', false, 7, [false, false]]);
    expect(await verdicts({ level: 'AAA', largeText: true })).toEqual([
      'AAA',
      true,
      4.5,
      [false, true],
    ]);
    expect(await fails('check_color_contrast', { projectId, pairs, level: 'AAAA' })).toMatchObject({
      code: -32602,
      data: { field: 'level' },
    });
  });

  it('refuses a name that is neither a token of the project nor a CSS colour, naming the field', async () => {
    const projectId = await newProject();
    expect(
      await fails('check_color_contrast', {
        projectId,
        pairs: [pair('color.text.nope', 'color.surface.background')],
      }),
    ).toMatchObject({
      code: -32004,
      data: {
        field: 'pairs.0.foreground',
        error: "'color.text.nope' is neither a colour token of the project nor a CSS colour",
      },
    });
    expect(
      await fails('check_color_contrast', {
        projectId,
        pairs: [pair('#000000', '#ffffff'), pair('#000000', 'spacing.md')],
      }),
    ).toMatchObject({ code: -32004, data: { field: 'pairs.1.background' } });
    expect(
      await fails('check_color_contrast', { projectId, pairs: [pair('', '#ffffff')] }),
    ).toMatchObject({ code: -32602, data: { field: 'pairs.0.foreground' } });
  });

  it('lays a translucent text colour over its background before measuring', async () => {
    const projectId = await newProject();
    await write(projectId, { color: { text: { ghost: { $value: srgb('#000000', 0.5) } } } });
    const out = await check(projectId, {
      pairs: [
        pair('color.text.ghost', 'color.surface.background'),
        pair('#000000', '#ffffff'),
        // Black at half opacity over white is sRGB middle grey.
        pair('color(srgb 0.5 0.5 0.5)', '#ffffff'),
        pair('rgb(0 0 0 / 0.5)', '#ffffff'),
      ],
    });
    const ratio = (fg: string) => out.results.find((r) => r.foreground === fg)?.ratio;
    expect(ratio('color.text.ghost')).toBe(3.98);
    expect(ratio('color(srgb 0.5 0.5 0.5)')).toBe(3.98);
    expect(ratio('rgb(0 0 0 / 0.5)')).toBe(3.98);
    expect(ratio('#000000')).toBe(21);
    // A translucent background is laid over the page (white): black on middle grey.
    const under = await check(projectId, { pairs: [pair('#000000', 'rgb(0 0 0 / 0.5)')] });
    expect(under.results[0]?.ratio).toBe(5.28);
  });

  // What a screen paints: colours outside sRGB are mapped into it before measuring.
  it('measures a colour brighter than white as the white it is painted as', async () => {
    const out = await check(await newProject(), {
      pairs: [pair('color(srgb 2 2 2)', '#777777')],
    });
    expect(out.results[0]).toMatchObject({ ratio: 4.48, passes: false });
  });

  it('refuses another user’s project and a missing one', async () => {
    expect(await fails('check_color_contrast', { projectId: await newProject(bob) })).toMatchObject(
      { code: -32002 },
    );
    expect(await fails('check_color_contrast', { projectId: 'proj_missing' })).toMatchObject({
      code: -32003,
      data: { kind: 'project', id: 'proj_missing' },
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('design-token history', () => {
  const color = (hex: string) => ({ $value: srgb(hex) });
  const rem = (value: number) => ({ $value: { value, unit: 'rem' } });
  /** Version 1: a, b and s; 2: a changed; 3: b gone, c added, s changed. */
  const V1 = {
    color: { $type: 'color', a: color('#ff0000'), b: color('#0000ff') },
    size: { $type: 'dimension', s: rem(1) },
  };
  const V3 = {
    color: { $type: 'color', a: color('#00ff00'), c: color('#000000') },
    size: { $type: 'dimension', s: rem(2) },
  };

  /** A project with the three versions above. */
  async function threeVersions() {
    const projectId = await newProject();
    const versions = [
      await write(projectId, V1, 'replace'),
      await write(projectId, { color: { a: color('#00ff00') } }),
      await write(projectId, V3, 'replace'),
    ];
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
    return projectId;
  }

  it('lists the versions newest first, each with its author', async () => {
    const projectId = await threeVersions();
    const { versions } = await ok<{ versions: VersionOut[] }>('list_design_token_versions', {
      projectId,
    });
    expect(versions).toEqual(
      [3, 2, 1].map((version) => ({
        version,
        createdAt: expect.any(String),
        author: alice.id,
        note: null,
      })),
    );
    // Paginated: the newest, then the rest.
    const first = await ok<{ versions: VersionOut[]; nextCursor?: string }>(
      'list_design_token_versions',
      { projectId, limit: 1 },
    );
    expect(first.versions.map((v) => v.version)).toEqual([3]);
    const rest = await ok<{ versions: VersionOut[] }>('list_design_token_versions', {
      projectId,
      cursor: first.nextCursor,
    });
    expect(rest.versions.map((v) => v.version)).toEqual([2, 1]);
    // A project never written has no history.
    expect(await ok('list_design_token_versions', { projectId: await newProject() })).toEqual({
      versions: [],
    });
  });

  it('diffs two versions: added, removed and changed tokens with old and new values', async () => {
    const projectId = await threeVersions();
    const diff = await ok<DiffOut>('diff_design_tokens', { projectId, from: 1, to: 3 });
    expect(diff).toEqual({
      projectId,
      from: 1,
      to: 3,
      added: [{ path: 'color.c', type: 'color', value: srgb('#000000') }],
      removed: [{ path: 'color.b', type: 'color', value: srgb('#0000ff') }],
      changed: [
        {
          path: 'color.a',
          changes: ['value'],
          from: { type: 'color', value: srgb('#ff0000') },
          to: { type: 'color', value: srgb('#00ff00') },
        },
        {
          path: 'size.s',
          changes: ['value'],
          from: { type: 'dimension', value: { value: 1, unit: 'rem' } },
          to: { type: 'dimension', value: { value: 2, unit: 'rem' } },
        },
      ],
      counts: { added: 1, removed: 1, changed: 2, unchanged: 0 },
    });
    // `to` defaults to the current version.
    expect(await ok<DiffOut>('diff_design_tokens', { projectId, from: 2 })).toMatchObject({
      from: 2,
      to: 3,
      added: [{ path: 'color.c' }],
      removed: [{ path: 'color.b' }],
      changed: [{ path: 'size.s' }],
      counts: { added: 1, removed: 1, changed: 1, unchanged: 1 },
    });
  });

  it('diffs version 0 as the starter tokens', async () => {
    const projectId = await newProject();
    await write(projectId, {
      spacing: { xl: rem(3) },
      color: { text: { muted: color('#123456') } },
    });
    const diff = await ok<DiffOut>('diff_design_tokens', { projectId, from: 0 });
    const starter = flattenTokens(defaultTokens());
    expect(diff).toEqual({
      projectId,
      from: 0,
      to: 1,
      added: [{ path: 'spacing.xl', type: 'dimension', value: { value: 3, unit: 'rem' } }],
      removed: [],
      changed: [
        {
          path: 'color.text.muted',
          changes: ['value'],
          from: { type: 'color', value: starter.get('color.text.muted')?.value },
          to: { type: 'color', value: srgb('#123456') },
        },
      ],
      counts: { added: 1, removed: 0, changed: 1, unchanged: starter.size - 1 },
    });
    // From the starter tokens to themselves: nothing.
    expect((await ok<DiffOut>('diff_design_tokens', { projectId, from: 0, to: 0 })).counts).toEqual(
      { added: 0, removed: 0, changed: 0, unchanged: starter.size },
    );
  });

  it('answers a version that does not exist with not found', async () => {
    const projectId = await threeVersions();
    const missing = {
      code: -32003,
      data: { kind: 'resource', id: `${projectId} design tokens version 9` },
    };
    expect(await fails('diff_design_tokens', { projectId, from: 9 })).toMatchObject(missing);
    expect(await fails('diff_design_tokens', { projectId, from: 1, to: 9 })).toMatchObject(missing);
    expect(await fails('restore_design_tokens', { projectId, version: 9 })).toMatchObject(missing);
    expect(await fails('diff_design_tokens', { projectId, from: -1 })).toMatchObject({
      code: -32602,
      data: { field: 'from' },
    });
    expect(await fails('restore_design_tokens', { projectId, version: 0 })).toMatchObject({
      code: -32602,
      data: { field: 'version' },
    });
    // The refused restore wrote nothing.
    const { versions } = await ok<{ versions: VersionOut[] }>('list_design_token_versions', {
      projectId,
    });
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('restores an earlier version as a new one, noted, its tokens current again', async () => {
    const projectId = await threeVersions();
    await build(projectId, 'json');
    const restored = await ok<Json>('restore_design_tokens', { projectId, version: 1 });
    expect(restored).toEqual({
      projectId,
      version: 4,
      restored: 1,
      updatedAt: expect.any(String),
    });
    const { versions } = await ok<{ versions: VersionOut[] }>('list_design_token_versions', {
      projectId,
    });
    expect(versions[0]).toEqual({
      version: 4,
      createdAt: restored.updatedAt,
      author: alice.id,
      note: 'restored version 1',
    });
    const system = await ok<{ tokens: Json; version: number }>('get_design_system', {
      projectId,
    });
    expect(system.version).toBe(4);
    expect(stored(system.tokens)).toEqual(V1);
    expect((await ok<DiffOut>('diff_design_tokens', { projectId, from: 1 })).counts).toEqual({
      added: 0,
      removed: 0,
      changed: 0,
      unchanged: 3,
    });
    // The build is version 1's tokens again: b is back, c gone.
    const json = await build(projectId, 'json');
    expect(json.version).toBe(4);
    expect(Object.keys(JSON.parse(json.files[0]?.contents ?? '{}'))).toEqual([
      'color-a',
      'color-b',
      'size-s',
    ]);
  });

  it('restores only with scope write', async () => {
    const projectId = await threeVersions();
    expect(
      await fails('restore_design_tokens', { projectId, version: 1 }, readerAuth),
    ).toMatchObject({ code: -32002, data: { reason: "API key lacks scope 'write'" } });
    // Reading the history is reading.
    const { versions } = await ok<{ versions: VersionOut[] }>(
      'list_design_token_versions',
      { projectId },
      readerAuth,
    );
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    const system = await ok<{ tokens: Json; version: number }>('get_design_system', { projectId });
    expect([system.version, stored(system.tokens)]).toEqual([3, V3]);
  });

  it('refuses another user’s project and a missing one, for each history tool', async () => {
    const bobs = await newProject(bob);
    for (const [tool, args] of [
      ['list_design_token_versions', {}],
      ['diff_design_tokens', { from: 0 }],
      ['restore_design_tokens', { version: 1 }],
    ] as const) {
      expect(await fails(tool, { projectId: bobs, ...args }), tool).toMatchObject({
        code: -32002,
        data: { reason: 'project belongs to another user' },
      });
      expect(await fails(tool, { projectId: 'proj_missing', ...args }), tool).toMatchObject({
        code: -32003,
        data: { kind: 'project', id: 'proj_missing' },
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(['legacy', 'modern'] as const)(
  'the design-token tools on the wire (%s era)',
  (era: WireEra) => {
    it('answer within the schema, and each failure with the code of its era', async () => {
      const c = await connectWire(server, era, { auth: aliceAuth });
      extra.push(c.peer);
      const legacy = era === 'legacy';
      const code = async (name: string, args: Json) =>
        (await c.error('tools/call', { name, arguments: args }))?.code;
      const projectId = await newProject();
      await write(projectId, { color: { text: { muted: { $value: srgb('#123456') } } } });
      for (const [name, args] of [
        ['build_design_tokens', { projectId, platform: 'js' }],
        ['check_color_contrast', { projectId }],
        ['list_design_token_versions', { projectId }],
        ['diff_design_tokens', { projectId, from: 0 }],
        ['restore_design_tokens', { projectId, version: 1 }],
      ] as const) {
        expect(await code(name, args), name).toBeUndefined();
      }
      expect(
        (await c.send('resources/read', { uri: tokenUri(projectId, 'js') })).error,
      ).toBeUndefined();

      const bobs = await newProject(bob);
      expect(await code('build_design_tokens', { projectId: bobs, platform: 'css' })).toBe(
        legacy ? -32002 : -32600,
      );
      expect(
        await code('build_design_tokens', { projectId: 'proj_missing', platform: 'css' }),
      ).toBe(legacy ? -32003 : -32602);
      expect(await code('build_design_tokens', { projectId, platform: 'less' })).toBe(-32602);
      expect(
        await code('check_color_contrast', {
          projectId,
          pairs: [{ foreground: 'nope', background: '#fff' }],
        }),
      ).toBe(legacy ? -32004 : -32602);
      expect(await code('diff_design_tokens', { projectId, from: 99 })).toBe(
        legacy ? -32003 : -32602,
      );
      expect((await c.error('resources/read', { uri: tokenUri(projectId, 'less') }))?.code).toBe(
        legacy ? -32003 : -32602,
      );
      expect((await c.error('resources/read', { uri: tokenUri(bobs, 'css') }))?.code).toBe(
        legacy ? -32002 : -32600,
      );
      const reader = await connectWire(server, era, { auth: readerAuth });
      extra.push(reader.peer);
      expect(
        (
          await reader.error('tools/call', {
            name: 'restore_design_tokens',
            arguments: { projectId, version: 1 },
          })
        )?.code,
      ).toBe(legacy ? -32002 : -32600);
      expect([...(await c.problems()), ...(await reader.problems())]).toEqual([]);
    });
  },
);

describe('contrast of many colours', () => {
  it('300 text colours on 300 surfaces (90,000 pairs): the first 2,500 checked, 100 in the view’s report', async () => {
    const projectId = await newProject();
    const text: Json = {};
    const surface: Json = {};
    for (let i = 0; i < 300; i++) {
      text[`t${i}`] = { $value: srgb(`#${(i * 37).toString(16).padStart(6, '0')}`) };
      surface[`s${i}`] = { $value: srgb(`#ff${(i * 53).toString(16).padStart(4, '0')}`) };
    }
    await write(projectId, { color: { $type: 'color', text, surface } }, 'replace');
    const checked = await ok<{ results: Json[]; counts: { checked: number } }>(
      'check_color_contrast',
      { projectId },
    );
    expect(checked.counts.checked).toBe(MAX_PAIRS);
    expect(checked.results).toHaveLength(MAX_PAIRS);
    const shown = await ok<{ contrast: Json[] }>('get_design_system', { projectId });
    expect(shown.contrast).toHaveLength(100);
  });
});
