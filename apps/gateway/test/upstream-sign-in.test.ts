import {
  freePort,
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  startAuthorizationServer,
  type TestAuthorizationServer,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, connectSignedIn, spawnHttpGateway } from './helpers.js';

let idp: TestAuthorizationServer;
let gw: HttpProcess;
beforeAll(async () => {
  idp = await startAuthorizationServer(['unused']);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // The operator registers the gateway at the IdP, its callback as the redirect URI.
  const { clientId: client_id, clientSecret: client_secret } = await idp.registerClient(
    `${origin}/oauth/upstream/callback`,
  );
  const dir = tempDir('gw-upstream-');
  gw = await spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          upstream: { issuer: idp.issuer, client_id, client_secret, name: 'Example Corp' },
          store: `${dir}/auth.db`,
        },
      },
      mcpServers: { rich: backend('rich', { scopes: ['ops'] }) },
    },
    { args: ['--port', String(port)], dir },
  );
});
afterAll(async () => {
  await gw?.stop();
  await idp?.close();
  killSpawned();
  removeTempDirs();
});

describe('sign-in at an upstream OpenID provider', () => {
  it("signs the person in at the IdP and issues the client a token for the IdP's subject", async () => {
    const pages: string[] = [];
    const { client, store } = await connectSignedIn(
      `${gw.url}/mcp`,
      (html): Record<string, string> =>
        html.includes('Allow access?') ? { decision: 'allow' } : {},
      { pages },
    );
    try {
      expect(pages[0]).toContain('Sign in with Example Corp');
      // No password form: the gateway has no users of its own here.
      expect(pages[0]).not.toContain('name="password"');
      const token = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
      const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
      expect(claims.sub).toBe(idp.account);
      // A backend's scope is theirs to grant; gateway:admin is not (they are in no list).
      expect(claims.scope.split(' ')).toContain('ops');
      expect(claims.scope.split(' ')).not.toContain('gateway:admin');
      expect(claims.iss).toBe(gw.url);
      expect((await client.callTool('rich__who', {})).isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('refuses a callback nobody started', async () => {
    const forged = await fetch(`${gw.url}/oauth/upstream/callback?code=x&state=nobody`, {
      redirect: 'manual',
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('expired');
  });
});
