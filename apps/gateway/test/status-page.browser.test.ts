/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// @module-tag chromium
// @module-tag process
/**
 * The status page in headless Chromium against a real gateway process with three backends: the
 * login form, every backend on the page, a backend killed and its state and `backend.failed`
 * event shown without a reload, its Restart button, the event filters, the events of another gateway sharing its log
 * (shown as its, and filtered by instance), keyboard and contrast checks, phone width, and the
 * screenshot the README shows (docs/status-page.png, rewritten with UPDATE_SCREENSHOTS=1).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpClient } from '@mcpkit/protocol';
import {
  chromiumLaunchOptions,
  type HttpProcess,
  isAlive,
  killSpawned,
  pngStats,
  removeTempDirs,
  requireChromium,
  tempDir,
} from '@mcpkit/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../src/events.js';
import { backend, CLI, everythingBackend, spawnHttpGateway } from './helpers.js';

const TOKEN = 'status-page-token-0123';
const SHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/status-page.png', import.meta.url))
    : join(tempDir('gateway-shot-'), 'status-page.png');

describe('status page in headless Chromium', () => {
  let gateway: HttpProcess;
  let client: McpClient;
  let browser: BrowserContext;
  let page: Page;
  const offsite: string[] = [];
  // The gateway's directory: its event log is `events.db` there.
  const dir = tempDir('gateway-status-page-');

  beforeAll(async () => {
    requireChromium();
    expect(existsSync(CLI), 'build the package first (pnpm build)').toBe(true);
    gateway = await spawnHttpGateway(
      {
        gateway: {
          servers: {
            support: {
              tools: ['rich/echo', 'rich/who', 'chora/list_*'],
              prompts: ['rich/*'],
              default_for: { groups: ['support'], subjects: ['dana'] },
            },
          },
        },
        mcpServers: {
          // Left failed when killed: the page must show the state it stays in.
          chora: backend('chora', { restart: { policy: 'never' } }),
          rich: backend('rich'),
          everything: everythingBackend(),
        },
      },
      { args: ['--token', TOKEN], dir },
    );
    client = await gateway.connect({ headers: { Authorization: `Bearer ${TOKEN}` } });
    // Some traffic for the charts and the events table.
    for (let i = 0; i < 5; i++) {
      await client.callTool('rich__echo', { text: `hello ${i}` });
      await client.callTool('chora__list_generators', {});
    }
    await client.callTool('rich__fails', {});
    browser = await chromium.launchPersistentContext(
      tempDir('gateway-chromium-'),
      chromiumLaunchOptions({ width: 1280, height: 800 }),
    );
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(20_000);
    // Every event the page's stream delivers, kept in the page: a test can then wait for an event
    // to have reached the page (and its own handler, which runs in the same dispatch) instead of
    // giving it time.
    await page.addInitScript(() => {
      const seen: { event_type: string; tool?: string }[] = [];
      (window as unknown as { streamedEvents: typeof seen }).streamedEvents = seen;
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          this.addEventListener('gateway-event', (m) => seen.push(JSON.parse(m.data)));
        }
      };
    });
    // No CDN, nothing fetched from elsewhere: every request stays on the gateway.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(gateway.url)) return route.continue();
      offsite.push(url);
      return route.abort();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    killSpawned();
    removeTempDirs();
  });

  it('asks for the token once, then shows every backend running', async () => {
    const first = await page.goto(`${gateway.url}/`);
    expect(first?.status()).toBe(401);
    await page.getByLabel('Gateway token').fill('not-the-token-000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid');
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${gateway.url}/`);
    await page.locator('li.backend').nth(2).waitFor();
    const names = await page.locator('li.backend h3 span:first-child').allTextContents();
    expect(names.sort()).toEqual(['chora', 'everything', 'rich']);
    for (const name of names) {
      await expect
        .poll(() => page.locator(`li[data-backend="${name}"]`).getAttribute('data-state'))
        .toBe('running');
    }
    await expect.poll(() => page.locator('#live').getAttribute('data-state')).toBe('live');
    const rich = page.locator('li[data-backend="rich"]');
    expect(await rich.locator('dt:text-is("calls") + dd').textContent()).toMatch(/^6\b/);
    expect(await rich.locator('figure svg[role="img"]').count()).toBe(2);
    expect(await rich.locator('figcaption').nth(1).textContent()).toMatch(
      /p50 [\d.]+ ms, p99 [\d.]+ ms/,
    );
    // The cookie is a session id, never the token.
    const cookies = await browser.cookies();
    expect(cookies.map((c) => c.value).join()).not.toContain(TOKEN);
    expect(cookies.find((c) => c.name === 'mcpkit_status')?.httpOnly).toBe(true);
  });

  it('lists the virtual servers: endpoint, tools, and who gets each — names of people left out', async () => {
    const section = page.locator('#servers');
    await section.waitFor();
    // Drawn with each state the page hears (every second): the one after every backend is in.
    const cells = () => section.locator('#server-rows tr').first().locator('td').allTextContents();
    await expect
      .poll(cells)
      .toEqual([
        'support',
        '/servers/support/mcp',
        '4: chora__list_generators, chora__list_templates, rich__echo, rich__who',
        '1',
        '0',
        'group support, 1 person',
      ]);
    expect(await section.textContent()).not.toContain('dana');
  });

  it('shows a killed backend fail and its backend.failed event, without a reload', async () => {
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    const chora = page.locator('li[data-backend="chora"]');
    const pid = Number(await chora.locator('dt:text-is("pid") + dd').textContent());
    expect(isAlive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => chora.getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
    expect(await chora.locator('.badge').textContent()).toBe('failed');
    expect(await chora.locator('.error-text').textContent()).toMatch(/SIGKILL|signal|exit/i);
    const row = page.locator('tr[data-type="backend.failed"]').first();
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain('chora');
    expect(await row.getAttribute('class')).toBe('fresh');
    expect(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true);
  });

  it('filters the events by type, status and since', async () => {
    const types = () =>
      page
        .locator('#event-rows tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
    await page.getByLabel('Type').fill('gateway.tool_call');
    await page.getByLabel('Status').selectOption('success');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => page.locator('#events-note').textContent())
      .toMatch(/matching the filter/);
    const toolCalls = await types();
    expect(toolCalls.length).toBeGreaterThanOrEqual(1);
    expect(new Set(toolCalls)).toEqual(new Set(['gateway.tool_call']));
    expect(await page.locator('#event-rows .status-success').count()).toBe(toolCalls.length);

    await page.getByLabel('Type').fill('backend.failed');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Since').fill('30m');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(types).toEqual(['backend.failed']);

    // A since the log cannot read: the page says so and keeps the rows it had.
    await page.getByLabel('Since').fill('last tuesday');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('#events-note').textContent()).toMatch(/since must be/);
    expect(await types()).toEqual(['backend.failed']);

    // A live event that does not match stays out; a matching one comes in at the top.
    await page.getByLabel('Since').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(types).toEqual(['backend.failed']);
    const streamed = () =>
      page.evaluate(
        () =>
          (window as unknown as { streamedEvents: { event_type: string; tool?: string }[] })
            .streamedEvents,
      );
    const before = (await streamed()).length;
    await client.callTool('rich__echo', { text: 'filtered out' });
    // The page was given the call's event (not 1.5 s): it came, and it was left out.
    await expect
      .poll(async () => (await streamed()).slice(before).map((e) => `${e.event_type} ${e.tool}`), {
        timeout: 30_000,
      })
      .toContain('gateway.tool_call rich__echo');
    expect(await types()).toEqual(['backend.failed']);

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(async () => new Set(await types()).size).toBeGreaterThan(2);
  });

  it('shows which gateway each event came from, and filters by instance, live too', async () => {
    const status = await client.callTool('gateway_status', {});
    const self = (
      JSON.parse((status.content[0] as { text: string }).text) as { gateway: { instance: string } }
    ).gateway.instance;
    // Another gateway writing to the same log (as gateways without --config share the default
    // one), with an id no page may take for markup.
    const other = '<img src=x onerror="window.pwned=1">:4242:abcdef';
    const log = EventLog.open(join(dir, 'events.db'), { instance: other });
    log.record({ event_type: 'backend.started', status: 'success', source: 'other', backend: 'x' });
    await log.close();
    const rows = () =>
      page.locator('#event-rows tr').evaluateAll((trs) =>
        trs.map((tr) => {
          const cell = tr.querySelector('td[data-label="Instance"]');
          return {
            instance: tr.getAttribute('data-instance'),
            text: cell?.textContent,
            title: cell?.getAttribute('title'),
          };
        }),
      );
    // Every instance: this gateway's rows marked as its own, the other's by host and pid.
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await rows()).some((r) => r.instance === other)).toBe(true);
    const all = await rows();
    expect(all.find((r) => r.instance === other)).toEqual({
      instance: other,
      text: '<img src=x onerror="window.pwned=1">:4242',
      title: other,
    });
    expect(all.filter((r) => r.instance === self).length).toBeGreaterThan(1);
    for (const r of all.filter((r) => r.instance === self)) {
      expect(r).toEqual({ instance: self, text: 'this instance', title: self });
    }
    expect(await page.locator('#event-rows img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBe(
      undefined,
    );
    // The filter offers all, this instance and the other gateway it has seen.
    const instanceFilter = page.getByLabel('Instance');
    expect(
      await instanceFilter
        .locator('option')
        .evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent])),
    ).toEqual([
      ['', 'all'],
      ['self', 'this instance'],
      [other, '<img src=x onerror="window.pwned=1">:4242'],
    ]);

    const streamed = () =>
      page.evaluate(
        () =>
          (window as unknown as { streamedEvents: { event_type: string; tool?: string }[] })
            .streamedEvents,
      );
    const instances = async () => new Set((await rows()).map((r) => r.instance));
    // This instance: its own events only, and its new ones come in live.
    await instanceFilter.selectOption('self');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(instances).toEqual(new Set([self]));
    // (A row the stream brought is `fresh`; the ones loaded by Apply are not.)
    expect(await page.locator('#event-rows tr.fresh').count()).toBe(0);
    await client.callTool('rich__echo', { text: 'mine, live' });
    await expect
      .poll(() => page.locator('#event-rows tr.fresh').allTextContents(), { timeout: 30_000 })
      .toContainEqual(expect.stringContaining('rich__echo'));
    expect(await instances()).toEqual(new Set([self]));

    // The other instance: its event only; this gateway's live events stay out.
    await instanceFilter.selectOption(other);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await rows()).map((r) => r.instance)).toEqual([other]);
    expect(await page.locator('#events-note').textContent()).toMatch(/Apply again/);
    const before = (await streamed()).length;
    await client.callTool('rich__echo', { text: 'not theirs' });
    await expect
      .poll(async () => (await streamed()).slice(before).map((e) => `${e.event_type} ${e.tool}`), {
        timeout: 30_000,
      })
      .toContain('gateway.tool_call rich__echo');
    expect((await rows()).map((r) => r.instance)).toEqual([other]);

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(instances).toEqual(new Set([self, other]));
  });

  it('can be used from the keyboard, with readable contrast', async () => {
    // From the top of a fresh load (the earlier tests left focus in the form).
    await page.reload();
    await page.locator('#event-rows tr').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to events');
    // Every form control has a label; every chart has a text alternative.
    const unlabelled = await page.evaluate(
      () =>
        [...document.querySelectorAll('input, select')].filter(
          (el) => !(el as HTMLInputElement).labels?.length,
        ).length,
    );
    expect(unlabelled).toBe(0);
    // WCAG AA (4.5:1) for the text that carries meaning: badges, states, buttons, body text.
    const ratios = await page.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        }) as [number, number, number];
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const background = (el: Element | null): string => {
        for (let e = el; e; e = e.parentElement) {
          const bg = getComputedStyle(e).backgroundColor;
          if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
        }
        return 'rgb(255, 255, 255)';
      };
      const out: { sel: string; ratio: number }[] = [];
      for (const sel of [
        '.badge',
        '.status-failure',
        '.status-success',
        'button',
        '.facts dt',
        'td',
        '.note',
        '.meta',
      ]) {
        for (const el of document.querySelectorAll(sel)) {
          const a = lum(getComputedStyle(el).color);
          const b = lum(background(el));
          out.push({ sel, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) });
        }
      }
      return out;
    });
    expect(ratios.length).toBeGreaterThan(10);
    for (const { sel, ratio } of ratios) expect(ratio, sel).toBeGreaterThanOrEqual(4.5);
  });

  it('saves a screenshot at 1280×800 that is not blank, and fits a phone width', async () => {
    await page.evaluate(
      () => document.activeElement instanceof HTMLElement && document.activeElement.blur(),
    );
    // Traffic over several of the page's updates, so the charts have something to draw: each
    // burst is followed by the update that shows it (counted calls, not seconds of load).
    const richCalls = async () => {
      const result = await client.callTool('gateway_status', {});
      const text = (result.content[0] as { text: string }).text;
      return (JSON.parse(text) as { backends: { rich: { calls: number } } }).backends.rich.calls;
    };
    const shownCalls = () =>
      page.locator('li[data-backend="rich"] dt:text-is("calls") + dd').textContent();
    for (let round = 0; round < 6; round++) {
      for (let n = 0; n < 10 + 15 * (round % 3); n++) {
        await Promise.all([
          client.callTool('rich__echo', { text: `load ${round}.${n}` }),
          client.callTool('rich__sleep', { ms: (n * 7) % 25 }),
          client.callTool('everything__test_simple_text', {}),
        ]);
      }
      const calls = await richCalls();
      await expect.poll(shownCalls, { timeout: 30_000 }).toMatch(new RegExp(`^${calls}\\b`));
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const png = await page.screenshot({ path: SHOT });
    expect(png.length).toBeGreaterThan(20_000);
    const stats = pngStats(png);
    expect(stats.width).toBe(1280);
    expect(stats.height).toBe(800);
    expect(stats.distinct).toBeGreaterThan(50);
    expect(stats.inked).toBeGreaterThan(5_000);

    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(overflow).toBeLessThanOrEqual(390);
    expect(await page.locator('#event-rows td[data-label="Type"]').first().isVisible()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(offsite).toEqual([]);
  });

  // Last: the tests above count the events and show chora failed (the screenshot too).
  it('starts the failed backend again from its Restart button, and says how it went', async () => {
    const chora = page.locator('li[data-backend="chora"]');
    await expect.poll(() => chora.getAttribute('data-state')).toBe('failed');
    await chora.getByRole('button', { name: 'Restart chora' }).click();
    await expect
      .poll(() => page.locator('#backends-note').textContent(), { timeout: 30_000 })
      .toBe('chora: running');
    await expect.poll(() => chora.getAttribute('data-state')).toBe('running');
    expect(await chora.locator('dt:text-is("restarts") + dd').textContent()).toBe('1');
  });
});
