/**
 * The authorization server on the gateway's HTTP server: its endpoints (an {@link HttpPage}
 * handing them to oidc-provider), the RFC 8414 metadata path beside OpenID discovery, and the
 * two pages a person sees — sign in, and consent for each client that asks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { memoryRateLimiter } from '@mcpkit/fleet';
import type { HttpPage } from '@mcpkit/node';
import { escapeHtml, readSmall } from '../html.js';
import { ADMIN_SCOPE } from '../tools/restart-backend.js';
import { CONNECT_CALLBACK, CONNECT_PATH, type ConnectPages } from '../vault/connect-page.js';
import { connections, sessionSubject, signInUrl } from './connections.js';
import { page } from './layout.js';
import {
  AS_PREFIX,
  CONNECTIONS_CLIENT,
  CONNECTIONS_PATH,
  INTERACTION_PATH,
  type OidcProvider,
} from './provider.js';
import type { AuthStore } from './store.js';
import { UPSTREAM_CALLBACK, type UpstreamSignIn } from './upstream.js';
import { checkPassword, type GatewayUser } from './users.js';

/** Wrong passwords for one name before its sign-in is refused for the rest of the window. */
const MAX_FAILURES = 5;
const FAILURE_WINDOW_SEC = 15 * 60;
/** A form body larger than this is refused (a name and a password are a few hundred bytes). */
const MAX_FORM_BYTES = 8 * 1024;
const DISCOVERY = '/.well-known/openid-configuration';
const AUTHORIZE = `${AS_PREFIX}/authorize`;
/** RFC 8414's location for an issuer without a path: the same document. */
const RFC8414 = '/.well-known/oauth-authorization-server';
const JWKS = `${AS_PREFIX}/jwks`;
/** The members of an RSA JWK that are public. */
const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'use', 'n', 'e'] as const;

/** What {@link authorizationServerPage} takes. */
export interface AuthorizationPageOptions {
  /** The provider whose endpoints and interactions these are. */
  provider: OidcProvider;
  /** The people who may sign in. */
  users: readonly GatewayUser[];
  /** Told of each sign-in, consent and disconnect (never the password). */
  onEvent?: (event: AuthorizationEvent) => void;
  /** Where grants are kept: a person's connections page lists and revokes theirs. */
  store: AuthStore;
  /** Sign-in at the organisation's OpenID provider, and what to call it on the button. */
  upstream?: { signIn: UpstreamSignIn; name: string; issuer: string };
  /** The credential vault's pages: connecting a backend, and the person's connected backends. */
  connect?: {
    pages: ConnectPages;
    connected(subject: string): Promise<{ name: string; updatedAt: number }[]>;
    disconnect(subject: string, backend: string): Promise<void>;
  };
}

/** A sign-in or a consent, for the event log. */
export interface AuthorizationEvent {
  kind: 'sign_in' | 'sign_in_failed' | 'consent' | 'consent_denied' | 'disconnected';
  subject?: string;
  clientId?: string;
  scopes?: string[];
}

