/**
 * CORS for the MCP paths: the browser pages of the listed origins may call (and read the MCP
 * headers of the answers), everybody else's may not. Only the MCP paths: the app's own pages and
 * `/metrics` are not offered to other origins (a login form's cookie must not be usable there).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendEmpty } from './respond.js';

/** Request headers a page of a CORS origin may send (the preflight's answer). */
const ALLOWED_HEADERS =
  'Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID';
/** Response headers such a page may read. */
const EXPOSED_HEADERS =
  'Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, WWW-Authenticate, Retry-After';

export class Cors {
  readonly #origins: ReadonlySet<string>;

  /** `origins`: each exactly as a browser sends it (`https://app.example.com`). */
  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins);
  }

  /**
   * Mark the answer for a listed origin (on every answer from here on, refusals included: a page
   * reads a 401 or 429 too); answer a preflight, before auth, since a browser sends it without
   * credentials. True when the request was the preflight and is answered.
   */
  preflight(req: IncomingMessage, res: ServerResponse, method: string, allowed: string): boolean {
    res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !this.#origins.has(origin)) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) {
      return false;
    }
    sendEmpty(res, 204, {
      'Access-Control-Allow-Methods': allowed,
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
    });
    return true;
  }
}
