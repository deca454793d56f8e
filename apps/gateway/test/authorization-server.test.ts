import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
/**
 * The gateway as the authorization server its clients sign in to (`gateway.authorization_server`):
 * a client given only the gateway's URL registers (DCR), sends the person to the gateway's
 * sign-in and consent pages, gets a token for the gateway's MCP endpoint, and calls tools —
 * McpClient's OAuthClient driving it, a cookie-keeping "browser" filling in the forms.
 */
import { type McpClient, MemoryOAuthStore } from '@mcpkit/protocol';
import {
  formBrowser,
  freePort,
  type HttpProcess,
  killSpawned,
  postModernCall,
  removeTempDirs,
  runProcess,
  tempDir,
} from '@mcpkit/testing';
import Database from 'better-sqlite3';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { parseConfig } from '../src/config.js';
import { backend, CLI, connectSignedIn, SIGN_IN_REDIRECT, spawnHttpGateway } from './helpers.js';

const PASSWORD = 'correct horse battery staple';
/** The operator's --token (every scope): revokes sign-ins. */
const OPERATOR = 'operator-token-0123456789';
const REDIRECT = SIGN_IN_REDIRECT;

let gw: HttpProcess;
let hash: string;
let start: () => Promise<HttpProcess>;
/** The gateway's directory: its authorization store is `auth.db` there. */
let dir: string;
beforeAll(async () => {
  hash = await hashPassword(PASSWORD);
  dir = tempDir('gw-as-');
  const port = String(await freePort());
  start = () =>
    spawnHttpGateway(
      {
        gateway: {
          authorization_server: {
            users: [
              { username: 'alice', password_hash: hash, email: 'alice@example.com' },
              { username: 'bob', password_hash: hash },
              { username: 'dave', password_hash: hash },
              { username: 'carol', password_hash: hash, scopes: ['ops', 'gateway:admin'] },
            ],
            store: `${dir}/auth.db`,
          },
        },
        mcpServers: { rich: backend('rich', { scopes: ['ops'] }) },
      },
      { args: ['--port', port, '--token', OPERATOR], dir },
    );
  gw = await start();
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

/** What the person does at the gateway's pages, and what they saw there. */
interface Person {
  username: string;
  password: string;
  consent: 'allow' | 'deny';
  pages: string[];
}

/** The person's answers: their name and password at sign-in, their decision at consent. */
const answers =
  (person: Person) =>
  (html: string): Record<string, string> =>
    html.includes('name="password"')
      ? { username: person.username, password: person.password }
      : { decision: person.consent };

async function signIn(
  person: Person,
  protocol: 'auto' | 'legacy' = 'auto',
  store = new MemoryOAuthStore(),
) {
  const signedIn = await connectSignedIn(`${gw.url}/mcp`, answers(person), {
    protocol,
    store,
    pages: person.pages,
  });
  clients.push(signedIn.client);
  return signedIn;
}

const alice = (consent: Person['consent'] = 'allow'): Person => ({
  username: 'alice',
  password: PASSWORD,
  consent,
  pages: [],
});

describe('the gateway as an authorization server', () => {
  it('publishes its metadata at both discovery locations, naming itself as the issuer', async () => {
    for (const path of ['oauth-authorization-server', 'openid-configuration']) {
      const res = await fetch(`${gw.url}/.well-known/${path}`);
      expect(res.status, path).toBe(200);
      const meta = (await res.json()) as Record<string, unknown>;
      expect(meta.issuer).toBe(gw.url);
      expect(meta.registration_endpoint).toBe(`${gw.url}/oauth/register`);
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    }
    const prm = (await (
      await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as { authorization_servers: string[] };
    expect(prm.authorization_servers).toEqual([gw.url]);
  });

  it.each(['auto', 'legacy'] as const)(
    'signs a person in from the URL alone: register, sign in, consent, call a tool (%s)',
    async (protocol) => {
      const person = alice();
      const { client, asked } = await signIn(person, protocol);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.searchParams.get('resource')).toBe(`${gw.url}/mcp`);
      const tools = (await client.listTools()).map((t) => t.name);
      expect(tools).toContain('gateway_status');
      const status = await client.callTool('gateway_status', {});
      expect(status.isError ?? false).toBe(false);
      // The pages: the sign-in form, then consent naming the client and the person.
      expect(person.pages[0]).toContain('name="password"');
      expect(person.pages.at(-1)).toContain('<b>alice</b>');
    },
  );

  it("grants what the person consented to: a backend's scope, listed on the consent page", async () => {
    const person = alice();
    const { client, asked } = await signIn(person);
    // No scope in the challenge: the client asks for what the metadata lists, ops among them.
    expect(asked[0]?.searchParams.get('scope')?.split(' ')).toContain('ops');
    expect(person.pages.at(-1)).toContain('<code>ops</code>');
    const who = await client.callTool('rich__who', {});
    expect(who.isError ?? false).toBe(false);
  });

  it('refuses a wrong password with the form again, and a denied consent ends sign-in', async () => {
    const wrong = { ...alice(), password: 'wrong password' };
    await expect(signIn(wrong)).rejects.toThrow(/refused: 401/);
    expect(wrong.pages.at(-1)).toContain('Wrong name or password.');
    await expect(signIn(alice('deny'))).rejects.toThrow(/access_denied|denied/);
  });

  it("locks a name after 5 wrong passwords, its right one too, and nobody else's", async () => {
    for (let i = 0; i < 5; i++) {
      await expect(signIn({ ...alice(), username: 'bob', password: `guess ${i}` })).rejects.toThrow(
        /refused: 401/,
      );
    }
    const bob = { ...alice(), username: 'bob' };
    await expect(signIn(bob)).rejects.toThrow(/refused: 429/);
    expect(bob.pages.at(-1)).toContain('Too many wrong passwords');
    const { client } = await signIn(alice());
    expect((await client.callTool('gateway_status', {})).isError ?? false).toBe(false);
  });

  it('grants gateway:admin only to a person who has it by name, and says what it left out', async () => {
    const person = alice();
    const { asked } = await signIn(person);
    expect(asked[0]?.searchParams.get('scope')?.split(' ')).toContain('gateway:admin');
    expect(person.pages.at(-1)).toContain(
      'Not yours to give, left out: <code>gateway:admin</code>',
    );
    const carol = { ...alice(), username: 'carol' };
    const store = new MemoryOAuthStore();
    await signIn(carol, 'auto', store);
    expect(carol.pages.at(-1)).not.toContain('left out');
    const token = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
    const scope = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString())
      .scope as string;
    expect(scope.split(' ')).toContain('gateway:admin');
  });

  it("an operator's revoke_sign_in ends a person's token at the next request", async () => {
    const store = new MemoryOAuthStore();
    const { client } = await signIn(alice(), 'auto', store);
    expect((await client.callTool('gateway_status', {})).isError ?? false).toBe(false);
    const token = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      200,
    );
    // Not a tool for a person's token: gateway:admin only.
    const refused = await postModernCall(
      `${gw.url}/mcp`,
      'revoke_sign_in',
      { username: 'alice' },
      { token },
    );
    expect(refused.status).toBe(403);
    const revoked = await postModernCall<{ result?: { structuredContent?: { revoked: number } } }>(
      `${gw.url}/mcp`,
      'revoke_sign_in',
      { username: 'alice' },
      { token: OPERATOR },
    );
    expect(revoked.body?.result?.structuredContent?.revoked).toBeGreaterThanOrEqual(1);
    // Her token, verified and cached a moment ago, is refused now.
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      401,
    );
    const events = await postModernCall<{ result?: { structuredContent?: { events: unknown[] } } }>(
      `${gw.url}/mcp`,
      'get_events',
      { event_type: 'auth.revoked' },
      { token: OPERATOR },
    );
    expect(JSON.stringify(events.body)).toContain('alice');
  });

  it('publishes every key of its store, public parts only — one made by another instance too', async () => {
    const jwks = async () =>
      ((await (await fetch(`${gw.url}/oauth/jwks`)).json()) as { keys: Record<string, unknown>[] })
        .keys;
    const before = await jwks();
    expect(before.length).toBeGreaterThanOrEqual(1);
    for (const key of before)
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    // Another instance of a fleet rotates: its new key is in the shared store.
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' };
    const raw = new Database(join(dir, 'auth.db'));
    raw
      .prepare('INSERT INTO oidc_keys (kid, jwk, created_at) VALUES (?, ?, ?)')
      .run('made-elsewhere', JSON.stringify(jwk), Date.now());
    raw.close();
    const after = await jwks();
    expect(after.map((k) => k.kid)).toContain('made-elsewhere');
    expect(JSON.stringify(after)).not.toContain(String(jwk.d));
  });

  it('a consent that has expired ends the token at the next request; signing in asks again', async () => {
    const dave: Person = { username: 'dave', password: PASSWORD, consent: 'allow', pages: [] };
    const store = new MemoryOAuthStore();
    await signIn(dave, 'auto', store);
    const token = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      200,
    );
    // Dave's consent lapses (a grant's lifetime is a year; here it is put in the past).
    const raw = new Database(join(dir, 'auth.db'));
    const lapsed = raw
      .prepare(
        "UPDATE oidc_models SET expires_at = 1 WHERE model = 'Grant' AND account_id = 'dave'",
      )
      .run();
    raw.close();
    expect(lapsed.changes).toBeGreaterThanOrEqual(1);
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      401,
    );
    // His client signs in again: the consent page is shown again, and the new token works.
    dave.pages.length = 0;
    const again = await signIn(dave, 'auto', store);
    expect(again.asked).toHaveLength(1);
    expect(dave.pages.some((html) => html.includes('name="decision"'))).toBe(true);
    expect((await again.client.callTool('gateway_status', {})).isError ?? false).toBe(false);
  });

  it('shows a person their connected apps and disconnects one at their word', async () => {
    const store = new MemoryOAuthStore();
    const { client } = await signIn(alice(), 'auto', store);
    const token = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
    const clientId = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString())
      .client_id as string;
    expect((await client.callTool('gateway_status', {})).isError ?? false).toBe(false);

    // The page: sign in through the gateway's own client (no consent asked), then the list.
    const page = formBrowser(
      `${gw.url}/oauth/connections/callback`,
      (html): Record<string, string> =>
        html.includes('name="password"')
          ? { username: 'alice', password: PASSWORD }
          : { decision: 'deny' },
    );
    await page.visit(`${gw.url}/oauth/connections`);
    expect(page.pages.some((html) => html.includes('Allow access?'))).toBe(false);
    const shown = await (await page.fetch(`${gw.url}/oauth/connections`)).text();
    expect(shown).toContain('Your connections');
    expect(shown).toContain(`value="${clientId}"`);
    expect(shown).not.toContain('mcp-gateway-connections');

    // Another site's form cannot disconnect (its Origin is refused, like any cross-site POST).
    const forged = await page.fetch(`${gw.url}/oauth/connections`, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ client_id: clientId }),
    });
    expect(forged.status).toBe(403);
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      200,
    );

    const gone = await page.fetch(`${gw.url}/oauth/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId }),
    });
    expect(gone.status).toBe(303);
    expect(await (await page.fetch(`${gw.url}/oauth/connections`)).text()).not.toContain(
      `value="${clientId}"`,
    );
    expect((await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token })).status).toBe(
      401,
    );
  });

  it('sends a person without a sign-in to sign in first', async () => {
    const res = await fetch(`${gw.url}/oauth/connections`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain(
      '/oauth/authorize?client_id=mcp-gateway-connections',
    );
  });

  it('refuses a form posted without the sign-in cookie (another site, an old tab)', async () => {
    const res = await fetch(`${gw.url}/oauth/interaction/made-up/login`, {
      method: 'POST',
      headers: { origin: gw.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=x',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('expired');
  });

  it("keeps clients, grants and keys across a restart: a person's token still works", async () => {
    const store = new MemoryOAuthStore();
    const first = await signIn(alice(), 'auto', store);
    expect(first.asked).toHaveLength(1);
    await first.client.close();
    await gw.stop();
    gw = await start();
    // The same client with its stored token: no new sign-in, its token verified with the
    // persisted key.
    const again = await signIn(alice(), 'auto', store);
    expect(again.asked).toHaveLength(0);
    expect((await again.client.callTool('gateway_status', {})).isError ?? false).toBe(false);
  });

  it('refuses a token it did not issue, and a resource other than its own', async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer not.a.token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    const reg = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const other = new URL(`${gw.url}/oauth/authorize`);
    other.search = new URLSearchParams({
      client_id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/mcp',
      scope: 'ops',
    }).toString();
    const redirect = await fetch(other, { redirect: 'manual' });
    expect(new URL(redirect.headers.get('location') as string).searchParams.get('error')).toBe(
      'invalid_target',
    );
  });
});

describe('the authorization server refuses bad input, and stays up', () => {
  /** A public client, registered, and one authorization of alice's: its code and verifier. */
  async function codeFor(): Promise<{ clientId: string; code: string; verifier: string }> {
    const reg = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${gw.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${gw.url}/mcp`,
      scope: 'ops',
    }).toString();
    const back = await formBrowser(REDIRECT, answers(alice())).visit(url);
    return { clientId, code: back.searchParams.get('code') as string, verifier };
  }
  const redeem = (clientId: string, code: string, verifier: string) =>
    fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: `${gw.url}/mcp`,
      }),
    });

  it('a wrong PKCE verifier is invalid_grant; a replayed code too, and the replay revokes its token', async () => {
    const { clientId, code, verifier } = await codeFor();
    const wrong = await redeem(clientId, code, randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    // The right verifier still redeems it (a stolen code is useless without it).
    const second = { clientId, code, verifier };
    const ok = await redeem(second.clientId, second.code, second.verifier);
    expect(ok.status).toBe(200);
    const { access_token } = (await ok.json()) as { access_token: string };
    expect(
      (await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token: access_token })).status,
    ).toBe(200);
    const replay = await redeem(second.clientId, second.code, second.verifier);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    // RFC 6749 §4.1.2: a code used twice revokes what it gave.
    expect(
      (await postModernCall(`${gw.url}/mcp`, 'gateway_status', {}, { token: access_token })).status,
    ).toBe(401);
  });

  it('an unregistered redirect URI is an error page, never a redirect', async () => {
    const { clientId } = await codeFor();
    const url = new URL(`${gw.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'https://evil.example/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('garbage and oversized registrations are 4xx; the gateway serves on', async () => {
    const garbage = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris": [',
    });
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    const huge = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(2_000_000) }),
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    const form = await fetch(`${gw.url}/oauth/interaction/x/login`, {
      method: 'POST',
      headers: { origin: gw.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a'.repeat(100_000),
    });
    expect(form.status).toBe(400);
    expect((await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });
});

describe('config and command line', () => {
  it('refuses a password hash not made by hash-password, and oauth beside it', () => {
    expect(() =>
      parseConfig({
        gateway: { authorization_server: { users: [{ username: 'a', password_hash: 'x' }] } },
        mcpServers: {},
      }),
    ).toThrow(/hash-password/);
    expect(() =>
      parseConfig({
        gateway: {
          oauth: { issuer: 'https://as.example' },
          authorization_server: { users: [{ username: 'a', password_hash: hash }] },
        },
        mcpServers: {},
      }),
    ).toThrow(/exclude each other/);
  });

  it('hash-password prints a hash the config takes, and refuses a short password', async () => {
    const made = await runProcess(process.execPath, [CLI, 'hash-password'], {
      input: 'a long enough password\n',
    });
    expect(made.code).toBe(0);
    const printed = made.stdout.trim();
    expect(() =>
      parseConfig({
        gateway: { authorization_server: { users: [{ username: 'a', password_hash: printed }] } },
        mcpServers: {},
      }),
    ).not.toThrow();
    const short = await runProcess(process.execPath, [CLI, 'hash-password'], { input: 'short\n' });
    expect(short.code).toBe(2);
  });

  it('needs a URL clients can reach: no authorization server on --port 0 without --public-url', async () => {
    const dir = tempDir('gw-as-port0-');
    const run = await runProcess(process.execPath, [
      CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--config',
      await writeConfig(dir, {
        gateway: { authorization_server: { users: [{ username: 'a', password_hash: hash }] } },
        mcpServers: {},
      }),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--public-url, or a fixed --port');
  });
});

async function writeConfig(dir: string, config: unknown): Promise<string> {
  const { writeFileSync } = await import('node:fs');
  const path = `${dir}/gateway.json`;
  writeFileSync(path, JSON.stringify(config));
  return path;
}
