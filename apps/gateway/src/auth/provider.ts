/**
 * The gateway as the authorization server its clients sign in to: panva's `oidc-provider`
 * (OpenID Certified), configured for MCP's authorization spec (2025-11-25 and 2026-07-28) —
 * metadata discovery, Dynamic Client Registration (RFC 7591), authorization code with PKCE S256
 * required of every client, resource indicators (RFC 8707) with the gateway's MCP endpoint (and
 * its virtual servers' endpoints) as the resources, JWT access tokens (RFC 9068), rotated refresh
 * tokens, revocation.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { AuthStore, StoredKey } from './store.js';
import type { GatewayUser } from './users.js';

/** Provider and the one value of its module the gateway needs. */
type OidcModule = typeof import('oidc-provider');
/** A running oidc-provider. */
export type OidcProvider = InstanceType<OidcModule['default']>;

/** Every endpoint under one prefix, so none meets the gateway's own paths. */
export const AS_PREFIX = '/oauth';
/** Where the provider sends the person to sign in and consent. */
export const INTERACTION_PATH = `${AS_PREFIX}/interaction`;
/** A person's page of the clients they allowed. */
export const CONNECTIONS_PATH = `${AS_PREFIX}/connections`;
/** Where the sign-in for that page comes back to. */
export const CONNECTIONS_CALLBACK = `${CONNECTIONS_PATH}/callback`;
/** The gateway's own client, through which a person signs in to their connections page. */
export const CONNECTIONS_CLIENT = 'mcp-gateway-connections';

/** What {@link createAuthorizationServer} takes. */
export interface AuthorizationServerOptions {
  /** The issuer: the gateway's own origin (`https://gateway.example.com`). */
  issuer: string;
  /** The resource tokens are issued for by default: the gateway's MCP endpoint URL. */
  resource: string;
  /**
   * Whether `url` is another resource of the gateway's (a virtual server's endpoint,
   * `/servers/<name>/mcp`): a token asked for it carries it as its audience. Default: none.
   */
  alsoResource?: (url: string) => boolean;
  /** The scopes a client may ask for there (backends' scopes and gateway:admin). */
  scopes: readonly string[];
  /** The people who may sign in. */
  users: readonly GatewayUser[];
  /** Where clients, grants, sessions and keys are kept. */
  store: AuthStore;
  /** Lifetime of an access token, seconds. Default 3600. */
  accessTokenTtl?: number;
  /** A new signing key once the newest is this old, ms. Default 30 days. */
  keyRotationMs?: number;
}

/** The provider's own scopes (OpenID Connect), not the gateway's. */
const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile'];
const DAY_MS = 24 * 3600_000;

/**
 * The signing keys, newest first, after making a new one when there is none or the newest is
 * older than `rotationMs`; keys older than twice that go (every token they signed has expired).
 * Verification takes every key of the set, so a token signed before a rotation stays good.
 */
export function signingKeys(store: AuthStore, rotationMs: number): Promise<JWK[]> {
  // Instances of a fleet starting together make one key, not one each.
  return store.exclusive('gateway_auth_keys', () => currentKeys(store, rotationMs));
}

