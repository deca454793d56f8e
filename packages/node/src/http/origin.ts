import type { IncomingMessage } from 'node:http';
import { isIPv4 } from 'node:net';

/** Loopback names and addresses. `127.evil.example` is a name anyone can point anywhere: only a
 * literal IPv4 address counts for 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  // Compared one by one rather than looked up in a Set, which would hash every request's fresh
  // Host string.
  return (
    host === '127.0.0.1' ||
    host === 'localhost' ||
    host === '[::1]' ||
    host === '::1' ||
    (host.startsWith('127.') && isIPv4(host))
  );
}

/** Which Host and Origin headers an HTTP server accepts (against DNS rebinding; else 403). */
export interface OriginPolicy {
  /** Host names (without port) a request may address. Default: loopback names when bound to loopback. */
  allowedHosts?: readonly string[];
  /** Origins allowed to call from a browser. Default: http(s) origins on loopback hosts. */
  allowedOrigins?: readonly string[];
  /**
   * URLs the server is reached at through a reverse proxy (`https://mcp.example.com`): their
   * host and origin are accepted besides the defaults — what a TLS proxy in front of a server
   * bound to 127.0.0.1 forwards.
   */
  publicUrls?: readonly string[];
  /**
   * Origins (`https://app.example.com`, exactly as a browser sends them) whose pages may call
   * across origins (CORS): their preflight `OPTIONS` is answered and every response carries
   * `Access-Control-Allow-Origin` for them. They pass the Origin check too. Default: none (CORS off).
   */
  corsOrigins?: readonly string[];
}

/**
 * `host [":" port]` exactly (RFC 9110 §7.2, RFC 3986 §3.2.2): a bracketed IPv6 literal or a
 * name/IPv4 of letters, digits, dots and hyphens, then an optional decimal port. Anything else —
 * `127.0.0.1:80@evil.example`, userinfo, a path, spaces — is not a Host this server is.
 */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** The last Host header parsed and its name: a server sees the same one on nearly every request. */
let lastHost = '';
let lastName: string | undefined;

/** The host name of a well-formed Host header (lower case, IPv6 in brackets), or undefined. */
function hostName(hostHeader: string): string | undefined {
  if (hostHeader === lastHost) return lastName;
  const match = HOST.exec(hostHeader);
  const name = match ? (match[1] as string).toLowerCase() : undefined;
  lastHost = hostHeader;
  lastName = name;
  return name;
}

/** How many Host header lines the request carried (Node keeps only the first in `headers`). */
function hostLines(req: IncomingMessage): number {
  let n = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    // Only a four-letter name can be Host: the others are not lower-cased (a copy each).
    if (name.length === 4 && name.toLowerCase() === 'host') n++;
  }
  return n;
}

/**
 * The hosts and origins of `publicUrls`, parsed once per list (not on every request); throws a
 * TypeError naming one that is not a URL (the server calls it when it is made).
 */
const publicParsed = new WeakMap<
  readonly string[],
  { hosts: ReadonlySet<string>; origins: ReadonlySet<string> }
>();

export function parsedPublic(urls: readonly string[]): {
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
} {
  let parsed = publicParsed.get(urls);
  if (!parsed) {
    const list = urls.map((u) => {
      if (!URL.canParse(u)) throw new TypeError(`publicUrls: '${u}' is not a URL`);
      return new URL(u);
    });
    parsed = {
      hosts: new Set(list.map((u) => u.hostname)),
      origins: new Set(list.map((u) => u.origin)),
    };
    publicParsed.set(urls, parsed);
  }
  return parsed;
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
    // Two Host lines could address two servers at once (one checked here, another behind a
    // proxy that reads the last): refused, as RFC 9112 §3.2 says a server must.
    if (hostLines(req) > 1) return 'more than one Host header';
    const name = hostName(hostHeader);
    if (name === undefined) return `Host '${hostHeader}' is malformed`;
    const allowed =
      (policy.allowedHosts ? policy.allowedHosts.includes(name) : isLoopback(name)) ||
      (policy.publicUrls !== undefined && parsedPublic(policy.publicUrls).hosts.has(name));
    if (!allowed) return `Host '${hostHeader}' is not allowed`;
  }
  const origin = req.headers.origin;
  const published =
    origin !== undefined &&
    policy.publicUrls !== undefined &&
    parsedPublic(policy.publicUrls).origins.has(origin);
  if (origin !== undefined && !published && !policy.corsOrigins?.includes(origin)) {
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
