/**
 * A backend behind its own OAuth authorization server, connected per person: the gateway is each
 * person's OAuth client there (McpClient's OAuthClient: discovery from the backend's 401, DCR,
 * PKCE, the resource indicator), the grant is kept in the person's vault row, and the backend
 * sees that person's access token — never the gateway's client's token, never another person's.
 */
import { join } from 'node:path';
import { createOAuthResourceServer, type ServedHttp, serveHttp } from '@mcpkit/node';
import { defineTool, McpServer, RpcError } from '@mcpkit/protocol';
import {
  freePort,
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  startAuthorizationServer,
  type TestAuthorizationServer,
  tempDir,
} from '@mcpkit/testing';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { newVaultKey } from '../src/vault/keys.js';
import { connectSignedIn, spawnHttpGateway } from './helpers.js';

const PASSWORD = 'alice signs in to the gateway';
let as: TestAuthorizationServer;
let backend: ServedHttp;
let gw: HttpProcess;
/** Start the gateway (again): same port, store and vault key. */
let start: () => Promise<HttpProcess>;
let serviceToken: string;
/** The bearer token of every request the backend got. */
const seen: string[] = [];
/** While set, the backend refuses every token (as after a revocation at its server). */
let refuseAll = false;

beforeAll(async () => {
  as = await startAuthorizationServer(['read']);
  const server = new McpServer({ name: 'remote', version: '1' }).addTool(
    defineTool({
      name: 'whoami',
      description: 'Who the access token of this call was issued to',
      handler: (_args, ctx) => JSON.stringify({ subject: ctx.auth?.subject ?? null }),
    }),
  );
  backend = await serveHttp(server, {
    auth: {
      oauth: createOAuthResourceServer({
        issuer: as.issuer,
        scopes: ['read'],
        stillValid: () => !refuseAll,
      }),
    },
  });
  backend.http.server.prependListener('request', (req) => {
    seen.push(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
  });
  // The gateway lists the backend's tools with a service token of its own (client credentials).
  serviceToken = await as.token(backend.mcpUrl, 'read');
  const dir = tempDir('gw-personal-oauth-');
  const config = {
    gateway: {
      authorization_server: {
        users: [{ username: 'alice', password_hash: await hashPassword(PASSWORD) }],
        store: join(dir, 'auth.db'),
      },
    },
    mcpServers: {
      remote: {
        url: backend.mcpUrl,
        headers: { Authorization: `Bearer ${serviceToken}` },
        credential: { type: 'oauth' },
      },
    },
  };
  const port = String(await freePort());
  const key = newVaultKey();
  start = () =>
    spawnHttpGateway(config, {
      args: ['--port', port],
      dir,
      env: { ...process.env, MCP_GATEWAY_VAULT_KEY: key },
    });
  gw = await start();
});
afterAll(async () => {
  await gw?.stop();
  await backend?.close();
  await as?.close();
  killSpawned();
  removeTempDirs();
});

const answer = (html: string): Record<string, string> =>
  html.includes('name="password"')
    ? { username: 'alice', password: PASSWORD }
    : { decision: 'allow' };

describe('a backend behind its own authorization server, connected per person', () => {
  it('sends the person to sign in there; the grant is theirs, and their retried call carries it', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer, {
      protocol: 'legacy',
    });
    try {
      const err = await client.callTool('remote__whoami', {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(RpcError.is(err) && err.code).toBe(-32042);
      const url = ((err as RpcError).data as { elicitations: { url: string }[] }).elicitations[0]
        ?.url as string;
      expect(url).toBe(`${gw.url}/oauth/connect/remote?for=alice`);

      // The connect page sends the person on to the backend's authorization server …
      const start = await browser.fetch(url);
      expect(start.status).toBe(303);
      const authorize = new URL(start.headers.get('location') as string);
      expect(authorize.origin).toBe(new URL(as.issuer).origin);
      expect(authorize.searchParams.get('resource')).toBe(backend.mcpUrl);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${gw.url}/oauth/connect/callback`);
      // … where they sign in and consent; it sends them back to the gateway, which redeems the code.
      const back = await as.authorize(authorize);
      const done = await browser.fetch(back);
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/oauth/connect/done?backend=remote');

      const before = seen.length;
      const result = await client.callTool('remote__whoami', {});
      expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual({
        subject: as.account,
      });
      // The call carried the person's token: for this backend, issued to the gateway's client
      // through the code flow — not the service token, not the token alice holds for the gateway.
      const used = seen.slice(before).filter(Boolean);
      expect(used.length).toBeGreaterThan(0);
      for (const token of used) {
        expect(token).not.toBe(serviceToken);
        const claims = decodeJwt(token);
        expect(claims.aud).toBe(backend.mcpUrl);
        expect(claims.sub).toBe(as.account);
        expect(claims.client_id).not.toBe(decodeJwt(serviceToken).client_id);
      }
    } finally {
      await client.close();
    }
  });

  it('a grant the backend stops honouring sends the person to connect again (credential.refresh_failed)', async () => {
    const { client } = await connectSignedIn(`${gw.url}/mcp`, answer, { protocol: 'legacy' });
    try {
      // Connected by the test before: the call goes through.
      expect((await client.callTool('remote__whoami', {})).isError ?? false).toBe(false);
      refuseAll = true;
      const err = await client.callTool('remote__whoami', {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      refuseAll = false;
      expect(RpcError.is(err) && err.code).toBe(-32042);
      expect((err as RpcError).message).toBe(
        'Your sign-in at remote has expired or was revoked: connect it again.',
      );
      const events = await client.callTool('get_events', {
        event_type: 'credential.refresh_failed',
      });
      expect((events.content as { text: string }[])[0]?.text).toContain('"subject":"alice"');
      // The grant is gone from the vault: the next call asks again rather than trying it.
      const next = await client.callTool('remote__whoami', {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(RpcError.is(next) && next.code).toBe(-32042);
    } finally {
      refuseAll = false;
      await client.close();
    }
  });

  it('a sign-in survives the gateway restarting while the person is away (any instance finishes it)', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer, {
      protocol: 'legacy',
    });
    await client.close();
    const leaving = await browser.fetch(`${gw.url}/oauth/connect/remote`);
    expect(leaving.status).toBe(303);
    const back = await as.authorize(new URL(leaving.headers.get('location') as string));
    // The instance that sent the person away is gone; another (the same store) takes them back.
    await gw.stop();
    gw = await start();
    const done = await browser.fetch(back);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/oauth/connect/done?backend=remote');
    const again = await connectSignedIn(`${gw.url}/mcp`, answer, { protocol: 'legacy' });
    try {
      expect((await again.client.callTool('remote__whoami', {})).isError ?? false).toBe(false);
    } finally {
      await again.client.close();
    }
  });

  it('a callback of a sign-in it did not start, or that the server refused, ends on a clear page', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer, {
      protocol: 'legacy',
    });
    await client.close();
    const unknown = await browser.fetch(`${gw.url}/oauth/connect/callback?code=x&state=forged`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('unknown or took too long');
    const start = await browser.fetch(`${gw.url}/oauth/connect/remote`);
    const state = new URL(start.headers.get('location') as string).searchParams.get('state');
    const refused = await browser.fetch(
      `${gw.url}/oauth/connect/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(as.issuer)}`,
    );
    expect(refused.status).toBe(502);
    expect(await refused.text()).toMatch(/did not complete: sign-in refused: access_denied/);
    // Used once: the same callback again is unknown.
    const again = await browser.fetch(
      `${gw.url}/oauth/connect/callback?error=access_denied&state=${state}`,
    );
    expect(again.status).toBe(400);
    // Without a session at the gateway a callback is not taken.
    const anonymous = await fetch(`${gw.url}/oauth/connect/callback?code=x&state=y`, {
      redirect: 'manual',
    });
    expect(anonymous.status).toBe(401);
  });
});
