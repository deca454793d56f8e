/**
 * The client half of MCP's authorization (`basic/authorization`, 2025-11-25 and 2026-07-28):
 * after a server's 401 (or a 403 `insufficient_scope`), find its authorization server the way
 * the spec orders it, register, send the person to sign in with PKCE and the resource indicator,
 * and keep the tokens — with `oauth4webapi` for every step it covers (metadata validation, DCR,
 * PKCE, RFC 9207 `iss`, the token and refresh requests).
 */
import * as oauth from 'oauth4webapi';
import { hasBrand } from '../../jsonrpc/brand.js';
import { bearerChallenge } from './challenge.js';
import {
  discoverAuthorizationServer,
  firstMetadataResponse,
  loopbackHttpAllowed,
} from './discovery.js';

const FLOW_BRAND = Symbol.for('mcpkit.OAuthFlowError');

/** An access token (and what came with it) for one resource. */
export interface OAuthTokens {
  /** Sent as `Authorization: Bearer <accessToken>`. */
  accessToken: string;
  /** For a new access token without the person (when the authorization server issued one). */
  refreshToken?: string;
  /** When the access token expires, ms since the epoch (when the server said). */
  expiresAt?: number;
  /** The scopes granted, space-separated. */
  scope?: string;
}

/**
 * A sign-in under way between {@link OAuthClient.beginSignIn} and
 * {@link OAuthClient.finishSignIn}: plain JSON. Its `verifier` is a secret (PKCE): keep it on the
 * server side, never in the browser.
 */
export interface PendingSignIn {
  /** The resource the tokens are kept for (the MCP endpoint). */
  resource: string;
  /** The `resource` asked for (RFC 8707): the server's own identifier. */
  audience: string;
  /** The authorization server's issuer, as the resource's metadata named it. */
  issuer: string;
  /** Found the 2025-03-26 way (no protected resource metadata). */
  defaults: boolean;
  /** `state`: the redirect back must carry it. */
  state: string;
  /** The PKCE code verifier. */
  verifier: string;
  /** The redirect URI the authorization request named. */
  redirectUri: string;
  /** The scopes asked for. */
  scope?: string;
}

/** This client as one authorization server knows it. */
export interface OAuthClientRegistration {
  /** `client_id`: registered, a Client ID Metadata Document URL, or pre-registered. */
  clientId: string;
  /** `client_secret`, for a confidential client. */
  clientSecret?: string;
  /** How the client authenticates at the token endpoint. Default `none` (a public client). */
  authMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
}

/**
 * Where tokens (per resource) and registrations (per authorization server) are kept: in memory
 * by default ({@link MemoryOAuthStore}); a CLI keeps them in a file of its own.
 */
export interface OAuthStore {
  /** The tokens held for `resource`. */
  tokens(resource: string): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  /** Keep `tokens` for `resource`; undefined forgets them. */
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void | Promise<void>;
  /** This client's registration at `issuer`. */
  registration(
    issuer: string,
  ): OAuthClientRegistration | undefined | Promise<OAuthClientRegistration | undefined>;
  /** Keep the registration at `issuer`. */
  saveRegistration(issuer: string, registration: OAuthClientRegistration): void | Promise<void>;
}

/** An {@link OAuthStore} in this process's memory. */
export class MemoryOAuthStore implements OAuthStore {
  readonly #tokens = new Map<string, OAuthTokens>();
  readonly #registrations = new Map<string, OAuthClientRegistration>();
  /** {@inheritDoc OAuthStore.tokens} */
  tokens(resource: string): OAuthTokens | undefined {
    return this.#tokens.get(resource);
  }
  /** {@inheritDoc OAuthStore.saveTokens} */
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
    if (tokens) this.#tokens.set(resource, tokens);
    else this.#tokens.delete(resource);
  }
  /** {@inheritDoc OAuthStore.registration} */
  registration(issuer: string): OAuthClientRegistration | undefined {
    return this.#registrations.get(issuer);
  }
  /** {@inheritDoc OAuthStore.saveRegistration} */
  saveRegistration(issuer: string, registration: OAuthClientRegistration): void {
    this.#registrations.set(issuer, registration);
  }
}

