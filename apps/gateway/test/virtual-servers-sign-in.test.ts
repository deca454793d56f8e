/**
 * Virtual servers behind the gateway's own sign-in (`gateway.authorization_server`): a client
 * given a virtual server's URL discovers it as a protected resource of its own, gets a token for
 * it (its audience), and that token is good there only; a person whose group a server names gets
 * that server at `/mcp` — the group travels in their access token.
 */
import { MemoryOAuthStore } from '@mcpkit/protocol';
import {
  freePort,
  type HttpProcess,
  killSpawned,
  postJson,
  removeTempDirs,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { backend, connectSignedIn, spawnHttpGateway } from './helpers.js';

const PASSWORD = 'correct horse battery staple';
let gw: HttpProcess;
beforeAll(async () => {
  const hash = await hashPassword(PASSWORD);
  const dir = tempDir('gw-virtual-as-');
  gw = await spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          users: [
            { username: 'dana', password_hash: hash, groups: ['design'] },
            { username: 'eve', password_hash: hash },
          ],
          store: `${dir}/auth.db`,
        },
        servers: {
          design: { tools: ['rich/echo', 'rich/big'], default_for: { groups: ['design'] } },
        },
      },
      mcpServers: { rich: backend('rich') },
    },
    { args: ['--port', String(await freePort())], dir },
  );
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

const signIn = (username: string, path: string, store = new MemoryOAuthStore()) =>
  connectSignedIn(
    `${gw.url}${path}`,
    (html): Record<string, string> =>
      html.includes('name="password"') ? { username, password: PASSWORD } : { decision: 'allow' },
    { protocol: 'auto', store },
  );
const names = async (client: Awaited<ReturnType<typeof signIn>>['client']) =>
  (await client.listTools()).map((t) => t.name).sort();

describe('virtual servers with the gateway as the authorization server', () => {
  it("signs a client in to a virtual server's URL, with a token for that URL only", async () => {
    const store = new MemoryOAuthStore();
    const { client } = await signIn('eve', '/servers/design/mcp', store);
    try {
      expect(await names(client)).toEqual(['rich__big', 'rich__echo']);
      // Kept under the resource it is for: the virtual server's URL.
      const token = store.tokens(`${gw.url}/servers/design/mcp`)?.accessToken;
      expect(token).toBeTruthy();
      const payload = JSON.parse(
        Buffer.from(String(token).split('.')[1] ?? '', 'base64url').toString(),
      ) as { aud: unknown };
      expect(payload.aud).toBe(`${gw.url}/servers/design/mcp`);
      const at = (path: string) =>
        postJson(
          `${gw.url}${path}`,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { token: String(token), headers: { accept: 'application/json, text/event-stream' } },
        );
      expect((await at('/mcp')).status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it("gives a member of a server's group that server at /mcp, and others every tool", async () => {
    const dana = await signIn('dana', '/mcp');
    const eve = await signIn('eve', '/mcp');
    try {
      expect(await names(dana.client)).toEqual(['rich__big', 'rich__echo']);
      expect(await names(eve.client)).toContain('gateway_status');
    } finally {
      await dana.client.close();
      await eve.client.close();
    }
  });
});
