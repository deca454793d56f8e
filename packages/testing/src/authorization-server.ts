/**
 * A real OAuth 2.1 authorization server for tests: panva's `oidc-provider` in this process on
 * 127.0.0.1, with resource indicators (RFC 8707) and JWT access tokens (RFC 9068) on. Two ways
 * to a token:
 *
 * - a client-credentials client, to mint tokens without a browser (`token`);
 * - the whole interactive flow a real third-party client goes through: Dynamic Client
 *   Registration (RFC 7591), authorization code with PKCE S256, `resource` honoured at the
 *   authorization and token endpoints, refresh tokens for clients registered for them — with a
 *   user who signs in and consents by herself (`authorize` follows the authorization URL like a
 *   browser and hands back the redirect to the client).
 *
 * Its key can also sign tokens the provider would never issue (expired, another audience …), to
 * test what a resource server refuses.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A running authorization server of {@link startAuthorizationServer}. */
export interface TestAuthorizationServer {
  /** The issuer identifier (`http://127.0.0.1:<port>`). */
  readonly issuer: string;
  /**
   * The account every interactive authorization signs in as (`'alice'`): the `sub` of the tokens
   * a client gets through {@link TestAuthorizationServer.authorize}.
   */
  readonly account: string;
  /** A token from the token endpoint (client credentials) for `resource` with `scope`. */
  token(resource: string, scope: string): Promise<string>;
  /** A JWT signed with the provider's own key: the claims and header given, over sane defaults. */
  sign(
    claims: Record<string, unknown>,
    header?: Record<string, unknown>,
    key?: 'provider' | 'stranger',
  ): Promise<string>;
  /**
   * Play the user's browser for an authorization request: follow `url` (the authorization
   * endpoint with the client's query) and every redirect after it, with the cookies the
   * provider sets, through the sign-in and consent — given at once, as
   * {@link TestAuthorizationServer.account}, to every scope asked for that the server knows —
   * until the redirect leaves for the client's `redirect_uri`. That redirect is returned, not
   * followed: its query holds `code`, `state` and `iss` (or `error` when the provider refused
   * the request). Throws when the provider answers anything but a redirect on the way.
   *
   * One browser for the server's lifetime: the provider's session (alice signed in) and what
   * she consented to carry over to the next `authorize`, as they would for a person.
   */
  authorize(url: string | URL): Promise<URL>;
  /**
   * The confidential client a resource server introspects opaque tokens as (RFC 7662; the
   * provider's `/token/introspection`).
   */
  readonly introspector: { clientId: string; clientSecret: string };
  /**
   * Register a confidential web client that signs people in here (an operator registering a
   * gateway at the organisation's identity provider): its id and secret.
   */
  registerClient(redirectUri: string): Promise<{ clientId: string; clientSecret: string }>;
  /** Revoke an access token at the provider (RFC 7009): introspection calls it inactive. */
  revoke(token: string): Promise<void>;
  /** Stop answering (the JWKS endpoint goes down with the rest); `start` brings it back. */
  stop(): Promise<void>;
  /** Answer again, on the same port, after `stop`. */
  start(): Promise<void>;
  /** Stop for good. */
  close(): Promise<void>;
}

const CLIENT = { id: 'test-service', secret: 'test-service-secret-0123456789' };
const INTROSPECTOR = { id: 'test-resource-server', secret: 'test-resource-server-secret-0123' };

/** How {@link startAuthorizationServer}'s provider issues access tokens. */
export interface AuthorizationServerOptions {
  /** `jwt` (RFC 9068, the default) or `opaque` (a reference only introspection can read). */
  accessTokenFormat?: 'jwt' | 'opaque';
  /** The port on 127.0.0.1. Default: any free one. */
  port?: number;
}
const ACCOUNT = 'alice';
/** The scopes that are the provider's own (OpenID Connect), not a resource server's. */
const OIDC_SCOPES = ['openid', 'offline_access'];
/** Redirects `authorize` follows before it gives up. */
const MAX_HOPS = 10;

/**
 * Start an authorization server on 127.0.0.1 whose tokens carry any of `scopes`.
 *
 * Any `resource` is accepted (the token's audience is the resource asked for) and any client
 * may ask for any of `scopes`, whatever scope it registered with: what a token may carry is
 * decided by what is asked for, within `scopes`.
 *
 * @example
 * ```ts
 * const as = await startAuthorizationServer(['read']);
 * const token = await as.token('http://127.0.0.1:3000/mcp', 'read');
 * await as.close();
 * ```
 *
 * @example The interactive flow: a client registers, sends the user to `authorizationUrl`.
 * ```ts
 * const callback = await as.authorize(authorizationUrl);
 * await transport.finishAuth(callback.searchParams); // code and iss
 * ```
 */