/** What {@link OAuthClient} takes. */
export interface OAuthClientOptions {
  /** Where the authorization server sends the person back: a loopback URL for a CLI. */
  redirectUri: string;
  /**
   * Send the person to `url` (open a browser, print it) and resolve with the URL they were
   * redirected to — the `redirectUri` with `code`, `state` and `iss`.
   */
  authorize(url: URL): Promise<URL | string>;
  /** A client registered with the authorization server beforehand (the spec's first choice). */
  registration?: OAuthClientRegistration;
  /** This client's Client ID Metadata Document URL (used where the server supports them). */
  clientMetadataUrl?: string;
  /** `client_name` when registering dynamically. Default `mcpkit`. */
  clientName?: string;
  /** Where tokens and registrations are kept. Default: in memory. */
  store?: OAuthStore;
  /** Sign-ins for more scope per resource before giving up (a server that keeps asking). Default 3. */
  maxStepUps?: number;
}

/**
 * Signs in to MCP servers for an MCP client: give it to `StreamableHttpClientTransport` as
 * `oauth`, which sends its token and calls {@link OAuthClient.handle} on a 401 or 403.
 *
 * @example
 * ```ts
 * const oauth = new OAuthClient({
 *   redirectUri: 'http://127.0.0.1:8976/callback',
 *   authorize: (url) => loopbackRedirect(url, 8976), // open a browser, wait for the redirect
 * });
 * const client = await McpClient.connect(new StreamableHttpClientTransport({ url, oauth }));
 * ```
 */
export class OAuthClient {
  readonly #options: OAuthClientOptions;
  readonly #store: OAuthStore;
  /** Sign-ins per resource since its last success without one (the step-up limit). */
  readonly #attempts = new Map<string, number>();

  constructor(options: OAuthClientOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemoryOAuthStore();
  }

  /** The `Authorization` header for `resource`, refreshing an expired token; undefined without one. */
  async header(resource: URL | string): Promise<string | undefined> {
    const key = resourceKey(resource);
    const tokens = await this.#store.tokens(key);
    if (!tokens) return undefined;
    if (tokens.expiresAt !== undefined && tokens.expiresAt <= Date.now() && tokens.refreshToken) {
      const refreshed = await this.#refresh(key, tokens).catch(() => undefined);
      if (!refreshed) return undefined;
      return `Bearer ${refreshed.accessToken}`;
    }
    return `Bearer ${tokens.accessToken}`;
  }

  /** The request to `resource` was served: a later challenge starts a fresh step-up count. */
  succeeded(resource: URL | string): void {
    this.#attempts.delete(resourceKey(resource));
  }

  /**
   * A server answered 401, or 403 `insufficient_scope`: sign in (again, for the scopes it names
   * together with those held — a step-up). Resolves true when a new token is held and the
   * request is worth sending again; false when this is not an OAuth challenge or the step-up
   * limit is reached. Throws when sign-in fails (no metadata, no PKCE, an error redirect …).
   */
  async handle(
    resource: URL | string,
    status: number,
    wwwAuthenticate: string | null,
  ): Promise<boolean> {
    const challenge = bearerChallenge(wwwAuthenticate) ?? {};
    if (status === 403 && challenge.error !== 'insufficient_scope') return false;
    if (status !== 401 && status !== 403) return false;
    const key = resourceKey(resource);
    const attempts = (this.#attempts.get(key) ?? 0) + 1;
    if (attempts > (this.#options.maxStepUps ?? 3)) return false;
    this.#attempts.set(key, attempts);
    const { url, pending } = await this.#begin(key, status, challenge);
    const back = await this.#options.authorize(url);
    await this.finishSignIn(pending, back);
    return true;
  }

  /**
   * The first half of a sign-in, for an app that cannot wait inside `authorize` (a web server
   * whose person comes back in another request, perhaps to another instance): discovery,
   * registration and the authorization URL to send the person to, and what
   * {@link OAuthClient.finishSignIn} needs — plain JSON, to keep until they come back. `authorize`
   * is not called. `wwwAuthenticate` is the server's challenge, when there was one.
   */
  async beginSignIn(
    resource: URL | string,
    wwwAuthenticate: string | null = null,
  ): Promise<{ url: URL; pending: PendingSignIn }> {
    return this.#begin(resourceKey(resource), 401, bearerChallenge(wwwAuthenticate) ?? {});
  }

  /**
   * The second half: the redirect back checked against `pending` (state, `iss`, an error the
   * server sent), the code redeemed with the PKCE verifier, and the tokens kept for the resource.
   */
  async finishSignIn(pending: PendingSignIn, callback: URL | string): Promise<OAuthTokens> {
    const as = await authorizationServerMetadata(pending.issuer, pending.defaults);
    const registration = await this.#store.registration(as.issuer);
    if (!registration) {
      throw new OAuthFlowError(`no registration at ${as.issuer} for this sign-in`);
    }
    const client: oauth.Client = { client_id: registration.clientId };
    // Checks state, an error redirect and, where the server supports it, `iss` (RFC 9207).
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, new URL(callback), pending.state);
    } catch (err) {
      // The person (or the server) said no: say what it said, not only that it failed.
      if (err instanceof oauth.AuthorizationResponseError) {
        const why = err.error_description ? ` (${err.error_description})` : '';
        throw new OAuthFlowError(`sign-in refused: ${err.error}${why}`, { cause: err });
      }
      throw err;
    }
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth(registration),
      params,
      pending.redirectUri,
      pending.verifier,
      {
        additionalParameters: { resource: pending.audience },
        ...loopbackHttpAllowed(as.token_endpoint),
      },
    );
    const tokens = tokensOf(
      await oauth.processAuthorizationCodeResponse(as, client, response),
      pending.scope,
    );
    await this.#store.saveTokens(pending.resource, tokens);
    return tokens;
  }

