/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// @module-tag chromium
// @module-tag process
/**
 * The dashboard opened through the mcpkit gateway with two system-info hosts behind it — the
 * setup of apps/gateway/test/many-hosts.test.ts, all as processes: two system-info HTTP servers,
 * each with its own token, host b with an alert rule that fires at once, and the gateway CLI over
 * HTTP in front (namespaces `host_a`, `host_b`). The test host page forwards the view's tool calls
 * to an MCP client of the gateway, as a host that connected to the gateway does. The view finds
 * both hosts and lists them in its Host selector; picking one redraws every panel from that host's
 * tools alone, and answers the other host gives afterwards are dropped. The screenshot of the
 * header (docs/dashboard-hosts.png) is rewritten only with `UPDATE_SCREENSHOTS=1`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpClient } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  pngStats,
  removeTempDirs,
  requireChromium,
  spawnHttpServer,
  tempDir,
  waitFor,
} from '@mcpkit/testing';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_EXTENSION, UI_MIME_TYPE } from '../src/dashboard.js';
import { type HostPage, openHostPage } from './host-page.js';

type Json = Record<string, unknown>;

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const GATEWAY_CLI = fileURLToPath(new URL('../../gateway/dist/cli.js', import.meta.url));
const SHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/dashboard-hosts.png', import.meta.url))
    : join(tempDir('sysinfo-hosts-shot-'), 'dashboard-hosts.png');
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };
const TOKENS = { a: 'host-a-token-0123456789', b: 'host-b-token-0123456789' };
const A = 'host_a__';
const B = 'host_b__';
/** The readings every refresh of the view asks for, and the semi-tier's disks. */
const READINGS = [
  'get_cpu_info',
  'get_memory_info',
  'get_processes',
  'get_network_info',
  'get_alerts',
  'get_metric_history',
  'get_disk_info',
];

/** The calls with which the view looks for hosts: the gateway's status, each host's OS. */
const finding = (name: string) => name === 'gateway_status' || name.endsWith('__get_os_info');

