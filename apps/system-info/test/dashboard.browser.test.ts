/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// @module-tag chromium
// @module-tag process
/**
 * The live dashboard (MCP Apps view) in headless Chromium, wired to the real server: a test host
 * page built on the ext-apps host-side API (`test/host/host.ts`, `AppBridge`) mounts the view
 * that `resources/read` returns in a sandboxed iframe under the resource's CSP, and forwards the
 * view's tool calls to an MCP client of the server process. The test reads what the view shows
 * and compares it with direct tool calls, watches it update and pause, and saves the screenshot
 * the README shows (docs/dashboard.png).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type McpClient, TASKS_EXTENSION } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  pngStats,
  removeTempDirs,
  requireChromium,
  spawnHttpServer,
  tempDir,
} from '@mcpkit/testing';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_EXTENSION, UI_MIME_TYPE } from '../src/dashboard.js';
import { type HostPage, openHostPage } from './host-page.js';

type Json = Record<string, unknown>;

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const VIEWS = fileURLToPath(new URL('../dist/views/', import.meta.url));
/**
 * The README's screenshot is rewritten only on request (`UPDATE_SCREENSHOTS=1`), so a test run
 * leaves the work tree as it was; otherwise the shot goes to a temp dir, checked all the same.
 */
const SHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/dashboard.png', import.meta.url))
    : join(tempDir('sysinfo-shot-'), 'dashboard.png');
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };
/** How the mcpkit gateway names system-info's tools (namespace `system-info`). */
const GATEWAY_PREFIX = 'system-info__';
/** The view budget (scripts/build-views.mjs): 150 KB gzip, 300 KB as shipped. */
const MAX_GZIP = 150 * 1024;
const MAX_RAW = 300 * 1024;

/** The dashboard's own byte formatting, to compare what it shows with a direct call. */
function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

type TimerLog = {
  pending: Map<unknown, { ms: number; fn: unknown }>;
  set: { ms: number; fn: unknown }[];
};

/**
 * A view's refresh timers, from the log the init script keeps (see beforeAll): how many are
 * pending now, and how many refresh loops set one since the log was last emptied — each loop's
 * timer runs that loop's own tick, so loops are told apart by the callback. `empty` empties the
 * log after reading it.
 */
function refreshTimers(frame: Frame, empty = false): Promise<{ pending: number; loops: number }> {
  return frame.evaluate((e) => {
    const log = (window as unknown as { viewTimers: TimerLog }).viewTimers;
    const config = JSON.parse(document.getElementById('config')?.textContent ?? '{}') as {
      dynamicMs: number;
      semiMs: number;
    };
    const refresh = (t: { ms: number }) => t.ms === config.dynamicMs || t.ms === config.semiMs;
    const found = {
      pending: [...log.pending.values()].filter(refresh).length,
      loops: new Set(log.set.filter((t) => t.ms === config.dynamicMs).map((t) => t.fn)).size,
    };
    if (e) log.set.length = 0;
    return found;
  }, empty);
}

/** How many refreshes of its readings the view has finished. */
const updatesOf = async (frame: Frame) =>
  Number(await frame.evaluate(() => document.body.dataset.updates));

async function structured(client: McpClient, name: string, args: Json = {}): Promise<Json> {
  const result = await client.callTool(name, args);
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Json;
}

