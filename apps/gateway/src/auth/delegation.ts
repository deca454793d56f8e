/**
 * Tokens the gateway issues for a backend on a person's behalf, when the backend trusts the
 * gateway's own authorization server (`credential: { type: "token_exchange" }`): the outcome of
 * an RFC 8693 token exchange done in-process — the person's grant, re-issued for the backend's
 * audience (RFC 8707) with the gateway named as the actor (RFC 8693 §4.1 `act`). A JWT access
 * token (RFC 9068) like every token of this server, signed with its current key, so a backend
 * verifies it against the gateway's JWKS as it would any other.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, type JWK, SignJWT } from 'jose';
import type { AuthStore } from './store.js';

/** A signing key as jose imports it. */
type SigningKey = Awaited<ReturnType<typeof importJWK>>;

/** The client the gateway acts as in the tokens it issues for backends. */
export const DELEGATION_CLIENT = 'mcp-gateway';

/** What {@link DelegatedTokens.issue} takes. */
export interface DelegationRequest {
  /** The person (their username at the gateway). */
  subject: string;
  /** The backend's resource identifier: its MCP URL. */
  audience: string;
  /** The scopes the token carries, space-separated. */
  scope?: string | undefined;
  /** Lifetime, seconds. */
  ttlSec: number;
}

/** Issues a person's tokens for backends, signed with the authorization server's key. */
export class DelegatedTokens {
  readonly #issuer: string;
  readonly #key: { kid: string; sign: SigningKey };

  private constructor(issuer: string, key: { kid: string; sign: SigningKey }) {
    this.#issuer = issuer;
    this.#key = key;
  }

  /** With the newest signing key of `store` (the one the provider signs with). */
  static async create(store: AuthStore, issuer: string): Promise<DelegatedTokens> {
    const newest = (await store.keys())[0];
    if (!newest) throw new Error('the authorization server has no signing key');
    const sign = await importJWK(newest.jwk as JWK, 'RS256');
    return new DelegatedTokens(issuer, { kid: newest.kid, sign });
  }

  /** A token for `audience` on `subject`'s behalf, and when it expires (ms since the epoch). */
  async issue(request: DelegationRequest): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + request.ttlSec;
    const token = await new SignJWT({
      client_id: DELEGATION_CLIENT,
      ...(request.scope ? { scope: request.scope } : {}),
      // RFC 8693 §4.1: who acts for the subject — the gateway, by its MCP endpoint.
      act: { sub: `${this.#issuer}/mcp` },
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: this.#key.kid })
      .setIssuer(this.#issuer)
      .setSubject(request.subject)
      .setAudience(request.audience)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.#key.sign);
    return { token, expiresAt: exp * 1000 };
  }
}