describe('dashboard with two hosts behind the gateway', () => {
  const servers: HttpProcess[] = [];
  let gateway: HttpProcess;
  let client: McpClient;
  let host: HostPage;
  let page: Page;
  let frame: FrameLocator;
  let view: Frame;
  /** The machine's name: both hosts run here, so they tell apart by namespace (and alerts). */
  let hostname: string;
  /** Every tool call the view made through the host, in order, with the host's answer. */
  const calls: { name: string; answered: Promise<unknown> }[] = [];
  /** While set, the calls it matches wait in `held` until {@link release}d. */
  let holding: ((name: string) => boolean) | undefined;
  const held: { name: string; go: () => void }[] = [];
  const release = (match: (name: string) => boolean) => {
    for (const h of held.filter((h) => match(h.name))) {
      held.splice(held.indexOf(h), 1);
      h.go();
    }
  };
  /** The names of the readings called from index `from` of `calls` on (not host finding). */
  const readings = (from: number) =>
    calls
      .slice(from)
      .map((c) => c.name)
      .filter((name) => !finding(name));
  /** The alerts panel's active rules and count, with the view's finished refreshes: one moment. */
  const alertsShown = () =>
    view.evaluate(() => ({
      rules: [...document.querySelectorAll<HTMLElement>('#alerts .active [data-rule]')].map(
        (e) => e.dataset.rule,
      ),
      active: document.getElementById('alerts-section')?.dataset.active,
      updates: Number(document.body.dataset.updates ?? 0),
    }));
  /**
   * Where the view's calls went once it switched: the index of the first reading of `prefix`
   * from `from` on, after which every reading must be of `prefix` too.
   */
  const firstOf = (prefix: string, from: number) =>
    calls.findIndex((c, i) => i >= from && !finding(c.name) && c.name.startsWith(prefix));

  beforeAll(async () => {
    requireChromium();
    for (const file of [CLI, GATEWAY_CLI])
      expect(existsSync(file), `build first: ${file} is missing`).toBe(true);
    const dir = tempDir('sysinfo-hosts-');
    // Host b has a rule no load fails, so it has an alert from its first reading; neither has
    // the default rules, which a loaded machine can trip (memory pressure, a full disk).
    const rules = {
      a: { defaults: false, rules: [] },
      b: {
        defaults: false,
        rules: [{ id: 'always', metric: 'load.1m', below: 1e9, clear: 2e9 }],
      },
    };
    for (const name of ['a', 'b'] as const) {
      const file = join(dir, `alerts-${name}.json`);
      writeFileSync(file, JSON.stringify(rules[name]));
      servers.push(
        await spawnHttpServer(
          process.execPath,
          [CLI, '--transport', 'http', '--port', '0', '--alerts-file', file],
          { env: { MCP_SYSINFO_TOKEN: TOKENS[name] } },
        ),
      );
    }
    const [a, b] = servers as [HttpProcess, HttpProcess];
    const config = join(dir, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          'host-a': {
            url: `${a.url}/mcp`,
            namespace: 'host_a',
            headers: { Authorization: `Bearer ${TOKENS.a}` },
          },
          'host-b': {
            url: `${b.url}/mcp`,
            namespace: 'host_b',
            headers: { Authorization: `Bearer ${TOKENS.b}` },
          },
        },
      }),
    );
    gateway = await spawnHttpServer(process.execPath, [
      GATEWAY_CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--config',
      config,
      '--events',
      join(dir, 'events.db'),
    ]);
    client = await gateway.connect({ capabilities: UI_CAPS });
    await waitFor(
      'both hosts running behind the gateway',
      async () => {
        const status = (await client.callTool('gateway_status', {})).structuredContent as Json;
        const backends = Object.values(status.backends as Record<string, Json>);
        return backends.length === 2 && backends.every((x) => x.status === 'running');
      },
      30_000,
    );
    const os = (await client.callTool(`${A}get_os_info`, {})).structuredContent as Json;
    hostname = String(os.hostname);
    host = await openHostPage({
      profile: 'sysinfo-hosts-chromium-',
      callTool: (params: Json) => {
        const name = String(params.name);
        const args = (params.arguments as Json | undefined) ?? {};
        const answered = (async () => {
          if (holding?.(name)) await new Promise<void>((go) => held.push({ name, go }));
          return client.callTool(name, args);
        })();
        calls.push({ name, answered: answered.catch(() => undefined) });
        return answered;
      },
    });
    page = host.page;
  });

  afterAll(async () => {
    holding = undefined;
    release(() => true);
    await host?.browser.close();
    await gateway?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    killSpawned();
    removeTempDirs();
  });

  it('lists both hosts in a Host selector, the one it was opened for selected', async () => {
    // Opened as a host opens it for the gateway's `host_a__get_system_snapshot`.
    const tools = await client.listTools();
    const snapshotTool = tools.find((t) => t.name === `${A}get_system_snapshot`);
    const uri = ((snapshotTool?._meta as Json | undefined)?.ui as Json | undefined)?.resourceUri;
    const read = await client.readResource(String(uri));
    const content = read.contents[0] as unknown as Json;
    await host.mount({
      html: content.text as string,
      csp: ((content._meta as Json).ui as Json).csp as Json,
      toolArgs: {},
      toolResult: (await client.callTool(`${A}get_system_snapshot`, {})) as unknown as Json,
      title: 'System dashboard',
      tool: snapshotTool as unknown as Json,
    });
    const mounted = page.frames().find((f) => f !== page.mainFrame());
    if (!mounted) throw new Error('the view is not mounted');
    view = mounted;
    frame = page.frameLocator('#slot iframe');
    const select = frame.getByLabel('Host');
    await expect.poll(() => select.isVisible()).toBe(true);
    expect(await select.locator('option').allTextContents()).toEqual([
      `${hostname} (host_a)`,
      `${hostname} (host_b)`,
    ]);
    expect(await select.inputValue()).toBe(A);
    expect(await frame.locator('#host').textContent()).toBe(`— ${hostname}`);
  });

  it('calls the host it was opened for only, and shows its alerts: none', async () => {
    await expect.poll(() => new Set(readings(0))).toEqual(new Set(READINGS.map((r) => `${A}${r}`)));
    await expect.poll(alertsShown).toMatchObject({ rules: [], active: '0' });
    expect(readings(0).filter((name) => !name.startsWith(A))).toEqual([]);
  });

  it('switches to the other host from the keyboard: its tools only, its alert shown', async () => {
    const select = frame.getByLabel('Host');
    await select.focus();
    const mark = calls.length;
    await select.press('ArrowDown');
    expect(await select.inputValue()).toBe(B);
    // Every panel, chart and the alerts at once from the new host...
    await expect
      .poll(() => new Set(readings(mark).filter((name) => name.startsWith(B))))
      .toEqual(new Set(READINGS.map((r) => `${B}${r}`)));
    await expect.poll(alertsShown).toMatchObject({ rules: ['always'], active: '1' });
    // ...and, from its first call on, nothing from the old one.
    const updates = (await alertsShown()).updates;
    await expect.poll(async () => (await alertsShown()).updates).toBeGreaterThan(updates);
    expect(readings(firstOf(B, mark)).filter((name) => !name.startsWith(B))).toEqual([]);
    expect(await frame.locator('#host').textContent()).toBe(`— ${hostname}`);
  });

  it('saves a screenshot of the header with the selector, and made no network request', async () => {
    await expect
      .poll(() => frame.locator('#alerts .active [data-rule="always"]').isVisible())
      .toBe(true);
    // At rest, as a reader first sees it (the keyboard test left it focused).
    await frame.getByLabel('Host').blur();
    const iframe = await page.locator('#slot iframe').boundingBox();
    const alerts = await frame.locator('#alerts-section').boundingBox();
    if (!iframe || !alerts) throw new Error('the view is not on the page');
    mkdirSync(dirname(SHOT), { recursive: true });
    const png = await page.screenshot({
      path: SHOT,
      clip: {
        x: iframe.x,
        y: iframe.y,
        width: iframe.width,
        height: Math.ceil(alerts.y + alerts.height + 12 - iframe.y),
      },
    });
    expect(pngStats(png).distinct).toBeGreaterThan(50);
    expect(host.requests).toEqual([]);
  });

  it('switches back with a pick: the first host’s calls and alerts again', async () => {
    const mark = calls.length;
    await frame.getByLabel('Host').selectOption(A);
    await expect
      .poll(() => new Set(readings(mark).filter((name) => name.startsWith(A))))
      .toEqual(new Set(READINGS.map((r) => `${A}${r}`)));
    await expect.poll(alertsShown).toMatchObject({ rules: [], active: '0' });
    expect(readings(firstOf(A, mark)).filter((name) => !name.startsWith(A))).toEqual([]);
  });

  it('drops what the previous host answers after the switch', async () => {
    // Every reading is held: the first host's refresh is under way when the user switches.
    holding = (name) => !finding(name);
    try {
      const mark = calls.length;
      await expect.poll(() => held.some((h) => h.name === `${A}get_alerts`)).toBe(true);
      await frame.getByLabel('Host').selectOption(B);
      await expect.poll(() => held.some((h) => h.name === `${B}get_alerts`)).toBe(true);
      // Nothing can finish while every reading is held.
      const before = (await alertsShown()).updates;
      // The old host answers first (its answers reach the view before the new host's), then the
      // new one; the new host's next refresh is held, so the view stays as those left it.
      const late = calls.slice(mark).filter((c) => c.name.startsWith(A));
      release((name) => name.startsWith(A));
      await Promise.all(late.map((c) => c.answered));
      release((name) => name.startsWith(B));
      await expect.poll(alertsShown).toMatchObject({ rules: ['always'], active: '1' });
      // One refresh drew: the new host's. The old host's, answered meanwhile, drew nothing.
      expect((await alertsShown()).updates).toBe(before + 1);
    } finally {
      holding = undefined;
      release(() => true);
    }
  });
});