/** The authorization server's endpoints and pages, as one page of the gateway's HTTP server. */
export function authorizationServerPage(options: AuthorizationPageOptions): HttpPage {
  // Per name, not per address: behind a balancer or TLS proxy every person shares one address
  // (a per-address lock would let anyone lock everyone out). Refused before the password is
  // hashed, so guessing costs no CPU either; a name locked by someone else's guesses signs in
  // again after the window.
  const failures = memoryRateLimiter({
    keyPrefix: 'gateway-sign-in',
    points: MAX_FAILURES,
    durationSec: FAILURE_WINDOW_SEC,
  });
  const limits = { failures };
  return {
    // Token, registration and metadata requests come from clients on any origin (a browser-based
    // MCP client too); the Host check still applies.
    // Not the person's own pages: a form posted there from elsewhere would act for them.
    // The connect callback is a redirect from a backend's authorization server (its state and the
    // person's session are checked).
    anyOrigin: (path) =>
      path === CONNECT_CALLBACK ||
      (!path.startsWith(INTERACTION_PATH) &&
        !path.startsWith(CONNECTIONS_PATH) &&
        !path.startsWith(CONNECT_PATH)),
    matches: (path) => path === DISCOVERY || path === RFC8414 || path.startsWith(`${AS_PREFIX}/`),
    async handle(req, res, path) {
      if (path === UPSTREAM_CALLBACK && options.upstream) {
        upstreamCallback(req, res, options);
        return;
      }
      const provider = options.provider;
      if (path === CONNECTIONS_PATH || path.startsWith(`${CONNECTIONS_PATH}/`)) {
        await connections(provider, req, res, path, {
          store: options.store,
          onDisconnect: (subject, clientId) =>
            options.onEvent?.({ kind: 'disconnected', subject, clientId }),
          ...(options.connect ? { backends: options.connect } : {}),
        });
        return;
      }
      if (options.connect && path.startsWith(`${CONNECT_PATH}/`)) {
        const subject = await sessionSubject(provider, req, res);
        if (subject) {
          await options.connect.pages.handle(req, res, path, subject);
        } else if (req.method === 'GET' && path !== CONNECT_CALLBACK) {
          // Signed in at the gateway first: the credential is this person's.
          res.writeHead(303, { Location: signInUrl(provider, req.url) }).end();
        } else {
          page(res, 401, 'Signed out', '<p>Sign in again and start over from your app.</p>');
        }
        return;
      }
      if (path.startsWith(`${INTERACTION_PATH}/`)) {
        await interaction(
          provider,
          req,
          res,
          path.slice(INTERACTION_PATH.length + 1),
          options,
          limits,
        );
        return;
      }
      if (path === JWKS && (req.method === 'GET' || req.method === 'HEAD')) {
        await publishKeys(res, options.store);
        return;
      }
      if (path === RFC8414) req.url = DISCOVERY;
      else if (path === AUTHORIZE) req.url = withOpenId(req.url ?? path);
      provider.callback()(req, res);
    },
  };
}

/**
 * Every authorization request asks for `openid` too. MCP lets a client omit the scope (its
 * scope selection ends with "omit the parameter") or ask for scopes the person may not grant;
 * the token it then gets carries no backend scope — and oidc-provider refuses a request that
 * would be granted no scope at all (access_denied after sign-in), which `openid`, always
 * granted, prevents.
 */
