/**
 * A person's browser at an authorization server's HTML pages, for tests of a sign-in flow:
 * follows the authorization URL and its redirects with the cookies the server sets, submits the
 * form of each page it is shown (with what `answer` fills in), and stops at the redirect back to
 * the client — which it returns, not follows.
 */

/** What {@link formBrowser} returns. */
export interface FormBrowser {
  /** Go through the sign-in from `url`; resolves to the redirect to the client (`code`, `state`). */
  visit(url: URL | string): Promise<URL>;
  /** Every page shown, in order (HTML). */
  readonly pages: string[];
  /**
   * One request as this browser sends it: its cookies attached, the ones the answer sets kept,
   * redirects not followed; a POST carries the request's own origin as `Origin`.
   */
  fetch(url: URL | string, init?: RequestInit): Promise<Response>;
}

/** Redirects and pages one {@link FormBrowser.visit} goes through before it gives up. */
const MAX_HOPS = 20;

/**
 * A browser with its own cookie jar that stops at `redirectUri`. On a page with a
 * `<form method="post" action="…">`, `answer(html, url)` gives the fields to post (as a browser
 * would, with the page's Origin); a page without one, or a 4xx/5xx answer to a form, throws.
 *
 * @example
 * ```ts
 * const person = formBrowser(REDIRECT, (html) =>
 *   html.includes('name="password"') ? { username: 'alice', password } : { decision: 'allow' },
 * );
 * const callback = await person.visit(authorizationUrl);
 * ```
 */
export function formBrowser(
  redirectUri: string,
  answer: (html: string, url: URL) => Record<string, string>,
): FormBrowser {
  // One jar per origin, as a browser keeps them (two authorization servers name theirs alike).
  const jars = new Map<string, Map<string, string>>();
  const pages: string[] = [];
  const keep = (url: URL, res: Response) => {
    const jar = jars.get(url.origin) ?? new Map<string, string>();
    jars.set(url.origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const value = pair.slice(eq + 1);
      if (value === '') jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), value);
    }
  };
  const cookie = (url: URL) =>
    [...(jars.get(url.origin) ?? [])].map(([k, v]) => `${k}=${v}`).join('; ');
  const back = new URL(redirectUri);
  return {
    pages,
    async fetch(url, init = {}) {
      const target = new URL(url);
      const headers = new Headers(init.headers);
      const jar = cookie(target);
      if (jar) headers.set('cookie', jar);
      if ((init.method ?? 'GET') !== 'GET' && !headers.has('origin'))
        headers.set('origin', target.origin);
      const res = await fetch(target, { ...init, headers, redirect: 'manual' });
      keep(target, res);
      return res;
    },
    async visit(start) {
      let next = new URL(start);
      for (let hop = 0; hop < MAX_HOPS; hop++) {
        if (next.origin === back.origin && next.pathname === back.pathname) return next;
        let res = await fetch(next, { redirect: 'manual', headers: { cookie: cookie(next) } });
        keep(next, res);
        if (res.status === 200) {
          const html = await res.text();
          pages.push(html);
          const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
          if (!action) throw new Error(`no form at ${next.pathname}: ${html.slice(0, 300)}`);
          const target = new URL(action.replace(/&amp;/g, '&'), next);
          res = await fetch(target, {
            method: 'POST',
            redirect: 'manual',
            headers: {
              cookie: cookie(target),
              origin: next.origin,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: new URLSearchParams(answer(html, next)),
          });
          keep(target, res);
          if (res.status >= 400) {
            const text = await res.text();
            pages.push(text);
            throw new Error(`the form at ${next.pathname} was refused: ${res.status}`);
          }
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`${res.status} at ${next.pathname} without a redirect`);
        next = new URL(location, next);
      }
      throw new Error(`still redirecting after ${MAX_HOPS} hops, at ${next.href}`);
    },
  };
}
