/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// @module-tag chromium
// @module-tag process
/**
 * The design-system view (MCP Apps) in headless Chromium, wired to a real server over HTTP: the
 * test host page of system-info (`apps/system-info/test/host/host.ts`, built on the ext-apps
 * `AppBridge`) mounts the view that `resources/read` returns in a sandboxed iframe under the
 * resource's CSP, hands it the demo project's `get_design_system` result, and forwards the view's
 * tool calls to an MCP client of the server. The test checks that every token of the document is
 * drawn, and saves the screenshot the README shows (docs/design-system.png).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type ServedHttp, serveHttp } from '@mcpkit/node';
import type { McpClient } from '@mcpkit/protocol';
import { pngStats, removeTempDirs, requireChromium, tempDir } from '@mcpkit/testing';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostPage, openHostPage } from '../../system-info/test/host-page.js';
import type { Store } from '../src/db/types.js';
import { DEMO_EMAIL, seedDemo } from '../src/demo.js';
import { DESIGN_SYSTEM_VIEW_URI, UI_EXTENSION, UI_MIME_TYPE } from '../src/design-system-view.js';
import { createProjectsServer, projectsHttpOptions } from '../src/server.js';
import { tempStore, userWithKey } from './helpers.js';

type Json = Record<string, unknown>;

const VIEW = fileURLToPath(new URL('../dist/views/design-system.html', import.meta.url));
/**
 * The README's screenshot is rewritten only on request (`UPDATE_SCREENSHOTS=1`), so a test run
 * leaves the work tree as it was; otherwise the shot goes to a temp dir, checked all the same.
 */
const SHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/design-system.png', import.meta.url))
    : join(tempDir('projects-shot-'), 'design-system.png');
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };

/** Every token path of a DTCG document, in document order (what the view must draw). */
function tokenPaths(node: Json, prefix: string[] = []): string[] {
  if ('$value' in node) return [prefix.join('.')];
  return Object.entries(node).flatMap(([key, child]) =>
    key.startsWith('$') || typeof child !== 'object' || child === null || Array.isArray(child)
      ? []
      : tokenPaths(child as Json, [...prefix, key]),
  );
}

