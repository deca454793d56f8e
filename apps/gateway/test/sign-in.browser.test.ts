// @module-tag chromium
// @module-tag process
/**
 * The gateway's sign-in and consent pages in headless Chromium, as a person meets them when a
 * client sends them there: the form, a wrong password said in words, the consent page naming
 * the client (its registered name, escaped) and the scopes, Allow ending at the client's
 * redirect with a code; then the page where the person connects a backend with their own key,
 * and their connections page. The screenshots the README shows (docs/sign-in.png,
 * docs/consent.png, docs/connect.png, docs/connections.png; rewritten with UPDATE_SCREENSHOTS=1).
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromiumLaunchOptions,
  freePort,
  type HttpProcess,
  killSpawned,
  pngStats,
  removeTempDirs,
  requireChromium,
  tempDir,
} from '@mcpkit/testing';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { backend, spawnHttpGateway } from './helpers.js';

const PASSWORD = 'a password for the browser test';
const REDIRECT = 'http://127.0.0.1:9/callback';
const shot = (name: string) =>
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL(`../docs/${name}.png`, import.meta.url))
    : join(tempDir('gateway-sign-in-shot-'), `${name}.png`);

describe('sign-in and consent pages in headless Chromium', () => {
  let gateway: HttpProcess;
  let browser: BrowserContext;

  beforeAll(async () => {
    requireChromium();
    const dir = tempDir('gateway-sign-in-');
    gateway = await spawnHttpGateway(
      {
        gateway: {
          authorization_server: {
            users: [{ username: 'alice', password_hash: await hashPassword(PASSWORD) }],
            store: join(dir, 'auth.db'),
          },
        },
        mcpServers: {
          rich: backend('rich', { scopes: ['files:read', 'files:write'] }),
          // A backend each person connects with their own key (only its config is needed here).
          tickets: {
            url: 'http://127.0.0.1:9/mcp',
            credential: {
              type: 'header',
              label: 'Tickets API key',
              help_url: 'https://tickets.example.com/settings/keys',
            },
          },
        },
      },
      {
        args: ['--port', String(await freePort())],
        dir,
        env: { ...process.env, MCP_GATEWAY_VAULT_KEY: randomBytes(32).toString('base64') },
      },
    );
    browser = await chromium.launchPersistentContext(
      tempDir('gateway-sign-in-chromium-'),
      chromiumLaunchOptions({ width: 1280, height: 800 }),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    killSpawned();
    removeTempDirs();
  });

  it('signs a person in, asks their consent naming the client, and sends the code back', async () => {
    const registered = await fetch(`${gateway.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude <b>Desktop</b>',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${gateway.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${gateway.url}/mcp`,
      scope: 'files:read files:write',
      state: 'the-state',
    }).toString();

    const page = await browser.newPage();
    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    // The client's redirect: answered here, as the client's own receiver would.
    let arrived: URL | undefined;
    await page.route(`${REDIRECT}**`, async (route) => {
      arrived = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
    });
    await page.goto(url.href);
    await expect.poll(() => page.title()).toContain('Sign in');
    // The client's name is shown as text, never as markup.
    expect(await page.locator('p b').first().textContent()).toBe('Claude <b>Desktop</b>');
    await page.screenshot({ path: shot('sign-in') }).then((png) => {
      expect(pngStats(png).distinct).toBeGreaterThan(20);
    });

    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong name or password.');

    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.title()).toContain('Allow access?');
    const consent = await page.locator('body').textContent();
    expect(consent).toContain('Claude <b>Desktop</b>');
    expect(consent).toContain('alice');
    expect(consent).toContain('files:read');
    expect(consent).toContain('files:write');
    const png = await page.screenshot({ path: shot('consent') });
    expect(pngStats(png).width).toBe(1280);

    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => arrived?.searchParams.get('code') ?? null).not.toBeNull();
    expect(arrived?.searchParams.get('state')).toBe('the-state');
    expect(arrived?.searchParams.get('iss')).toBe(gateway.url);
    // Nothing the pages do is refused by their own policy (a form's redirect included).
    expect(messages.filter((m) => /Refused|Content Security Policy/i.test(m))).toEqual([]);
    await page.close();
  });

  it('the person connects a backend with their own key, and sees it on their connections page', async () => {
    // Signed in at the gateway by the test before (this browser keeps the session).
    const page = await browser.newPage();
    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    await page.goto(`${gateway.url}/oauth/connect/tickets?for=alice`);
    await expect.poll(() => page.title()).toContain('Connect tickets');
    expect(await page.getByRole('link', { name: 'Where do I get one?' }).getAttribute('href')).toBe(
      'https://tickets.example.com/settings/keys',
    );
    const form = await page.screenshot({ path: shot('connect') });
    expect(pngStats(form).distinct).toBeGreaterThan(20);
    await page.getByLabel('Tickets API key').fill('tk_live_alice_0123456789');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.title()).toContain('Connected');
    await page.goto(`${gateway.url}/oauth/connections`);
    await expect.poll(() => page.title()).toContain('Your connections');
    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).toContain('Claude <b>Desktop</b>');
    expect(body).toContain('tickets');
    // The key itself is never shown again.
    expect(body).not.toContain('tk_live_alice');
    await page.screenshot({ path: shot('connections') });
    await page.getByRole('button', { name: 'Disconnect tickets' }).click();
    await expect
      .poll(async () => (await page.locator('body').textContent()) ?? '')
      .toContain('No backend holds a credential of yours.');
    expect(messages.filter((m) => /Refused|Content Security Policy/i.test(m))).toEqual([]);
    await page.close();
  });
});