  /** Discovery, registration and the authorization URL for `key` after a `status` challenge. */
  async #begin(
    key: string,
    status: number,
    challenge: Record<string, string>,
  ): Promise<{ url: URL; pending: PendingSignIn }> {
    const server = new URL(key);
    const found = await protectedResourceMetadata(server, challenge.resource_metadata);
    // MCP 2025-03-26 (since replaced): a server without Protected Resource Metadata is its own
    // authorization server, at its origin — metadata there, else the default endpoints.
    const prm = found ?? { authorization_servers: [server.origin] };
    const issuer = prm.authorization_servers?.[0];
    if (typeof issuer !== 'string') {
      throw new OAuthFlowError(`the server's metadata names no authorization server`);
    }
    const as = await authorizationServerMetadata(issuer, found === undefined);
    if (!as.code_challenge_methods_supported?.includes('S256')) {
      // MCP: a client MUST refuse an authorization server that does not advertise PKCE S256.
      throw new OAuthFlowError(`authorization server ${issuer} does not support PKCE (S256)`);
    }
    if (!as.authorization_endpoint) {
      throw new OAuthFlowError(`authorization server ${as.issuer} has no authorization endpoint`);
    }
    const registration = await this.#registration(as);
    const held = status === 403 ? (await this.#store.tokens(key))?.scope : undefined;
    const scope = scopeToRequest(challenge.scope, prm.scopes_supported, held, as);
    const audience = prm.resource ?? key;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', registration.clientId);
    url.searchParams.set('redirect_uri', this.#options.redirectUri);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    // RFC 8707: the token is for this MCP server and no other.
    url.searchParams.set('resource', audience);
    if (scope) url.searchParams.set('scope', scope);
    return {
      url,
      pending: {
        resource: key,
        audience,
        issuer,
        defaults: found === undefined,
        state,
        verifier,
        redirectUri: this.#options.redirectUri,
        ...(scope ? { scope } : {}),
      },
    };
  }

  async #registration(as: oauth.AuthorizationServer): Promise<OAuthClientRegistration> {
    const stored = await this.#store.registration(as.issuer);
    if (stored) return stored;
    const options = this.#options;
    let registration: OAuthClientRegistration;
    if (options.registration) registration = options.registration;
    else if (options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
      registration = { clientId: options.clientMetadataUrl, authMethod: 'none' };
    } else if (as.registration_endpoint) {
      const redirect = new URL(options.redirectUri);
      const response = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: options.clientName ?? 'mcpkit',
          redirect_uris: [options.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          // A loopback redirect is a native application's (RFC 8252), a web one's otherwise.
          application_type: isLoopback(redirect) ? 'native' : 'web',
        },
        loopbackHttpAllowed(as.registration_endpoint),
      );
      const client = await registered(response);
      registration = {
        clientId: client.client_id,
        ...(typeof client.client_secret === 'string' ? { clientSecret: client.client_secret } : {}),
        authMethod: authMethodOf(client.token_endpoint_auth_method),
      };
    } else {
      throw new OAuthFlowError(
        `no way to register with ${as.issuer}: no pre-registered client, no Client ID Metadata Document support, no registration endpoint`,
      );
    }
    await this.#store.saveRegistration(as.issuer, registration);
    return registration;
  }

  async #refresh(key: string, tokens: OAuthTokens): Promise<OAuthTokens | undefined> {
    const found = await protectedResourceMetadata(new URL(key), undefined);
    const prm = found ?? { authorization_servers: [new URL(key).origin] };
    const issuer = prm.authorization_servers?.[0];
    if (typeof issuer !== 'string' || !tokens.refreshToken) return undefined;
    const as = await authorizationServerMetadata(issuer, found === undefined);
    const registration = await this.#store.registration(as.issuer);
    if (!registration) return undefined;
    const client: oauth.Client = { client_id: registration.clientId };
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth(registration),
      tokens.refreshToken,
      {
        additionalParameters: { resource: prm.resource ?? key },
        ...loopbackHttpAllowed(as.token_endpoint),
      },
    );
    const fresh = tokensOf(
      await oauth.processRefreshTokenResponse(as, client, response),
      tokens.scope,
    );
    const kept = { ...fresh, ...(fresh.refreshToken ? {} : { refreshToken: tokens.refreshToken }) };
    await this.#store.saveTokens(key, kept as OAuthTokens);
    return kept as OAuthTokens;
  }
}

