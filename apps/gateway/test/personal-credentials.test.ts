/**
 * Each person's own credential to a backend (the credential vault): a person who has not
 * connected a backend is sent to its connect page by a URL elicitation (-32042 for a 2025
 * client, an input request for a 2026-07-28 one), pastes their key, and their retried call runs
 * with it — and never with anyone else's (ContextForge #1078 is the bug this guards against).
 * The backend is a real HTTP MCP server that answers with the bearer token it was sent.
 */
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { type ServedHttp, serveHttp } from '@mcpkit/node';
import { defineResource, defineTool, type McpClient, McpServer, RpcError } from '@mcpkit/protocol';
import {
  type FormBrowser,
  freePort,
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  runProcess,
  signInAs,
  tempDir,
} from '@mcpkit/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { newVaultKey, VaultKeys } from '../src/vault/keys.js';
import { CLI, connectSignedIn, fixture, spawnHttpGateway } from './helpers.js';

const PASSWORDS = {
  alice: 'alice has a password',
  bob: 'bob has a password too',
  carol: 'carol has one as well',
};
const SERVICE = 'the-gateways-own-listing-key';
const KEY = newVaultKey();

let backend: ServedHttp;
/** Every bearer token the backend was sent, in order. */
const seen: string[] = [];
let gw: HttpProcess;
let dir: string;

const answer = (who: keyof typeof PASSWORDS) => signInAs(who, PASSWORDS[who]);

/** The person pastes `secret` on the connect page `url` in their browser; the page's answer. */
async function connect(browser: FormBrowser, url: string, secret: string): Promise<Response> {
  const form = await browser.fetch(url);
  expect(form.status).toBe(200);
  const html = await form.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] as string;
  return browser.fetch(new URL(action.replace(/&amp;/g, '&'), url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret }),
  });
}

/** The -32042 a call was refused with: its URL elicitation. */
async function connectAsked(client: McpClient, tool: string) {
  const err = await client.callTool(tool, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(RpcError.is(err) && err.code).toBe(-32042);
  const data = (err as RpcError).data as {
    elicitations: { mode: string; elicitationId: string; url: string; message: string }[];
  };
  expect(data.elicitations).toHaveLength(1);
  return data.elicitations[0] as (typeof data.elicitations)[number];
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? '') as string;

beforeAll(async () => {
  const echo = new McpServer({ name: 'recorder', version: '1' })
    .addTool(
      defineTool({
        name: 'whoami',
        description: 'The bearer token this call came with',
        handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody',
      }),
    )
    .addResource(
      defineResource({
        uri: 'rec://whoami',
        name: 'whoami',
        mimeType: 'text/plain',
        read: (ctx) => ctx.auth?.subject ?? 'nobody',
      }),
    );
  // Every token is accepted; the tool says which one it was (the subject is the token itself).
  backend = await serveHttp(echo, {
    auth: { authenticate: (token) => ({ subject: token, scopes: new Set() }) },
  });
  backend.http.server.prependListener('request', (req: IncomingMessage) => {
    seen.push(String(req.headers.authorization ?? ''));
  });
  dir = tempDir('gw-personal-');
  gw = await spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          users: [
            { username: 'alice', password_hash: await hashPassword(PASSWORDS.alice) },
            { username: 'bob', password_hash: await hashPassword(PASSWORDS.bob) },
            { username: 'carol', password_hash: await hashPassword(PASSWORDS.carol) },
          ],
          store: join(dir, 'auth.db'),
        },
        per_person: { max_links: 8, idle_sec: 600 },
      },
      mcpServers: {
        rec: {
          url: backend.mcpUrl,
          headers: { Authorization: `Bearer ${SERVICE}` },
          credential: {
            type: 'header',
            label: 'Recorder key',
            help_url: 'https://example.com/keys',
          },
        },
        mine: {
          command: process.execPath,
          args: [fixture('whoami')],
          per_identity: true,
          credential: { type: 'env', variable: 'PERSON_KEY', label: 'Whoami key' },
        },
      },
    },
    {
      args: ['--port', String(await freePort())],
      dir,
      env: { ...process.env, MCP_GATEWAY_VAULT_KEY: KEY },
    },
  );
});
afterAll(async () => {
  await gw?.stop();
  await backend?.close();
  killSpawned();
  removeTempDirs();
});

