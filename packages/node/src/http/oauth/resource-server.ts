/**
 * The MCP server as an OAuth 2.1 resource server (MCP `basic/authorization`, 2025-11-25 and
 * 2026-07-28): JWT access tokens (RFC 9068) issued by one authorization server, verified with
 * `jose` against its published keys, for this server's canonical URI as the audience (RFC 8707);
 * and the Protected Resource Metadata (RFC 9728) that tells a client where to sign in.
 */
import { createHash } from 'node:crypto';
import {
  type AuthInfo,
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  hasBrand,
  loopbackHttpAllowed,
} from '@mcpkit/protocol';
import type { JWTPayload, JWTVerifyGetKey, ProtectedHeaderParameters } from 'jose';
import * as oauth from 'oauth4webapi';

const UNAVAILABLE_BRAND = Symbol.for('mcpkit.AuthorizationServerUnavailableError');

type Jose = typeof import('jose');
let joseModule: Jose | undefined;
/**
 * `jose`, loaded with the first JWT checked rather than with the package: every app imports
 * this package, and most never see an OAuth token (its ~50 modules were a tenth of a stdio
 * gateway's start-up).
 */
async function loadJose(): Promise<Jose> {
  joseModule ??= await import('jose');
  return joseModule;
}

/** What {@link createOAuthResourceServer} takes. */
export interface OAuthResourceOptions {
  /** The authorization server's issuer identifier; its metadata (RFC 8414 / OpenID) is fetched. */
  issuer: string;
  /**
   * The audience a token must carry: this server's canonical URI (RFC 8707), e.g.
   * `https://mcp.example.com/mcp`. Default: the HTTP server's own MCP URL (its `--public-url`).
   */
  audience?: string;
  /** The scopes this server knows: `scopes_supported` of its metadata. */
  scopes?: readonly string[];
  /** Scopes every request needs: a 401's challenge names them (`scope`). Default none. */
  requiredScopes?: readonly string[];
  /** The issuer's JWKS URL. Default: `jwks_uri` of its metadata. */
  jwksUri?: string;
  /** Signature algorithms accepted. Default RS256, PS256, ES256, EdDSA (never `none`, never HS*). */
  algorithms?: readonly string[];
  /** Clock skew allowed for `exp`/`nbf`/`iat`, seconds. Default 5. */
  clockToleranceSec?: number;
  /** `typ` values accepted. Default `at+jwt` (RFC 9068 §4: a resource server MUST check it). */
  tokenTypes?: readonly string[];
  /** `resource_documentation` of the metadata. */
  documentation?: string;
  /** The caller a verified token is. Default: `sub` as the subject, `scope`/`scp` as the scopes. */
  identity?: (claims: JWTPayload) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Verified tokens kept until they expire, so a busy client pays no signature per call. Default 10,000. */
  cacheSize?: number;
  /**
   * Opaque (non-JWT) access tokens, verified by asking the authorization server (RFC 7662
   * token introspection) as a confidential client of it. Off by default: then only JWTs pass.
   */
  introspection?: IntrospectionOptions;
  /**
   * Scopes that include others: a token granted a key scope holds the scopes it names too,
   * transitively — e.g. `{ 'files:admin': ['files:write'], 'files:write': ['files:read'] }`.
   * A challenge still names the narrowest scopes an operation needs.
   */
  scopeHierarchy?: Readonly<Record<string, readonly string[]>>;
  /**
   * Asked on every request, a cached token's too: false refuses the token at once. For an
   * authorization server that is part of this server (the gateway's), whose revocations must
   * not wait for a token to expire.
   */
  stillValid?: (info: AuthInfo) => boolean | Promise<boolean>;
}

/** How a resource server introspects opaque tokens (RFC 7662). */
export interface IntrospectionOptions {
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret (sent with HTTP Basic authentication, `client_secret_basic`). */
  clientSecret: string;
  /** The introspection endpoint. Default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
  /**
   * How long an active answer is trusted, seconds (never past the token's `exp`): a token
   * revoked at the authorization server is refused at most this long after. Default 60.
   */
  cacheSec?: number;
}

/**
 * The authorization server's keys or metadata could not be fetched: nothing can be verified, so
 * nothing is let in (503), and the next request tries again. Recognised by class, not by text.
 */
