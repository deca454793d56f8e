import { startAuthorizationServer, type TestAuthorizationServer } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorizationServerUnavailableError,
  createOAuthResourceServer,
  type OAuthResourceServer,
} from './resource-server.js';

const RESOURCE = 'http://127.0.0.1:39999/mcp';

let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as?.close());

const server = (extra: Partial<Parameters<typeof createOAuthResourceServer>[0]> = {}) =>
  createOAuthResourceServer({
    issuer: as.issuer,
    audience: RESOURCE,
    scopes: ['read', 'sensitive'],
    ...extra,
  });

/** A token's three parts, one of them replaced. */
function withPart(token: string, index: number, part: string): string {
  const parts = token.split('.');
  parts[index] = part;
  return parts.join('.');
}
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('an OAuth resource server against a real authorization server (oidc-provider)', () => {
  it('accepts a token the authorization server issued for this resource: its subject and scopes', async () => {
    const rs = server();
    const token = await as.token(RESOURCE, 'read');
    const info = await rs.verify(token);
    expect(info?.subject).toBe('test-service');
    expect([...(info?.scopes ?? [])]).toEqual(['read']);
  });

  it('answers a verified token again from its cache, without the keys', async () => {
    const rs = server();
    const token = await as.token(RESOURCE, 'read sensitive');
    await rs.verify(token);
    await as.stop();
    try {
      expect((await rs.verify(token))?.scopes.has('sensitive')).toBe(true);
    } finally {
      await as.start();
    }
  });

  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Promise<string>][] = [
    ['another audience', () => as.token('http://127.0.0.1:1/other', 'read')],
    ['no audience', () => as.sign({ aud: undefined })],
    ['another issuer', () => as.sign({ aud: RESOURCE, iss: 'http://127.0.0.1:2' })],
    ['expired', () => as.sign({ aud: RESOURCE, exp: now() - 60 })],
    ['not yet valid', () => as.sign({ aud: RESOURCE, nbf: now() + 600 })],
    ['no expiry', () => as.sign({ aud: RESOURCE, exp: undefined })],
    ['no subject', () => as.sign({ aud: RESOURCE, sub: undefined })],
    [
      'an ID token, not an access token (typ JWT)',
      () => as.sign({ aud: RESOURCE }, { typ: 'JWT' }),
    ],
    [
      'alg none',
      async () =>
        `${b64({ alg: 'none', typ: 'at+jwt' })}.${(await as.sign({ aud: RESOURCE })).split('.')[1]}.`,
    ],
    [
      'HS256 signed with the public key',
      async () => {
        const { createHmac } = await import('node:crypto');
        const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: unknown[] };
        const head = b64({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' });
        const body = (await as.sign({ aud: RESOURCE })).split('.')[1];
        const mac = createHmac('sha256', JSON.stringify(jwks.keys[0]))
          .update(`${head}.${body}`)
          .digest('base64url');
        return `${head}.${body}.${mac}`;
      },
    ],
    [
      'signed by a stranger under an unknown kid',
      () => as.sign({ aud: RESOURCE }, { kid: 'evil' }, 'stranger'),
    ],
    ['signed by a stranger under the known kid', () => as.sign({ aud: RESOURCE }, {}, 'stranger')],
    [
      'a changed payload',
      async () =>
        withPart(
          await as.sign({ aud: RESOURCE }),
          1,
          b64({ sub: 'admin', aud: RESOURCE, iss: as.issuer, exp: now() + 300 }),
        ),
    ],
    ['truncated', async () => (await as.token(RESOURCE, 'read')).slice(0, -10)],
    ['two parts', async () => (await as.token(RESOURCE, 'read')).split('.').slice(0, 2).join('.')],
    ['64 KB', async () => `${await as.token(RESOURCE, 'read')}${'A'.repeat(64 * 1024)}`],
    ['garbage', async () => 'not.a.jwt'],
  ];

  it.each(cases)('refuses a token that is %s', async (_what, make) => {
    const rs = server();
    expect(await rs.verify(await make())).toBeUndefined();
  });

  it('fails closed while the keys cannot be fetched, and recovers when they can', async () => {
    const rs = server();
    const token = await as.token(RESOURCE, 'read');
    await as.stop();
    try {
      await expect(rs.verify(token)).rejects.toSatisfy(AuthorizationServerUnavailableError.is);
    } finally {
      await as.start();
    }
    // The failed discovery is not retried for a second (a dead server costs one fetch a second).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await rs.verify(token))?.subject).toBe('test-service');
  });

  it('refuses everything while it knows no audience (its URL was never set)', async () => {
    const rs: OAuthResourceServer = server({ audience: undefined });
    expect(await rs.verify(await as.token(RESOURCE, 'read'))).toBeUndefined();
    rs.audience = RESOURCE;
    expect(await rs.verify(await as.token(RESOURCE, 'read'))).toBeDefined();
  });

  it('refuses symmetric and none algorithms in its configuration', () => {
    expect(() => server({ algorithms: ['HS256'] })).toThrow(/HS256/);
    expect(() => server({ algorithms: ['none'] })).toThrow(/none/);
  });

  it('describes itself (RFC 9728): the resource, its issuer, scopes and header-only bearer tokens', () => {
    expect(server({ documentation: 'https://docs.example/mcp' }).metadata(RESOURCE)).toEqual({
      resource: RESOURCE,
      authorization_servers: [as.issuer],
      scopes_supported: ['read', 'sensitive'],
      bearer_methods_supported: ['header'],
      resource_documentation: 'https://docs.example/mcp',
    });
  });
});

