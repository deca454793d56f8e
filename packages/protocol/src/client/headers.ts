/**
 * Header values of MCP 2026-07-28 Streamable HTTP (spec `basic/transports/streamable-http`
 * §Value Encoding): a value that is not plain visible ASCII (non-ASCII, control characters,
 * leading or trailing whitespace), or that looks like the sentinel itself, is sent as
 * `=?base64?<base64 of its UTF-8>?=`.
 */

/** Visible ASCII with inner spaces: what a header may carry as it is. */
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A header value for `value`: itself when plain, else the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** Where `Mcp-Name` comes from, per method. */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * The `Mcp-Method` and `Mcp-Name` headers of one modern request (`Mcp-Name` only for
 * `tools/call`, `prompts/get` and `resources/read`, from `params.name` or `params.uri`).
 */
export function modernRequestHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': method };
  const source = NAME_SOURCE[method];
  const name = source === undefined ? undefined : params?.[source];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}
