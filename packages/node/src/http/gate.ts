/**
 * Who may call, and how often: bearer auth with a throttle of wrong tokens, and a per-caller
 * request budget. One gate serves the MCP paths and the app's pages alike, so a token guessed
 * wrong on either counts towards the same throttle.
 *
 * The throttle never refuses a valid token. Behind a load balancer or a TLS proxy every client
 * shares one remote address, so a lockout of the address would let anyone lock out everyone. A
 * credential that keeps failing is refused without being looked up again; an address that keeps
 * failing gets 429 instead of 401 for its failing requests only — its valid ones are served.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { memoryRateLimiter } from '@mcpkit/fleet';
import type { McpMetrics } from '@mcpkit/observability';
import {
  type AuthInfo,
  type EngineLogger,
  type JsonRpcErrorObject,
  McpErrorCode,
} from '@mcpkit/protocol';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { type Authenticator, bearerToken, staticTokens } from './auth.js';
import {
  AuthorizationServerUnavailableError,
  type OAuthResourceServer,
} from './oauth/resource-server.js';
import type { McpHttpOptions } from './options.js';
import { sendError, sendUnavailable } from './respond.js';

/** Where a resource's Protected Resource Metadata is (RFC 9728 §3.1: inserted before its path). */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** An admitted request: who it is from, and the key its rate-limit points are charged to. */
export interface Admitted {
  auth: AuthInfo | undefined;
  rateKey: string;
}

/** Why a token was not accepted: not valid, or throttled (for `retryAfter` seconds). */
export type Refusal = { refused: 'invalid' } | { refused: 'throttled'; retryAfter: number };

export class Gate {
  /** The app's authenticator (its tokens, or its own lookup); undefined without auth. */
  readonly authenticate: Authenticator | undefined;
  /** The OAuth 2.1 resource server (bearer JWTs of an authorization server), beside the above. */
  readonly oauth: OAuthResourceServer | undefined;
  /**
   * This server's base URL as clients reach it (its public URL, or the address it listens on):
   * a 401's challenge names the metadata below it. Set once known.
   */
  base: string | undefined;
  /** Wrong tokens per address, and per credential, per window before they are throttled (429). */
  readonly failurePoints: number;
  /** Failed checks counted per remote address and per credential; undefined without auth. */
  readonly #failures: RateLimiterAbstract | undefined;
  /** The throttle's window, ms. */
  readonly #windowMs: number;
  /** When a token last failed (ms since the epoch); 0 before the first. */
  #lastFailure = 0;
  /** The per-caller budget; undefined without `rateLimit`. */
  readonly #limiter: RateLimiterAbstract | undefined;
  readonly #authError: (reason: string) => JsonRpcErrorObject;
  readonly #rateError: (retryAfter: number) => JsonRpcErrorObject;
  readonly #metrics: McpMetrics | undefined;
  readonly #logger: EngineLogger | undefined;

  constructor(options: McpHttpOptions) {
    const auth = options.auth;
    this.authenticate =
      auth?.authenticate ?? (auth?.tokens?.length ? staticTokens(auth.tokens) : undefined);
    this.oauth = auth?.oauth;
    this.failurePoints = auth?.failures?.points ?? 20;
    this.#windowMs = (auth?.failures?.durationSec ?? 60) * 1000;
    this.#failures = this.authenticates
      ? memoryRateLimiter({
          keyPrefix: 'auth-failures',
          points: this.failurePoints,
          durationSec: this.#windowMs / 1000,
        })
      : undefined;
    const rate = options.rateLimit;
    this.#limiter = rate
      ? (rate.limiter ??
        options.state?.rateLimiter({
          keyPrefix: 'calls',
          points: rate.points,
          durationSec: rate.durationSec,
        }) ??
        memoryRateLimiter({
          keyPrefix: 'calls',
          points: rate.points,
          durationSec: rate.durationSec,
        }))
      : undefined;
    this.#authError =
      auth?.error ??
      ((reason) => ({
        code: McpErrorCode.AuthenticationFailed,
        message: 'Authentication failed',
        data: { reason },
      }));
    this.#rateError =
      rate?.error ??
      ((retryAfter) => ({
        code: McpErrorCode.RateLimited,
        message: 'Rate limit exceeded',
        data: { retryAfter },
      }));
    this.#metrics = options.metrics;
    this.#logger = options.logger;
  }

