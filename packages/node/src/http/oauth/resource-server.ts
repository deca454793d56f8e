/**
 * The MCP server as an OAuth 2.1 resource server (MCP `basic/authorization`, 2025-11-25 and
 * 2026-07-28): JWT access tokens (RFC 9068) issued by one authorization server, verified with
 * `jose` against its published keys, for this server's canonical URI as the audience (RFC 8707);
 * and the Protected Resource Metadata (RFC 9728) that tells a client where to sign in.
 */
import { createHash } from 'node:crypto';
import { type AuthInfo, hasBrand } from '@mcpkit/protocol';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as jose,
  jwtVerify,
} from 'jose';

const UNAVAILABLE_BRAND = Symbol.for('mcpkit.AuthorizationServerUnavailableError');

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
   */
  verify(token: string): Promise<AuthInfo | undefined>;
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
  #keys: JWTVerifyGetKey | undefined;
  #discovering: Promise<JWTVerifyGetKey> | undefined;
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

  async verify(token: string): Promise<AuthInfo | undefined> {
    if (token.length > MAX_TOKEN_CHARS || token.split('.').length !== 3) return undefined;
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.#cache.get(key);
    if (cached) {
      if (cached.expiresAt > Date.now()) return cached.info;
      this.#cache.delete(key);
    }
    const audience = this.audience;
    if (audience === undefined) return undefined;
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    if (typeof header.typ !== 'string' || !this.#types.has(normalType(header.typ)))
      return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.#jwks(), {
        issuer: this.issuer,
        audience,
        algorithms: this.#algorithms,
        clockTolerance: this.#options.clockToleranceSec ?? 5,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (unavailable(err)) {
        throw new AuthorizationServerUnavailableError(
          `the authorization server's keys could not be fetched (${this.issuer})`,
          { cause: err },
        );
      }
      return undefined;
    }
    const info = await (this.#options.identity ?? defaultIdentity)(payload);
    if (!info) return undefined;
    this.#remember(key, info, (payload.exp as number) * 1000);
    return info;
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
    if (Date.now() - this.#discoveryFailedAt < DISCOVERY_COOLDOWN_MS) {
      throw new AuthorizationServerUnavailableError(
        `the authorization server's metadata could not be fetched (${this.issuer})`,
      );
    }
    this.#discovering ??= this.#discover().then(
      (keys) => {
        this.#keys = keys;
        this.#discovering = undefined;
        return keys;
      },
      (err: unknown) => {
        this.#discoveryFailedAt = Date.now();
        this.#discovering = undefined;
        throw err;
      },
    );
    return this.#discovering;
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const jwksUri = this.#options.jwksUri ?? (await authorizationServerMetadata(this.issuer)).jwks;
    return createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: 5000,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    });
  }
}

/**
 * The issuer's `jwks_uri`, from its metadata: RFC 8414 first, then OpenID Connect Discovery, in
 * the order MCP's authorization spec gives for an issuer with a path. The metadata's `issuer`
 * must be the one asked for (RFC 8414 §3.3), or its keys are not this issuer's.
 */
async function authorizationServerMetadata(issuer: string): Promise<{ jwks: string }> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const candidates =
    path === ''
      ? ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']
      : [
          `/.well-known/oauth-authorization-server${path}`,
          `/.well-known/openid-configuration${path}`,
          `${path}/.well-known/openid-configuration`,
        ];
  let last: unknown;
  for (const candidate of candidates) {
    try {
      const res = await fetch(new URL(candidate, url.origin), {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(5000),
        redirect: 'error',
      });
      if (!res.ok) {
        await res.body?.cancel();
        last = new Error(`${candidate}: HTTP ${res.status}`);
        continue;
      }
      const meta = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (meta.issuer !== issuer) {
        throw new AuthorizationServerUnavailableError(
          `the authorization server's metadata names issuer ${String(meta.issuer)}, not ${issuer}`,
        );
      }
      if (typeof meta.jwks_uri !== 'string' || !URL.canParse(meta.jwks_uri)) {
        throw new AuthorizationServerUnavailableError(
          `the authorization server's metadata has no jwks_uri (${issuer})`,
        );
      }
      return { jwks: meta.jwks_uri };
    } catch (err) {
      if (AuthorizationServerUnavailableError.is(err)) throw err;
      last = err;
    }
  }
  throw new AuthorizationServerUnavailableError(
    `the authorization server's metadata could not be fetched (${issuer})`,
    { cause: last },
  );
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
  if (err instanceof jose.JWKSTimeout || err instanceof jose.JWKSInvalid) return true;
  // fetch's own failure (refused, reset): not a JOSE error at all.
  return !(err instanceof jose.JOSEError);
}