export class AuthorizationServerUnavailableError extends Error {
  /** Marks one from any copy of this package (see {@link AuthorizationServerUnavailableError.is}). */
  readonly [UNAVAILABLE_BRAND] = true;
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is AuthorizationServerUnavailableError {
    return hasBrand(value, UNAVAILABLE_BRAND);
  }
  /** `message` says which authorization server, and what could not be had. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuthorizationServerUnavailableError';
  }
}

/** A token this long is refused unread (real access tokens are a few kilobytes at most). */
const MAX_TOKEN_CHARS = 8192;
const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** A failed metadata fetch is not repeated for this long (a dead AS costs one fetch a second). */
const DISCOVERY_COOLDOWN_MS = 1000;
/** How long any one request to the authorization server may take. */
const FETCH_TIMEOUT_MS = 5000;
/** What a bearer token may be made of (RFC 6750 §2.1, b64token): nothing else is looked at. */
const TOKEN_CHARS = /^[A-Za-z0-9\-._~+/]+=*$/;

/** An OAuth 2.1 resource server: verifies bearer JWTs and describes itself (RFC 9728). */
export interface OAuthResourceServer {
  /** The authorization server tokens must come from. */
  readonly issuer: string;
  /** The scopes this server knows (`scopes_supported`). */
  readonly scopes: readonly string[];
  /** Scopes every request needs (named in a 401's challenge). */
  readonly requiredScopes: readonly string[];
  /** The audience tokens must carry; the HTTP server sets its own URL here when none was given. */
  audience: string | undefined;
  /**
   * The caller a token names; undefined when it is not a valid token for this server. Throws
   * {@link AuthorizationServerUnavailableError} when the issuer's keys cannot be fetched.
   * `audience`: another resource of this server's (a mounted server's URL) the token must be
   * for; default `audience`.
   */
  verify(token: string, audience?: string): Promise<AuthInfo | undefined>;
  /** The Protected Resource Metadata document of `resource` (RFC 9728 §2). */
  metadata(resource: string): Record<string, unknown>;
}

/**
 * An OAuth 2.1 resource server for one authorization server.
 *
 * @example
 * ```ts
 * const oauth = createOAuthResourceServer({ issuer: 'https://auth.example.com', scopes: ['read'] });
 * await serveHttp(server, { auth: { oauth }, publicUrls: ['https://mcp.example.com'] });
 * ```
 */
export function createOAuthResourceServer(options: OAuthResourceOptions): OAuthResourceServer {
  return new JwtResourceServer(options);
}

class JwtResourceServer implements OAuthResourceServer {
  readonly issuer: string;
  readonly scopes: readonly string[];
  readonly requiredScopes: readonly string[];
  audience: string | undefined;
  readonly #options: OAuthResourceOptions;
  readonly #algorithms: string[];
  readonly #types: ReadonlySet<string>;
  readonly #cache = new Map<string, { info: AuthInfo; expiresAt: number }>();
  readonly #cacheSize: number;
  /** Introspections under way, by token hash: a burst with a new token asks once. */
  readonly #introspecting = new Map<string, Promise<Verified | undefined>>();
  #keys: JWTVerifyGetKey | undefined;
  #metadata: Promise<AuthorizationServerMetadata> | undefined;
  #discoveryFailedAt = 0;