  /** Whether requests must wait for the gate (auth or a rate limit); else none is charged and all are nobody's. */
  get closed(): boolean {
    return this.authenticates || this.#limiter !== undefined;
  }

  /** Whether a request must present a valid token (static, looked up, or OAuth). */
  get authenticates(): boolean {
    return this.authenticate !== undefined || this.oauth !== undefined;
  }

  /**
   * The `WWW-Authenticate` challenge of a refusal at `path`: with OAuth, where the metadata is
   * (MCP `basic/authorization`: clients start discovery from it) and the scopes every request
   * needs — or `scopes`, those an operation needs (step-up); `error` for a token that was
   * presented (RFC 6750 §3).
   */
  challenge(
    path: string,
    error?: 'invalid_token' | 'invalid_request' | 'insufficient_scope',
    scopes?: readonly string[],
  ): string {
    const params: string[] = error ? [`error="${error}"`] : [];
    const oauth = this.oauth;
    if (oauth && this.base !== undefined) {
      const suffix = path === '/' ? '' : path;
      params.push(`resource_metadata="${this.base}${PROTECTED_RESOURCE_PATH}${suffix}"`);
      const scope = scopes ?? oauth.requiredScopes;
      if (scope.length > 0) params.push(`scope="${scope.join(' ')}"`);
    }
    return params.length > 0 ? `Bearer ${params.join(', ')}` : 'Bearer';
  }

