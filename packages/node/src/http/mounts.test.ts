/**
 * More servers on one HTTP host (`mounts`): each at its own Streamable HTTP path behind the same
 * gate, one chosen per caller at the main path; with OAuth each is a protected resource of its
 * own — its metadata names its URL and its tokens must be for it (RFC 8707, RFC 9728).
 */
import { type AuthInfo, defineTool, McpServer } from '@mcpkit/protocol';
import { postJson, startAuthorizationServer, type TestAuthorizationServer } from '@mcpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthResourceServer } from './oauth/resource-server.js';
import type { HttpAuthOptions } from './options.js';
import { type ServedHttp, serveHttp } from './serve.js';

const tool = (name: string) =>
  defineTool({
    name,
    description: `${name} of its server`,
    handler: (_args, ctx) => `${name} for ${ctx.auth?.subject ?? 'nobody'}`,
  });
const main = new McpServer({ name: 'main', version: '1.0.0' }).addTool(tool('main_tool'));
const side = new McpServer({ name: 'side', version: '1.0.0' }).addTool(tool('side_tool'));

let served: ServedHttp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** `/side/mcp` is side's; at `/mcp`, guest gets side too. */
const start = (auth: HttpAuthOptions) =>
  serveHttp(main, {
    auth,
    mounts: {
      serves: (path) => path === '/side/mcp',
      select: (path, who: AuthInfo | undefined) =>
        path === '/side/mcp' || who?.subject === 'guest' ? side : undefined,
    },
  });

const tools = async (s: ServedHttp, token: string, path?: string) => {
  const client = await s.connect({
    headers: { Authorization: `Bearer ${token}` },
    ...(path ? { path } : {}),
  });
  return (await client.listTools()).map((t) => t.name);
};

describe('mounted servers', () => {
  it('serve at their paths, and the one chosen per caller at the main path', async () => {
    const s = await start({
      tokens: [
        { token: 'ops-token-0123', subject: 'ops' },
        { token: 'guest-token-0123', subject: 'guest' },
      ],
    });
    served = s;
    expect(await tools(s, 'ops-token-0123')).toEqual(['main_tool']);
    expect(await tools(s, 'guest-token-0123')).toEqual(['side_tool']);
    expect(await tools(s, 'ops-token-0123', '/side/mcp')).toEqual(['side_tool']);
    const client = await s.connect({
      headers: { Authorization: 'Bearer ops-token-0123' },
      path: '/side/mcp',
    });
    expect(client.serverInfo?.name).toBe('side');
    const result = await client.callTool('side_tool', {});
    expect(result.content).toEqual([{ type: 'text', text: 'side_tool for ops' }]);
    // Behind the same gate, and nothing else is served.
    const anonymous = await fetch(`${s.url}/side/mcp`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const elsewhere = await fetch(`${s.url}/other/mcp`, { method: 'POST' });
    expect(elsewhere.status).toBe(404);
  });
});

describe('mounted servers with OAuth', () => {
  let as: TestAuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(() => as?.close());
  const oauth = () => ({
    oauth: createOAuthResourceServer({ issuer: as.issuer, scopes: ['read'] }),
  });

  it('each names its own URL as the resource, in its metadata and challenges', async () => {
    const s = await start(oauth());
    served = s;
    const prm = await fetch(`${s.url}/.well-known/oauth-protected-resource/side/mcp`);
    expect(prm.status).toBe(200);
    expect(((await prm.json()) as { resource: string }).resource).toBe(`${s.url}/side/mcp`);
    const own = await fetch(`${s.url}/.well-known/oauth-protected-resource/mcp`);
    expect(((await own.json()) as { resource: string }).resource).toBe(s.mcpUrl);
    const res = await fetch(`${s.url}/side/mcp`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${s.url}/.well-known/oauth-protected-resource/side/mcp"`,
    );
    const unknown = await fetch(`${s.url}/.well-known/oauth-protected-resource/other/mcp`);
    expect(unknown.status).toBe(404);
  });

  it("takes only tokens for its own URL: the main endpoint's are refused there, and back", async () => {
    const s = await start(oauth());
    served = s;
    const forSide = await as.token(`${s.url}/side/mcp`, 'read');
    const forMain = await as.token(s.mcpUrl, 'read');
    expect(await tools(s, forSide, '/side/mcp')).toEqual(['side_tool']);
    expect(await tools(s, forMain)).toEqual(['main_tool']);
    const post = (path: string, token: string) =>
      postJson(
        `${s.url}${path}`,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { token, headers: { accept: 'application/json, text/event-stream' } },
      );
    const wrongHere = await post('/side/mcp', forMain);
    expect(wrongHere.status).toBe(401);
    expect(wrongHere.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The same token again (verified once, cached per resource): still refused.
    expect((await post('/side/mcp', forMain)).status).toBe(401);
    expect((await post('/mcp', forSide)).status).toBe(401);
  });
});
