/**
 * The `Accept` header as RFC 9110 §12.5.1 defines it: a comma-separated list of media ranges
 * (`type/subtype`, `type/*`, `*\/*`), each with optional parameters, among them the weight `q`.
 * A range with `q=0` says "not this". Streamable HTTP asks a client to list both
 * `application/json` and `text/event-stream`; a substring test would take
 * `application/json-seq` for JSON and `text/event-stream;q=0` for a yes.
 */

/**
 * Whether `accept` (a request's `Accept` header) admits `type` (`type/subtype`, lower case): the
 * most specific range that matches it decides, and it must not have `q=0`. No header admits
 * nothing (MCP's transports require one).
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  const slash = type.indexOf('/');
  const major = type.slice(0, slash);
  // Specificity of the best match so far: 3 exact, 2 type/*, 1 */*; its weight decides.
  let best = 0;
  let admitted = false;
  for (const part of accept.split(',')) {
    const semi = part.indexOf(';');
    const range = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    const specificity = range === type ? 3 : range === `${major}/*` ? 2 : range === '*/*' ? 1 : 0;
    if (specificity <= best) continue;
    best = specificity;
    admitted = semi === -1 || weight(part.slice(semi + 1)) > 0;
  }
  return admitted;
}

/** The `q` of a media range's parameters (`; q=0.5; level=1`); 1 when absent or malformed. */
function weight(parameters: string): number {
  for (const parameter of parameters.split(';')) {
    const eq = parameter.indexOf('=');
    if (eq === -1 || parameter.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const q = Number(parameter.slice(eq + 1).trim());
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 1;
  }
  return 1;
}
