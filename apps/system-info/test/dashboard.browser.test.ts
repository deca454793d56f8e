/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// @module-tag chromium
// @module-tag process
/**
 * The live dashboard (MCP Apps view) in headless Chromium, wired to the real server: a test host
 * page built on the ext-apps host-side API (`test/host/host.ts`, `AppBridge`) mounts the view
 * that `resources/read` returns in a sandboxed iframe under the resource's CSP, and forwards the
 * view's tool calls to an MCP client of the server process. The test reads what the view shows
 * and compares it with direct tool calls (the charts with the server's own history, recorded
 * every second from its start), watches it update and pause, and saves the screenshot the README
 * shows (docs/dashboard.png).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
/** The view budget (scripts/build-views.mjs): 150 KB gzip, 360 KB as shipped. */
const MAX_GZIP = 150 * 1024;
const MAX_RAW = 360 * 1024;

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

/** The metrics each chart of the view draws (its `data-chart`), in legend order. */
const CHART_METRICS: Readonly<Record<string, readonly string[]>> = {
  cpu: ['cpu.percent'],
  memory: ['memory.used_percent', 'swap.used_percent'],
  load: ['load.1m', 'load.5m', 'load.15m'],
  network: ['net.rx_bytes_per_sec', 'net.tx_bytes_per_sec'],
};
const ALL_METRICS = Object.values(CHART_METRICS).flat().sort();

/** What one chart of a view drew: its window, its main series' figures, and each series'. */
interface ShownChart {
  window: string | undefined;
  points: number;
  latest: string | undefined;
  note: string;
  series: { metric: string; points: number; latest: string }[];
}

/** Every chart of the view, by `data-chart`, read in one go (one moment of the page). */
function chartsOf(frame: Frame): Promise<Record<string, ShownChart>> {
  return frame.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('[data-chart]')].map((f) => [
        f.dataset.chart,
        {
          window: f.dataset.window,
          points: Number(f.dataset.points),
          latest: f.dataset.latest,
          note: f.querySelector('.note')?.textContent ?? '',
          series: [...f.querySelectorAll<HTMLElement>('li[data-metric]')].map((li) => ({
            metric: li.dataset.metric ?? '',
            points: Number(li.dataset.points),
            latest: li.dataset.latest ?? '',
          })),
        },
      ]),
    ),
  );
}

/**
 * How a view's charts differ from direct `get_metric_history` calls made right after reading
 * them: [] when every chart draws the series this machine records (and no other), each with the
 * point count the server answers — give or take the two points a second can add between the
 * view's call and ours — and the same latest value. The latest value moves every second, so a
 * caller polls this until the view's last refresh and our calls saw the same reading.
 */
async function chartDisagreements(
  frame: Frame,
  client: McpClient,
  window: string,
  only?: string,
): Promise<string[]> {
  const shown = await chartsOf(frame);
  const ids = only ? [only] : Object.keys(CHART_METRICS);
  const direct = await Promise.all(
    ids.map((id) =>
      Promise.all(
        (CHART_METRICS[id] ?? []).map(async (metric) => {
          const result = await client.callTool('get_metric_history', { metric, window });
          // An error is a metric this machine does not record (no swap, say): no line for it.
          if (result.isError) return undefined;
          return { metric, summary: (result.structuredContent as Json).summary as Json };
        }),
      ),
    ),
  );
  const out: string[] = [];
  ids.forEach((id, i) => {
    const chart = shown[id];
    const answers = (direct[i] ?? []).filter((a) => a !== undefined);
    if (!chart) {
      out.push(`${id}: no chart`);
      return;
    }
    if (chart.window !== window) out.push(`${id}: window ${chart.window}`);
    const drawn = chart.series.map((s) => s.metric);
    const recorded = answers.map((a) => a.metric);
    if (drawn.join() !== recorded.join()) out.push(`${id}: draws ${drawn}, server has ${recorded}`);
    for (const s of chart.series) {
      const summary = answers.find((a) => a.metric === s.metric)?.summary;
      if (!summary) continue;
      if (Math.abs(s.points - Number(summary.points_with_data)) > 2)
        out.push(`${s.metric}: ${s.points} points, server ${summary.points_with_data}`);
      if (s.latest !== String(summary.latest))
        out.push(`${s.metric}: latest ${s.latest}, server ${summary.latest}`);
    }
    const main = chart.series[0];
    if (main && (chart.points !== main.points || chart.latest !== main.latest))
      out.push(`${id}: the chart's figures are not its main series'`);
  });
  return out;
}

/**
 * How a view's alerts panel differs from a direct `get_alerts` call: [] when it lists the same
 * active alerts (id and summary, in order) and, with none, says "No alerts" or, with resolved
 * ones only, "No active alerts".
 */