  constructor(options: OAuthResourceOptions) {
    if (!URL.canParse(options.issuer))
      throw new TypeError(`issuer is not a URL: ${options.issuer}`);
    this.issuer = options.issuer;
    this.scopes = options.scopes ?? [];
    this.requiredScopes = options.requiredScopes ?? [];
    this.audience = options.audience;
    this.#options = options;
    const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
    const symmetric = algorithms.find((a) => /^(HS|none)/i.test(a));
    if (symmetric) throw new TypeError(`algorithm ${symmetric} is not for access tokens`);
    this.#algorithms = [...algorithms];
    this.#types = new Set((options.tokenTypes ?? ['at+jwt']).map(normalType));
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  metadata(resource: string): Record<string, unknown> {
    return {
      resource,
      authorization_servers: [this.issuer],
      ...(this.scopes.length > 0 ? { scopes_supported: [...this.scopes] } : {}),
      bearer_methods_supported: ['header'],
      ...(this.#options.documentation
        ? { resource_documentation: this.#options.documentation }
        : {}),
    };
  }

  async verify(token: string, resource?: string): Promise<AuthInfo | undefined> {
    if (token.length > MAX_TOKEN_CHARS || !TOKEN_CHARS.test(token)) return undefined;
    const digest = createHash('sha256').update(token).digest('base64url');
    // A token verified for one resource is not thereby good for another.
    const key = resource === undefined ? digest : `${digest} ${resource}`;
    const cached = this.#cache.get(key);
    if (cached) {
      if (cached.expiresAt > Date.now()) {
        // No await on the hot path when nothing is to be asked (a cached token, every call).
        return this.#options.stillValid ? this.#ifStillValid(cached.info) : cached.info;
      }
      this.#cache.delete(key);
    }
    const audience = resource ?? this.audience;
    if (audience === undefined) return undefined;
    const header = isJwtShaped(token) ? jwtHeaderOf(await loadJose(), token) : undefined;
    let verified: Verified | undefined;
    if (header) verified = await this.#verifyJwt(token, header, audience);
    else if (this.#options.introspection)
      verified = await this.#introspectOnce(key, token, audience);
    if (!verified) return undefined;
    const info = await (this.#options.identity ?? defaultIdentity)(verified.claims);
    if (!info) return undefined;
    const granted = this.#withImplied(info);
    this.#remember(key, granted, verified.until);
    return this.#ifStillValid(granted);
  }

  async #ifStillValid(info: AuthInfo): Promise<AuthInfo | undefined> {
    const check = this.#options.stillValid;
    return !check || (await check(info)) ? info : undefined;
  }

  async #verifyJwt(
    token: string,
    header: ProtectedHeaderParameters,
    audience: string,
  ): Promise<Verified | undefined> {
    if (typeof header.typ !== 'string' || !this.#types.has(normalType(header.typ)))
      return undefined;
    try {
      const { jwtVerify } = await loadJose();
      const { payload } = await jwtVerify(token, await this.#jwks(), {
        issuer: this.issuer,
        audience,
        algorithms: this.#algorithms,
        clockTolerance: this.#options.clockToleranceSec ?? 5,
        requiredClaims: ['exp', 'sub'],
      });
      return { claims: payload, until: (payload.exp as number) * 1000 };
    } catch (err) {
      if (unavailable(err)) {
        throw new AuthorizationServerUnavailableError(
          `the authorization server's keys could not be fetched (${this.issuer})`,
          { cause: err },
        );
      }
      return undefined;
    }
  }

  #introspectOnce(key: string, token: string, audience: string): Promise<Verified | undefined> {
    let pending = this.#introspecting.get(key);
    if (!pending) {
      pending = this.#introspect(token, audience).finally(() => this.#introspecting.delete(key));
      this.#introspecting.set(key, pending);
    }
    return pending;
  }

  /**
   * An opaque token, as the authorization server describes it (RFC 7662 §2.2): active, this
   * issuer's, for this audience, within its lifetime, a bearer access token (a refresh token
   * introspects as active too, but carries no audience).
   */
  async #introspect(token: string, audience: string): Promise<Verified | undefined> {
    const options = this.#options.introspection as IntrospectionOptions;
    const as = await this.#authorizationServer();
    const endpoint = options.endpoint ?? as.introspection_endpoint;
    if (!endpoint) {
      throw new AuthorizationServerUnavailableError(
        `the authorization server has no introspection endpoint (${this.issuer})`,
      );
    }
    const client: oauth.Client = { client_id: options.clientId };
    let claims: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(
        { ...as, introspection_endpoint: endpoint },
        client,
        oauth.ClientSecretBasic(options.clientSecret),
        token,
        { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), ...loopbackHttpAllowed(endpoint) },
      );
      claims = await oauth.processIntrospectionResponse(as, client, response);
    } catch (err) {
      // Refused credentials, an error page, a timeout: nothing can be verified; fail closed.
      throw new AuthorizationServerUnavailableError(
        `the authorization server's introspection failed (${this.issuer})`,
        { cause: err },
      );
    }
    const now = Date.now();
    const skew = (this.#options.clockToleranceSec ?? 5) * 1000;
    const audiences = [claims.aud ?? []].flat();
    if (
      claims.active !== true ||
      (claims.iss !== undefined && claims.iss !== this.issuer) ||
      !audiences.includes(audience) ||
      (claims.token_type !== undefined && claims.token_type.toLowerCase() !== 'bearer') ||
      (typeof claims.exp === 'number' && claims.exp * 1000 <= now - skew) ||
      (typeof claims.nbf === 'number' && claims.nbf * 1000 > now + skew)
    ) {
      return undefined;
    }
    const trusted = now + (options.cacheSec ?? 60) * 1000;
    return {
      // A client-credentials token names its client, not a person (RFC 9068 §2.2 has sub do so).
      // An answer without `iss` is still the issuer's: it is the one that was asked.
      claims: {
        ...claims,
        iss: claims.iss ?? this.issuer,
        sub: claims.sub ?? claims.client_id,
      } as JWTPayload,
      until: typeof claims.exp === 'number' ? Math.min(claims.exp * 1000, trusted) : trusted,
    };
  }

