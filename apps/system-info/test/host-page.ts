/**
 * The browser side of the MCP Apps view tests, shared by system-info's dashboard test and
 * projects' design-system test: headless Chromium with a fresh profile, a blank host page that
 * runs `host/host.ts` (the ext-apps `AppBridge` host), no request allowed off the machine, and
 * the view's tool calls handed to the test's `callTool`.
 */
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, tempDir } from '@mcpkit/testing';
import { build } from 'esbuild';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { MountOptions } from './host/host.js';

type Json = Record<string, unknown>;

/** What {@link openHostPage} opened. */
export interface HostPage {
  browser: BrowserContext;
  page: Page;
  /** Every URL the page asked for (only 127.0.0.1 is let through; a view should ask for none). */
  requests: string[];
  /** Mount one more view in the host's slot (see host.ts). */
  mount(options: MountOptions): Promise<void>;
}

const HOST = fileURLToPath(new URL('./host/host.ts', import.meta.url));

/**
 * Launch Chromium and open the host page. `callTool` answers the view's `tools/call` (forward it
 * to an MCP client, or fail it), told which view (by its title) made the call; `after` is HTML
 * placed below the view's slot (room to scroll it out of sight, say).
 */
export async function openHostPage(options: {
  profile: string;
  callTool: (params: Json, view: string) => Promise<unknown>;
  after?: string;
}): Promise<HostPage> {
  const host = await build({
    entryPoints: [HOST],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  });
  // A fresh profile per run: nothing of an earlier run (or of a person's browser) leaks in.
  const browser = await chromium.launchPersistentContext(
    tempDir(options.profile),
    chromiumLaunchOptions({ width: 1000, height: 800 }),
  );
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20_000);
  const requests: string[] = [];
  // Nothing may leave the machine; the view itself should ask for nothing at all.
  await page.route('**/*', (route) => {
    requests.push(route.request().url());
    return route.request().url().startsWith('http://127.0.0.1') ? route.continue() : route.abort();
  });
  await page.exposeFunction('hostCallTool', options.callTool);
  await page.setContent(
    `<!doctype html><html lang="en"><head><title>test host</title></head><body style="margin:0;font-family:sans-serif"><div id="slot" style="width:960px"></div>${options.after ?? ''}</body></html>`,
  );
  await page.addScriptTag({ content: host.outputFiles[0]?.text ?? '' });
  return {
    browser,
    page,
    requests,
    mount: (mountOptions) =>
      page.evaluate(
        (o) => (window as unknown as { mountView(o: MountOptions): Promise<void> }).mountView(o),
        mountOptions,
      ),
  };
}
