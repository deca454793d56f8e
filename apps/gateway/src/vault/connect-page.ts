/**
 * Where a person connects a backend that needs their own credential (`/oauth/connect/<backend>`,
 * the URL a call's -32042 sends them to): a form for a secret they paste, or the sign-in at the
 * backend's own authorization server with the gateway as their OAuth client. Either way it lands
 * in the vault under the person the gateway's sign-in session names — never under whoever the
 * link was made for — and their open link to the backend is replaced.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthClient, type OAuthClientRegistration, type PendingSignIn } from '@mcpkit/protocol';
import { page } from '../auth/layout.js';
import { AS_PREFIX } from '../auth/provider.js';
import type { ModelAdapter } from '../auth/store.js';
import type { BackendConfig } from '../config.js';
import { escapeHtml, readSmall } from '../html.js';
import type { CredentialVault } from './vault.js';

/** The connect pages' root. */
export const CONNECT_PATH = `${AS_PREFIX}/connect`;
/** Where a backend's authorization server sends the person back. */
export const CONNECT_CALLBACK = `${CONNECT_PATH}/callback`;
/** Where a connect ends: "go back to your app". */
export const CONNECT_DONE = `${CONNECT_PATH}/done`;
/** A pasted secret longer than this is refused (API keys and PATs are far shorter). */
const MAX_SECRET = 4096;
/** How long a sign-in at a backend's server may take, seconds. */
const FLOW_SEC = 10 * 60;

/** What the connect pages need from the gateway. */
export interface ConnectPageOptions {
  vault: CredentialVault;
  /** The gateway's origin (the OAuth redirect URI is under it). */
  issuer: string;
  /** The backends as configured now. */
  backends(): Readonly<Record<string, BackendConfig>>;
  /** Told when a person connected or disconnected a backend (their link is replaced). */
  onChange(subject: string, backend: string, change: 'connected' | 'disconnected'): void;
  /** Told when a sign-in at a backend's server failed. */
  onFailure(subject: string, backend: string, error: string): void;
  /**
   * Where sign-ins at backends' servers wait for the person to come back, by `state` (the
   * authorization store: the callback may reach another instance of a fleet).
   */
  flows: ModelAdapter;
}

/** A sign-in at a backend's authorization server, as kept until the person comes back. */
interface Flow {
  subject: string;
  backend: string;
  pending: PendingSignIn;
}

/** The connect pages: each call of `handle` answers one request under {@link CONNECT_PATH}. */
export class ConnectPages {
  readonly #options: ConnectPageOptions;

  constructor(options: ConnectPageOptions) {
    this.#options = options;
  }