/** Sign-in could not be completed; the message says at which step. */
export class OAuthFlowError extends Error {
  /** Marks one from any copy of this package. */
  readonly [FLOW_BRAND] = true;
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is OAuthFlowError {
    return hasBrand(value, FLOW_BRAND);
  }
  /** `message` says which step failed. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OAuthFlowError';
  }
}

/** A resource's key: its URL without fragment (tokens are per MCP endpoint). */
function resourceKey(resource: URL | string): string {
  const url = new URL(resource);
  url.hash = '';
  return url.href;
}

interface ResourceMetadata {
  resource?: string;
  authorization_servers?: unknown[];
  scopes_supported?: string[];
}

/**
 * The server's Protected Resource Metadata (RFC 9728), in the spec's order: the URL its
 * challenge names, then the path-inserted well-known location, then the root; undefined when
 * the server has none. Its `resource` must be the server's own (the same origin, a prefix of its
 * path), or a token for it would be a token for someone else.
 */
async function protectedResourceMetadata(
  server: URL,
  named: string | undefined,
): Promise<ResourceMetadata | undefined> {
  const path = server.pathname === '/' ? '' : server.pathname.replace(/\/$/, '');
  const candidates = [
    ...(named ? [new URL(named, server)] : []),
    new URL(`/.well-known/oauth-protected-resource${path}`, server.origin),
    new URL('/.well-known/oauth-protected-resource', server.origin),
  ];
  for (const url of candidates) {
    const res = await fetch(url, { headers: { accept: 'application/json' } }).catch(
      () => undefined,
    );
    if (!res?.ok) {
      await res?.body?.cancel();
      continue;
    }
    const meta = (await res.json().catch(() => undefined)) as ResourceMetadata | undefined;
    if (!meta || typeof meta !== 'object') continue;
    if (meta.resource !== undefined && !resourceAllowed(server, meta.resource)) {
      throw new OAuthFlowError(
        `the protected resource metadata is for ${meta.resource}, not ${server.href}`,
      );
    }
    return meta;
  }
  return undefined;
}

/** Whether metadata naming `resource` may speak for `server`: same origin, a path prefix. */
function resourceAllowed(server: URL, resource: string): boolean {
  if (!URL.canParse(resource)) return false;
  const r = new URL(resource);
  if (r.origin !== server.origin) return false;
  const prefix = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
  return server.pathname === r.pathname || `${server.pathname}/`.startsWith(prefix);
}

/**
 * The authorization server's metadata (the spec's order, shared with resource servers:
 * {@link discoverAuthorizationServer}); `defaults` for a server found the 2025-03-26 way.
 */
async function authorizationServerMetadata(
  issuer: string,
  defaults = false,
): Promise<oauth.AuthorizationServer> {
  if (!defaults) {
    return discoverAuthorizationServer(issuer).catch((err: unknown) => {
      throw new OAuthFlowError((err as Error).message, { cause: err });
    });
  }
  // MCP 2025-03-26 found the metadata from the server's origin without naming an issuer, and
  // servers of then publish their authorization server's own (`…/oauth`): taken as it is.
  const { response } = await firstMetadataResponse(issuer);
  if (response) return legacyMetadata(response);
  // MCP 2025-03-26 §Fallbacks for Servers without Metadata Discovery; PKCE was required then.
  const { origin } = new URL(issuer);
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    code_challenge_methods_supported: ['S256'],
  };
}

