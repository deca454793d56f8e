/**
 * Each person's own links to the backends that need their credential (or their own process):
 * opened on a person's first call with what the vault holds for them, shared by that person's
 * calls, closed — a per-person process stopped — when idle, and never shared between people.
 * The backend's shared link still lists what the server offers; only calls go this way.
 */
import {
  type JsonRpcParams,
  McpErrorCode,
  type McpRequestOptions,
  OAuthClient,
  RpcError,
} from '@mcpkit/protocol';
import type { Backend } from '../backends/backend.js';
import { type BackendLink, type LinkEvents, openLink } from '../backends/link.js';
import { type BackendConfig, isStdio, type RunnableBackendConfig } from '../config.js';
import { connectRequired, NeedsConnect } from './connect-required.js';
import { VaultError } from './keys.js';
import type { Credential, CredentialVault } from './vault.js';

/** What a forwarded call is sent through: a backend's shared link, or a person's own. */
export interface CallTarget {
  call<R>(
    method: string,
    params: JsonRpcParams | undefined,
    options?: McpRequestOptions,
  ): Promise<R>;
}

/** What {@link PersonalLinks} takes. */
export interface PersonalLinksOptions {
  /** People's credentials (none needed when every personal backend takes delegated tokens). */
  vault: CredentialVault | undefined;
  /** Links open at once, across people and backends. */
  maxLinks: number;
  /** A link without a call for this long is closed. */
  idleMs: number;
  /** The page where `subject` connects `backend` (the URL a missing credential sends them to). */
  connectUrl(backend: string, subject: string): string;
  /** Where a backend's authorization server sends the person back (the OAuth connect flow). */
  oauthRedirect: string;
  /**
   * A token for `audience` on `subject`'s behalf, issued by the gateway's own authorization
   * server (backends with `credential.type: "token_exchange"`).
   */
  delegate?(
    subject: string,
    audience: string,
    scope: string | undefined,
    ttlSec: number,
  ): Promise<{ token: string; expiresAt: number }>;
  /** What the backend's own link would be told (notifications, requests), and events. */
  events(backend: Backend): Pick<LinkEvents, 'notification' | 'request' | 'stderr'>;
  /** Told of a link opened or closed, a credential that could not be used. */
  onEvent(
    backend: Backend,
    type: string,
    status: 'success' | 'failure',
    data: Record<string, unknown>,
  ): void;
}

interface Entry {
  backend: Backend;
  subject: string;
  /** Resolves when the link has initialized. */
  ready: Promise<BackendLink>;
  link: BackendLink | undefined;
  lastUsed: number;
  inflight: number;
  /** When its credential stops being good (a delegated token): a new link before then. */
  renewAt?: number;
}

/** The notifications of a person's link that reach a client (its lists come from the shared link). */
const PERSONAL_NOTIFICATIONS = new Set([
  'notifications/message',
  'notifications/progress',
  'notifications/cancelled',
]);

