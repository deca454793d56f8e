import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthorizationServerDiscoveryError,
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
  loopbackHttpAllowed,
} from './discovery.js';

describe('authorizationServerMetadataUrls', () => {
  it('orders an issuer with a path as MCP does: RFC 8414 inserted, OpenID inserted, OpenID appended', () => {
    expect(authorizationServerMetadataUrls('https://as.example/tenant/1/').map(String)).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/tenant/1',
      'https://as.example/.well-known/openid-configuration/tenant/1',
      'https://as.example/tenant/1/.well-known/openid-configuration',
    ]);
  });

  it('has RFC 8414 then OpenID at the root for an issuer without a path', () => {
    expect(authorizationServerMetadataUrls('https://as.example').map(String)).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });
});

describe('discoverAuthorizationServer against an HTTP server', () => {
  let server: Server | undefined;
  const asked: string[] = [];
  afterEach(async () => {
    asked.length = 0;
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A server answering `documents` by path (what `issuer` it names is up to each test). */
  async function serve(documents: (origin: string) => Record<string, unknown>): Promise<string> {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const doc = documents(origin)[req.url ?? ''];
      if (doc === 'redirect') {
        res.writeHead(302, { location: '/elsewhere' }).end();
      } else if (doc) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return origin;
  }

  it('finds the OpenID document appended to the path after the two inserted forms fail', async () => {
    const origin = await serve((o) => ({
      '/tenant/.well-known/openid-configuration': {
        issuer: `${o}/tenant`,
        authorization_endpoint: `${o}/tenant/auth`,
        token_endpoint: `${o}/tenant/token`,
        jwks_uri: `${o}/tenant/jwks`,
      },
    }));
    const as = await discoverAuthorizationServer(`${origin}/tenant`);
    expect(as.jwks_uri).toBe(`${origin}/tenant/jwks`);
    expect(asked).toEqual([
      '/.well-known/oauth-authorization-server/tenant',
      '/.well-known/openid-configuration/tenant',
      '/tenant/.well-known/openid-configuration',
    ]);
  });

  it("refuses a document that names another issuer (its keys are not the issuer's)", async () => {
    const origin = await serve(() => ({
      '/.well-known/oauth-authorization-server': { issuer: 'https://evil.example' },
    }));
    const err = await discoverAuthorizationServer(origin).catch((e: unknown) => e);
    expect(AuthorizationServerDiscoveryError.is(err)).toBe(true);
    expect((err as Error).message).toContain(`is not ${origin}'s`);
  });

  it('does not follow a redirect, and says what the last location answered', async () => {
    const origin = await serve(() => ({
      '/.well-known/oauth-authorization-server': 'redirect',
    }));
    const err = await discoverAuthorizationServer(origin).catch((e: unknown) => e);
    expect(AuthorizationServerDiscoveryError.is(err)).toBe(true);
    expect(asked).toEqual([
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]);
    expect(String((err as Error).cause)).toContain('/.well-known/openid-configuration: HTTP 404');
  });

  it('names a server that is not there', async () => {
    const origin = await serve(() => ({}));
    await new Promise((resolve) => server?.close(resolve));
    const err = await discoverAuthorizationServer(origin).catch((e: unknown) => e);
    expect(AuthorizationServerDiscoveryError.is(err)).toBe(true);
    expect((err as Error).message).toBe(`no authorization server metadata for ${origin}`);
  });
});

describe('loopbackHttpAllowed', () => {
  it('allows plain http on a loopback host only', () => {
    for (const local of ['http://127.0.0.1:9/token', 'http://localhost/token', 'http://[::1]:8/t'])
      expect(Object.getOwnPropertySymbols(loopbackHttpAllowed(local)), local).toHaveLength(1);
    for (const other of [
      'https://127.0.0.1/token',
      'http://auth.example/token',
      'http://127.0.0.2/token',
      'not a url',
      undefined,
    ])
      expect(loopbackHttpAllowed(other), String(other)).toEqual({});
  });
});
