/**
 * Authorization-server mode (`gateway.authorization_server`): what serve.ts adds to the HTTP
 * server — the provider's endpoints and pages, and the resource server that takes its tokens.
 */
import { CliUsageError, type HttpPage } from '@mcpkit/node';
import type { AuthInfo } from '@mcpkit/protocol';
import { type BackendConfig, type GatewayConfig, isPersonal } from '../config.js';
import { defaultStatePath } from '../events/path.js';
import { describePostgresUrl, isPostgresTarget } from '../events/postgres-url.js';
import type { EventLog } from '../events.js';
import { ConnectPages } from '../vault/connect-page.js';
import { VaultError, VaultKeys } from '../vault/keys.js';
import { CredentialVault } from '../vault/vault.js';
import { DelegatedTokens } from './delegation.js';
import { authorizationServerPage } from './page.js';
import { createAuthorizationServer } from './provider.js';
import { type AuthStore, openSqliteAuthStore } from './store.js';
import { UpstreamSignIn } from './upstream.js';

/** What serve.ts gets: a page for the HTTP server, the issuer its OAuth takes, a close. */
export interface AuthorizationServerMode {
  page: HttpPage;
  /** Where its grants are: revocations go here. */
  store: AuthStore;
  /** Whether a token's grant still stands (asked on every request). */
  stillValid(info: AuthInfo): Promise<boolean>;
  /** The gateway's own origin: the issuer of its tokens. */
  issuer: string;
  /** People's own credentials for backends, when a backend takes them (or gateway.vault is set). */
  vault: CredentialVault | undefined;
  /** Tokens for backends that trust this authorization server, issued on a person's behalf. */
  delegated: DelegatedTokens;
  close(): Promise<void>;
}

/** What {@link startAuthorizationServerMode} takes. */
export interface ModeOptions {
  config: NonNullable<GatewayConfig['gateway']['authorization_server']>;
  /** The runner's values: `public-url`, `host`, `port`. */
  values: Record<string, unknown>;
  /** The scopes a client may ask for (each backend's, and gateway:admin). */
  scopes: readonly string[];
  /** The config file, whose name and path name the default store. */
  configPath: string | undefined;
  events: EventLog;
  /** gateway.vault: where the vault's key comes from. */
  vault?: GatewayConfig['gateway']['vault'];
  /** The backends as configured now (the connect pages read a backend's `credential`). */
  backends(): Readonly<Record<string, BackendConfig>>;
  /** A person connected or disconnected a backend: their open link to it must go. */
  onCredentialChange?(subject: string, backend: string): void;
  /** Whether a path is another endpoint of the gateway's (a virtual server's, `/servers/x/mcp`). */
  alsoResource?(path: string): boolean;
}

/**
 * The provider for this gateway: issuer and resource from `--public-url` (its first URL), else
 * the address it listens on — which must then be known before it listens (not `--port 0`).
 */