async function currentKeys(store: AuthStore, rotationMs: number): Promise<JWK[]> {
  let keys = await store.keys();
  const newest = keys[0];
  if (!newest || Date.now() - newest.createdAt > rotationMs) {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const key: StoredKey = {
      kid: randomUUID(),
      jwk: { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' },
      createdAt: Date.now(),
    };
    await store.addKey(key);
    await store.retireKeys(Date.now() - 2 * rotationMs);
    keys = await store.keys();
  }
  return keys.map((k) => ({ ...k.jwk, kid: k.kid }) as JWK);
}

/**
 * A provider for the gateway. Loaded lazily: oidc-provider and its dependencies are only paid
 * for by a gateway that is an authorization server.
 */
export async function createAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<OidcProvider> {
  const { default: Provider, errors } = (await import('oidc-provider')) as OidcModule;
  const { store, resource } = options;
  const keys = await signingKeys(store, options.keyRotationMs ?? 30 * DAY_MS);
  const cookieKey = await store.secret('cookies', () => randomBytes(32).toString('base64url'));
  const users = new Map(options.users.map((u) => [u.username, u]));
  const ttl = options.accessTokenTtl ?? 3600;
  const resourceScope = options.scopes.join(' ');

  const provider = new Provider(options.issuer, {
    adapter: (model: string) => store.adapter(model),
    clients: [
      {
        client_id: CONNECTIONS_CLIENT,
        client_name: 'Your connections (this gateway)',
        redirect_uris: [`${options.issuer}${CONNECTIONS_CALLBACK}`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    jwks: { keys },
    cookies: { keys: [cookieKey] },
    scopes: OIDC_SCOPES,
    claims: { openid: ['sub'], email: ['email'], profile: ['groups'] },
    routes: {
      authorization: `${AS_PREFIX}/authorize`,
      end_session: `${AS_PREFIX}/logout`,
      jwks: `${AS_PREFIX}/jwks`,
      pushed_authorization_request: `${AS_PREFIX}/par`,
      registration: `${AS_PREFIX}/register`,
      revocation: `${AS_PREFIX}/revoke`,
      token: `${AS_PREFIX}/token`,
      userinfo: `${AS_PREFIX}/userinfo`,
    },
    // A client registers with the scope of its first challenge and steps up later (MCP does):
    // what a token may carry is decided by what is asked for and consented to, not by that.
    extraClientMetadata: {
      properties: ['scope'],
      validator(_ctx, key, _value, metadata) {
        if (key === 'scope') delete metadata.scope;
      },
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'RS256',
    },
    findAccount: async (_ctx, sub) => {
      const user = users.get(sub);
      // A configured user, else a person who signed in upstream (their claims as of then).
      const claims = user
        ? {
            ...(user.email ? { email: user.email } : {}),
            ...(user.groups ? { groups: user.groups } : {}),
          }
        : await store.account(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: () => ({ ...claims, sub }) };
    },
    // A person's groups ride in their access token: rules and virtual servers read them
    // (`identity.groups`, `default_for.groups`) from the token, as from any other issuer's.
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const user = users.get(token.accountId);
      const groups = user ? user.groups : (await store.account(token.accountId))?.groups;
      return Array.isArray(groups) && groups.length > 0 ? { groups } : undefined;
    },
    // MCP: PKCE for every client, S256 only (oidc-provider allows nothing else).
    pkce: { required: () => true },
    // Refresh tokens for clients registered for them (MCP clients ask with offline_access or
    // not at all); each use gives a new one and spends the old (OAuth 2.1 §4.3.1 for public clients).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 60,
      ClientCredentials: ttl,
      Grant: 365 * 24 * 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 30 * 24 * 3600,
      Session: 14 * 24 * 3600,
    },
    // Authorization code only (MCP): no implicit or hybrid response types advertised.
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      // MCP (2025-11-25 and 2026-07-28): authorization servers SHOULD support Client ID
      // Metadata Documents — an https URL as the client_id, its document fetched (https only,
      // no redirects, no private addresses) and cached, never stored.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Without `resource`, the gateway's MCP endpoint.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, asked) => {
          if (asked !== resource && !options.alsoResource?.(asked)) {
            throw new errors.InvalidTarget(`unknown resource ${asked}`);
          }
          return {
            scope: resourceScope,
            audience: asked,
            accessTokenFormat: 'jwt',
            accessTokenTTL: ttl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  // An https issuer is a gateway behind a TLS proxy (--public-url): the proxy's
  // X-Forwarded-Proto says the request was secure, so the provider's cookies are `Secure`.
  provider.proxy = options.issuer.startsWith('https:');
  return provider;
}