describe('dashboard view in headless Chromium', () => {
  let server: HttpProcess;
  let client: McpClient;
  /** The server the host forwards the views' calls to (the last test switches it). */
  let target: McpClient;
  let host: HostPage;
  let browser: BrowserContext;
  let page: Page;
  let view: Frame;
  /** Every tool call the views made through the host, in order, with the title of the view. */
  const calls: { name: string; view: string }[] = [];
  /** Requests the page tried to make anywhere (the view must make none). */
  let requests: string[] = [];
  /** Tools the host makes fail: with a JSON-RPC error, or with an `isError` result. */
  const failing = new Map<string, 'error' | 'isError'>();
  /** While set, the host holds every call until it settles (a server that has not answered). */
  let held: Promise<void> | undefined;
  /** Hold the views' calls from now on; the function returned lets them (and later ones) go. */
  const holdCalls = (): (() => void) => {
    let release!: () => void;
    held = new Promise((resolve) => {
      release = resolve;
    });
    return () => {
      held = undefined;
      release();
    };
  };
  /** Calls of `name` that arrived from index `from` of `calls` on. */
  const arrived = (name: string, from: number) =>
    calls.slice(from).filter((c) => c.name === name).length;

  beforeAll(async () => {
    requireChromium();
    expect(existsSync(CLI), 'build the package first (pnpm build)').toBe(true);
    server = await spawnHttpServer(process.execPath, [CLI, '--transport', 'http', '--port', '0']);
    client = await server.connect({ capabilities: UI_CAPS });
    target = client;
    host = await openHostPage({
      profile: 'sysinfo-chromium-',
      after: '<div id="after" style="height:3000px"></div>',
      callTool: async (params: Json, view: string) => {
        const name = String(params.name);
        calls.push({ name, view });
        // Like the gateway, the host knows the server's tools under a namespace (see the last test).
        const own = name.startsWith(GATEWAY_PREFIX) ? name.slice(GATEWAY_PREFIX.length) : name;
        if (held) await held;
        const failure = failing.get(own);
        if (failure === 'error') throw new Error('Query execution error: collector crashed');
        if (failure === 'isError')
          return { content: [{ type: 'text', text: 'counters unavailable' }], isError: true };
        return target.callTool(own, (params.arguments as Json | undefined) ?? {});
      },
    });
    ({ browser, page, requests } = host);
    // The views' timers as they are set, fire and are cleared (in every frame, before its own
    // scripts run): a test reads what a view has scheduled instead of watching the clock.
    await browser.addInitScript(() => {
      const pending = new Map<unknown, { ms: number; fn: unknown }>();
      const set: { ms: number; fn: unknown }[] = [];
      const nativeSet = window.setTimeout.bind(window);
      const nativeClear = window.clearTimeout.bind(window);
      const setTimer = (fn: unknown, ms?: number, ...args: unknown[]) => {
        const entry = { ms: Number(ms ?? 0), fn };
        set.push(entry);
        const id = nativeSet(
          (...a: unknown[]) => {
            pending.delete(id);
            if (typeof fn === 'function') fn(...a);
          },
          ms,
          ...args,
        );
        pending.set(id, entry);
        return id;
      };
      window.setTimeout = setTimer as typeof window.setTimeout;
      window.clearTimeout = ((id?: number) => {
        pending.delete(id);
        nativeClear(id);
      }) as typeof window.clearTimeout;
      (window as unknown as { viewTimers: unknown }).viewTimers = { pending, set };
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    killSpawned();
    removeTempDirs();
  });

  it('prints the shipped size of every view, each within budget', () => {
    const files = readdirSync(VIEWS).filter((f) => f.endsWith('.html'));
    expect(files).toContain('dashboard.html');
    let total = 0;
    for (const file of files) {
      const html = readFileSync(`${VIEWS}${file}`);
      const gz = gzipSync(html).length;
      total += html.length;
      console.log(
        `view ${file}: ${(html.length / 1024).toFixed(1)} KB (${(gz / 1024).toFixed(1)} KB gzip)`,
      );
      expect(html.length).toBeLessThan(MAX_RAW);
      expect(gz).toBeLessThan(MAX_GZIP);
      expect(html.toString()).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/cdn/i);
    }
    console.log(`views total: ${(total / 1024).toFixed(1)} KB`);
  });

  it('is linked from get_system_snapshot, declared per the extension, and mounts in the host', async () => {
    expect(client.serverCapabilities?.extensions).toEqual({
      [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] },
      [TASKS_EXTENSION]: {},
    });
    const tools = await client.listTools();
    const linked = tools.filter((t) => (t._meta as Json | undefined)?.ui !== undefined);
    expect(linked.map((t) => t.name).sort()).toEqual([
      'get_cpu_info',
      'get_memory_info',
      'get_processes',
      'get_system_snapshot',
    ]);
    const snapshotTool = tools.find((t) => t.name === 'get_system_snapshot');
    const uri = ((snapshotTool?._meta as Json | undefined)?.ui as Json | undefined)?.resourceUri;
    expect(uri).toBe('ui://system-info/dashboard');
    const read = await client.readResource(uri as string);
    const content = read.contents[0] as unknown as Json;
    expect(content.mimeType).toBe(UI_MIME_TYPE);
    const ui = (content._meta as Json).ui as Json;
    expect(ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });

    const snapshot = await client.callTool('get_system_snapshot', {});
    await host.mount({
      html: content.text as string,
      csp: ui.csp as Json,
      toolArgs: {},
      toolResult: snapshot as unknown as Json,
      title: 'System dashboard',
      tool: snapshotTool as unknown as Json,
    });
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    view = frame as Frame;
    await view.waitForFunction(() => Number(document.body.dataset.updates ?? 0) >= 1);
  });

  it('shows the numbers a direct tool call answers', async () => {
    const [cpu, memory, disks, os] = await Promise.all([
      structured(client, 'get_cpu_info', { per_cpu: true }),
      structured(client, 'get_memory_info'),
      structured(client, 'get_disk_info'),
      structured(client, 'get_os_info'),
    ]);
    // Wait for the semi-tier readings (disks) too.
    await view.waitForSelector('[data-mount]', { state: 'attached' });
    const shown = await view.evaluate(() => {
      const mem = document.getElementById('mem-row');
      const swap = document.getElementById('swap-row');
      return {
        cores: document.querySelectorAll('[data-cpu]').length,
        memTotal: Number(mem?.dataset.total),
        memText: mem?.textContent ?? '',
        swapTotal: Number(swap?.dataset.total),
        mounts: [...document.querySelectorAll<HTMLElement>('[data-mount]')].map((e) => ({
          mount: e.dataset.mount,
          size: Number(e.dataset.size),
        })),
        host: document.getElementById('host')?.textContent ?? '',
        processes: document.querySelectorAll('[data-pid]').length,
        cpuTotal: document.getElementById('cpu-total')?.textContent ?? '',
      };
    });
    expect(shown.cores).toBe((cpu.per_cpu as unknown[]).length);
    expect(shown.memTotal).toBe(memory.total_bytes);
    expect(shown.memText).toContain(bytes(memory.total_bytes as number));
    expect(shown.swapTotal).toBe(memory.swap_total_bytes);
    const fs = (disks.filesystems as Json[]).map((f) => ({ mount: f.mount, size: f.size_bytes }));
    expect(shown.mounts).toEqual(fs);
    expect(shown.host).toContain(os.hostname as string);
    expect(shown.processes).toBeGreaterThan(0);
    expect(shown.processes).toBeLessThanOrEqual(8);
    expect(shown.cpuTotal).toMatch(/^\d+\.\d %$/);
  });

  it('updates itself through the bridge', async () => {
    const before = await view.evaluate(() => ({
      updates: Number(document.body.dataset.updates),
      sampledAt: document.body.dataset.sampledAt,
    }));
    await view.waitForFunction(
      (b) =>
        Number(document.body.dataset.updates) > b.updates &&
        document.body.dataset.sampledAt !== b.sampledAt,
      before,
      { timeout: 30_000 },
    );
    expect(calls.some((c) => c.name === 'get_cpu_info')).toBe(true);
    // The sensitive scope is not enabled: the view never asks for sessions and shows none.
    expect(calls.some((c) => c.name === 'get_user_sessions')).toBe(false);
    expect(await view.locator('#sessions-section').isHidden()).toBe(true);
  });

  it('saves a screenshot that is not blank, and made no network request', async () => {
    await view.waitForFunction(() => Number(document.body.dataset.updates) >= 2);
    mkdirSync(dirname(SHOT), { recursive: true });
    const png = await page.locator('#slot iframe').screenshot({ path: SHOT });
    expect(png.length).toBeGreaterThan(10_000);
    // A blank (or single-colour) image has a handful of colours.
    expect(pngStats(png).distinct).toBeGreaterThan(50);
    expect(requests).toEqual([]);
  });

  it('shows a failing reading where it would be, keeps the rest live, and recovers', async () => {
    failing.set('get_network_info', 'isError');
    failing.set('get_processes', 'error');
    try {
      await view.waitForFunction(
        () =>
          /get_network_info failed: counters unavailable/.test(
            document.getElementById('net')?.textContent ?? '',
          ) &&
          /get_processes failed: .*collector crashed/.test(
            document.getElementById('procs')?.textContent ?? '',
          ),
      );
      const updates = Number(await view.evaluate(() => document.body.dataset.updates));
      await view.waitForFunction((u) => Number(document.body.dataset.updates) > u, updates);
      expect(await view.locator('[data-cpu]').count()).toBeGreaterThan(0);
    } finally {
      failing.clear();
    }
    await view.waitForSelector('#procs [data-pid]');
    await view.waitForFunction(() => !document.querySelector('#net .error'));
  });

  it('stops calling tools while the page is hidden, and resumes when it is shown', async () => {
    // Headless Chromium never hides a page, so the view's document is told what a browser tells
    // it when the tab goes to the background: visibilityState 'hidden' and a visibilitychange.
    const setVisibility = (state: 'hidden' | 'visible') =>
      view.evaluate((s) => {
        Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    let paused: number;
    // Hidden with a refresh under way (its calls held by the host): once it has finished, no
    // refresh timer is left, so no call can follow — read off the view, not waited out.
    const release = holdCalls();
    try {
      const mark = calls.length;
      await expect.poll(() => arrived('get_cpu_info', mark)).toBe(1);
      await setVisibility('hidden');
      await view.waitForFunction(() => document.body.dataset.state === 'paused');
      expect(await view.locator('#status').textContent()).toBe('Paused while hidden');
      const updates = await updatesOf(view);
      release();
      await view.waitForFunction((u) => Number(document.body.dataset.updates) > u, updates);
      expect((await refreshTimers(view)).pending).toBe(0);
      paused = calls.length;
    } finally {
      release();
      await setVisibility('visible'); // the tests after this one need a visible view
    }
    await view.waitForFunction(() => document.body.dataset.state === 'live');
    await expect.poll(() => calls.length).toBeGreaterThan(paused);
  });

  it('pauses and resumes from the keyboard', async () => {
    const toggle = page.frameLocator('#slot iframe').locator('#toggle');
    await toggle.focus();
    await toggle.press('Enter');
    await view.waitForFunction(() => document.body.dataset.state === 'paused');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.press(' ');
    await view.waitForFunction(() => document.body.dataset.state === 'live');
    expect(await toggle.textContent()).toBe('Pause');
    // Pausing and resuming while refreshes are under way (the host holds their calls, a slow
    // server) must not leave two refresh loops. Counted, not timed: once every held refresh has
    // finished, the refresh timers set since the toggles all belong to one loop.
    const release = holdCalls();
    try {
      const mark = calls.length;
      // The loop's next refresh, held: the one under way when the toggling starts.
      await expect.poll(() => arrived('get_cpu_info', mark)).toBe(1);
      await refreshTimers(view, true);
      for (let i = 0; i < 3; i++) {
        await toggle.press('Enter');
        await toggle.press('Enter');
      }
      await view.waitForFunction(() => document.body.dataset.state === 'live');
      // Each resume started a refresh at once: four under way, all held.
      await expect.poll(() => arrived('get_cpu_info', mark)).toBe(4);
      const updates = await updatesOf(view);
      release();
      await view.waitForFunction((u) => Number(document.body.dataset.updates) >= u + 4, updates);
    } finally {
      release();
    }
    expect((await refreshTimers(view)).loops).toBe(1);
  });
  it('calls tools under the names a proxy gave them (the gateway namespace)', async () => {
    const tools = await client.listTools();
    const snapshotTool = tools.find((t) => t.name === 'get_system_snapshot');
    const read = await client.readResource('ui://system-info/dashboard');
    const content = read.contents[0] as unknown as Json;
    // The first view pauses (its calls are told apart by the view's title all the same).
    await page.frameLocator('#slot iframe').first().locator('#toggle').click();
    await view.waitForFunction(() => document.body.dataset.state === 'paused');
    const title = 'System dashboard behind a gateway';
    await host.mount({
      html: content.text as string,
      csp: ((content._meta as Json).ui as Json).csp as Json,
      toolArgs: {},
      toolResult: (await client.callTool('get_system_snapshot', {})) as unknown as Json,
      title,
      tool: { ...snapshotTool, name: `${GATEWAY_PREFIX}get_system_snapshot` },
    });
    const its = () => calls.filter((c) => c.view === title).map((c) => c.name);
    await expect.poll(its).toContain(`${GATEWAY_PREFIX}get_cpu_info`);
    expect(its().filter((name) => !name.startsWith(GATEWAY_PREFIX))).toEqual([]);
  });
  it('shows user sessions only when the server enables sensitive', async () => {
    const sensitive = await spawnHttpServer(process.execPath, [
      CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--enable-sensitive',
    ]);
    try {
      target = await sensitive.connect({ capabilities: UI_CAPS });
      const read = await target.readResource('ui://system-info/dashboard');
      const content = read.contents[0] as unknown as Json;
      const before = calls.length;
      await host.mount({
        html: content.text as string,
        csp: ((content._meta as Json).ui as Json).csp as Json,
        toolArgs: {},
        toolResult: (await target.callTool('get_system_snapshot', {})) as unknown as Json,
        title: 'System dashboard with sensitive',
      });
      // Below the other views it starts paused (off screen); in view, it runs.
      const frame = page.frameLocator('#slot iframe').last();
      await page.locator('#slot iframe').last().scrollIntoViewIfNeeded();
      await expect
        .poll(() => calls.slice(before).map((c) => c.name), { timeout: 30_000 })
        .toContain('get_user_sessions');
      await expect.poll(() => frame.locator('#sessions-section').isVisible()).toBe(true);
      expect(await frame.locator('#sessions th').allTextContents()).toEqual([
        'User',
        'Terminal',
        'From',
        'Since',
      ]);
    } finally {
      target = client;
      await sensitive.stop();
    }
  });
});