describe('design-system view in headless Chromium', () => {
  let store: Store;
  let http: ServedHttp;
  let client: McpClient;
  let plain: McpClient;
  let host: HostPage;
  let browser: BrowserContext;
  let page: Page;
  let view: Frame;
  let projectId: string;
  let tokens: Json;
  const calls: string[] = [];
  /** When set, the host answers the view's next calls with this failure instead. */
  let failWith: 'error' | 'isError' | undefined;
  let requests: string[] = [];

  beforeAll(async () => {
    requireChromium();
    expect(existsSync(VIEW), 'build the package first (pnpm build)').toBe(true);
    ({ store } = await tempStore());
    await seedDemo(store);
    const { key } = await userWithKey(store, DEMO_EMAIL, ['read']);
    http = await serveHttp(
      createProjectsServer({ store }),
      projectsHttpOptions(store, { points: 1000, windowSec: 60 }),
    );
    const headers = { Authorization: `Bearer ${key}` };
    client = await http.connect({ headers, capabilities: UI_CAPS });
    plain = await http.connect({ headers });
    host = await openHostPage({
      profile: 'projects-chromium-',
      callTool: async (params: Json) => {
        calls.push(String(params.name));
        if (failWith === 'error') throw new Error('Internal error: database unavailable');
        if (failWith === 'isError')
          return { content: [{ type: 'text', text: 'Project not found' }], isError: true };
        return client.callTool(String(params.name), (params.arguments as Json | undefined) ?? {});
      },
    });
    ({ browser, page, requests } = host);
  });

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await store?.close();
    removeTempDirs();
  });

  it('prints its shipped size, within budget', () => {
    const html = readFileSync(VIEW);
    const gz = gzipSync(html).length;
    console.log(
      `view design-system.html: ${(html.length / 1024).toFixed(1)} KB (${(gz / 1024).toFixed(1)} KB gzip)`,
    );
    expect(html.length).toBeLessThan(300 * 1024);
    expect(gz).toBeLessThan(150 * 1024);
  });

  it('lists the view only to hosts with the extension, linked from get_design_system', async () => {
    const listed = async (c: McpClient) => (await c.listResources()).map((r) => r.uri);
    expect(await listed(client)).toContain(DESIGN_SYSTEM_VIEW_URI);
    expect(await listed(plain)).not.toContain(DESIGN_SYSTEM_VIEW_URI);
    const tool = (await plain.listTools()).find((t) => t.name === 'get_design_system');
    expect(tool?._meta).toEqual({ ui: { resourceUri: DESIGN_SYSTEM_VIEW_URI } });
  });

  it('draws every token of the demo project', async () => {
    const listed = await client.callTool('list_projects', {});
    const first = listed.content[0];
    const projects = JSON.parse(first?.type === 'text' ? first.text : '[]') as Json[];
    projectId = String(projects.find((p) => p.name === 'Meine Website')?.id);
    const read = await client.readResource(DESIGN_SYSTEM_VIEW_URI);
    const content = read.contents[0] as unknown as Json;
    expect(content.mimeType).toBe(UI_MIME_TYPE);
    const ui = (content._meta as Json).ui as Json;
    const result = await client.callTool('get_design_system', { projectId });
    tokens = (result.structuredContent as Json).tokens as Json;
    await host.mount({
      html: content.text as string,
      csp: ui.csp as Json,
      toolArgs: { projectId },
      toolResult: result as unknown as Json,
      title: 'Design system',
      tool: (await client.listTools()).find(
        (t) => t.name === 'get_design_system',
      ) as unknown as Json,
    });
    view = page.frames().find((f) => f !== page.mainFrame()) as Frame;
    await view.waitForFunction(() => Number(document.body.dataset.tokens ?? 0) > 0);
    const drawn = await view.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-token]')].map((e) => e.dataset.token),
    );
    const expected = tokenPaths(tokens);
    expect(expected.length).toBeGreaterThan(10);
    expect([...drawn].sort()).toEqual([...expected].sort());
    // Swatches name their colour; the alias shows the colour it refers to.
    const swatches = await view.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll<HTMLElement>('[data-type="color"] .swatch')].map((e) => [
          e.closest('li')?.dataset.token,
          e.getAttribute('aria-label'),
        ]),
      ),
    );
    expect(swatches['color.brand.primary']).toBe('color.brand.primary: #2563eb');
    expect(swatches['color.action']).toBe('color.action: #2563eb');
    const spacing = await view.locator('[data-token="spacing.lg"]').textContent();
    expect(spacing).toContain('2rem (32px)');
    // The contrast verdicts of the result, each pair drawn with its ratio, failures first.
    const report = (result.structuredContent as Json).contrast as Json[];
    const pairs = await view.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-pair]')].map((e) => ({
        pair: e.dataset.pair,
        verdict: e.dataset.verdict,
        text: e.textContent,
      })),
    );
    expect(pairs.map((p) => p.pair)).toEqual(
      report.map((r) => `${r.foreground} on ${r.background}`),
    );
    expect(pairs[0]).toMatchObject({
      pair: 'color.text.subtle on color.surface.background',
      verdict: 'fail',
    });
    expect(pairs[0]?.text).toContain(`${Number(report[0]?.ratio).toFixed(2)}:1`);
    expect(pairs[0]?.text).toContain('AA ✗');
    expect(pairs.filter((p) => p.verdict === 'pass').length).toBe(2);
  });

  it('refreshes through the bridge from the keyboard', async () => {
    const button = page.frameLocator('#slot iframe').locator('#refresh');
    await button.focus();
    await button.press('Enter');
    await expect.poll(() => calls).toContain('get_design_system');
    await view.waitForFunction(() =>
      /tokens/.test(document.getElementById('status')?.textContent ?? ''),
    );
  });

  it('says why a refresh failed, keeps the tokens it has, and recovers', async () => {
    const button = page.frameLocator('#slot iframe').locator('#refresh');
    const status = () => view.locator('#status').textContent();
    try {
      for (const [mode, reason] of [
        ['isError', /get_design_system failed: Project not found/],
        ['error', /get_design_system failed: .*database unavailable/],
      ] as const) {
        failWith = mode;
        await button.click();
        await expect.poll(status).toMatch(reason);
        expect(await view.locator('#status').getAttribute('class')).toContain('error');
        expect(await view.locator('[data-token]').count()).toBe(tokenPaths(tokens).length);
      }
    } finally {
      failWith = undefined;
    }
    await button.click();
    await expect.poll(status).toMatch(/^\d+ tokens/);
  });

  it('saves a screenshot that is not blank, and made no network request', async () => {
    mkdirSync(dirname(SHOT), { recursive: true });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const png = await page.locator('#slot iframe').screenshot({ path: SHOT });
    expect(pngStats(png).distinct).toBeGreaterThan(50);
    expect(requests).toEqual([]);
  });
  it('says so when the tool result it is shown for is an error or holds no tokens', async () => {
    const read = await client.readResource(DESIGN_SYSTEM_VIEW_URI);
    const content = read.contents[0] as unknown as Json;
    const cases = [
      [
        { content: [{ type: 'text', text: 'Project not found' }], isError: true },
        /failed: Project not found/,
      ],
      [{ content: [], structuredContent: { projectId: 'x' } }, /holds no design tokens/],
    ] as const;
    for (const [n, [toolResult, message]] of cases.entries()) {
      await host.mount({
        html: content.text as string,
        csp: ((content._meta as Json).ui as Json).csp as Json,
        toolArgs: { projectId: 'x' },
        toolResult: toolResult as unknown as Json,
        title: `Design system ${n}`,
      });
      const frame = page.frameLocator('#slot iframe').nth(n + 1);
      await expect.poll(() => frame.locator('#status').textContent()).toMatch(message);
      expect(await frame.locator('[data-token]').count()).toBe(0);
    }
  });
});
