/**
 * A person's own connections page (`/oauth/connections`): the clients they allowed, and a
 * Disconnect for each — their consent revoked and the client's tokens refused from the next
 * request on. The person is who the provider's sign-in session says; without one, they sign in
 * through the provider like any client (the gateway's own client, which needs no consent).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml, readSmall } from '../html.js';
import { page } from './layout.js';
import {
  AS_PREFIX,
  CONNECTIONS_CALLBACK,
  CONNECTIONS_CLIENT,
  CONNECTIONS_PATH,
  type OidcProvider,
} from './provider.js';
import type { AuthStore } from './store.js';

/** What the connections page does besides showing: tell of a disconnect. */
export interface ConnectionsOptions {
  store: AuthStore;
  onDisconnect?: (subject: string, clientId: string, grants: number) => void;
  /** The backends a person gave their own credential for, and how one is forgotten. */
  backends?: {
    connected(subject: string): Promise<{ name: string; updatedAt: number }[]>;
    disconnect(subject: string, backend: string): Promise<void>;
  };
}

/** Where a sign-in for a connect page returns to: that page (a path of ours, nothing else). */
const RETURN_TO = /^\/oauth\/connect\/[A-Za-z0-9_-]{1,32}(\?[A-Za-z0-9._~%&=@+-]*)?$/;

/** Who the gateway's sign-in session in this browser names; undefined when nobody. */
export async function sessionSubject(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<string | undefined> {
  const session = await provider.Session.get(provider.createContext(req, res));
  return typeof session.accountId === 'string' ? session.accountId : undefined;
}

/** Answer a request for `/oauth/connections` or below. */
export async function connections(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  options: ConnectionsOptions,
): Promise<void> {
  const subject = await sessionSubject(provider, req, res);
  if (path === CONNECTIONS_CALLBACK) {
    // Signed in now (or the sign-in was refused): the page says which — or the connect page
    // the sign-in was for.
    const state = new URL(req.url ?? path, provider.issuer).searchParams.get('state') ?? '';
    res.writeHead(303, { Location: RETURN_TO.test(state) ? state : CONNECTIONS_PATH }).end();
    return;
  }
  if (path !== CONNECTIONS_PATH) {
    page(res, 404, 'Not found', '<p>Nothing here.</p>');
    return;
  }
  if (!subject) {
    res.writeHead(303, { Location: signInUrl(provider) }).end();
    return;
  }
  if (req.method === 'POST') {
    const body = await readSmall(req, 4096);
    const form = new URLSearchParams(body ?? '');
    const clientId = form.get('client_id') ?? '';
    const backend = form.get('backend') ?? '';
    if (backend && options.backends) await options.backends.disconnect(subject, backend);
    if (clientId && clientId !== CONNECTIONS_CLIENT) {
      const grants = await options.store.revokeGrants(subject, clientId);
      options.onDisconnect?.(subject, clientId, grants);
    }
    res.writeHead(303, { Location: CONNECTIONS_PATH }).end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, POST' }).end();
    return;
  }
  const rows: string[] = [];
  for (const grant of await options.store.grants(subject)) {
    if (grant.clientId === CONNECTIONS_CLIENT) continue;
    const client = await provider.Client.find(grant.clientId).catch(() => undefined);
    const name = String(client?.clientName ?? grant.clientId);
    rows.push(`<li><b>${escapeHtml(name)}</b>
  <form method="post" action="${CONNECTIONS_PATH}"><input type="hidden" name="client_id" value="${escapeHtml(grant.clientId)}">
  <button type="submit" class="secondary" aria-label="Disconnect ${escapeHtml(name)}">Disconnect</button></form></li>`);
  }
  const list = rows.length
    ? `<ul class="connections">${rows.join('\n')}</ul>`
    : '<p>No app is connected.</p>';
  const backendRows: string[] = [];
  for (const held of (await options.backends?.connected(subject)) ?? []) {
    const name = escapeHtml(held.name);
    backendRows.push(`<li><b>${name}</b> <span class="small">since ${escapeHtml(new Date(held.updatedAt).toISOString().slice(0, 16).replace('T', ' '))} UTC</span>
  <form method="post" action="${CONNECTIONS_PATH}"><input type="hidden" name="backend" value="${name}">
  <button type="submit" class="secondary" aria-label="Disconnect ${name}">Disconnect</button></form></li>`);
  }
  const backends = options.backends
    ? `<h2>Your credentials</h2>
${backendRows.length ? `<ul class="connections">${backendRows.join('\n')}</ul>` : '<p>No backend holds a credential of yours.</p>'}`
    : '';
  page(
    res,
    200,
    'Your connections',
    `<p>The apps <b>${escapeHtml(subject)}</b> allowed to use this gateway's tools. Disconnecting one ends its access at once; it asks again next time.</p>
${list}
${backends}`,
  );
}

/**
 * The provider's authorization URL for the gateway's own client, its redirect back here (and
 * on to `returnTo`, a connect page, when given). Its
 * code is never redeemed (only the sign-in session it leaves is wanted), so the PKCE verifier
 * is thrown away.
 */
export function signInUrl(provider: OidcProvider, returnTo?: string): string {
  const challenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
  const query = new URLSearchParams({
    ...(returnTo && RETURN_TO.test(returnTo) ? { state: returnTo } : {}),
    client_id: CONNECTIONS_CLIENT,
    response_type: 'code',
    redirect_uri: `${provider.issuer}${CONNECTIONS_CALLBACK}`,
    scope: 'openid',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${AS_PREFIX}/authorize?${query.toString()}`;
}
