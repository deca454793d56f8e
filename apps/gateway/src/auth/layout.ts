/**
 * The frame of the authorization server's pages (sign-in, consent, connections): one column,
 * light and dark, no script at all, and the headers that keep them from being framed or cached.
 */
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../html.js';

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

/**
 * The pages' policy: no script at all, their own inline style, forms posted to themselves — and,
 * since a browser holds a form's redirects to `form-action` too (Chromium does), to where the
 * sign-in goes: the client's redirect URI, the identity provider — each origin (or scheme, for
 * an app's own scheme) given as `formTargets`.
 */
function contentSecurityPolicy(targets: readonly (string | undefined)[]): string {
  const sources = new Set<string>();
  for (const target of targets) {
    if (!target || !URL.canParse(target)) continue;
    const url = new URL(target);
    sources.add(url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol);
  }
  const extra = [...sources].map((s) => ` ${s}`).join('');
  return `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`;
}

/** Answer `status` with the page `title` around `body` (HTML the caller escaped). */
export function page(
  res: ServerResponse,
  status: number,
  title: string,
  body: string,
  ...formTargets: (string | undefined)[]
): void {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · MCP gateway</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0}input{display:block;width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{padding:.55rem 1.1rem;font:inherit;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer;margin-right:.5rem}
button.secondary{background:#e6e8eb;color:#1b1f24}.error{color:#b42318}.small{font-size:.85rem;color:#57606a}code{word-break:break-all}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}button.secondary{background:#30363d;color:#e6edf3}.small{color:#8b949e}}
</style></head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': contentSecurityPolicy(formTargets),
    ...SECURITY_HEADERS,
  });
  res.end(html);
}