  /** Who an MCP request is from, once its token is checked and one point charged; undefined when it was answered (401, 429, 503). */
  async admit(
    req: IncomingMessage,
    res: ServerResponse,
    path = '/',
    audience?: string,
  ): Promise<Admitted | undefined> {
    let auth: AuthInfo | undefined;
    if (this.authenticates) {
      const parsed = bearerToken(req.headers.authorization);
      if ('reason' in parsed) {
        // No bearer token: the challenge alone (RFC 6750 §3.1: no error code), whatever other
        // scheme was sent. A Bearer header that does not parse is a malformed request (400).
        const malformed = /^bearer(\s|$)/i.test(req.headers.authorization ?? '');
        sendError(res, malformed ? 400 : 401, this.#authError(parsed.reason), {
          'WWW-Authenticate': this.challenge(path, malformed ? 'invalid_request' : undefined),
        });
        this.#metrics?.rejected('auth');
        return undefined;
      }
      let checked: AuthInfo | Refusal;
      try {
        checked = await this.check(parsed.token, req, audience);
      } catch (err) {
        if (!AuthorizationServerUnavailableError.is(err)) throw err;
        // Fail closed: nothing can be verified while the issuer's keys are out of reach.
        this.#logger?.warn({ err: err.message }, 'authorization server unavailable');
        sendError(
          res,
          503,
          { code: McpErrorCode.ServerError, message: `Service unavailable: ${err.message}` },
          { 'Retry-After': '1' },
        );
        return undefined;
      }
      if ('refused' in checked) {
        if (checked.refused === 'throttled') {
          sendError(res, 429, this.#rateError(checked.retryAfter), {
            'Retry-After': String(checked.retryAfter),
          });
        } else {
          sendError(res, 401, this.#authError('invalid or revoked token'), {
            'WWW-Authenticate': this.challenge(path, 'invalid_token'),
          });
        }
        return undefined;
      }
      auth = checked;
    }
    // Without a limiter nothing is charged, and the hot path pays nothing for it.
    if (!this.#limiter) return { auth, rateKey: '' };
    const rateKey = auth?.subject ?? req.socket.remoteAddress ?? 'unknown';
    return (await this.charge(rateKey, 1, res)) ? { auth, rateKey } : undefined;
  }

  /**
   * The caller a token names, or why not. A credential that failed `failurePoints` times in the
   * window is refused without a lookup (a client retrying a revoked key costs nothing); any other
   * token is checked, and a valid one is accepted whatever its address did. A failure counts
   * towards its credential and its address, and is answered `throttled` once either is over.
   * Refusals are counted in the metrics (`auth`, or `rate_limit` when throttled).
   */
  async check(token: string, req: IncomingMessage, audience?: string): Promise<AuthInfo | Refusal> {
    const failures = this.#failures;
    // While nothing failed within the window no credential can be over: the usual request pays
    // no digest and no lookup for the throttle.
    if (Date.now() - this.#lastFailure < this.#windowMs) {
      const spent = await this.#throttled(credentialKey(token));
      if (spent !== undefined) {
        this.#metrics?.rejected('rate_limit');
        return { refused: 'throttled', retryAfter: spent };
      }
    }
    // The app's own tokens first (a constant-time compare), then an OAuth access token.
    const info =
      (this.authenticate ? await this.authenticate(token, req) : undefined) ??
      (this.oauth ? await this.oauth.verify(token, audience) : undefined);
    if (info) return info;
    this.#lastFailure = Date.now();
    const credential = credentialKey(token);
    const address = `address:${req.socket.remoteAddress ?? 'unknown'}`;
    // Over before this failure: the first `failurePoints` failures are answered 401, the rest 429.
    const retryAfter = await this.#throttled(address);
    await Promise.all([
      failures?.consume(credential).catch(() => undefined),
      failures?.consume(address).catch(() => undefined),
    ]);
    if (retryAfter !== undefined) {
      this.#metrics?.rejected('rate_limit');
      return { refused: 'throttled', retryAfter };
    }
    this.#metrics?.rejected('auth');
    return { refused: 'invalid' };
  }

  /** Seconds until failures of `key` stop being refused, or undefined when it is not over. */
  async #throttled(key: string): Promise<number | undefined> {
    const record = await this.#failures?.get(key);
    if (!record || record.consumedPoints < this.failurePoints) return undefined;
    return Math.max(1, Math.ceil(record.msBeforeNext / 1000));
  }

  /**
   * Charge `points` more to `rateKey` (the rest of a batch: the request paid one); false when
   * the budget is spent (429 sent) or the store behind the limiter is away (503 sent).
   */
  async charge(rateKey: string, points: number, res: ServerResponse): Promise<boolean> {
    const limiter = this.#limiter;
    if (!limiter) return true;
    try {
      await limiter.consume(rateKey, points);
      return true;
    } catch (err) {
      // Over the budget the limiter rejects with its result (not an Error), whichever copy of
      // rate-limiter-flexible made the limiter (the fleet store's may be another than ours).
      if (!isLimiterResult(err)) {
        // A store-backed limiter whose store is away: nothing can be counted, so nothing is
        // served (failing open would lift the limit whenever Redis is down).
        this.#logger?.warn({ err: (err as Error)?.message ?? err }, 'rate limiter unavailable');
        sendUnavailable(res);
        return false;
      }
      // Counted where it is sent: a 'finish' listener on every response would charge each
      // request for the few that are refused.
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      sendError(res, 429, this.#rateError(retryAfter), { 'Retry-After': String(retryAfter) });
      this.#metrics?.rejected('rate_limit');
      return false;
    }
  }

  /** Whether a batch's extra messages have points to pay (a limiter is set). */
  get charges(): boolean {
    return this.#limiter !== undefined;
  }
}

/** The throttle's key of a credential: a digest, so the token itself is never kept. */
function credentialKey(token: string): string {
  return `token:${createHash('sha256').update(token, 'utf8').digest('base64url').slice(0, 22)}`;
}

/** A rate-limiter-flexible result (a spent budget), told from an Error by its shape. */
function isLimiterResult(value: unknown): value is { msBeforeNext: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as { msBeforeNext?: unknown }).msBeforeNext === 'number'
  );
}