/** The per-person links of every backend with a `credential` or `per_identity`. */
export class PersonalLinks {
  readonly #options: PersonalLinksOptions;
  readonly #links = new Map<string, Entry>();
  /** Links replaced while calls were in flight on them: closed when the last one ends. */
  readonly #retiring = new Set<Entry>();
  readonly #sweep: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(options: PersonalLinksOptions) {
    this.#options = options;
    this.#sweep = setInterval(
      () => this.#closeIdle(),
      Math.max(50, Math.min(30_000, options.idleMs / 2)),
    );
    this.#sweep.unref();
  }

  /** The backends `subject` has given a credential for. */
  async connected(subject: string): Promise<Set<string>> {
    const held = (await this.#options.vault?.connected(subject)) ?? [];
    return new Set(held.map((c) => c.name));
  }

  /** The people with an open link to `backend`. */
  people(backend: string): string[] {
    return [...this.#links.values()]
      .filter((e) => e.backend.name === backend)
      .map((e) => e.subject);
  }

  /**
   * Where `subject`'s call to `backend` goes: their own link, opened if need be. A person who
   * has not connected the backend (or whose credential no longer works) gets the -32042 URL
   * elicitation to its connect page; a caller who is nobody (no signed-in person) is refused.
   */
  async target(backend: Backend, subject: string | undefined): Promise<CallTarget> {
    if (this.#closed) throw new RpcError(McpErrorCode.ServerError, 'The gateway is stopping');
    if (!subject) {
      throw new RpcError(
        McpErrorCode.ServerError,
        `Backend '${backend.name}' runs with each person's own credential: sign in to the gateway to call it`,
        { backend: backend.name },
      );
    }
    const key = linkKey(backend.name, subject);
    let entry = this.#links.get(key);
    if (entry && (entry.backend !== backend || (entry.renewAt ?? Infinity) <= Date.now())) {
      // A changed backend, or a token about to expire: a new link; the old one finishes the
      // calls it has in flight and then closes.
      this.#retire(key, entry);
      entry = undefined;
    }
    entry ??= await this.#open(key, backend, subject);
    entry.lastUsed = Date.now();
    const link = await entry.ready;
    const opened = entry;
    return {
      call: async <R>(
        method: string,
        params: JsonRpcParams | undefined,
        options?: McpRequestOptions,
      ): Promise<R> => {
        opened.inflight++;
        opened.lastUsed = Date.now();
        try {
          return await backend.callOn<R>(link.client, method, params, options);
        } catch (err) {
          throw this.#failure(key, opened, err);
        } finally {
          opened.inflight--;
          opened.lastUsed = Date.now();
          if (opened.inflight === 0 && this.#retiring.delete(opened)) void opened.link?.close();
        }
      },
    };
  }

  /** Close `subject`'s link to `backend` (their credential changed or went). */
  async forget(backend: string, subject: string): Promise<void> {
    const key = linkKey(backend, subject);
    const entry = this.#links.get(key);
    if (entry) await this.#drop(key, entry, 'credential_changed');
  }

  /** Close every person's link to `backend` (it was stopped, removed or changed). */
  async closeBackend(backend: string): Promise<void> {
    await Promise.all(
      [...this.#links]
        .filter(([, e]) => e.backend.name === backend)
        .map(([key, e]) => this.#drop(key, e, 'backend_stopped')),
    );
  }

  /** Close every link; no new one opens. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    for (const entry of this.#retiring) void entry.link?.close();
    this.#retiring.clear();
    await Promise.all([...this.#links].map(([key, e]) => this.#drop(key, e, 'gateway_stopped')));
  }

  async #open(key: string, backend: Backend, subject: string): Promise<Entry> {
    const { credential, renewAt } = await this.#credential(backend, subject);
    // Two first calls of one person wait for one link (checked again after the await above).
    const existing = this.#links.get(key);
    if (existing) return existing;
    this.#makeRoom();
    const entry: Entry = {
      backend,
      subject,
      ready: undefined as unknown as Promise<BackendLink>,
      link: undefined,
      lastUsed: Date.now(),
      inflight: 0,
      ...(renewAt === undefined ? {} : { renewAt }),
    };
    this.#links.set(key, entry);
    entry.ready = this.#start(key, entry, credential);
    // The first caller sees the failure; the entry is gone for the next.
    entry.ready.catch(() => undefined);
    return entry;
  }

  /** The person's credential for `backend`, or the error that sends them to connect it. */
  async #credential(
    backend: Backend,
    subject: string,
  ): Promise<{ credential?: Credential; renewAt?: number }> {
    const wanted = backend.config.credential;
    if (!wanted) return {};
    if (wanted.type === 'token_exchange') {
      if (!this.#options.delegate || !('url' in backend.config)) {
        throw new RpcError(
          McpErrorCode.ServerError,
          `Backend '${backend.name}' takes tokens of the gateway's own authorization server, which is off`,
        );
      }
      const { token, expiresAt } = await this.#options.delegate(
        subject,
        backend.config.url,
        wanted.scope,
        wanted.ttl_sec,
      );
      // Renewed with a fifth of its life left: a call never starts with a token about to lapse.
      return {
        credential: { type: 'secret', value: token },
        renewAt: expiresAt - (wanted.ttl_sec * 1000) / 5,
      };
    }
    const vault = this.#options.vault;
    if (!vault) {
      throw new RpcError(McpErrorCode.ServerError, 'the credential vault is off');
    }
    let held: Credential | undefined;
    try {
      held = await vault.get(subject, backend.name);
    } catch (err) {
      if (!VaultError.is(err)) throw err;
      this.#options.onEvent(backend, 'credential.unreadable', 'failure', {
        subject,
        reason: err.kind,
      });
      throw this.#connect(
        backend,
        subject,
        `Your stored credential for ${backend.name} cannot be used (${err.message}): connect it again.`,
      );
    }
    const fits = wanted.type === 'oauth' ? held?.type === 'oauth' : held?.type === 'secret';
    if (!fits || !held) throw this.#connect(backend, subject);
    return { credential: held };
  }

  async #start(
    key: string,
    entry: Entry,
    credential: Credential | undefined,
  ): Promise<BackendLink> {
    const { backend, subject } = entry;
    const forward = this.#options.events(backend);
    const events: LinkEvents = {
      notification: (method, params) => {
        if (PERSONAL_NOTIFICATIONS.has(method)) forward.notification(method, params);
      },
      request: (method, params) => forward.request(method, params),
      noise: () => {},
      stderr: (text) => forward.stderr(text),
    };
    const vault = this.#options.vault;
    const oauth =
      backend.config.credential?.type === 'oauth' && vault
        ? new OAuthClient({
            redirectUri: this.#options.oauthRedirect,
            // Inside a call nobody can be sent to sign in: the grant is gone or refused, and
            // the person connects again on the connect page.
            authorize: async () => {
              throw new NeedsConnect(backend.name);
            },
            store: vault.oauthStore(subject, backend.name),
          })
        : undefined;
    // A personal backend is a stdio or HTTP one (a registry backend takes no credential): what
    // it runs as is its config.
    const runnable = backend.runnable as RunnableBackendConfig;
    const opened = openLink(personalConfig(runnable, credential), events, undefined, oauth);
    void opened.link.exited.then(() => {
      if (this.#links.get(key) === entry) {
        this.#links.delete(key);
        this.#options.onEvent(backend, 'person.link_closed', 'success', {
          subject,
          reason: 'exited',
        });
      }
    });
    try {
      await opened.connect(backend.timeoutMs);
    } catch (err) {
      if (this.#links.get(key) === entry) this.#links.delete(key);
      await opened.link.close().catch(() => undefined);
      throw this.#failure(key, entry, err);
    }
    entry.link = opened.link;
    if (this.#links.get(key) !== entry) {
      // Forgotten while it started (the person disconnected): not used.
      await opened.link.close();
      throw new RpcError(
        McpErrorCode.ServerError,
        `Your link to ${backend.name} was closed; try again`,
      );
    }
    this.#options.onEvent(backend, 'person.link_opened', 'success', {
      subject,
      ...(opened.link.pid === undefined ? {} : { pid: opened.link.pid }),
    });
    return opened.link;
  }

  /**
   * What a failed call of a person's link becomes: a grant that no longer works (the backend's
   * authorization server refused the refresh, or the token) sends the person to connect again;
   * anything else is the backend's error.
   */
  #failure(key: string, entry: Entry, err: unknown): unknown {
    if (!causedByNeedsConnect(err)) return err;
    const { backend, subject } = entry;
    this.#options.onEvent(backend, 'credential.refresh_failed', 'failure', { subject });
    if (this.#links.get(key) === entry) void this.#drop(key, entry, 'credential_refused');
    void this.#options.vault?.delete(subject, backend.name).catch(() => undefined);
    return this.#connect(
      backend,
      subject,
      `Your sign-in at ${backend.name} has expired or was revoked: connect it again.`,
    );
  }

  #connect(backend: Backend, subject: string, message?: string): RpcError {
    return connectRequired(
      backend.name,
      subject,
      this.#options.connectUrl(backend.name, subject),
      message ??
        `${backend.name} needs your own ${labelOf(backend.config)}: open the link to connect it, then try again.`,
    );
  }

  /** At the limit: the least recently used link without a call in flight goes. */
  #makeRoom(): void {
    if (this.#links.size < this.#options.maxLinks) return;
    let oldest: [string, Entry] | undefined;
    for (const pair of this.#links) {
      if (pair[1].inflight > 0 || !pair[1].link) continue;
      if (!oldest || pair[1].lastUsed < oldest[1].lastUsed) oldest = pair;
    }
    if (!oldest) {
      throw new RpcError(
        McpErrorCode.ServerError,
        `Every per-person link is busy (${this.#options.maxLinks}, gateway.per_person.max_links); try again shortly`,
        { retryInMs: 1000 },
      );
    }
    void this.#drop(oldest[0], oldest[1], 'evicted');
  }

  #closeIdle(): void {
    const cutoff = Date.now() - this.#options.idleMs;
    for (const [key, entry] of this.#links) {
      if (entry.inflight === 0 && entry.link && entry.lastUsed <= cutoff) {
        void this.#drop(key, entry, 'idle');
      }
    }
  }

  /** Take `entry` out of use now, and close it once no call is in flight on it. */
  #retire(key: string, entry: Entry): void {
    if (entry.inflight === 0) {
      void this.#drop(key, entry, 'renewed');
      return;
    }
    if (this.#links.get(key) === entry) this.#links.delete(key);
    this.#retiring.add(entry);
  }

  async #drop(key: string, entry: Entry, reason: string): Promise<void> {
    if (this.#links.get(key) !== entry) return;
    this.#links.delete(key);
    const link = entry.link ?? (await entry.ready.catch(() => undefined));
    if (!link) return;
    this.#options.onEvent(entry.backend, 'person.link_closed', 'success', {
      subject: entry.subject,
      reason,
    });
    await link.close().catch(() => undefined);
  }
}

