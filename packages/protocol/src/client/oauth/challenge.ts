/**
 * The `WWW-Authenticate: Bearer …` challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1): the
 * parameters MCP's authorization spec has a client start from — `resource_metadata`, `scope`,
 * `error`. (oauth4webapi parses challenges only inside its own protected-resource requests; the
 * transport makes its requests itself.)
 */

/** The Bearer challenge's parameters, names lower-cased; undefined without a Bearer challenge. */
export function bearerChallenge(
  header: string | null | undefined,
): Record<string, string> | undefined {
  if (!header) return undefined;
  const start = /(?:^|,\s*)Bearer(?:\s+|$)/i.exec(header);
  if (!start) return undefined;
  const params: Record<string, string> = {};
  // name=value or name="quoted \"value\"", comma-separated, until the next scheme.
  const re = /\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/y;
  re.lastIndex = start.index + start[0].length;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    params[(m[1] as string).toLowerCase()] =
      m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
    if (re.lastIndex >= header.length) break;
  }
  return params;
}