describe('a backend that needs each person’s own key', () => {
  it('a 2025 client is asked to connect (-32042), the person pastes their key, the retry runs with it', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer('alice'), {
      protocol: 'legacy',
    });
    try {
      const asked = await connectAsked(client, 'rec__whoami');
      expect(asked.mode).toBe('url');
      expect(asked.url).toBe(`${gw.url}/oauth/connect/rec?for=alice`);
      expect(asked.message).toContain('Recorder key');
      // The same request each time until connected (a 2026 client's retry answers it).
      expect((await connectAsked(client, 'rec__whoami')).elicitationId).toBe(asked.elicitationId);

      const done = await connect(browser, asked.url, 'alice-key-1');
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/oauth/connect/done?backend=rec');
      expect(textOf(await client.callTool('rec__whoami', {}))).toBe('alice-key-1');
      // The gateway listed the backend's tools with its own key; calls carried alice's only.
      expect(seen).toContain(`Bearer ${SERVICE}`);
      expect(seen).toContain('Bearer alice-key-1');
      // A resource of the backend is read with the person's key too, not the gateway's.
      const read = await client.readResource('rec://whoami');
      expect((read.contents[0] as { text?: string }).text).toBe('alice-key-1');
      // gateway_status tells the caller which personal backends they connected.
      const status = JSON.parse(textOf(await client.callTool('gateway_status', {}))) as {
        backends: Record<string, { per_person?: Record<string, unknown> }>;
      };
      expect(status.backends.rec?.per_person).toEqual({
        credential: 'header',
        open_links: 1,
        you_connected: true,
      });
      expect(status.backends.mine?.per_person).toMatchObject({
        credential: 'env',
        you_connected: false,
      });
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 client is asked through an input request, opens the page, and its retry succeeds', async () => {
    let browser: FormBrowser | undefined;
    const opened: string[] = [];
    const { client, browser: bobs } = await connectSignedIn(`${gw.url}/mcp`, answer('bob'), {
      protocol: 'auto',
      client: {
        capabilities: { elicitation: { url: {} } },
        handlers: {
          elicitation: async (params) => {
            const { url } = params as { url: string };
            opened.push(url);
            const res = await connect(browser as FormBrowser, url, 'bob-key-1');
            return { action: res.status === 303 ? 'accept' : 'cancel' };
          },
        },
      },
    });
    browser = bobs;
    try {
      expect(client.era).toBe('modern');
      expect(textOf(await client.callTool('rec__whoami', {}))).toBe('bob-key-1');
      expect(opened).toEqual([`${gw.url}/oauth/connect/rec?for=bob`]);
    } finally {
      await client.close();
    }
  });

  it('two people × 500 interleaved calls: each call carries its caller’s key, never the other’s', async () => {
    const alice = await connectSignedIn(`${gw.url}/mcp`, answer('alice'), { protocol: 'legacy' });
    const bob = await connectSignedIn(`${gw.url}/mcp`, answer('bob'), { protocol: 'auto' });
    try {
      const wrong = { alice: 0, bob: 0 };
      const tally = async (who: 'alice' | 'bob', client: McpClient, tool: string, key: string) => {
        const text = textOf(await client.callTool(tool, {}));
        const got = tool === 'rec__whoami' ? text : (JSON.parse(text) as { key: string }).key;
        if (got !== key) wrong[who]++;
      };
      // Both backends: the HTTP one (a header per person) and the stdio one (a process per person).
      await connect(alice.browser, `${gw.url}/oauth/connect/mine`, 'alice-env');
      await connect(bob.browser, `${gw.url}/oauth/connect/mine`, 'bob-env');
      for (let round = 0; round < 50; round++) {
        const batch: Promise<void>[] = [];
        for (let i = 0; i < 10; i++) {
          const tool = i % 2 === 0 ? 'rec__whoami' : 'mine__whoami';
          batch.push(
            tally(
              'alice',
              alice.client,
              tool,
              tool === 'rec__whoami' ? 'alice-key-1' : 'alice-env',
            ),
            tally('bob', bob.client, tool, tool === 'rec__whoami' ? 'bob-key-1' : 'bob-env'),
          );
        }
        await Promise.all(batch);
      }
      // 50 rounds of 10 calls each: 500 calls per person, half to each backend.
      expect(wrong).toEqual({ alice: 0, bob: 0 });
      const pids = await Promise.all(
        [alice.client, bob.client].map(
          async (c) =>
            (JSON.parse(textOf(await c.callTool('mine__whoami', {}))) as { pid: number }).pid,
        ),
      );
      expect(new Set(pids).size).toBe(2);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });
});

