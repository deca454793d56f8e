import { TASKS_EXTENSION } from '@mcpkit/protocol';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps';
import { describe, expect, it } from 'vitest';
import { connect, NOW, normalMachine } from '../test/fixtures.js';
import {
  CONFIG_PLACEHOLDER,
  DASHBOARD_URI,
  type DashboardConfig,
  refreshIntervals,
  renderDashboard,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from './dashboard.js';
import { ALERTS_URI } from './resources.js';
import type { Scope } from './scopes.js';
import { createSystemInfoServer, type SystemInfoOptions } from './server.js';

const TEMPLATE = `<!doctype html><html><head>${CONFIG_PLACEHOLDER}</head><body></body></html>`;
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };

function server(scopes: Scope[], extra: Partial<SystemInfoOptions> = {}) {
  return createSystemInfoServer({
    collectors: normalMachine(),
    scopes,
    sampler: { now: () => NOW },
    warm: false,
    loadDashboard: async () => TEMPLATE,
    ...extra,
  }).server;
}

/** The config a read of the dashboard carries. */
function configOf(read: { contents: { text?: string }[] }): DashboardConfig {
  const text = read.contents[0]?.text ?? '';
  const json = /<script type="application\/json" id="config">(.*?)<\/script>/.exec(text)?.[1];
  return JSON.parse(json ?? 'null') as DashboardConfig;
}

describe('MCP Apps declarations', () => {
  it("match the ext-apps SDK's constants", () => {
    expect(UI_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(RESOURCE_URI_META_KEY).toBe('ui/resourceUri'); // the legacy flat key we do not use
    expect(DASHBOARD_URI.startsWith('ui://')).toBe(true);
  });

  it('declares the extension, lists the view with its CSP, and links five tools to it', async () => {
    const c = connect(server(['core']));
    const init = await c.peer.initialize({ capabilities: UI_CAPS });
    const caps = (init.result as { capabilities: Record<string, unknown> }).capabilities;
    // Besides the tasks extension (measure_system runs as a task for clients that can).
    expect(caps.extensions).toEqual({ ...UI_CAPS.extensions, [TASKS_EXTENSION]: {} });
    const { resources } = await c.peer.result<{ resources: Record<string, unknown>[] }>(
      'resources/list',
    );
    expect(resources).toEqual([
      expect.objectContaining({ uri: ALERTS_URI, mimeType: 'application/json' }),
      expect.objectContaining({
        uri: DASHBOARD_URI,
        mimeType: UI_MIME_TYPE,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      }),
    ]);
    const { tools } = await c.peer.result<{ tools: { name: string; _meta?: unknown }[] }>(
      'tools/list',
    );
    const linked = tools.filter((t) => t._meta !== undefined);
    expect(linked.map((t) => t.name).sort()).toEqual([
      'get_cpu_info',
      'get_memory_info',
      'get_metric_history',
      'get_processes',
      'get_system_snapshot',
    ]);
    for (const t of linked) expect(t._meta).toEqual({ ui: { resourceUri: DASHBOARD_URI } });
  });

  it('lists the view only to a client that declared the extension; the tools link it for all', async () => {
    const plain = connect(server(['core']));
    await plain.peer.initialize();
    const listed = await plain.peer.result<{ resources: { uri: string }[] }>('resources/list');
    expect(listed.resources.map((r) => r.uri)).not.toContain(DASHBOARD_URI);
    // As projects' view: the link stays in tools/list (clients without the extension ignore it)
    // and the view stays readable by URI.
    const { tools } = await plain.peer.result<{ tools: { name: string; _meta?: unknown }[] }>(
      'tools/list',
    );
    expect(tools.find((t) => t.name === 'get_cpu_info')?._meta).toEqual({
      ui: { resourceUri: DASHBOARD_URI },
    });
    const read = await plain.peer.result<{ contents: { uri: string }[] }>('resources/read', {
      uri: DASHBOARD_URI,
    });
    expect(read.contents[0]?.uri).toBe(DASHBOARD_URI);
  });

  it('lists it for a 2026-07-28 request that declares the extension, and only then', async () => {
    const c = connect(server(['core']));
    const list = (capabilities: Record<string, unknown>) =>
      c.peer.result<{ resources: { uri: string }[] }>('resources/list', {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      });
    expect((await list(UI_CAPS)).resources.map((r) => r.uri)).toEqual([ALERTS_URI, DASHBOARD_URI]);
    expect((await list({})).resources.map((r) => r.uri)).toEqual([ALERTS_URI]);
  });

  it('answers a client without the extension exactly what it answers a host with it', async () => {
    const plain = connect(server(['core']));
    await plain.peer.initialize();
    const host = connect(server(['core']));
    await host.peer.initialize({ capabilities: UI_CAPS });
    for (const [name, args] of [
      ['get_system_snapshot', {}],
      ['get_cpu_info', { per_cpu: true }],
      ['get_memory_info', {}],
      ['get_processes', { top: 3 }],
    ] as const) {
      const a = await plain.result(name, args);
      const b = await host.result(name, args);
      expect(a).toEqual(b);
      // The link lives in tools/list only: results carry no UI metadata.
      expect(a._meta).toBeUndefined();
      expect(a.structuredContent).toBeDefined();
    }
  });
});

describe('the dashboard resource', () => {
  it('tells the view the refresh intervals of the sampler tiers', async () => {
    const c = connect(server(['core'], { sampler: { now: () => NOW, ttlMs: { dynamic: 5_000 } } }));
    const read = await c.peer.result<{ contents: { text: string; mimeType: string }[] }>(
      'resources/read',
      { uri: DASHBOARD_URI },
    );
    expect(read.contents[0]?.mimeType).toBe(UI_MIME_TYPE);
    expect(configOf(read)).toEqual({ dynamicMs: 5_000, semiMs: 30_000, sensitive: false });
  });

  it('lets the view show sensitive readings only to a caller that holds the scope', async () => {
    const read = async (scopes: Scope[], granted?: string[]) => {
      const s = server(scopes);
      const c = connect(s, granted ? { subject: 'test', scopes: new Set(granted) } : undefined);
      return configOf(
        await c.peer.result<{ contents: { text: string }[] }>('resources/read', {
          uri: DASHBOARD_URI,
        }),
      ).sensitive;
    };
    expect(await read(['core'])).toBe(false);
    expect(await read(['core', 'sensitive'])).toBe(true);
    expect(await read(['core', 'sensitive'], ['core'])).toBe(false);
    expect(await read(['core', 'sensitive'], ['core', 'sensitive'])).toBe(true);
    expect(await read(['core'], ['core', 'sensitive'])).toBe(false);
  });

  it('answers a clear error while the view is not built, and serves it once it is', async () => {
    let built = false;
    const c = connect(
      server(['core'], {
        loadDashboard: async () => {
          if (!built) throw new Error('ENOENT: no such file dist/views/dashboard.html');
          return TEMPLATE;
        },
      }),
    );
    const error = await c.peer.error('resources/read', { uri: DASHBOARD_URI });
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/dashboard view is not built/);
    built = true;
    const read = await c.peer.result<{ contents: { text: string }[] }>('resources/read', {
      uri: DASHBOARD_URI,
    });
    expect(configOf(read).dynamicMs).toBe(2_000);
  });

  it('refuses a view without the config placeholder', async () => {
    const c = connect(server(['core'], { loadDashboard: async () => '<html></html>' }));
    const error = await c.peer.error('resources/read', { uri: DASHBOARD_URI });
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/dashboard view is malformed/);
  });
});