/** The backend's config as one person's link uses it: their secret in the header or the env. */
function personalConfig(
  config: RunnableBackendConfig,
  credential: Credential | undefined,
): RunnableBackendConfig {
  const wanted = config.credential;
  if (isStdio(config)) {
    if (wanted?.type !== 'env' || credential?.type !== 'secret') return config;
    return { ...config, env: { ...config.env, [wanted.variable]: credential.value } };
  }
  if (wanted?.type === 'token_exchange' && credential?.type === 'secret') {
    return {
      ...config,
      headers: {
        ...withoutHeader(config.headers, 'authorization'),
        Authorization: `Bearer ${credential.value}`,
      },
    };
  }
  if (wanted?.type === 'header' && credential?.type === 'secret') {
    const value = wanted.scheme ? `${wanted.scheme} ${credential.value}` : credential.value;
    return {
      ...config,
      headers: { ...withoutHeader(config.headers, wanted.header), [wanted.header]: value },
    };
  }
  // An OAuth grant: the OAuthClient sends its token; the operator's Authorization is not sent.
  if (wanted?.type === 'oauth') {
    return { ...config, headers: withoutHeader(config.headers, 'authorization') };
  }
  return config;
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  const lower = name.toLowerCase();
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== lower));
}

function labelOf(config: BackendConfig): string {
  const wanted = config.credential;
  if (!wanted) return 'credential';
  return wanted.type === 'oauth' || wanted.type === 'token_exchange' ? 'sign-in' : wanted.label;
}

function causedByNeedsConnect(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; depth++) {
    if (NeedsConnect.is(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A person's link to a backend, by the names of both. */
function linkKey(backend: string, subject: string): string {
  return `${backend}\0${subject}`;
}