describe('the connect page refuses what it must', () => {
  it('a link made for someone else, an unknown backend, an empty or multi-line key; no session: sign in first', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer('bob'));
    await client.close();
    const other = await browser.fetch(`${gw.url}/oauth/connect/rec?for=alice`);
    expect(other.status).toBe(403);
    expect(await other.text()).toContain('This link was made for <b>alice</b>');
    expect((await browser.fetch(`${gw.url}/oauth/connect/nope`)).status).toBe(404);
    for (const secret of ['', '   ', 'line one\nline two', 'x'.repeat(5000)]) {
      const res = await browser.fetch(`${gw.url}/oauth/connect/rec`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret }),
      });
      expect(res.status, JSON.stringify(secret.slice(0, 20))).toBe(400);
      expect(await res.text()).toContain('one line of printable characters');
    }
    // Nothing was stored: bob's key is the one he gave before.
    const check = await connectSignedIn(`${gw.url}/mcp`, answer('bob'));
    expect(textOf(await check.client.callTool('rec__whoami', {}))).toBe('bob-key-1');
    await check.client.close();
    // A form posted from another site is refused (the person's own pages check Origin).
    const forged = await browser.fetch(`${gw.url}/oauth/connect/rec`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      },
      body: new URLSearchParams({ secret: 'attacker-key' }),
    });
    expect(forged.status).toBe(403);
    // No gateway session in this browser: sent to sign in, and back here after.
    const anon = await fetch(`${gw.url}/oauth/connect/rec?for=alice`, { redirect: 'manual' });
    expect(anon.status).toBe(303);
    const signIn = new URL(anon.headers.get('location') as string, gw.url);
    expect(signIn.pathname).toBe('/oauth/authorize');
    expect(signIn.searchParams.get('state')).toBe('/oauth/connect/rec?for=alice');
  });

  it('a disconnected backend asks again; the connections page lists and disconnects it', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer('alice'), {
      protocol: 'legacy',
    });
    try {
      const page = await (await browser.fetch(`${gw.url}/oauth/connections`)).text();
      expect(page).toContain('<b>rec</b>');
      const res = await browser.fetch(`${gw.url}/oauth/connections`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ backend: 'rec' }),
      });
      expect(res.status).toBe(303);
      expect(await (await browser.fetch(`${gw.url}/oauth/connections`)).text()).not.toContain(
        '<b>rec</b>',
      );
      await connectAsked(client, 'rec__whoami');
      await connect(browser, `${gw.url}/oauth/connect/rec`, 'alice-key-2');
      expect(textOf(await client.callTool('rec__whoami', {}))).toBe('alice-key-2');
    } finally {
      await client.close();
    }
  });

  it('a tampered vault row is not used: the person is asked to connect again, and the event log says why', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer('carol'), {
      protocol: 'legacy',
    });
    try {
      // Carol connects, and her row is changed before her first call opens a link with it.
      expect((await connect(browser, `${gw.url}/oauth/connect/rec`, 'carol-key')).status).toBe(303);
      const raw = new Database(join(dir, 'auth.db'));
      const row = raw
        .prepare("SELECT sealed FROM vault_credentials WHERE owner = 'carol' AND name = 'rec'")
        .get() as { sealed: Buffer };
      const flipped = Buffer.from(row.sealed);
      flipped[20] = (flipped[20] ?? 0) ^ 0xff;
      raw
        .prepare("UPDATE vault_credentials SET sealed = ? WHERE owner = 'carol' AND name = 'rec'")
        .run(flipped);
      raw.close();
      const asked = await connectAsked(client, 'rec__whoami');
      expect(asked.message).toMatch(/cannot be used .*connect it again/);
      expect(seen).not.toContain('Bearer carol-key');
      const events = await client.callTool('get_events', { event_type: 'credential.unreadable' });
      expect(textOf(events)).toContain('"reason":"tampered"');
      // Connected again, it works.
      await connect(browser, `${gw.url}/oauth/connect/rec`, 'carol-key-2');
      expect(textOf(await client.callTool('rec__whoami', {}))).toBe('carol-key-2');
    } finally {
      await client.close();
    }
  });
});

describe('the vault key', () => {
  it('mcp-gateway vault-key prints a new key the gateway takes; an unknown command is refused', async () => {
    const made = await runProcess(process.execPath, [CLI, 'vault-key']);
    expect(made.code).toBe(0);
    const key = made.stdout.trim();
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(VaultKeys.load({}, { MCP_GATEWAY_VAULT_KEY: key }).currentId).toMatch(/^[0-9a-f]{16}$/);
    // Each run a different key.
    expect((await runProcess(process.execPath, [CLI, 'vault-key'])).stdout.trim()).not.toBe(key);
    const unknown = await runProcess(process.execPath, [CLI, 'vault-keys']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "mcp-gateway: unknown command 'vault-keys' (commands: hash-password, vault-key)",
    );
  });

  it('a gateway whose backends take personal credentials does not start without one', async () => {
    const config = join(tempDir('gw-nokey-'), 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        gateway: {
          authorization_server: {
            users: [{ username: 'alice', password_hash: await hashPassword(PASSWORDS.alice) }],
          },
        },
        mcpServers: { rec: { url: 'http://127.0.0.1:9/mcp', credential: { type: 'header' } } },
      }),
    );
    const env = { ...process.env };
    delete env.MCP_GATEWAY_VAULT_KEY;
    const run = await runProcess(
      process.execPath,
      [CLI, '--transport', 'http', '--port', String(await freePort()), '--config', config],
      { env },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the credential vault has no key: set MCP_GATEWAY_VAULT_KEY/);
  });
});
