/**
 * Who may call, and how often: bearer auth with a lockout of addresses that keep guessing, and a
 * per-caller request budget. One gate serves the MCP paths and the app's pages alike, so a token
 * guessed wrong on either counts towards the same lockout.
 */
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
import type { McpHttpOptions } from './options.js';
import { sendError, sendUnavailable } from './respond.js';

/** An admitted request: who it is from, and the key its rate-limit points are charged to. */
export interface Admitted {
  auth: AuthInfo | undefined;
  rateKey: string;
}

export class Gate {
  /** The app's authenticator (its tokens, or its own lookup); undefined without auth. */
  readonly authenticate: Authenticator | undefined;
  /** Wrong tokens per address per window before the address is locked out (429). */
  readonly failurePoints: number;
  /** Wrong tokens counted per remote address; undefined without auth. */
  readonly #failures: RateLimiterAbstract | undefined;
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
    this.failurePoints = auth?.failures?.points ?? 20;
    this.#failures = this.authenticate
      ? memoryRateLimiter({
          keyPrefix: 'auth-failures',
          points: this.failurePoints,
          durationSec: auth?.failures?.durationSec ?? 60,
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
    return this.authenticate !== undefined || this.#limiter !== undefined;
  }

  /** Who an MCP request is from, once its token is checked and one point charged; undefined when it was answered (401, 429, 503). */
  async admit(req: IncomingMessage, res: ServerResponse): Promise<Admitted | undefined> {
    let auth: AuthInfo | undefined;
    if (this.authenticate) {
      const address = req.socket.remoteAddress ?? 'unknown';
      const retryAfter = await this.lockedOut(address);
      if (retryAfter !== undefined) {
        sendError(res, 429, this.#rateError(retryAfter), { 'Retry-After': String(retryAfter) });
        this.#metrics?.rejected('rate_limit');
        return undefined;
      }
      const parsed = bearerToken(req.headers.authorization);
      if ('reason' in parsed) {
        sendError(res, 401, this.#authError(parsed.reason), { 'WWW-Authenticate': 'Bearer' });
        this.#metrics?.rejected('auth');
        return undefined;
      }
      auth = await this.verify(parsed.token, req, address);
      if (!auth) {
        sendError(res, 401, this.#authError('invalid or revoked token'), {
          'WWW-Authenticate': 'Bearer error="invalid_token"',
        });
        return undefined;
      }
    }
    // Without a limiter nothing is charged, and the hot path pays nothing for it.
    if (!this.#limiter) return { auth, rateKey: '' };
    const rateKey = auth?.subject ?? req.socket.remoteAddress ?? 'unknown';
    return (await this.charge(rateKey, 1, res)) ? { auth, rateKey } : undefined;
  }

  /** Seconds until `address` may try a token again, or undefined when it is not locked out. */
  async lockedOut(address: string): Promise<number | undefined> {
    const record = await this.#failures?.get(address);
    if (!record || record.consumedPoints < this.failurePoints) return undefined;
    return Math.max(1, Math.ceil(record.msBeforeNext / 1000));
  }

  /**
   * The caller a token names, or undefined — then the wrong guess counts towards the lockout of
   * `address` (a caller guessing keys is slowed to a stop) and is counted as an auth refusal.
   */
  async verify(
    token: string,
    req: IncomingMessage,
    address = req.socket.remoteAddress ?? 'unknown',
  ): Promise<AuthInfo | undefined> {
    const info = this.authenticate ? await this.authenticate(token, req) : undefined;
    if (!info) {
      this.#metrics?.rejected('auth');
      await this.#failures?.consume(address).catch(() => undefined);
    }
    return info;
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

/** A rate-limiter-flexible result (a spent budget), told from an Error by its shape. */
function isLimiterResult(value: unknown): value is { msBeforeNext: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as { msBeforeNext?: unknown }).msBeforeNext === 'number'
  );
}
