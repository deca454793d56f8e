/**
 * A backend that trusts the gateway's own authorization server (`credential.type:
 * "token_exchange"`): each person's calls carry a token the gateway issues for that backend on
 * their behalf — the backend's audience, the person as subject, the gateway as actor (RFC 8693
 * `act`), signed with the key the gateway's JWKS publishes. Nothing to connect; never the
 * person's own gateway token.
 */
import { join } from 'node:path';
import { createOAuthResourceServer, type ServedHttp, serveHttp } from '@mcpkit/node';
import { defineTool, McpServer } from '@mcpkit/protocol';
import {
  connectSignedIn,
  freePort,
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  signInAs,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { spawnHttpGateway } from './helpers.js';

const PASSWORDS = { alice: 'alice delegates to the gateway', bob: 'bob delegates as well' };
const LISTING = 'the-gateways-listing-token-0123';
let backend: ServedHttp;
let gw: HttpProcess;
/** The bearer token of every request the backend got. */
const seen: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  const gatewayOrigin = `http://127.0.0.1:${port}`;
  backend = await serveHttp(
    new McpServer({ name: 'trusting', version: '1' }).addTool(
      defineTool({
        name: 'whoami',
        description: 'Who the token of this call names, and who acted for them',
        handler: (_args, ctx) => {
          const claims = (ctx.auth?.data as { claims?: Record<string, unknown> } | undefined)
            ?.claims;
          return JSON.stringify({
            subject: ctx.auth?.subject ?? null,
            act: claims?.act ?? null,
            scope: claims?.scope ?? null,
          });
        },
      }),
    ),
    {
      auth: {
        // The gateway lists the tools with a token of its own; people's calls carry its tokens.
        tokens: [{ token: LISTING, subject: 'listing' }],
        oauth: createOAuthResourceServer({ issuer: gatewayOrigin, scopes: ['tickets:read'] }),
      },
    },
  );
  backend.http.server.prependListener('request', (req) => {
    seen.push(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
  });
  const dir = tempDir('gw-delegation-');
  gw = await spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          users: await Promise.all(
            Object.entries(PASSWORDS).map(async ([username, password]) => ({
              username,
              password_hash: await hashPassword(password),
            })),
          ),
          store: join(dir, 'auth.db'),
        },
      },
      mcpServers: {
        tickets: {
          url: backend.mcpUrl,
          headers: { Authorization: `Bearer ${LISTING}` },
          credential: { type: 'token_exchange', scope: 'tickets:read' },
        },
      },
    },
    // No vault key: delegated tokens are issued, never kept.
    { args: ['--port', String(port)], dir },
  );
});
afterAll(async () => {
  await gw?.stop();
  await backend?.close();
  killSpawned();
  removeTempDirs();
});

const answer = (who: keyof typeof PASSWORDS) => signInAs(who, PASSWORDS[who]);

describe('a backend that trusts the gateway’s authorization server', () => {
  it('gets, for each person, a token the gateway issued for it — not the person’s own', async () => {
    const people = await Promise.all(
      (['alice', 'bob'] as const).map((who) =>
        connectSignedIn(`${gw.url}/mcp`, answer(who), { protocol: 'legacy' }),
      ),
    );
    try {
      for (const [i, who] of (['alice', 'bob'] as const).entries()) {
        const { client, store } = people[i] as (typeof people)[number];
        const result = await client.callTool('tickets__whoami', {});
        expect(result.isError ?? false).toBe(false);
        expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual({
          subject: who,
          act: { sub: `${gw.url}/mcp` },
          scope: 'tickets:read',
        });
        const own = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
        expect(seen).not.toContain(own);
      }
      // Each person's token is their own: two distinct delegated tokens reached the backend.
      const delegated = new Set(seen.filter((t) => t && t !== LISTING));
      expect(delegated.size).toBe(2);
    } finally {
      await Promise.all(people.map((p) => p.client.close()));
    }
  });

  it('has nothing to connect: its connect page is not there', async () => {
    const { client, browser } = await connectSignedIn(`${gw.url}/mcp`, answer('alice'), {
      protocol: 'legacy',
    });
    await client.close();
    expect((await browser.fetch(`${gw.url}/oauth/connect/tickets`)).status).toBe(404);
  });
});