  /** The identity with every scope its granted scopes imply (the declared hierarchy). */
  #withImplied(info: AuthInfo): AuthInfo {
    const hierarchy = this.#options.scopeHierarchy;
    if (!hierarchy) return info;
    const scopes = new Set(info.scopes);
    const queue = [...scopes];
    for (let scope = queue.pop(); scope !== undefined; scope = queue.pop()) {
      for (const implied of Object.hasOwn(hierarchy, scope) ? (hierarchy[scope] ?? []) : []) {
        if (!scopes.has(implied)) {
          scopes.add(implied);
          queue.push(implied);
        }
      }
    }
    return scopes.size === info.scopes.size ? info : { ...info, scopes };
  }

  #remember(key: string, info: AuthInfo, expiresAt: number): void {
    if (this.#cache.size >= this.#cacheSize) {
      // The oldest entry goes (a Map iterates in insertion order).
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(key, { info, expiresAt });
  }

  /** The issuer's key set: `jose` caches it and refetches on an unknown `kid` at most every 30 s. */
  async #jwks(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    const jwksUri = this.#options.jwksUri ?? (await this.#authorizationServer()).jwks_uri;
    if (!jwksUri || !URL.canParse(jwksUri)) {
      throw new AuthorizationServerUnavailableError(
        `the authorization server's metadata has no jwks_uri (${this.issuer})`,
      );
    }
    const { createRemoteJWKSet } = await loadJose();
    this.#keys = createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    });
    return this.#keys;
  }

  /**
   * The issuer's metadata, fetched once (MCP's discovery order, shared with the client half);
   * a failed fetch is not repeated within {@link DISCOVERY_COOLDOWN_MS}.
   */
  #authorizationServer(): Promise<AuthorizationServerMetadata> {
    if (this.#metadata) return this.#metadata;
    if (Date.now() - this.#discoveryFailedAt < DISCOVERY_COOLDOWN_MS) {
      return Promise.reject(
        new AuthorizationServerUnavailableError(
          `the authorization server's metadata could not be fetched (${this.issuer})`,
        ),
      );
    }
    this.#metadata = discoverAuthorizationServer(this.issuer, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    }).catch((err: unknown) => {
      this.#discoveryFailedAt = Date.now();
      this.#metadata = undefined;
      throw new AuthorizationServerUnavailableError(
        `the authorization server's metadata could not be fetched (${this.issuer})`,
        { cause: err },
      );
    });
    return this.#metadata;
  }
}

/** A token's verified claims, and until when the verification may be remembered (ms). */
interface Verified {
  claims: JWTPayload;
  until: number;
}

/** Whether a token is JWT-shaped (three dot-separated parts); opaque tokens are not. */
function isJwtShaped(token: string): boolean {
  return token.split('.').length === 3;
}

/** The protected header of a JWT-shaped token; undefined when it does not decode. */
function jwtHeaderOf(jose: Jose, token: string): ProtectedHeaderParameters | undefined {
  try {
    return jose.decodeProtectedHeader(token);
  } catch {
    return undefined;
  }
}

/** `sub` as the subject; `scope` (RFC 9068, space-separated) or `scp` as the scopes. */
function defaultIdentity(claims: JWTPayload): AuthInfo | undefined {
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  const raw = claims.scope ?? claims.scp;
  const scopes =
    typeof raw === 'string'
      ? raw.split(' ').filter(Boolean)
      : Array.isArray(raw)
        ? raw.filter((s): s is string => typeof s === 'string')
        : [];
  return { subject: claims.sub, scopes: new Set(scopes), data: { claims } };
}

/** `application/at+jwt` and `at+jwt` are the same type (RFC 9068 §2.1), case-insensitively. */
function normalType(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Whether a verification failed because the keys could not be had (not because of the token). */
function unavailable(err: unknown): boolean {
  if (AuthorizationServerUnavailableError.is(err)) return true;
  // Only after a verification, so jose is loaded.
  const { errors } = joseModule as Jose;
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  // fetch's own failure (refused, reset): not a JOSE error at all.
  return !(err instanceof errors.JOSEError);
}
