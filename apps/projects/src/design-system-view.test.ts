import { type AuthInfo, type CallToolResult, TASKS_EXTENSION } from '@mcpkit/protocol';
import { connectRaw, removeTempDirs } from '@mcpkit/testing';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempStore } from '../test/helpers.js';
import { authInfo } from './auth.js';
import type { Store } from './db/types.js';
import { DEMO_EMAIL, seedDemo } from './demo.js';
import { DESIGN_SYSTEM_VIEW_URI, UI_EXTENSION, UI_MIME_TYPE } from './design-system-view.js';
import { generateKey } from './keys.js';
import { createProjectsServer } from './server.js';

const VIEW = '<!doctype html><html><head></head><body>view</body></html>';
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };

let store: Store;
let auth: AuthInfo;
let projectId: string;

beforeAll(async () => {
  ({ store } = await tempStore());
  const { user } = await seedDemo(store);
  const { prefix, hash } = generateKey();
  auth = authInfo(await store.createApiKey(user.id, prefix, hash, ['read']), user);
  projectId = (await store.listProjects(user.id, { limit: 1 })).items[0]?.id ?? '';
  expect(user.email).toBe(DEMO_EMAIL);
});
afterAll(async () => {
  await store.close();
  removeTempDirs();
});

async function peer(capabilities?: Record<string, unknown>, load = async () => VIEW) {
  const p = connectRaw(createProjectsServer({ store, loadDesignSystemView: load }), { auth });
  await p.initialize(capabilities ? { capabilities } : {});
  return p;
}

const uris = (list: { resources: { uri: string }[] }) => list.resources.map((r) => r.uri);

describe('the design-system view (MCP Apps)', () => {
  it("uses the ext-apps SDK's MIME type", () => {
    expect(UI_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
  });

  it('is declared, linked from get_design_system, and listed only to hosts with the extension', async () => {
    const host = connectRaw(
      createProjectsServer({ store, loadDesignSystemView: async () => VIEW }),
      { auth },
    );
    const init = await host.initialize({ capabilities: UI_CAPS });
    const plain = await peer();
    expect(
      (init.result as { capabilities: Record<string, unknown> }).capabilities.extensions,
    ).toEqual({ ...UI_CAPS.extensions, [TASKS_EXTENSION]: {} });
    const hostList = await host.result<{ resources: Record<string, unknown>[] }>('resources/list');
    expect(hostList.resources).toContainEqual(
      expect.objectContaining({
        uri: DESIGN_SYSTEM_VIEW_URI,
        mimeType: UI_MIME_TYPE,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      }),
    );
    // Everyone else gets the one concrete resource (the design-system template is listed by
    // resources/templates/list only: a Resource's uri must be a URI).
    expect(uris(await plain.result('resources/list'))).toEqual(['codefluss://projects']);
    const { tools } = await plain.result<{ tools: { name: string; _meta?: unknown }[] }>(
      'tools/list',
    );
    expect(tools.filter((t) => t._meta !== undefined)).toEqual([
      expect.objectContaining({
        name: 'get_design_system',
        _meta: { ui: { resourceUri: DESIGN_SYSTEM_VIEW_URI } },
      }),
    ]);
  });

  it('lists it for a 2026-07-28 request that declares the extension', async () => {
    const p = connectRaw(createProjectsServer({ store, loadDesignSystemView: async () => VIEW }), {
      auth,
    });
    const list = (capabilities: Record<string, unknown>) =>
      p.result<{ resources: { uri: string }[] }>('resources/list', {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      });
    expect(uris(await list(UI_CAPS))).toContain(DESIGN_SYSTEM_VIEW_URI);
    expect(uris(await list({}))).not.toContain(DESIGN_SYSTEM_VIEW_URI);
  });

  it('is readable by any client, with its CSP on the contents', async () => {
    const read = await (await peer()).result<{ contents: Record<string, unknown>[] }>(
      'resources/read',
      { uri: DESIGN_SYSTEM_VIEW_URI },
    );
    expect(read.contents).toEqual([
      {
        uri: DESIGN_SYSTEM_VIEW_URI,
        mimeType: UI_MIME_TYPE,
        text: VIEW,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
  });

  it('answers a clear error while the view is not built, and serves it once it is', async () => {
    let built = false;
    const p = await peer(UI_CAPS, async () => {
      if (!built) throw new Error('ENOENT: dist/views/design-system.html');
      return VIEW;
    });
    const error = await p.error('resources/read', { uri: DESIGN_SYSTEM_VIEW_URI });
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/design-system view is not built/);
    built = true;
    const read = await p.result<{ contents: { text: string }[] }>('resources/read', {
      uri: DESIGN_SYSTEM_VIEW_URI,
    });
    expect(read.contents[0]?.text).toBe(VIEW);
  });

  it('leaves get_design_system answering exactly what it answered', async () => {
    const call = async (p: Awaited<ReturnType<typeof peer>>) =>
      p.result<CallToolResult>('tools/call', {
        name: 'get_design_system',
        arguments: { projectId },
      });
    const a = await call(await peer());
    const b = await call(await peer(UI_CAPS));
    expect(a).toEqual(b);
    expect(a._meta).toBeUndefined();
    expect(a.structuredContent).toMatchObject({ projectId });
  });
});
