/**
 * Modes through the tools: a light/dark resolver set with update_design_token_modes, then builds
 * (every mode, or one), contrast per mode, a token write that would break a mode, bad inputs,
 * removing and restoring modes. Token builds run in the built worker: `pnpm build` first.
 */
import type { McpServer } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, type RawReply } from '@mcpkit/testing';
import { transform } from 'lightningcss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authInfo } from '../src/auth.js';
import type { Store } from '../src/db/types.js';
import { generateKey } from '../src/keys.js';
import { createProjectsServer } from '../src/server.js';
import { tempStore } from './helpers.js';

type Json = Record<string, unknown>;
type RpcReply = RawReply<Json> & { error?: { code: number; data?: Json } };

let store: Store;
let server: McpServer;
let peer: RawPeer;
let readOnly: RawPeer;

const srgb = (r: number, g: number, b: number) => ({ colorSpace: 'srgb', components: [r, g, b] });

/** Light and dark: the dark context re-points the surface and the text. */
const MODES = {
  version: '2025.10',
  modifiers: {
    theme: {
      contexts: {
        light: [],
        dark: [
          {
            color: {
              surface: { background: { $value: srgb(0.07, 0.07, 0.07) } },
              // Muted text kept as in light mode: grey on near-black, too little contrast.
              text: {
                default: { $value: srgb(0.95, 0.95, 0.95) },
                muted: { $value: srgb(0.3, 0.3, 0.3) },
              },
            },
          },
        ],
      },
      default: 'light',
    },
  },
  resolutionOrder: [{ $ref: '#/modifiers/theme' }],
};

beforeAll(async () => {
  ({ store } = await tempStore());
  server = createProjectsServer({ store });
  const connect = async (email: string, scopes: ('read' | 'write')[]) => {
    const user = await store.createUser(email);
    const { prefix, hash } = generateKey();
    return connectRaw(server, {
      auth: authInfo(await store.createApiKey(user.id, prefix, hash, scopes), user),
    });
  };
  peer = await connect('modes@example.com', ['read', 'write']);
  readOnly = await connect('reader@example.com', ['read']);
});

afterAll(async () => {
  await peer.close();
  await readOnly.close();
  await store.close();
});

const call = (name: string, args: Json, on = peer) =>
  on.request('tools/call', { name, arguments: args }) as Promise<RpcReply>;

async function ok<T = Json>(name: string, args: Json): Promise<T> {
  const reply = await call(name, args);
  expect(reply.error, `${name}: ${JSON.stringify(reply.error)}`).toBeUndefined();
  expect(reply.result?.isError, JSON.stringify(reply.result)).toBe(false);
  return reply.result?.structuredContent as T;
}

async function newProject(): Promise<string> {
  return (await ok<{ id: string }>('create_project', { name: 'Modes' })).id;
}

interface Built {
  files: { name: string; contents: string; mode?: string }[];
}

/** The selectors lightningcss finds rules under, and their custom properties. */
function rules(css: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const { code } = transform({
    filename: 'x.css',
    code: Buffer.from(css),
    errorRecovery: false,
    minify: false,
  });
  for (const [, selector, body] of code.toString().matchAll(/^([^{}\n]+) \{\n([^}]*)\}/gm)) {
    const props = new Map<string, string>();
    for (const [, name, value] of (body ?? '').matchAll(/^\s+(--[\w-]+): (.*);$/gm)) {
      props.set(name as string, value as string);
    }
    out.set((selector ?? '').trim(), props);
  }
  return out;
}

