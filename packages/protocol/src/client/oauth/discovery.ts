/**
 * Authorization server metadata discovery, one implementation for both halves: the OAuth client
 * (which finds the endpoints it signs in at) and a resource server (which finds the keys and the
 * introspection endpoint it verifies tokens with).
 */
import * as oauth from 'oauth4webapi';
import { hasBrand } from '../../jsonrpc/brand.js';

const DISCOVERY_BRAND = Symbol.for('mcpkit.AuthorizationServerDiscoveryError');

/** An authorization server's metadata (RFC 8414 / OpenID Connect Discovery), as validated. */
export type AuthorizationServerMetadata = oauth.AuthorizationServer;

/** What {@link discoverAuthorizationServer} takes. */
export interface DiscoveryOptions {
  /** Ends the whole discovery (every location tried). */
  signal?: AbortSignal;
}

/** Why a discovery found nothing: what the last location tried answered. */
export class AuthorizationServerDiscoveryError extends Error {
  /** Marks one from any copy of this package. */
  readonly [DISCOVERY_BRAND] = true;
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is AuthorizationServerDiscoveryError {
    return hasBrand(value, DISCOVERY_BRAND);
  }
  /** `message` names the issuer; `cause` is what the last location tried answered. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuthorizationServerDiscoveryError';
  }
}

/**
 * The locations of an issuer's metadata, in the order MCP's authorization spec gives
 * (2025-11-25 and 2026-07-28, §Authorization Server Metadata Discovery): RFC 8414's
 * path-inserted form first, then OpenID Connect Discovery path-inserted, then path-appended;
 * for an issuer without a path, RFC 8414's then OpenID's at the root.
 */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const paths = path
    ? [
        `/.well-known/oauth-authorization-server${path}`,
        `/.well-known/openid-configuration${path}`,
        `${path}/.well-known/openid-configuration`,
      ]
    : ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];
  return paths.map((p) => new URL(p, url.origin));
}

/**
 * The first location of {@link authorizationServerMetadataUrls} that answers 2xx; undefined when
 * none did (`tried` then holds the last failure). Redirects are not followed (oauth4webapi's own
 * discovery does not either): the metadata is at the issuer's own well-known locations.
 */
export async function firstMetadataResponse(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<{ response?: Response; tried: unknown }> {
  let tried: unknown;
  for (const candidate of authorizationServerMetadataUrls(issuer)) {
    const response = await fetch(candidate, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      ...(options.signal ? { signal: options.signal } : {}),
    }).catch((err: unknown) => {
      tried = err;
      return undefined;
    });
    if (response?.ok) return { response, tried };
    if (response) {
      tried = new Error(`${candidate.pathname}: HTTP ${response.status}`);
      await response.body?.cancel();
    }
    if (options.signal?.aborted) break;
  }
  return { tried };
}

/**
 * An authorization server's metadata, found the way MCP's spec orders it and validated by
 * oauth4webapi — among other things, the document's `issuer` must be the one asked for
 * (RFC 8414 §3.3), or its endpoints and keys are not this issuer's.
 *
 * @throws {@link AuthorizationServerDiscoveryError} when no location answers, or what answered
 *   is not this issuer's metadata.
 *
 * @example
 * ```ts
 * const as = await discoverAuthorizationServer('https://auth.example.com');
 * console.log(as.jwks_uri, as.introspection_endpoint);
 * ```
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata> {
  const { response, tried } = await firstMetadataResponse(issuer, options);
  if (!response) {
    throw new AuthorizationServerDiscoveryError(`no authorization server metadata for ${issuer}`, {
      cause: tried,
    });
  }
  try {
    return await oauth.processDiscoveryResponse(new URL(issuer), response);
  } catch (err) {
    throw new AuthorizationServerDiscoveryError(
      `the authorization server metadata at ${response.url} is not ${issuer}'s`,
      { cause: err },
    );
  }
}

/**
 * oauth4webapi's request options for `endpoint`: plain `http:` allowed for a loopback host only
 * (a local authorization server, tests), which oauth4webapi otherwise refuses; nothing for
 * anything else, so a remote endpoint stays https-only.
 *
 * @example
 * ```ts
 * await oauth.introspectionRequest(as, client, auth, token, loopbackHttpAllowed(endpoint));
 * ```
 */
export function loopbackHttpAllowed(endpoint: string | undefined): {
  [oauth.allowInsecureRequests]?: boolean;
} {
  if (!endpoint || !URL.canParse(endpoint)) return {};
  const url = new URL(endpoint);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
    ? { [oauth.allowInsecureRequests]: true }
    : {};
}
