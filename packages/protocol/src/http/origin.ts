import type { IncomingMessage } from 'node:http';
import { isIPv4 } from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Loopback names and addresses. `127.evil.example` is a name anyone can point anywhere: only a
 * literal IPv4 address counts for 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || (host.startsWith('127.') && isIPv4(host));
}

/** Which Host and Origin headers an HTTP server accepts (against DNS rebinding; else 403). */
export interface OriginPolicy {
  /** Host names (without port) a request may address. Default: loopback names when bound to loopback. */
  allowedHosts?: readonly string[];
  /** Origins allowed to call from a browser. Default: http(s) origins on loopback hosts. */
  allowedOrigins?: readonly string[];
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end === -1 ? hostHeader : hostHeader.slice(0, end + 1);
  }
  const colon = hostHeader.indexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/**
 * DNS-rebinding protection: a page on evil.example that resolves its name to 127.0.0.1 sends
 * `Host: evil.example` and `Origin: http://evil.example`; both are refused (403).
 * Returns the reason for refusal, or undefined.
 */
export function checkHostAndOrigin(
  req: IncomingMessage,
  policy: OriginPolicy,
  boundHost: string,
): string | undefined {
  const hostHeader = req.headers.host;
  if (policy.allowedHosts || isLoopback(boundHost)) {
    if (!hostHeader) return 'missing Host header';
    const name = hostName(hostHeader);
    const allowed = policy.allowedHosts ? policy.allowedHosts.includes(name) : isLoopback(name);
    if (!allowed) return `Host '${hostHeader}' is not allowed`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (policy.allowedOrigins) {
      if (!policy.allowedOrigins.includes(origin)) return `Origin '${origin}' is not allowed`;
    } else {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        return `Origin '${origin}' is not allowed`;
      }
      if (!(url.protocol === 'http:' || url.protocol === 'https:') || !isLoopback(url.hostname)) {
        return `Origin '${origin}' is not allowed`;
      }
    }
  }
  return undefined;
}
