/**
 * Sign-in at the organisation's OpenID provider (the IdP) instead of the gateway's own user list:
 * the gateway is an OpenID Connect client there (`oauth4webapi`: PKCE, state, nonce, the ID
 * token's signature, issuer, audience and nonce checked), and the person it names is the person
 * who signs in at the gateway.
 */
import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  loopbackHttpAllowed,
} from '@mcpkit/protocol';
import * as oauth from 'oauth4webapi';

/** Where the IdP sends the person back: register it as the gateway's redirect URI there. */
export const UPSTREAM_CALLBACK = '/oauth/upstream/callback';
/** How long a person may take at the IdP. */
const PENDING_TTL_MS = 10 * 60_000;
/** Sign-ins under way at once (each is a few hundred bytes; the oldest goes first). */
const MAX_PENDING = 10_000;

/** The gateway's settings for its IdP. */
export interface UpstreamOptions {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** Which claim names the person: `sub`, or `email` (only when the IdP says it is verified). */
  usernameClaim: 'sub' | 'email';
  /** The gateway's own origin: the redirect URI is under it. */
  origin: string;
}

/** A person the IdP signed in: their username here, and the claims kept for their tokens. */
export interface UpstreamPerson {
  username: string;
  claims: Record<string, unknown>;
}

interface Pending {
  uid: string;
  verifier: string;
  nonce: string;
  at: number;
}

/** The gateway as an OpenID Connect client of its IdP. */
export class UpstreamSignIn {
  readonly #options: UpstreamOptions;
  readonly #pending = new Map<string, Pending>();
  #metadata: Promise<AuthorizationServerMetadata> | undefined;

  constructor(options: UpstreamOptions) {
    this.#options = options;
  }

  /** The IdP's authorization URL for the interaction `uid`. */
  async start(uid: string): Promise<string> {
    const as = await this.#as();
    this.#prune();
    const state = oauth.generateRandomState();
    const pending: Pending = {
      uid,
      verifier: oauth.generateRandomCodeVerifier(),
      nonce: oauth.generateRandomNonce(),
      at: Date.now(),
    };
    this.#pending.set(state, pending);
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      client_id: this.#options.clientId,
      response_type: 'code',
      redirect_uri: this.#redirectUri,
      scope: 'openid email profile',
      state,
      nonce: pending.nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  }

  /** The interaction a callback's `state` belongs to (it stays pending until {@link finish}). */
  interactionOf(state: string | null): string | undefined {
    const pending = state ? this.#pending.get(state) : undefined;
    return pending && Date.now() - pending.at < PENDING_TTL_MS ? pending.uid : undefined;
  }

  /**
   * Redeem the callback's code (its query as the IdP sent it) and read the person from the
   * verified ID token. Throws when anything does not check out; a state is used once.
   */
  async finish(query: URLSearchParams, uid: string): Promise<UpstreamPerson> {
    const state = query.get('state') ?? '';
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    if (!pending || pending.uid !== uid || Date.now() - pending.at >= PENDING_TTL_MS) {
      throw new Error('this sign-in is not the one under way (expired, or used before)');
    }
    const as = await this.#as();
    const client: oauth.Client = { client_id: this.#options.clientId };
    const auth = this.#options.clientSecret
      ? oauth.ClientSecretBasic(this.#options.clientSecret)
      : oauth.None();
    const params = oauth.validateAuthResponse(as, client, query, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      this.#redirectUri,
      pending.verifier,
      loopbackHttpAllowed(as.token_endpoint as string),
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result) as oauth.IDToken &
      Record<string, unknown>;
    const username =
      this.#options.usernameClaim === 'email'
        ? claims.email_verified === true && typeof claims.email === 'string'
          ? claims.email
          : undefined
        : claims.sub;
    if (!username) throw new Error('the identity provider did not say a verified email');
    return {
      username,
      claims: {
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        ...(Array.isArray(claims.groups) ? { groups: claims.groups } : {}),
        upstream_sub: claims.sub,
      },
    };
  }

  get #redirectUri(): string {
    return `${this.#options.origin}${UPSTREAM_CALLBACK}`;
  }

  #as(): Promise<AuthorizationServerMetadata> {
    this.#metadata ??= discoverAuthorizationServer(this.#options.issuer, {
      signal: AbortSignal.timeout(5000),
    }).catch((err: unknown) => {
      this.#metadata = undefined;
      throw err;
    });
    return this.#metadata;
  }

  #prune(): void {
    const now = Date.now();
    for (const [state, p] of this.#pending) {
      if (now - p.at < PENDING_TTL_MS && this.#pending.size < MAX_PENDING) break;
      this.#pending.delete(state);
    }
  }
}
