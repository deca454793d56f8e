/**
 * The HTTP server as an OAuth 2.1 resource server, against a real authorization server
 * (oidc-provider on 127.0.0.1): its Protected Resource Metadata, the challenges of MCP
 * `basic/authorization`, and no handler run for a request it refuses.
 */
import { defineTool, McpServer } from '@mcpkit/protocol';
import { startAuthorizationServer, type TestAuthorizationServer } from '@mcpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedHttp, serveHttp } from '../serve.js';
import { createOAuthResourceServer } from './resource-server.js';

let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as?.close());

let served: ServedHttp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

let runs = 0;
async function start(options: { tokens?: boolean; plainPaths?: string[] } = {}) {
  runs = 0;
  const server = new McpServer({ name: 'guarded', version: '1.0.0' }).addTool(
    defineTool({
      name: 'whoami',
      description: 'Says who called',
      handler: (_args, ctx) => {
        runs++;
        return ctx.auth?.subject ?? 'nobody';
      },
    }),
    defineTool({
      name: 'secret',
      description: 'Needs read and sensitive',
      requiredScopes: ['read', 'sensitive'],
      handler: () => {
        runs++;
        return 'the secret';
      },
    }),
  );
  served = await serveHttp(server, {
    auth: {
      oauth: createOAuthResourceServer({
        issuer: as.issuer,
        scopes: ['read', 'sensitive'],
        requiredScopes: ['read'],
      }),
      ...(options.tokens ? { tokens: [{ token: 'static-token-123', subject: 'ops' }] } : {}),
    },
    ...(options.plainPaths ? { plainPaths: options.plainPaths } : {}),
  });
  return served;
}

const call = (url: string, headers: Record<string, string> = {}, name = 'whoami') =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        },
      },
    }),
  });
const modern = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'whoami',
};

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('is served at the path-inserted location of every MCP path and at the root, naming the MCP endpoint', async () => {
    const s = await start({ plainPaths: ['/messages/'] });
    const expected = {
      resource: s.mcpUrl,
      authorization_servers: [as.issuer],
      scopes_supported: ['read', 'sensitive'],
      bearer_methods_supported: ['header'],
    };
    for (const path of ['/mcp', '/messages/', '']) {
      const res = await fetch(`${s.url}/.well-known/oauth-protected-resource${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual(expected);
    }
    const other = await fetch(`${s.url}/.well-known/oauth-protected-resource/elsewhere`);
    expect(other.status).toBe(404);
    const post = await fetch(`${s.url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'POST',
    });
    expect(post.status).toBe(405);
  });
});

describe('challenges and verification over HTTP', () => {
  it('answers a request without a token 401 with the challenge that starts discovery', async () => {
    const s = await start();
    const res = await call(s.mcpUrl, modern);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp", scope="read"`,
    );
    expect(runs).toBe(0);
  });

  it('serves a token the authorization server issued for this server, as its subject', async () => {
    const s = await start();
    const token = await as.token(s.mcpUrl, 'read');
    const res = await call(s.mcpUrl, { ...modern, authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('"text":"test-service"');
    expect(runs).toBe(1);
  });

  it("keeps the app's own tokens working beside OAuth", async () => {
    const s = await start({ tokens: true });
    const res = await call(s.mcpUrl, { ...modern, authorization: 'Bearer static-token-123' });
    expect(JSON.stringify(await res.json())).toContain('"text":"ops"');
  });

  it('refuses a token for another resource 401 invalid_token, running nothing', async () => {
    const s = await start();
    const token = await as.token('http://127.0.0.1:1/mcp', 'read');
    const res = await call(s.mcpUrl, { ...modern, authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", resource_metadata="/,
    );
    expect(runs).toBe(0);
  });

  it('refuses a malformed Bearer header 400 invalid_request', async () => {
    const s = await start();
    const res = await call(s.mcpUrl, { ...modern, authorization: 'Bearer two words' });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request"/);
    expect(runs).toBe(0);
  });

  it('takes tokens only from the Authorization header: one in the query string is not read', async () => {
    const s = await start();
    const token = await as.token(s.mcpUrl, 'read');
    const res = await call(`${s.mcpUrl}?access_token=${token}`, modern);
    expect(res.status).toBe(401);
    expect(runs).toBe(0);
  });

  it('fails closed (503) while the keys cannot be fetched, and serves again when they can', async () => {
    const s = await start();
    const token = await as.token(s.mcpUrl, 'read');
    await as.stop();
    try {
      const res = await call(s.mcpUrl, { ...modern, authorization: `Bearer ${token}` });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        error: { message: expect.stringContaining(as.issuer) },
      });
    } finally {
      await as.start();
    }
    expect(runs).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await call(s.mcpUrl, { ...modern, authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
  });

  it('answers a tool whose scopes the token lacks 403 insufficient_scope naming all it needs, running nothing', async () => {
    const s = await start();
    const token = await as.token(s.mcpUrl, 'read');
    const res = await call(
      s.mcpUrl,
      { ...modern, 'mcp-name': 'secret', authorization: `Bearer ${token}` },
      'secret',
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp", scope="read sensitive"`,
    );
    expect(await res.json()).toMatchObject({
      id: 1,
      error: { data: { tool: 'secret', requiredScopes: ['read', 'sensitive'] } },
    });
    expect(runs).toBe(0);
    // A 2025-era request (no Mcp-* headers) is read from its body: the same 403.
    const legacy = await call(s.mcpUrl, { authorization: `Bearer ${token}` }, 'secret');
    expect(legacy.status).toBe(403);
    // With the scopes it asked for again, the call runs.
    const stepped = await as.token(s.mcpUrl, 'read sensitive');
    const ok = await call(
      s.mcpUrl,
      { ...modern, 'mcp-name': 'secret', authorization: `Bearer ${stepped}` },
      'secret',
    );
    expect(ok.status).toBe(200);
    expect(runs).toBe(1);
  });
});
