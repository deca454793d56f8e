/**
 * A real OAuth 2.1 authorization server for tests: panva's `oidc-provider` in this process on
 * 127.0.0.1, with resource indicators (RFC 8707) and JWT access tokens (RFC 9068) on, and a
 * client-credentials client to mint tokens without a browser. Its key can also sign tokens the
 * provider would never issue (expired, another audience …), to test what a resource server
 * refuses.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A running authorization server of {@link startAuthorizationServer}. */
export interface TestAuthorizationServer {
  /** The issuer identifier (`http://127.0.0.1:<port>`). */
  readonly issuer: string;
  /** A token from the token endpoint (client credentials) for `resource` with `scope`. */
  token(resource: string, scope: string): Promise<string>;
  /** A JWT signed with the provider's own key: the claims and header given, over sane defaults. */
  sign(
    claims: Record<string, unknown>,
    header?: Record<string, unknown>,
    key?: 'provider' | 'stranger',
  ): Promise<string>;
  /** Stop answering (the JWKS endpoint goes down with the rest); `start` brings it back. */
  stop(): Promise<void>;
  /** Answer again, on the same port, after `stop`. */
  start(): Promise<void>;
  /** Stop for good. */
  close(): Promise<void>;
}

const CLIENT = { id: 'test-service', secret: 'test-service-secret-0123456789' };

/**
 * Start an authorization server on 127.0.0.1 whose tokens carry any of `scopes`.
 *
 * @example
 * ```ts
 * const as = await startAuthorizationServer(['read']);
 * const token = await as.token('http://127.0.0.1:3000/mcp', 'read');
 * await as.close();
 * ```
 */
export async function startAuthorizationServer(
  scopes: readonly string[] = ['read', 'sensitive'],
): Promise<TestAuthorizationServer> {
  // Loaded here, not with the kit: it warns on import about Node 20, which every test would show.
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = (await generateKeyPair('RS256', { extractable: true })).privateKey;
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: scopes.join(' '),
      },
    ],
    jwks: { keys: [jwk] },
    scopes: [...scopes],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
        }),
      },
    },
  });
  // The provider's HTTP server as the issuer: plain http on loopback is what tests have.
  provider.proxy = false;
  const listen = () => {
    server = createServer(provider.callback());
    return new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await listen();
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    issuer,
    async token(resource, scope) {
      // After a stop/start a pooled connection is dead: fetch says so once, then connects anew.
      const post = () =>
        fetch(`${issuer}/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
          },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
        });
      const res = await post().catch(post);
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async sign(claims, header = {}, key = 'provider') {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, sub: 'someone', iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1', ...header })
        .sign(key === 'provider' ? privateKey : stranger);
    },
    stop,
    start: listen,
    close: stop,
  };
}
