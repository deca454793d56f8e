/**
 * The gateway never passes a client's token on to a backend (MCP 2026-07-28,
 * security-considerations: a proxy MUST NOT pass through a token it received). A recording HTTP
 * backend keeps the Authorization header of every request it gets; a person signed in at the
 * gateway (its authorization server) and an operator's static token call its tool, and the
 * backend sees only its own configured credential.
 */
import type { IncomingMessage } from 'node:http';
import { type ServedHttp, serveHttp } from '@mcpkit/node';
import { defineTool, McpServer } from '@mcpkit/protocol';
import {
  freePort,
  type HttpProcess,
  killSpawned,
  postModernCall,
  removeTempDirs,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { connectSignedIn, spawnHttpGateway } from './helpers.js';

const PASSWORD = 'a password for the passthrough test';
const OPERATOR = 'operator-token-passthrough-0123';
const SERVICE = 'Bearer the-backends-own-service-key';

let backend: ServedHttp;
/** The Authorization header of every request the backend got (undefined: none sent). */
const seen: (string | undefined)[] = [];
let gw: HttpProcess;
beforeAll(async () => {
  backend = await serveHttp(
    new McpServer({ name: 'recorder', version: '1' }).addTool(
      defineTool({ name: 'echo', description: 'Says ok', handler: () => 'ok' }),
    ),
  );
  backend.http.server.prependListener('request', (req: IncomingMessage) => {
    seen.push(req.headers.authorization);
  });
  const dir = tempDir('gw-passthrough-');
  gw = await spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          users: [{ username: 'alice', password_hash: await hashPassword(PASSWORD) }],
          store: `${dir}/auth.db`,
        },
      },
      mcpServers: {
        rec: { url: backend.mcpUrl, headers: { Authorization: SERVICE } },
      },
    },
    { args: ['--port', String(await freePort()), '--token', OPERATOR], dir },
  );
});
afterAll(async () => {
  await gw?.stop();
  await backend?.close();
  killSpawned();
  removeTempDirs();
});

describe("a client's token never reaches a backend", () => {
  it('a signed-in person and an operator call the backend; it sees only its own credential', async () => {
    const { client, store } = await connectSignedIn(
      `${gw.url}/mcp`,
      (html): Record<string, string> =>
        html.includes('name="password"')
          ? { username: 'alice', password: PASSWORD }
          : { decision: 'allow' },
    );
    const before = seen.length;
    try {
      expect((await client.callTool('rec__echo', {})).isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
    const operator = await postModernCall(`${gw.url}/mcp`, 'rec__echo', {}, { token: OPERATOR });
    expect(operator.status).toBe(200);
    const aliceToken = (await store.tokens(`${gw.url}/mcp`))?.accessToken as string;
    expect(aliceToken).toBeTruthy();
    // The calls reached the backend, each with the backend's own key and nothing else.
    expect(seen.length).toBeGreaterThan(before);
    expect(new Set(seen)).toEqual(new Set([SERVICE]));
    expect(seen.join(' ')).not.toContain(aliceToken);
    expect(seen.join(' ')).not.toContain(OPERATOR);
  });
});
