/**
 * Sign-in for a command-line MCP client: the authorization server sends the person's browser
 * back to a one-shot HTTP listener on 127.0.0.1 (RFC 8252 §7.3, loopback redirection), which
 * hands the redirect to `OAuthClient` — the `authorize` it needs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What {@link loopbackAuthorization} takes. */
export interface LoopbackOptions {
  /** The port to listen on (it is part of the registered redirect URI). Default 0: any free one. */
  port?: number;
  /** The redirect's path. Default `/callback`. */
  path?: string;
  /** Show the person the authorization URL: open a browser, print it. Default: print to stderr. */
  open?: (url: URL) => void | Promise<void>;
  /** Give up when the browser has not come back in this long. Default 5 minutes. */
  timeoutMs?: number;
}

/** A loopback redirect receiver: its URI to register, and the `authorize` of an `OAuthClient`. */
export interface LoopbackAuthorization {
  /** `http://127.0.0.1:<port><path>`: the `redirectUri` to give `OAuthClient`. */
  readonly redirectUri: string;
  /** Show the person `url`, then resolve with the redirect their browser made back to us. */
  authorize(url: URL): Promise<URL>;
  /** Stop listening. */
  close(): Promise<void>;
}

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>Signed in</title><p>You can close this window and return to the terminal.</p>';

/**
 * Listen on 127.0.0.1 for the authorization server's redirect. Each `authorize` waits for the
 * next request to the path that carries `code` or `error` (other requests — a favicon — get
 * 404); the listener stays up for a step-up until `close`.
 *
 * @example
 * ```ts
 * const loopback = await loopbackAuthorization({ port: 8976 });
 * const oauth = new OAuthClient({ redirectUri: loopback.redirectUri, authorize: loopback.authorize });
 * ```
 */
export async function loopbackAuthorization(
  options: LoopbackOptions = {},
): Promise<LoopbackAuthorization> {
  const path = options.path ?? '/callback';
  let waiting: ((url: URL) => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const done = url.searchParams.has('code') || url.searchParams.has('error');
    if (req.method !== 'GET' || url.pathname !== path || !done || !waiting) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    const resolve = waiting;
    waiting = undefined;
    resolve(new URL(`${redirectUri}${url.search}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const show =
    options.open ??
    ((url: URL) => {
      process.stderr.write(`Open this URL to sign in:\n  ${url.href}\n`);
    });
  return {
    redirectUri,
    async authorize(url) {
      const back = new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(
          () => {
            waiting = undefined;
            reject(new Error('sign-in: the browser did not come back in time'));
          },
          options.timeoutMs ?? 5 * 60_000,
        );
        timer.unref();
        waiting = (redirect) => {
          clearTimeout(timer);
          resolve(redirect);
        };
      });
      await show(url);
      return back;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