describe('a declared scope hierarchy', () => {
  it('gives a token every scope its granted scopes imply, transitively', async () => {
    const rs = server({ scopeHierarchy: { sensitive: ['read'], read: ['list'] } });
    const info = await rs.verify(await as.token(RESOURCE, 'sensitive'));
    expect([...(info?.scopes ?? [])].sort()).toEqual(['list', 'read', 'sensitive']);
  });

  it('implies nothing upward, and nothing from an inherited property name', async () => {
    const rs = server({ scopeHierarchy: { sensitive: ['read'] } });
    expect([...((await rs.verify(await as.token(RESOURCE, 'read')))?.scopes ?? [])]).toEqual([
      'read',
    ]);
    const odd = server({ scopeHierarchy: {} });
    const info = await odd.verify(await as.sign({ aud: RESOURCE, scope: 'constructor' }));
    expect([...(info?.scopes ?? [])]).toEqual(['constructor']);
  });
});

describe('opaque tokens through introspection (RFC 7662) against oidc-provider', () => {
  let opaque: TestAuthorizationServer;
  beforeAll(async () => {
    opaque = await startAuthorizationServer(['read', 'sensitive'], { accessTokenFormat: 'opaque' });
  });
  afterAll(() => opaque?.close());

  const introspecting = (extra: Partial<Parameters<typeof createOAuthResourceServer>[0]> = {}) =>
    createOAuthResourceServer({
      issuer: opaque.issuer,
      audience: RESOURCE,
      introspection: opaque.introspector,
      ...extra,
    });

  it('accepts an active token for this resource: the client as subject, its scopes', async () => {
    const token = await opaque.token(RESOURCE, 'read sensitive');
    expect(token.split('.')).toHaveLength(1);
    const info = await introspecting().verify(token);
    expect(info?.subject).toBe('test-service');
    expect([...(info?.scopes ?? [])].sort()).toEqual(['read', 'sensitive']);
  });

  it('refuses an opaque token when introspection is not configured', async () => {
    const token = await opaque.token(RESOURCE, 'read');
    expect(await introspecting({ introspection: undefined }).verify(token)).toBeUndefined();
  });

  it('refuses a token for another resource, an unknown one and a revoked one', async () => {
    const rs = introspecting();
    expect(await rs.verify(await opaque.token('http://127.0.0.1:1/other', 'read'))).toBeUndefined();
    expect(await rs.verify('an-opaque-token-nobody-issued')).toBeUndefined();
    const revoked = await opaque.token(RESOURCE, 'read');
    await opaque.revoke(revoked);
    expect(await rs.verify(revoked)).toBeUndefined();
  });

  it('trusts an active answer for cacheSec only: a revoked token is refused after it', async () => {
    const remembering = introspecting();
    const asking = introspecting({
      introspection: { ...opaque.introspector, cacheSec: 0 },
    });
    const token = await opaque.token(RESOURCE, 'read');
    expect(await remembering.verify(token)).toBeDefined();
    expect(await asking.verify(token)).toBeDefined();
    await opaque.revoke(token);
    expect(await remembering.verify(token)).toBeDefined();
    expect(await asking.verify(token)).toBeUndefined();
  });

  it('fails closed when its own credentials are refused, and while the server is down', async () => {
    const token = await opaque.token(RESOURCE, 'read');
    const wrong = introspecting({
      introspection: { clientId: opaque.introspector.clientId, clientSecret: 'wrong' },
    });
    await expect(wrong.verify(token)).rejects.toSatisfy(AuthorizationServerUnavailableError.is);
    const rs = introspecting();
    await rs.verify(await opaque.token(RESOURCE, 'read')); // metadata known
    await opaque.stop();
    try {
      await expect(rs.verify(token)).rejects.toSatisfy(AuthorizationServerUnavailableError.is);
    } finally {
      await opaque.start();
    }
    expect((await rs.verify(token))?.subject).toBe('test-service');
  });

  it('asks once for a burst of requests with one new token', async () => {
    let asked = 0;
    const counting = introspecting({
      introspection: {
        ...opaque.introspector,
        endpoint: `${opaque.issuer}/token/introspection`,
      },
    });
    const token = await opaque.token(RESOURCE, 'read');
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/token/introspection'))
        asked++;
      return realFetch(input, init);
    }) as typeof fetch;
    try {
      const infos = await Promise.all(Array.from({ length: 8 }, () => counting.verify(token)));
      expect(infos.every((info) => info?.subject === 'test-service')).toBe(true);
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(asked).toBe(1);
  });
});

describe('stillValid', () => {
  it('is asked on every request, a cached token too: false refuses it at once', async () => {
    let valid = true;
    const asked: string[] = [];
    const rs = server({
      stillValid: (info) => {
        asked.push(info.subject);
        return valid;
      },
    });
    const token = await as.token(RESOURCE, 'read');
    expect(await rs.verify(token)).toBeDefined();
    valid = false;
    expect(await rs.verify(token)).toBeUndefined();
    valid = true;
    expect((await rs.verify(token))?.subject).toBe('test-service');
    expect(asked).toEqual(['test-service', 'test-service', 'test-service']);
  });
});