describe('refreshIntervals', () => {
  it('refreshes each tier once per TTL, never faster than 2 s, static never', () => {
    expect(refreshIntervals()).toEqual({ dynamicMs: 2_000, semiMs: 30_000 });
    expect(refreshIntervals({ dynamic: 10_000, semi: 60_000 })).toEqual({
      dynamicMs: 10_000,
      semiMs: 60_000,
    });
    expect(refreshIntervals({ dynamic: 0 })).toEqual({ dynamicMs: 2_000, semiMs: 30_000 });
    expect(refreshIntervals({ semi: Number.POSITIVE_INFINITY }).semiMs).toBe(0);
  });
});

describe('renderDashboard', () => {
  it('writes the config as JSON that cannot close its script element', () => {
    const html = renderDashboard(TEMPLATE, { dynamicMs: 1, semiMs: 2, sensitive: false });
    expect(html).toContain('{"dynamicMs":1,"semiMs":2,"sensitive":false}');
    const hostile = renderDashboard(TEMPLATE, {
      dynamicMs: 1,
      semiMs: 2,
      sensitive: false,
      extra: '</script><script>alert(1)</script>',
    } as DashboardConfig);
    expect(hostile).not.toContain('</script><script>alert(1)');
    expect(hostile).toContain('\\u003c/script>');
  });

  it('throws on a template without the placeholder', () => {
    expect(() =>
      renderDashboard('<html></html>', { dynamicMs: 1, semiMs: 2, sensitive: false }),
    ).toThrow(/no config placeholder/);
  });
});
