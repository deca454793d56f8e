/**
 * The gateway's registry endpoints, shaped as the MCP Registry's OpenAPI document says (generic
 * registry API v0.1): `GET /v0.1/servers` (`cursor`, `limit`, `search`, `updated_since`,
 * `version`, `include_deleted`), `GET /v0.1/servers/{name}/versions` and
 * `GET /v0.1/servers/{name}/versions/{version}` (`latest` too). Behind the gateway's tokens like
 * `/metrics`; open when the gateway has none (loopback only). Another gateway installs from it
 * (`"registry": "<name>@<version>", "registry_url": "<this gateway>"`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, type HttpPage, type PageAuth } from '@mcpkit/node';
import type { AuthInfo } from '@mcpkit/protocol';
import type { Gateway } from '../gateway.js';
import { type RegistryEntry, registryEntries } from './entries.js';
import { OFFICIAL_META } from './server-json.js';

const PREFIX = '/v0.1/servers';
const DEFAULT_LIMIT = 30;
const MAX_LIMIT = 100;
const VERSIONS = /^\/v0\.1\/servers\/(.+?)\/versions(?:\/([^/]+))?$/;

/** Options of {@link registryPage}. */
export interface RegistryPageOptions {
  /** The URL clients reach the gateway at (`--public-url`'s first); default: the request's Host. */
  publicUrl?: string;
}

function sendJson(res: ServerResponse, status: number, body: unknown, head: boolean): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  });
  res.end(head ? undefined : text);
}

const statusOf = (e: RegistryEntry) =>
  (e._meta[OFFICIAL_META] as { status: string; updatedAt: string }).status;
const updatedOf = (e: RegistryEntry) =>
  Date.parse((e._meta[OFFICIAL_META] as { updatedAt: string }).updatedAt);

/** A cursor is the last name of the page before, opaque to the client. */
const encodeCursor = (name: string) => Buffer.from(name, 'utf8').toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

/** `GET /v0.1/servers`: the entries, filtered and paginated; an error message for a bad query. */
function list(
  entries: RegistryEntry[],
  query: URLSearchParams,
): { body: unknown } | { error: string } {
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return { error: `limit must be an integer from 1 to ${MAX_LIMIT}` };
  }
  const since = query.get('updated_since');
  const sinceMs = since === null ? undefined : Date.parse(since);
  if (sinceMs !== undefined && Number.isNaN(sinceMs)) {
    return { error: 'updated_since must be an RFC 3339 date-time' };
  }
  const search = query.get('search')?.toLowerCase();
  const version = query.get('version');
  // Deleted entries are listed only when asked for, or to a client syncing changes (updated_since).
  const withDeleted = query.get('include_deleted') === 'true' || since !== null;
  const cursor = query.get('cursor');
  const after = cursor ? decodeCursor(cursor) : undefined;
  const matching = entries.filter(
    (e) =>
      (withDeleted || statusOf(e) !== 'deleted') &&
      (search === undefined || e.server.name.toLowerCase().includes(search)) &&
      (version === null || version === 'latest' || e.server.version === version) &&
      (sinceMs === undefined || updatedOf(e) >= sinceMs) &&
      (after === undefined || e.server.name > after),
  );
  const page = matching.slice(0, limit);
  const more = matching.length > limit;
  const last = page.at(-1);
  return {
    body: {
      servers: page,
      metadata: {
        count: page.length,
        ...(more && last ? { nextCursor: encodeCursor(last.server.name) } : {}),
      },
    },
  };
}

/** The registry endpoints of `gateway` as a page of its HTTP host. */
export function registryPage(gateway: Gateway, options: RegistryPageOptions = {}): HttpPage {
  return {
    matches: (path) =>
      gateway.config.gateway.registry?.enabled !== false &&
      (path === PREFIX || path.startsWith(`${PREFIX}/`)),
    handle: async (req: IncomingMessage, res: ServerResponse, path: string, auth: PageAuth) => {
      const head = req.method === 'HEAD';
      if (req.method !== 'GET' && !head) {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
        res.end();
        return;
      }
      let caller: AuthInfo | undefined;
      if (auth.required) {
        const parsed = bearerToken(req.headers.authorization);
        if ('reason' in parsed) {
          res.setHeader('WWW-Authenticate', 'Bearer');
          sendJson(res, 401, { error: parsed.reason }, head);
          return;
        }
        const checked = await auth.check(parsed.token, req);
        if (checked === 'locked') {
          res.setHeader('Retry-After', '60');
          sendJson(res, 429, { error: 'too many failed attempts' }, head);
          return;
        }
        if (!checked) {
          res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
          sendJson(res, 401, { error: 'invalid or revoked token' }, head);
          return;
        }
        caller = checked;
      }
      const url = new URL(req.url ?? '/', 'http://gateway');
      const base = (options.publicUrl ?? `http://${req.headers.host ?? '127.0.0.1'}`).replace(
        /\/+$/,
        '',
      );
      const entries = registryEntries(gateway, { base, authRequired: auth.required, auth: caller });
      if (path === PREFIX || path === `${PREFIX}/`) {
        const result = list(entries, url.searchParams);
        if ('error' in result) sendJson(res, 400, { error: result.error }, head);
        else sendJson(res, 200, result.body, head);
        return;
      }
      const match = VERSIONS.exec(path);
      let name: string | undefined;
      let version: string | undefined;
      try {
        name = match ? decodeURIComponent(match[1] as string) : undefined;
        version = match?.[2] === undefined ? undefined : decodeURIComponent(match[2]);
      } catch {
        sendJson(
          res,
          400,
          { error: 'the server name or version is not URL-encoded correctly' },
          head,
        );
        return;
      }
      const entry = entries.find((e) => e.server.name === name);
      if (!match || !entry) {
        sendJson(res, 404, { error: 'Server not found' }, head);
        return;
      }
      if (version === undefined) {
        sendJson(res, 200, { servers: [entry], metadata: { count: 1 } }, head);
        return;
      }
      // One version per entry: the one the gateway runs. A deleted entry is still answered by
      // version, so that an installer learns why it is refused.
      if (version !== 'latest' && version !== entry.server.version) {
        sendJson(res, 404, { error: 'Server version not found' }, head);
        return;
      }
      sendJson(res, 200, entry, head);
    },
  };
}