export async function startAuthorizationServerMode(
  options: ModeOptions,
): Promise<AuthorizationServerMode> {
  const issuer = ownOrigin(options.values);
  let store: AuthStore;
  const path = options.config.store ?? defaultStatePath('gateway-auth', options.configPath);
  try {
    // A fleet shares one PostgreSQL store; one gateway (or several on one machine) a file.
    store = isPostgresTarget(path)
      ? await (await import('./postgres-store.js')).openPostgresAuthStore(path)
      : openSqliteAuthStore(path);
  } catch (err) {
    const where = isPostgresTarget(path) ? describePostgresUrl(path) : path;
    throw new CliUsageError(
      `gateway.authorization_server.store: cannot use ${where}: ${(err as Error).message}`,
    );
  }
  const events = options.events;
  let credentials: Awaited<ReturnType<typeof openVault>>;
  try {
    credentials = await openVault(options, issuer, store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const provider = await createAuthorizationServer({
    issuer,
    resource: `${issuer}/mcp`,
    // Another endpoint of this gateway's (a virtual server's), by its path.
    ...(options.alsoResource
      ? {
          alsoResource: (url: string) =>
            url.startsWith(`${issuer}/`) &&
            (options.alsoResource as (path: string) => boolean)(url.slice(issuer.length)),
        }
      : {}),
    scopes: options.scopes,
    users: options.config.users ?? [],
    store,
    accessTokenTtl: options.config.access_token_ttl,
  }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const page = authorizationServerPage({
    provider,
    users: options.config.users ?? [],
    store,
    ...(options.config.upstream
      ? {
          upstream: {
            name: options.config.upstream.name,
            issuer: options.config.upstream.issuer,
            signIn: new UpstreamSignIn({
              issuer: options.config.upstream.issuer,
              clientId: options.config.upstream.client_id,
              ...(options.config.upstream.client_secret
                ? { clientSecret: options.config.upstream.client_secret }
                : {}),
              usernameClaim: options.config.upstream.username_claim,
              origin: issuer,
            }),
          },
        }
      : {}),
    ...(credentials
      ? {
          connect: {
            pages: credentials.pages,
            connected: (subject: string) => credentials.vault.connected(subject),
            disconnect: async (subject: string, backend: string) => {
              if (!(await credentials.vault.delete(subject, backend))) return;
              credentials.changed(subject, backend, 'disconnected');
            },
          },
        }
      : {}),
    onEvent: (event) =>
      events.record({
        event_type: `auth.${event.kind}`,
        status:
          event.kind === 'sign_in_failed' || event.kind === 'consent_denied'
            ? 'failure'
            : 'success',
        source: 'gateway',
        data: {
          ...(event.subject ? { subject: event.subject } : {}),
          ...(event.clientId ? { client_id: event.clientId } : {}),
          ...(event.scopes ? { scopes: event.scopes } : {}),
        },
      }),
  });
  const delegated = await DelegatedTokens.create(store, issuer);
  const prune = setInterval(() => void store.prune().catch(() => undefined), 3600_000);
  prune.unref();
  return {
    page,
    store,
    // The person's consent to the token's client, still there: a revocation takes effect at the
    // next request, not when the token expires.
    stillValid: async (info) => {
      const clientId = (info.data as { claims?: { client_id?: unknown } } | undefined)?.claims
        ?.client_id;
      return typeof clientId === 'string' && (await store.hasGrant(info.subject, clientId));
    },
    issuer,
    vault: credentials?.vault,
    delegated,
    close: async () => {
      clearInterval(prune);
      await store.close();
    },
  };
}

/** `--public-url`'s first origin, else `http://<host>:<port>` when both are known. */
function ownOrigin(values: Record<string, unknown>): string {
  const publicUrl = String(values['public-url'] ?? '')
    .split(',')
    .map((u) => u.trim())
    .find(Boolean);
  if (publicUrl) {
    if (!URL.canParse(publicUrl))
      throw new CliUsageError(`--public-url: '${publicUrl}' is not a URL`);
    return new URL(publicUrl).origin;
  }
  const host = String(values.host ?? '127.0.0.1');
  const port = Number(values.port ?? 3000);
  if (port === 0 || host === '0.0.0.0' || host === '::') {
    throw new CliUsageError(
      'gateway.authorization_server needs the URL clients reach the gateway at: --public-url, or a fixed --port on a named host',
    );
  }
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The credential vault, when a backend takes each person's own credential (or gateway.vault is
 * set): its key loaded — a missing or malformed one stops the start here, before anything is
 * sealed — rows of an earlier key re-sealed under the current one, and its connect pages.
 */
async function openVault(options: ModeOptions, issuer: string, store: AuthStore) {
  // Tokens the gateway issues itself (token_exchange) are not kept: no vault for them alone.
  const wanted =
    options.vault !== undefined ||
    Object.values(options.backends()).some(
      (b) => isPersonal(b) && b.credential?.type !== 'token_exchange',
    );
  if (!wanted) return undefined;
  let keys: VaultKeys;
  try {
    keys = VaultKeys.load({
      ...(options.vault?.key_env ? { keyEnv: options.vault.key_env } : {}),
      ...(options.vault?.key_file ? { keyFile: options.vault.key_file } : {}),
      ...(options.vault?.previous_keys_env
        ? { previousKeysEnv: options.vault.previous_keys_env }
        : {}),
    });
  } catch (err) {
    if (VaultError.is(err)) throw new CliUsageError(err.message);
    throw err;
  }
  const vault = new CredentialVault(store.vault, keys);
  const events = options.events;
  const resealed = await vault.reseal();
  if (resealed.resealed > 0 || resealed.unreadable > 0) {
    events.record({
      event_type: 'vault.resealed',
      status: resealed.unreadable > 0 ? 'failure' : 'success',
      source: 'gateway',
      data: { ...resealed, key_id: keys.currentId },
    });
  }
  const changed = (subject: string, backend: string, change: 'connected' | 'disconnected') => {
    events.record({
      event_type: `credential.${change}`,
      status: 'success',
      source: 'gateway',
      backend,
      data: { subject },
    });
    options.onCredentialChange?.(subject, backend);
  };
  const pages = new ConnectPages({
    vault,
    issuer,
    flows: store.adapter('VaultConnectFlow'),
    backends: options.backends,
    onChange: changed,
    onFailure: (subject, backend, error) =>
      events.record({
        event_type: 'credential.connect_failed',
        status: 'failure',
        source: 'gateway',
        backend,
        data: { subject, error },
      }),
  });
  return { vault, pages, changed };
}