function withOpenId(url: string): string {
  const parsed = new URL(url, 'http://gateway');
  const scopes = (parsed.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
  if (scopes.includes('openid')) return url;
  parsed.searchParams.set('scope', ['openid', ...scopes].join(' '));
  return `${parsed.pathname}${parsed.search}`;
}

/** `<uid>` (GET: the page the prompt needs), `<uid>/login`, `<uid>/consent` (POST). */
async function interaction(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  options: AuthorizationPageOptions,
  limits: { failures: ReturnType<typeof memoryRateLimiter> },
): Promise<void> {
  const [uid, action] = rest.split('/');
  // No interaction cookie, or one for another uid (a cross-site form, an expired sign-in).
  const details = await provider.interactionDetails(req, res).catch(() => undefined);
  if (!details || details.uid !== uid) {
    expired(res);
    return;
  }
  const clientId = String(details.params.client_id ?? '');
  const client = await provider.Client.find(clientId);
  const clientName = String(client?.clientName ?? clientId);
  // oidc-provider checked it against the client's registered redirect URIs.
  const redirectUri =
    typeof details.params.redirect_uri === 'string' ? details.params.redirect_uri : undefined;
  if (req.method === 'GET' && action === undefined) {
    if (details.prompt.name === 'login') {
      page(
        res,
        200,
        'Sign in',
        loginForm(uid as string, clientName, options),
        redirectUri,
        options.upstream?.issuer,
      );
    } else if (clientId === CONNECTIONS_CLIENT && details.session?.accountId) {
      // The gateway's own page of the person's connections: nothing to consent to.
      await grantConsent(provider, req, res, details, details.session.accountId, clientId, options);
    } else {
      const user = options.users.find((u) => u.username === details.session?.accountId);
      const form = consentForm(uid as string, clientName, details, user);
      page(res, 200, 'Allow access?', form, redirectUri);
    }
    return;
  }
  if (options.upstream && (action === 'upstream' || action === 'upstream-done')) {
    await upstreamStep(provider, req, res, details, action, clientName, options);
    return;
  }
  if (req.method !== 'POST' || (action !== 'login' && action !== 'consent')) {
    res.writeHead(405, { Allow: 'GET, POST' }).end();
    return;
  }
  const body = await readSmall(req, MAX_FORM_BYTES);
  const form = body === undefined ? undefined : new URLSearchParams(body);
  if (!form) {
    page(res, 413, 'Too large', '<p>That form was too large.</p>');
    return;
  }
  if (action === 'login') {
    if (details.prompt.name !== 'login') {
      page(res, 400, 'Sign-in expired', '<p>This step is done. Start again from your app.</p>');
      return;
    }
    const username = (form.get('username') ?? '').slice(0, 200);
    const key = username.toLowerCase();
    if (((await limits.failures.get(key))?.consumedPoints ?? 0) >= MAX_FAILURES) {
      options.onEvent?.({ kind: 'sign_in_failed', clientId });
      page(
        res,
        429,
        'Sign in',
        loginForm(
          uid as string,
          clientName,
          options,
          'Too many wrong passwords: try again in 15 minutes.',
        ),
        redirectUri,
      );
      return;
    }
    const user = await checkPassword(options.users, username, form.get('password') ?? '');
    if (!user) {
      await limits.failures.consume(key).catch(() => undefined);
      options.onEvent?.({ kind: 'sign_in_failed', clientId });
      page(
        res,
        401,
        'Sign in',
        loginForm(uid as string, clientName, options, 'Wrong name or password.'),
        redirectUri,
      );
      return;
    }
    await limits.failures.delete(key);
    options.onEvent?.({ kind: 'sign_in', subject: user.username, clientId });
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.username } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name !== 'consent' || !details.session?.accountId) {
    page(res, 400, 'Sign-in expired', '<p>This step is done. Start again from your app.</p>');
    return;
  }
  const subject = details.session.accountId;
  if (form.get('decision') !== 'allow') {
    options.onEvent?.({ kind: 'consent_denied', subject, clientId });
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'the person did not allow access' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  await grantConsent(provider, req, res, details, subject, clientId, options);
}

/**
 * Sign-in at the IdP: `upstream` (POST) sends the person there; `upstream-done` (GET, the
 * callback's query passed on under the interaction's path, where its cookie is) redeems what
 * they came back with and signs them in here.
 */
async function upstreamStep(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
  details: Awaited<ReturnType<OidcProvider['interactionDetails']>>,
  action: 'upstream' | 'upstream-done',
  clientName: string,
  options: AuthorizationPageOptions,
): Promise<void> {
  const upstream = (options.upstream as NonNullable<AuthorizationPageOptions['upstream']>).signIn;
  if (details.prompt.name !== 'login') {
    page(res, 400, 'Sign-in expired', '<p>This step is done. Start again from your app.</p>');
    return;
  }
  if (action === 'upstream') {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const to = await upstream.start(details.uid).catch(() => undefined);
    if (!to) {
      page(
        res,
        503,
        'Sign in',
        loginForm(
          details.uid,
          clientName,
          options,
          `${options.upstream?.name} cannot be reached now; try again in a moment.`,
        ),
      );
      return;
    }
    res.writeHead(303, { Location: to }).end();
    return;
  }
  const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const person = await upstream.finish(query, details.uid).catch(() => undefined);
  if (!person) {
    options.onEvent?.({ kind: 'sign_in_failed' });
    page(
      res,
      401,
      'Sign in',
      loginForm(
        details.uid,
        clientName,
        options,
        `The sign-in at ${options.upstream?.name} did not work out; try again.`,
      ),
    );
    return;
  }
  await options.store.saveAccount(person.username, person.claims);
  options.onEvent?.({ kind: 'sign_in', subject: person.username });
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: person.username } },
    { mergeWithLastSubmission: false },
  );
}

/**
 * The IdP's redirect, at the one URI registered there: on to the interaction it belongs to
 * (whose cookie is scoped to its own path), the query as it came.
 */
function upstreamCallback(
  req: IncomingMessage,
  res: ServerResponse,
  options: AuthorizationPageOptions,
): void {
  const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const uid = options.upstream?.signIn.interactionOf(query.get('state'));
  if (!uid) {
    expired(res);
    return;
  }
  res
    .writeHead(303, {
      Location: `${INTERACTION_PATH}/${encodeURIComponent(uid)}/upstream-done?${query}`,
    })
    .end();
}

/** The answer to a sign-in step whose interaction is gone (or another's). */
function expired(res: ServerResponse): void {
  page(res, 400, 'Sign-in expired', '<p>This sign-in has expired. Start again from your app.</p>');
}

/**
 * Record the person's consent to what the client asks (less what they may not grant, rejected
 * so the provider does not ask again) and let the provider go on.
 */