async function alertDisagreements(frame: Frame, client: McpClient): Promise<string[]> {
  const shown = await frame.evaluate(() => ({
    active: [...document.querySelectorAll<HTMLElement>('#alerts .active [data-alert-id]')].map(
      (e) => `${e.dataset.alertId} ${e.querySelector('.summary')?.textContent}`,
    ),
    text: document.getElementById('alerts')?.textContent ?? '',
    count: document.getElementById('alerts-section')?.dataset.active,
  }));
  const direct = await structured(client, 'get_alerts', { limit: 20 });
  const active = (direct.active as Json[]).map((a) => `${a.id} ${a.summary}`);
  const resolved = (direct.history as Json[]).filter((a) => a.state === 'resolved');
  const out: string[] = [];
  if (shown.active.join('\n') !== active.join('\n'))
    out.push(`shows ${JSON.stringify(shown.active)}, server ${JSON.stringify(active)}`);
  if (shown.count !== String(active.length)) out.push(`data-active ${shown.count}`);
  const none = resolved.length > 0 ? 'No active alerts' : 'No alerts';
  if (active.length === 0 && !shown.text.includes(none)) out.push(`no "${none}" in ${shown.text}`);
  return out;
}

/** Points with data the server holds of `metric` over the last 10 minutes. */
async function recordedPoints(client: McpClient, metric = 'cpu.percent'): Promise<number> {
  const history = await structured(client, 'get_metric_history', { metric, window: '10m' });
  return Number((history.summary as Json).points_with_data);
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
  const calls: { name: string; view: string; args: Json }[] = [];
  /** Requests the page tried to make anywhere (the view must make none). */
  let requests: string[] = [];
  /** Tools the host makes fail: with a JSON-RPC error, or with an `isError` result. */
  const failing = new Map<string, 'error' | 'isError'>();
  /** Metrics whose history the host answers as the server does for one it does not record. */
  const unrecorded = new Set<string>();
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
        const args = (params.arguments as Json | undefined) ?? {};
        calls.push({ name, view, args });
        // Like the gateway, the host knows the server's tools under a namespace (see the last test).
        const own = name.startsWith(GATEWAY_PREFIX) ? name.slice(GATEWAY_PREFIX.length) : name;
        if (held) await held;
        const failure = failing.get(own);
        if (failure === 'error') throw new Error('Query execution error: collector crashed');
        if (failure === 'isError')
          return { content: [{ type: 'text', text: 'counters unavailable' }], isError: true };
        if (own === 'get_metric_history' && unrecorded.has(String(args.metric)))
          return {
            content: [{ type: 'text', text: `No history of '${args.metric}' on this machine yet` }],
            isError: true,
          };
        return target.callTool(own, args);
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
      'get_metric_history',
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
    // Connected directly (no prefix), it looks for no other hosts and offers none.
    expect(calls.some((c) => c.name === 'gateway_status')).toBe(false);
    expect(await view.locator('#host-picker').isHidden()).toBe(true);
  });

  it('charts the history the server recorded, each series as a direct call answers it', async () => {
    // The server records from its start, every second: wait for a few points of 5 s each.
    await expect.poll(() => recordedPoints(client), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
    const frame = page.frameLocator('#slot iframe').first();
    expect(await frame.locator('#windows button[aria-pressed="true"]').textContent()).toBe(
      '10 min',
    );
    for (const id of Object.keys(CHART_METRICS)) {
      await expect
        .poll(() => chartDisagreements(view, client, '10m', id), { timeout: 30_000 })
        .toEqual([]);
    }
    const cpu = (await chartsOf(view)).cpu;
    expect(cpu?.points).toBeGreaterThanOrEqual(5);
    // Drawn on a canvas in the plot box, its values also as text in the legend.
    expect(await frame.locator('[data-chart="cpu"] canvas').count()).toBeGreaterThan(0);
    expect(await frame.locator('#legend-cpu').textContent()).toMatch(/^All cores \d+\.\d %$/);
  });

  it('refetches every chart at once when another window is picked, from the keyboard too', async () => {
    const frame = page.frameLocator('#slot iframe').first();
    const toggle = frame.locator('#toggle');
    /** The metrics whose history was asked for over `window` from index `mark` of `calls` on. */
    const asked = (window: string, mark: number) => [
      ...new Set(
        calls
          .slice(mark)
          .filter((c) => c.name === 'get_metric_history' && c.args.window === window)
          .map((c) => String(c.args.metric)),
      ),
    ];
    const windows = async () => Object.values(await chartsOf(view)).map((c) => c.window);
    // Paused, the loop calls nothing: what arrives after the pick is the pick's own fetch.
    await toggle.click();
    await view.waitForFunction(() => document.body.dataset.state === 'paused');
    try {
      const mark = calls.length;
      const hour = frame.locator('#windows button[value="1h"]');
      await hour.click();
      expect(await hour.getAttribute('aria-pressed')).toBe('true');
      expect(await frame.locator('#windows [aria-pressed="true"]').count()).toBe(1);
      await expect.poll(() => asked('1h', mark).sort()).toEqual(ALL_METRICS);
      expect(arrived('get_cpu_info', mark)).toBe(0);
      await expect.poll(windows).toEqual(['1h', '1h', '1h', '1h']);
    } finally {
      await toggle.click();
    }
    // Live again, on the hour, the charts agree with the server once one of the view's refreshes
    // and our calls saw the same reading: paused, the view's latest reading is a second behind
    // the server's as soon as the server records the next one.
    await view.waitForFunction(() => document.body.dataset.state === 'live');
    await expect
      .poll(() => chartDisagreements(view, client, '1h'), { timeout: 30_000 })
      .toEqual([]);
    await toggle.click();
    await view.waitForFunction(() => document.body.dataset.state === 'paused');
    try {
      // Back to 10 minutes from the keyboard, paused again: fetched at once all the same.
      const mark = calls.length;
      const tenMinutes = frame.locator('#windows button[value="10m"]');
      await tenMinutes.focus();
      await tenMinutes.press('Enter');
      await expect.poll(() => asked('10m', mark).sort()).toEqual(ALL_METRICS);
      await expect.poll(windows).toEqual(['10m', '10m', '10m', '10m']);
    } finally {
      await toggle.click();
    }
    await view.waitForFunction(() => document.body.dataset.state === 'live');
  });

  it('leaves out a series the server has no history of, and says so when a chart has none', async () => {
    unrecorded.add('load.5m');
    try {
      await expect
        .poll(async () => (await chartsOf(view)).load?.series.map((s) => s.metric))
        .toEqual(['load.1m', 'load.15m']);
      const load = (await chartsOf(view)).load;
      expect(load?.note).toBe('');
      expect(load?.points).toBeGreaterThan(0);
      for (const metric of CHART_METRICS.network ?? []) unrecorded.add(metric);
      await expect
        .poll(async () => (await chartsOf(view)).network)
        .toMatchObject({ series: [], points: 0, note: expect.stringMatching(/^No history: /) });
      // No lines left over from before either.
      expect(await view.locator('[data-chart="network"] canvas').count()).toBe(0);
    } finally {
      unrecorded.clear();
    }
    await expect
      .poll(async () => (await chartsOf(view)).load?.series.map((s) => s.metric))
      .toEqual(['load.1m', 'load.5m', 'load.15m']);
    await expect.poll(async () => (await chartsOf(view)).network?.note).toBe('');
  });

  it('lists the alerts get_alerts reports, or says there are none', async () => {
    // Whatever this machine has firing (a full disk raises one at once): compared, not assumed.
    await expect.poll(() => alertDisagreements(view, client), { timeout: 20_000 }).toEqual([]);
  });

  it('saves a screenshot with lines in its charts, and made no network request', async () => {
    // Twenty points of 5 s: a line worth looking at in the README.
    await expect
      .poll(() => recordedPoints(client), { timeout: 150_000 })
      .toBeGreaterThanOrEqual(20);
    await expect
      .poll(async () => (await chartsOf(view)).cpu?.points ?? 0, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(20);
    mkdirSync(dirname(SHOT), { recursive: true });
    // The view is taller than the window: Chromium paints a sandboxed frame only where it can be
    // seen, so the window grows to hold all of it for the shot.
    const size = page.viewportSize();
    const box = await page.locator('#slot iframe').boundingBox();
    await page.setViewportSize({
      width: size?.width ?? 1000,
      height: Math.ceil((box?.height ?? 0) + 40),
    });
    let png: Buffer;
    try {
      png = await page.locator('#slot iframe').screenshot({ path: SHOT });
    } finally {
      if (size) await page.setViewportSize(size);
    }
    expect(png.length).toBeGreaterThan(10_000);
    // A blank (or single-colour) image has a handful of colours.
    expect(pngStats(png).distinct).toBeGreaterThan(50);
    expect(requests).toEqual([]);
  }, 200_000);

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
    // Mounted below the first view, it runs once scrolled into sight.
    await page.locator('#slot iframe').last().scrollIntoViewIfNeeded();
    const its = () => calls.filter((c) => c.view === title).map((c) => c.name);
    await expect.poll(its).toContain(`${GATEWAY_PREFIX}get_cpu_info`);
    await expect.poll(its).toContain(`${GATEWAY_PREFIX}get_metric_history`);
    await expect.poll(its).toContain(`${GATEWAY_PREFIX}get_alerts`);
    // It looks for other hosts with the gateway's own tool, un-prefixed; this server has none
    // (the call fails), so the view offers no host selector (dashboard-hosts.browser.test.ts).
    await expect.poll(its).toContain('gateway_status');
    expect(its().filter((name) => !name.startsWith(GATEWAY_PREFIX))).toEqual(['gateway_status']);
    const frame = page.frameLocator('#slot iframe').last();
    expect(await frame.locator('#host-picker').isHidden()).toBe(true);
  });

  it('opened from get_metric_history, charts the window of its result under the same names', async () => {
    const tools = await client.listTools();
    const historyTool = tools.find((t) => t.name === 'get_metric_history');
    const read = await client.readResource('ui://system-info/dashboard');
    const content = read.contents[0] as unknown as Json;
    const title = 'System dashboard from a history';
    const args = { metric: 'cpu.percent', window: '6h' };
    await host.mount({
      html: content.text as string,
      csp: ((content._meta as Json).ui as Json).csp as Json,
      toolArgs: args,
      toolResult: (await client.callTool('get_metric_history', args)) as unknown as Json,
      title,
      tool: { ...historyTool, name: `${GATEWAY_PREFIX}get_metric_history` },
    });
    const frame = page.frameLocator('#slot iframe').last();
    await page.locator('#slot iframe').last().scrollIntoViewIfNeeded();
    await expect
      .poll(() => frame.locator('#windows [aria-pressed="true"]').textContent())
      .toBe('6 h');
    const its = () => calls.filter((c) => c.view === title);
    await expect
      .poll(() =>
        its().some(
          (c) => c.name === `${GATEWAY_PREFIX}get_metric_history` && c.args.window === '6h',
        ),
      )
      .toBe(true);
    await expect
      .poll(() => frame.locator('[data-chart="cpu"]').getAttribute('data-window'))
      .toBe('6h');
    // Besides the gateway's own tool, with which it looks for other hosts.
    await expect
      .poll(() =>
        its()
          .map((c) => c.name)
          .filter((name) => !name.startsWith(GATEWAY_PREFIX)),
      )
      .toEqual(['gateway_status']);
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

  it('shows an alert the server raises, first and as text, with its severity and start', async () => {
    // A rule no load can fail (below 100,000, no hold time) fires at the server's first reading;
    // its summary carries markup, which the view must show as the characters it is.
    const file = join(tempDir('sysinfo-alerts-'), 'alerts.json');
    writeFileSync(
      file,
      JSON.stringify({
        rules: [
          {
            id: 'always',
            metric: 'load.1m',
            below: 100_000,
            clear: 100_001,
            severity: 'critical',
            summary: 'Load <b>{value}</b> is below 100000',
          },
        ],
      }),
    );
    const alerting = await spawnHttpServer(process.execPath, [
      CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--alerts-file',
      file,
    ]);
    try {
      target = await alerting.connect({ capabilities: UI_CAPS });
      await expect
        .poll(async () => {
          const report = await structured(target, 'get_alerts');
          return (report.active as Json[]).map((a) => a.rule);
        })
        .toContain('always');
      const read = await target.readResource('ui://system-info/dashboard');
      const content = read.contents[0] as unknown as Json;
      const title = 'System dashboard with an alert';
      await host.mount({
        html: content.text as string,
        csp: ((content._meta as Json).ui as Json).csp as Json,
        toolArgs: {},
        toolResult: (await target.callTool('get_system_snapshot', {})) as unknown as Json,
        title,
      });
      const frame = page.frameLocator('#slot iframe').last();
      await page.locator('#slot iframe').last().scrollIntoViewIfNeeded();
      const mounted = await (
        await page.locator('#slot iframe').last().elementHandle()
      )?.contentFrame();
      if (!mounted) throw new Error('the view is not mounted');
      await expect.poll(() => alertDisagreements(mounted, target), { timeout: 30_000 }).toEqual([]);
      const item = frame.locator('#alerts .active [data-rule]', { hasText: 'is below 100000' });
      expect(await item.count()).toBe(1);
      expect(await item.getAttribute('data-severity')).toBe('critical');
      expect(await item.getAttribute('data-state')).toBe('firing');
      expect(await item.locator('.severity').textContent()).toBe('critical');
      expect(await item.locator('.summary').textContent()).toMatch(/^Load <b>[\d.]+<\/b> is below/);
      expect(await frame.locator('#alerts b').count()).toBe(0);
      expect(await item.locator('.sub').textContent()).toMatch(/^since /);
      // The panel comes before every reading.
      expect(await frame.locator('main > section').first().getAttribute('id')).toBe(
        'alerts-section',
      );
    } finally {
      target = client;
      await alerting.stop();
    }
  });
});
