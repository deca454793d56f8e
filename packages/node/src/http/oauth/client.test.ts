/**
 * McpClient signs in the MCP way (OAuthClient) to an mcpkit server with OAuth on, against a real
 * authorization server (oidc-provider on 127.0.0.1): from the server's URL alone — its 401,
 * Protected Resource Metadata, the authorization server's metadata, Dynamic Client Registration,
 * PKCE with the resource indicator — and steps up once when a tool needs more scope.
 */
import {
  defineTool,
  McpClient,
  McpServer,
  MemoryOAuthStore,
  OAuthClient,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { startAuthorizationServer, type TestAuthorizationServer } from '@mcpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedHttp, serveHttp } from '../serve.js';
import { createOAuthResourceServer } from './resource-server.js';

let as: TestAuthorizationServer;
let served: ServedHttp;
beforeAll(async () => {
  as = await startAuthorizationServer(['read', 'sensitive']);
  const server = new McpServer({ name: 'guarded', version: '1.0.0' }).addTool(
    defineTool({
      name: 'whoami',
      description: 'Says who called, with which scopes',
      handler: (_args, ctx) => `${ctx.auth?.subject} ${[...(ctx.auth?.scopes ?? [])].join(' ')}`,
    }),
    defineTool({
      name: 'secret',
      description: 'Needs sensitive',
      requiredScopes: ['sensitive'],
      handler: () => 'the secret',
    }),
  );
  served = await serveHttp(server, {
    auth: {
      oauth: createOAuthResourceServer({
        issuer: as.issuer,
        scopes: ['read', 'sensitive'],
        requiredScopes: ['read'],
      }),
    },
  });
});
afterAll(async () => {
  await served?.close();
  await as?.close();
});

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const REDIRECT = 'http://127.0.0.1:9/callback';

async function signedIn(protocol: 'auto' | 'legacy', store = new MemoryOAuthStore()) {
  const asked: URL[] = [];
  const oauth = new OAuthClient({
    redirectUri: REDIRECT,
    authorize: (url) => {
      asked.push(url);
      return as.authorize(url);
    },
    store,
  });
  const client = await McpClient.connect(
    new StreamableHttpClientTransport({ url: served.mcpUrl, oauth }),
    { protocol },
  );
  clients.push(client);
  return { client, asked, store };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('McpClient with an OAuthClient', () => {
  it.each(['auto', 'legacy'] as const)(
    'signs in from the URL alone, then steps up once for a tool that needs more (%s)',
    async (protocol) => {
      const { client, asked } = await signedIn(protocol);
      // The 401's challenge asked for read: the first authorization names it, and the resource.
      expect(asked).toHaveLength(1);
      const first = asked[0] as URL;
      expect(first.searchParams.get('resource')).toBe(served.mcpUrl);
      expect(first.searchParams.get('code_challenge_method')).toBe('S256');
      expect(first.searchParams.get('scope')?.split(' ')).toContain('read');
      expect(text(await client.callTool('whoami', {}))).toBe(`${as.account} read`);
      // A 403 insufficient_scope: one more authorization, for what is held and what is needed.
      expect(text(await client.callTool('secret', {}))).toBe('the secret');
      expect(asked).toHaveLength(2);
      expect((asked[1] as URL).searchParams.get('scope')?.split(' ')).toEqual(
        expect.arrayContaining(['read', 'sensitive']),
      );
      expect(text(await client.callTool('whoami', {}))).toBe(`${as.account} read sensitive`);
    },
  );

  it('signs in again without asking the person while its stored token is good', async () => {
    const store = new MemoryOAuthStore();
    await signedIn('auto', store);
    const again = await signedIn('auto', store);
    expect(again.asked).toHaveLength(0);
    expect(text(await again.client.callTool('whoami', {}))).toMatch(/^alice read/);
  });

  it('signs in in two halves for a web app: begin on one instance, finish on another', async () => {
    // Two instances of a web app share their store; the person comes back to the other one.
    const store = new MemoryOAuthStore();
    const never = async (): Promise<URL> => {
      throw new Error('a web app sends the person on instead');
    };
    const first = new OAuthClient({ redirectUri: REDIRECT, authorize: never, store });
    const challenge = await fetch(served.mcpUrl, { method: 'POST' });
    await challenge.body?.cancel();
    expect(challenge.status).toBe(401);
    const { url, pending } = await first.beginSignIn(
      served.mcpUrl,
      challenge.headers.get('www-authenticate'),
    );
    expect(url.searchParams.get('resource')).toBe(served.mcpUrl);
    expect(url.searchParams.get('state')).toBe(pending.state);
    // Kept as JSON until the person is back.
    const kept = JSON.parse(JSON.stringify(pending)) as typeof pending;
    const back = await as.authorize(url);
    const second = new OAuthClient({ redirectUri: REDIRECT, authorize: never, store });
    // A redirect with another state is not this sign-in's.
    const forged = new URL(back);
    forged.searchParams.set('state', 'not-the-state');
    await expect(second.finishSignIn(kept, forged)).rejects.toThrow();
    const tokens = await second.finishSignIn(kept, back);
    expect(tokens.accessToken).toBeTruthy();
    expect(await second.header(served.mcpUrl)).toBe(`Bearer ${tokens.accessToken}`);
    const client = await McpClient.connect(
      new StreamableHttpClientTransport({ url: served.mcpUrl, oauth: second }),
    );
    clients.push(client);
    expect(text(await client.callTool('whoami', {}))).toMatch(/^alice read/);
  });

  it('fails the connection with an OAuthFlowError when the authorization is refused', async () => {
    const oauth = new OAuthClient({
      redirectUri: REDIRECT,
      // The person said no: the authorization server redirects back with an error.
      authorize: async (url) => {
        const back = new URL(REDIRECT);
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        back.searchParams.set('iss', as.issuer);
        return back;
      },
    });
    const failed = await McpClient.connect(
      new StreamableHttpClientTransport({ url: served.mcpUrl, oauth }),
    ).catch((err: unknown) => err);
    // The transport fails the connection with what the authorization server said.
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe('sign-in refused: access_denied');
  });
});