async function grantConsent(
  provider: OidcProvider,
  req: IncomingMessage,
  res: ServerResponse,
  details: Awaited<ReturnType<OidcProvider['interactionDetails']>>,
  subject: string,
  clientId: string,
  options: AuthorizationPageOptions,
): Promise<void> {
  const grant =
    (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
    new provider.Grant({ accountId: subject, clientId });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
  const scopes: string[] = [];
  const may = mayHold(options.users.find((u) => u.username === subject));
  for (const [resource, more] of Object.entries(missing.missingResourceScopes ?? {})) {
    const allowed = more.filter(may);
    const withheld = more.filter((s) => !may(s));
    // Rejected, not left out: the provider then issues the token without them instead of
    // asking for consent again.
    if (allowed.length > 0) grant.addResourceScope(resource, allowed.join(' '));
    if (withheld.length > 0) grant.rejectResourceScope(resource, withheld.join(' '));
    scopes.push(...allowed);
  }
  const grantId = await grant.save();
  options.onEvent?.({ kind: 'consent', subject, clientId, scopes });
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

function loginForm(
  uid: string,
  clientName: string,
  options: AuthorizationPageOptions,
  error?: string,
): string {
  const at = `${INTERACTION_PATH}/${escapeHtml(uid)}`;
  const upstream = options.upstream
    ? `<form method="post" action="${at}/upstream">
  <button type="submit">Sign in with ${escapeHtml(options.upstream.name)}</button>
</form>`
    : '';
  const password =
    options.users.length > 0
      ? `<form method="post" action="${at}/login">
  <label>Name <input name="username" autocomplete="username" required autofocus></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`
      : '';
  return `<p><b>${escapeHtml(clientName)}</b> wants to use the tools of this gateway for you. Sign in first.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
${upstream}
${password}`;
}

/**
 * Which scopes a person may be granted: those listed for them, else (a user without a list, or
 * a person from the identity provider) every scope but gateway:admin — an operator's scope is
 * given by name, never by default.
 */
function mayHold(user: GatewayUser | undefined): (scope: string) => boolean {
  // A person the identity provider signed in is in no list: the default rule.
  const listed = user?.scopes;
  return listed ? (scope) => listed.includes(scope) : (scope) => scope !== ADMIN_SCOPE;
}

function consentForm(
  uid: string,
  clientName: string,
  details: Awaited<ReturnType<OidcProvider['interactionDetails']>>,
  user: GatewayUser | undefined,
): string {
  const missing = details.prompt.details as { missingResourceScopes?: Record<string, string[]> };
  const asked = [...new Set(Object.values(missing.missingResourceScopes ?? {}).flat())];
  const may = mayHold(user);
  const scopes = asked.filter(may);
  const withheld = asked.filter((s) => !may(s));
  const redirect = String(details.params.redirect_uri ?? '');
  const list = scopes.length
    ? `<ul>${scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
    : '<p>Its tools that need no scope.</p>';
  return `<p><b>${escapeHtml(clientName)}</b> asks to use this gateway's tools as <b>${escapeHtml(
    String(details.session?.accountId ?? ''),
  )}</b>, with:</p>
${list}
${
  withheld.length > 0
    ? `<p class="small">Not yours to give, left out: ${withheld.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ')}.</p>`
    : ''
}
<p class="small">It will be sent back to <code>${escapeHtml(redirect)}</code>. Your connected apps are listed, and can be disconnected, at <a href="${CONNECTIONS_PATH}">${CONNECTIONS_PATH}</a>.</p>
<form method="post" action="${INTERACTION_PATH}/${escapeHtml(uid)}/consent">
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
}

/**
 * The JWKS, read from the store at each request instead of the provider's copy made at start:
 * in a fleet, a key one instance made after another started is published by every instance,
 * so a token signed with it verifies wherever a resource server fetches the set.
 */
async function publishKeys(res: ServerResponse, store: AuthStore): Promise<void> {
  const keys = (await store.keys()).map((k) => {
    const jwk: Record<string, unknown> = { ...k.jwk, kid: k.kid };
    return Object.fromEntries(PUBLIC_MEMBERS.filter((m) => m in jwk).map((m) => [m, jwk[m]]));
  });
  res.writeHead(200, {
    'Content-Type': 'application/jwk-set+json; charset=utf-8',
    // Short: a resource server refetches on an unknown kid anyway.
    'Cache-Control': 'public, max-age=60',
  });
  res.end(JSON.stringify({ keys }));
}
