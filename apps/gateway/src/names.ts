import { createHash } from 'node:crypto';

/** What clients and LLM APIs accept as a tool name. */
export const CLIENT_SAFE = /^[A-Za-z0-9_-]{1,64}$/;
export const SEPARATOR = '__';

// Over UTF-16 code units: distinct strings (even with lone surrogates) hash apart.
const shortHash = (text: string) =>
  createHash('sha256').update(Buffer.from(text, 'utf16le')).digest('hex').slice(0, 6);

/**
 * The advertised name of a backend's tool or prompt (namespace `''`: the name alone). `ns__tool`
 * when that is client-safe;
 * otherwise invalid characters become `_` and an over-long name is cut and given a short stable
 * hash of the original, so it stays unique and the same across restarts. `colon` mode advertises
 * `ns:tool` literally, as the mcp-n8n gateway's JSON-RPC API does, for clients that expect it.
 */
export function advertisedName(
  namespace: string,
  name: string,
  mode: 'double-underscore' | 'colon',
): string {
  if (mode === 'colon') return namespace === '' ? name : `${namespace}:${name}`;
  const candidate = namespace === '' ? name : `${namespace}${SEPARATOR}${name}`;
  if (CLIENT_SAFE.test(candidate)) return candidate;
  const clean = candidate.replace(/[^A-Za-z0-9_-]/g, '_');
  const hash = shortHash(candidate);
  return `${clean.slice(0, 64 - hash.length - 1)}_${hash}`;
}

/** A name that is already taken gets a suffix derived from its backend, stable across restarts. */
export function disambiguate(name: string, backend: string): string {
  const hash = shortHash(`${backend}\0${name}`);
  return `${name.slice(0, 64 - hash.length - 1)}_${hash}`;
}

/**
 * A resource URI two backends share, as the second one's is advertised: `gateway://<namespace>/`
 * and the URI percent-encoded — unique, and read back by {@link originalUri}.
 */
export function gatewayUri(namespace: string, uri: string): string {
  return `gateway://${namespace}/${encodeURIComponent(uri)}`;
}

/**
 * A resource template two backends share, as the second one's is advertised: its literal parts
 * encoded as {@link gatewayUri} encodes a URI, its `{expressions}` kept, so that what a client
 * expands from it is the rewritten URI of what the backend's own template expands to.
 */
export function gatewayTemplate(namespace: string, uriTemplate: string): string {
  const parts = uriTemplate.split(/(\{[^}]*\})/);
  const encoded = parts.map((p) => (p.startsWith('{') ? p : encodeURIComponent(p))).join('');
  return `gateway://${namespace}/${encoded}`;
}

/** The backend's URI of a rewritten one (`gateway://<namespace>/…`), or the URI as it is. */
export function originalUri(uri: string, namespace: string): string {
  const prefix = `gateway://${namespace}/`;
  if (!uri.startsWith(prefix)) return uri;
  try {
    return decodeURIComponent(uri.slice(prefix.length));
  } catch {
    return uri;
  }
}