/** Authorization server metadata found the 2025-03-26 way: its endpoints, whatever its issuer. */
async function legacyMetadata(res: Response): Promise<oauth.AuthorizationServer> {
  const meta = (await res.json().catch(() => undefined)) as
    | (oauth.AuthorizationServer & Record<string, unknown>)
    | undefined;
  if (
    typeof meta?.issuer !== 'string' ||
    typeof meta.authorization_endpoint !== 'string' ||
    typeof meta.token_endpoint !== 'string'
  ) {
    throw new OAuthFlowError('the authorization server metadata lacks its endpoints');
  }
  return meta;
}

/**
 * The scopes to ask for: the challenge's (a 403 step-up adds those already held), else the
 * server's `scopes_supported`, else none (the authorization server's default); with
 * `offline_access` only where the authorization server offers it and refresh tokens.
 */
function scopeToRequest(
  challenged: string | undefined,
  supported: string[] | undefined,
  held: string | undefined,
  as: oauth.AuthorizationServer,
): string | undefined {
  const scopes = new Set<string>();
  for (const s of (challenged ?? supported?.join(' ') ?? '').split(' ')) if (s) scopes.add(s);
  for (const s of (held ?? '').split(' ')) if (s) scopes.add(s);
  if (
    scopes.size > 0 &&
    as.scopes_supported?.includes('offline_access') &&
    (as.grant_types_supported?.includes('refresh_token') ?? false)
  ) {
    scopes.add('offline_access');
  }
  return scopes.size > 0 ? [...scopes].join(' ') : undefined;
}

function tokensOf(response: oauth.TokenEndpointResponse, asked: string | undefined): OAuthTokens {
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    ...(typeof response.expires_in === 'number'
      ? { expiresAt: Date.now() + response.expires_in * 1000 }
      : {}),
    ...((response.scope ?? asked) ? { scope: (response.scope ?? asked) as string } : {}),
  };
}

function clientAuth(registration: OAuthClientRegistration): oauth.ClientAuth {
  const secret = registration.clientSecret;
  if (secret && registration.authMethod === 'client_secret_post')
    return oauth.ClientSecretPost(secret);
  if (secret && registration.authMethod !== 'none') return clientSecretBasic(secret);
  return oauth.None();
}

/**
 * `client_secret_basic` with the id and secret form-encoded as RFC 6749 §2.3.1 says (`-`, `.`,
 * `_`, `*` stay as they are). oauth4webapi's own also escapes `-`, which authorization servers
 * that do not decode the credentials (the MCP conformance suite's among them) read as another
 * client id.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) =>
    encodeURIComponent(value)
      .replace(/%20/g, '+')
      .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return (_as, client, _body, headers) => {
    const credentials = `${encode(client.client_id)}:${encode(secret)}`;
    headers.set('authorization', `Basic ${btoa(credentials)}`);
  };
}

/**
 * A Dynamic Client Registration response (RFC 7591 §3.2.1): 201 with a `client_id`. Read
 * leniently where oauth4webapi is strict: an authorization server that issues a secret without
 * `client_secret_expires_at` (which RFC 7591 requires; the MCP conformance suite's omits it)
 * still registered us, and refusing gains nothing.
 */
async function registered(
  response: Response,
): Promise<Record<string, unknown> & { client_id: string }> {
  const body = (await response.json().catch(() => undefined)) as
    | Record<string, unknown>
    | undefined;
  if ((response.status !== 201 && response.status !== 200) || typeof body?.client_id !== 'string') {
    const error = typeof body?.error === 'string' ? `: ${body.error}` : '';
    throw new OAuthFlowError(
      `dynamic client registration failed (HTTP ${response.status}${error})`,
    );
  }
  return body as Record<string, unknown> & { client_id: string };
}

function authMethodOf(method: unknown): OAuthClientRegistration['authMethod'] {
  return method === 'client_secret_basic' || method === 'client_secret_post' ? method : 'none';
}

function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}