describe('modes', () => {
  it('are set, shown, and built for every mode: defaults under :root, the rest by selector', async () => {
    const id = await newProject();
    const before = await ok<{ version: number }>('get_design_system', { projectId: id });
    const set = await ok<{ version: number; modes: Json[] }>('update_design_token_modes', {
      projectId: id,
      resolver: MODES,
    });
    expect(set.modes).toEqual([{ name: 'theme', contexts: ['light', 'dark'], default: 'light' }]);
    expect(set.version).toBe(before.version + 1);
    const shown = await ok<{ modes: Json[]; resolver: Json }>('get_design_system', {
      projectId: id,
    });
    expect(shown.modes).toEqual(set.modes);
    expect(shown.resolver).toEqual(MODES);

    const all = await ok<Built>('build_design_tokens', { projectId: id, platform: 'css' });
    expect(all.files.map((f) => [f.name, f.mode])).toEqual([
      ['tokens.css', 'theme=light'],
      ['tokens.theme-dark.css', 'theme=dark'],
    ]);
    const css = rules(all.files.map((f) => f.contents).join('\n'));
    expect(css.get(':root')?.get('--color-surface-background')).toBe('#fff');
    expect(css.get('[data-theme="dark"]')?.get('--color-surface-background')).toBe('#121212');

    // One mode: a whole build of its own, under :root.
    const dark = await ok<Built>('build_design_tokens', {
      projectId: id,
      platform: 'css',
      mode: { Theme: 'DARK' },
    });
    expect(dark.files.map((f) => f.name)).toEqual(['tokens.css']);
    expect(
      rules(dark.files[0]?.contents ?? '')
        .get(':root')
        ?.get('--color-surface-background'),
    ).toBe('#121212');

    const tailwind = await ok<Built>('build_design_tokens', {
      projectId: id,
      platform: 'tailwind',
    });
    expect(tailwind.files[0]?.contents).toContain('@theme {');
    expect(tailwind.files[1]?.contents).toContain('[data-theme="dark"] {');
    const swift = await ok<Built>('build_design_tokens', { projectId: id, platform: 'swift' });
    expect(swift.files[1]?.contents).toContain('public class DesignTokensThemeDark');
  });

  it('contrast is checked in every mode, or the one named', async () => {
    const id = await newProject();
    await ok('update_design_token_modes', { projectId: id, resolver: MODES });
    const all = await ok<{ results: Json[]; counts: Json }>('check_color_contrast', {
      projectId: id,
    });
    const failing = all.results
      .filter((r) => r.passes === false)
      .map((r) => `${r.foreground} ${r.mode}`);
    // Muted text fails in dark mode only; the starter's subtle text is below AA on white.
    expect(failing).toContain('color.text.muted theme=dark');
    expect(failing).not.toContain('color.text.muted theme=light');
    expect(failing).toContain('color.text.subtle theme=light');
    // Three text colours on one surface, in two modes.
    expect(all.counts).toMatchObject({ checked: 6 });
    const light = await ok<{ results: Json[] }>('check_color_contrast', {
      projectId: id,
      mode: { theme: 'light' },
    });
    expect(light.results.map((r) => r.mode)).toEqual(['theme=light', 'theme=light', 'theme=light']);
  });

  it('a token write that breaks a mode is refused, naming the mode', async () => {
    const id = await newProject();
    const resolver = {
      version: '2025.10',
      modifiers: {
        theme: {
          contexts: {
            light: [],
            dark: [{ color: { action: { $value: '{color.brand.secondary}' } } }],
          },
          default: 'light',
        },
      },
      resolutionOrder: [{ $ref: '#/modifiers/theme' }],
    };
    const { version } = await ok<{ version: number }>('update_design_token_modes', {
      projectId: id,
      resolver,
    });
    // Without color.brand.secondary the dark mode's alias has no target.
    const reply = await call('update_design_tokens', {
      projectId: id,
      mode: 'replace',
      tokens: {
        color: {
          $type: 'color',
          brand: { primary: { $value: srgb(0, 0, 1) } },
          action: { $value: '{color.brand.primary}' },
        },
      },
    });
    expect(reply.error?.code).toBe(-32004);
    expect(reply.error?.data).toMatchObject({
      field: 'tokens.color.action',
      error: 'in mode theme=dark: references {color.brand.secondary}, which does not exist',
    });
    // Nothing was written.
    expect((await ok<{ version: number }>('get_design_system', { projectId: id })).version).toBe(
      version,
    );
  });

  it('refuses bad resolvers, bad modes and modes where there are none', async () => {
    const id = await newProject();
    const bad = await call('update_design_token_modes', {
      projectId: id,
      resolver: {
        version: '2025.10',
        modifiers: { theme: { contexts: { light: [] } } },
        resolutionOrder: [{ $ref: '#/modifiers/theme' }],
      },
    });
    expect(bad.error).toMatchObject({
      code: -32004,
      data: {
        field: 'resolver.modifiers.theme.contexts',
        error: 'a modifier has at least 2 contexts (one is a set)',
      },
    });
    const noModes = await call('build_design_tokens', {
      projectId: id,
      platform: 'css',
      mode: { theme: 'dark' },
    });
    expect(noModes.error).toMatchObject({ code: -32602, data: { field: 'mode' } });
    await ok('update_design_token_modes', { projectId: id, resolver: MODES });
    const blue = await call('build_design_tokens', {
      projectId: id,
      platform: 'css',
      mode: { theme: 'blue' },
    });
    expect(blue.error).toMatchObject({
      code: -32602,
      data: {
        field: 'mode.theme',
        error: 'invalid context "blue" for modifier "theme"; contexts: light, dark',
      },
    });
    const unknown = await call('check_color_contrast', { projectId: id, mode: { size: 'large' } });
    expect(unknown.error).toMatchObject({ code: -32602, data: { field: 'mode.size' } });
    const denied = await call(
      'update_design_token_modes',
      { projectId: id, resolver: null },
      readOnly,
    );
    expect(denied.error?.code).toBe(-32002);
  });

  it('are removed with null and come back with a restore', async () => {
    const id = await newProject();
    const set = await ok<{ version: number }>('update_design_token_modes', {
      projectId: id,
      resolver: MODES,
    });
    const removed = await ok<{ version: number; modes: Json[] }>('update_design_token_modes', {
      projectId: id,
      resolver: null,
    });
    expect(removed).toMatchObject({ version: set.version + 1, modes: [] });
    const plain = await ok<Built>('build_design_tokens', { projectId: id, platform: 'css' });
    expect(plain.files.map((f) => [f.name, f.mode])).toEqual([['tokens.css', undefined]]);
    const history = await ok<{ versions: Json[] }>('list_design_token_versions', { projectId: id });
    expect(history.versions.slice(0, 2).map((v) => v.note)).toEqual([
      'modes removed',
      'modes changed',
    ]);
    await ok('restore_design_tokens', { projectId: id, version: set.version });
    const back = await ok<{ modes: Json[]; version: number }>('get_design_system', {
      projectId: id,
    });
    expect(back).toMatchObject({
      version: removed.version + 1,
      modes: [expect.objectContaining({ name: 'theme' })],
    });
  });
});