  /**
   * Answer `path` for `subject` (who the gateway's session says is signed in; the caller sends
   * anyone else to sign in first).
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    subject: string,
  ): Promise<void> {
    const url = new URL(req.url ?? path, this.#options.issuer);
    if (path === CONNECT_DONE) {
      const name = url.searchParams.get('backend') ?? '';
      page(
        res,
        200,
        'Connected',
        `<p><b>${escapeHtml(name)}</b> now uses your own credential. Go back to your app and try again.</p>
<p class="small">You can disconnect it on <a href="${AS_PREFIX}/connections">your connections page</a>.</p>`,
      );
      return;
    }
    if (path === CONNECT_CALLBACK) {
      await this.#callback(res, url, subject);
      return;
    }
    const name = decodeURIComponent(path.slice(CONNECT_PATH.length + 1));
    const backend = this.#options.backends()[name];
    // A token the gateway issues itself (token_exchange) has nothing to connect.
    if (
      !backend?.credential ||
      backend.credential.type === 'token_exchange' ||
      name.includes('/')
    ) {
      page(res, 404, 'Not found', '<p>No backend by that name takes a personal credential.</p>');
      return;
    }
    const meant = url.searchParams.get('for');
    if (meant && meant !== subject) {
      page(
        res,
        403,
        'Another person’s link',
        `<p>This link was made for <b>${escapeHtml(meant)}</b>; you are signed in as <b>${escapeHtml(subject)}</b>. Open it in their session, or connect ${escapeHtml(name)} from your own app.</p>`,
      );
      return;
    }
    if (backend.credential.type === 'oauth') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET' }).end();
        return;
      }
      await this.#startOAuth(res, name, backend, subject);
      return;
    }
    if (req.method === 'POST') {
      await this.#save(req, res, name, backend.credential, subject);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, POST' }).end();
      return;
    }
    this.#form(res, name, backend.credential, subject, url.search);
  }

  #form(
    res: ServerResponse,
    name: string,
    wanted: { label: string; help_url?: string | undefined },
    subject: string,
    search: string,
    error?: string,
    status = 200,
  ): void {
    const help = wanted.help_url
      ? ` <a href="${escapeHtml(wanted.help_url)}" rel="noreferrer">Where do I get one?</a>`
      : '';
    page(
      res,
      status,
      `Connect ${name}`,
      `<p><b>${escapeHtml(name)}</b> runs with each person's own ${escapeHtml(wanted.label)}. Yours, <b>${escapeHtml(subject)}</b>, is kept encrypted and sent only to ${escapeHtml(name)}.${help}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${CONNECT_PATH}/${encodeURIComponent(name)}${escapeHtml(search)}">
<label>${escapeHtml(wanted.label)}<input type="password" name="secret" autocomplete="off" required maxlength="${MAX_SECRET}" autofocus></label>
<button type="submit">Connect</button></form>`,
    );
  }

  async #save(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    wanted: { label: string; help_url?: string | undefined },
    subject: string,
  ): Promise<void> {
    const body = await readSmall(req, MAX_SECRET * 3 + 1024);
    const secret = body === undefined ? undefined : new URLSearchParams(body).get('secret')?.trim();
    const search = new URL(req.url ?? '/', this.#options.issuer).search;
    // A header value or an environment variable: one line of printable characters.
    if (!secret || secret.length > MAX_SECRET || !/^[\x21-\x7e][\x20-\x7e]*$/.test(secret)) {
      this.#form(
        res,
        name,
        wanted,
        subject,
        search,
        `Paste the ${wanted.label}: one line of printable characters, at most ${MAX_SECRET}.`,
        400,
      );
      return;
    }
    await this.#options.vault.set(subject, name, { type: 'secret', value: secret });
    this.#options.onChange(subject, name, 'connected');
    res.writeHead(303, { Location: `${CONNECT_DONE}?backend=${encodeURIComponent(name)}` }).end();
  }

  /**
   * Send the person to the backend's authorization server, with McpClient's OAuthClient as the
   * gateway's client there (discovery from the backend's 401, then DCR, CIMD or the configured
   * client, PKCE, the resource indicator). The sign-in waits in the store under its `state`.
   */
  async #startOAuth(
    res: ServerResponse,
    name: string,
    backend: BackendConfig,
    subject: string,
  ): Promise<void> {
    if (backend.credential?.type !== 'oauth' || !('url' in backend)) return;
    try {
      const client = this.#client(subject, name, backend.credential);
      const { url, pending } = await client.beginSignIn(
        backend.url,
        await challengeOf(backend.url),
      );
      const flow: Flow = { subject, backend: name, pending };
      await this.#options.flows.upsert(pending.state, { ...flow }, FLOW_SEC);
      res.writeHead(303, { Location: url.href }).end();
    } catch (err) {
      const message = (err as Error).message;
      this.#options.onFailure(subject, name, message);
      page(
        res,
        502,
        `Cannot connect ${name}`,
        `<p>The sign-in at ${escapeHtml(name)} could not start: ${escapeHtml(message)}</p>`,
      );
    }
  }

  async #callback(res: ServerResponse, url: URL, subject: string): Promise<void> {
    const state = url.searchParams.get('state') ?? '';
    const flow = state ? ((await this.#options.flows.find(state)) as Flow | undefined) : undefined;
    if (!flow) {
      page(
        res,
        400,
        'Sign-in expired',
        '<p>This sign-in is unknown or took too long. Start again from your app.</p>',
      );
      return;
    }
    if (flow.subject !== subject) {
      page(
        res,
        403,
        'Another person’s sign-in',
        '<p>This sign-in was started by someone else. Start again from your own app.</p>',
      );
      return;
    }
    // Used once: a second arrival of the same redirect finds nothing.
    await this.#options.flows.destroy(state);
    const backend = this.#options.backends()[flow.backend];
    try {
      if (backend?.credential?.type !== 'oauth') {
        throw new Error(`${flow.backend} no longer takes a sign-in`);
      }
      await this.#client(subject, flow.backend, backend.credential).finishSignIn(flow.pending, url);
    } catch (err) {
      const message = (err as Error).message;
      this.#options.onFailure(subject, flow.backend, message);
      page(
        res,
        502,
        `Cannot connect ${flow.backend}`,
        `<p>The sign-in at ${escapeHtml(flow.backend)} did not complete: ${escapeHtml(message)}</p>`,
      );
      return;
    }
    this.#options.onChange(subject, flow.backend, 'connected');
    res
      .writeHead(303, { Location: `${CONNECT_DONE}?backend=${encodeURIComponent(flow.backend)}` })
      .end();
  }

  /** The gateway as `subject`'s OAuth client at `backend`'s authorization server. */
  #client(
    subject: string,
    backend: string,
    wanted: { client_id?: string | undefined; client_secret?: string | undefined },
  ): OAuthClient {
    return new OAuthClient({
      redirectUri: `${this.#options.issuer}${CONNECT_CALLBACK}`,
      clientName: 'MCP gateway',
      store: this.#options.vault.oauthStore(subject, backend),
      ...(wanted.client_id ? { registration: registrationOf(wanted) } : {}),
      // The person is sent on by a redirect; they come back to #callback.
      authorize: async () => {
        throw new Error('the connect page signs in in two halves');
      },
    });
  }
}

function registrationOf(wanted: {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}): OAuthClientRegistration {
  return {
    clientId: wanted.client_id as string,
    ...(wanted.client_secret
      ? { clientSecret: wanted.client_secret, authMethod: 'client_secret_basic' as const }
      : { authMethod: 'none' as const }),
  };
}

/**
 * The backend's `WWW-Authenticate` challenge to a request without a token (its resource
 * metadata URL and scopes); null when it does not answer 401 or cannot be reached (the
 * OAuthClient then looks at the well-known locations).
 */
async function challengeOf(url: string): Promise<string | null> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(10_000),
      redirect: 'manual',
    });
    await res.body?.cancel();
    return res.status === 401 ? res.headers.get('www-authenticate') : null;
  } catch {
    return null;
  }
}