export async function startAuthorizationServer(
  scopes: readonly string[] = ['read', 'sensitive'],
  options: AuthorizationServerOptions = {},
): Promise<TestAuthorizationServer> {
  // Loaded here, not with the kit: it warns on import about Node 20, which every test would show.
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = (await generateKeyPair('RS256', { extractable: true })).privateKey;
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const resourceScopes = new Set(scopes);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: INTROSPECTOR.id,
        client_secret: INTROSPECTOR.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // The provider's own scopes only: a resource server's scopes come from getResourceServerInfo.
    scopes: OIDC_SCOPES,
    // A client registers with the scope of its first challenge and steps up later (MCP does):
    // the registered scope is dropped, so it limits nothing here.
    extraClientMetadata: {
      properties: ['scope'],
      validator(_ctx, key, _value, metadata) {
        if (key === 'scope') delete metadata.scope;
      },
    },
    findAccount: (_ctx, sub) =>
      sub === ACCOUNT ? { accountId: sub, claims: () => ({ sub }) } : undefined,
    // A client registered for refresh_token gets one, offline_access asked for or not.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Lifetimes for a test run (seconds); set so the provider does not warn about its defaults.
    ttl: {
      AccessToken: 300,
      AuthorizationCode: 60,
      ClientCredentials: 300,
      Grant: 3600,
      IdToken: 300,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Only the resource server reads tokens; a client revokes only its own.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client) => client.clientId === INTROSPECTOR.id,
      },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A token's audience is the resource asked for. At the token endpoint without `resource`:
        // the one granted (useGrantedResource); of several granted none is picked (ask for one).
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenFormat: options.accessTokenFormat ?? 'jwt',
          accessTokenTTL: 300,
        }),
      },
    },
  });
  // The provider's HTTP server as the issuer: plain http on loopback is what tests have.
  provider.proxy = false;

  // The user: signs in as alice and consents to every scope asked for that the server knows.
  const interact = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    const params = details.params as { client_id?: string; scope?: string; resource?: unknown };
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId: ACCOUNT, clientId: String(params.client_id) });
    const asked = (params.scope ?? '').split(' ').filter(Boolean);
    const oidc = [
      ...asked.filter((s) => OIDC_SCOPES.includes(s)),
      ...(missing.missingOIDCScope ?? []),
    ];
    if (oidc.length > 0) grant.addOIDCScope(oidc);
    const ofServer = asked.filter((s) => resourceScopes.has(s));
    const resources = [params.resource ?? []].flat().filter((r) => typeof r === 'string');
    for (const resource of resources)
      if (ofServer.length > 0) grant.addResourceScope(resource, ofServer);
    for (const [resource, more] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, more);
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: ACCOUNT }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  };
  const callback = provider.callback();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && /^\/interaction\/[^/?]+(\?|$)/.test(req.url ?? '')) {
      interact(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${(err as Error).message}`);
      });
      return;
    }
    callback(req, res);
  };
  const listen = () => {
    server = createServer(handle);
    return new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await listen();
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  // The browser's cookie jar: the provider's cookies, by name and path (all on this origin).
  const jar = new Map<string, { name: string; value: string; path: string }>();
  const keep = (setCookies: readonly string[]) => {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let gone = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        const k = key.trim().toLowerCase();
        if (k === 'path') path = val || '/';
        else if (k === 'max-age' && Number(val) <= 0) gone = true;
        else if (k === 'expires' && Date.parse(val) <= Date.now()) gone = true;
      }
      const id = `${name};${path}`;
      if (gone) jar.delete(id);
      else jar.set(id, { name, value, path });
    }
  };
  const basic = (client: { id: string; secret: string }) =>
    `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  const cookiesFor = (url: URL) =>
    [...jar.values()]
      .filter(
        (c) =>
          url.pathname === c.path ||
          url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');

  return {
    issuer,
    account: ACCOUNT,
    async token(resource, scope) {
      // After a stop/start a pooled connection is dead: fetch says so once, then connects anew.
      const post = () =>
        fetch(`${issuer}/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basic(CLIENT),
          },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
        });
      const res = await post().catch(post);
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    introspector: { clientId: INTROSPECTOR.id, clientSecret: INTROSPECTOR.secret },
    async registerClient(redirectUri) {
      const res = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'a client of the test IdP',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      });
      const body = (await res.json()) as { client_id?: string; client_secret?: string };
      if (!res.ok || !body.client_id || !body.client_secret) {
        throw new Error(`registration: HTTP ${res.status} ${JSON.stringify(body)}`);
      }
      return { clientId: body.client_id, clientSecret: body.client_secret };
    },
    async revoke(token) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(CLIENT),
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
      if (!res.ok) throw new Error(`revoke: HTTP ${res.status} ${await res.text()}`);
    },
    async sign(claims, header = {}, key = 'provider') {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, sub: 'someone', iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1', ...header })
        .sign(key === 'provider' ? privateKey : stranger);
    },
    async authorize(url) {
      let next = new URL(url);
      const redirectUri = next.searchParams.get('redirect_uri');
      const own = new URL(issuer).origin;
      const arrived = (at: URL) =>
        at.origin !== own ||
        (redirectUri !== null && `${at.origin}${at.pathname}` === redirectUri.split('?')[0]);
      for (let hop = 0; hop <= MAX_HOPS; hop++) {
        if (hop > 0 && arrived(next)) return next;
        const target = next;
        const get = () => {
          const cookie = cookiesFor(target);
          return fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        };
        const res = await get().catch(get);
        keep(res.headers.getSetCookie());
        const location = res.headers.get('location');
        const text = await res.text();
        if (res.status < 300 || res.status >= 400 || !location)
          throw new Error(
            `authorize: ${res.status} at ${target.pathname} instead of a redirect: ${text.slice(0, 500)}`,
          );
        next = new URL(location, target);
      }
      throw new Error(`authorize: still redirecting after ${MAX_HOPS} hops, at ${next.href}`);
    },
    stop,
    start: listen,
    close: stop,
  };
}
