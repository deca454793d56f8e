/**
 * The per-person credential vault: for each (person, backend), what the backend needs from that
 * person — an API key or token sent as a header, a secret for a per-person process's
 * environment, or the OAuth grant the gateway holds as that person's client — sealed with
 * AES-256-GCM ({@link VaultKeys}) in the authorization server's store.
 */
import type { OAuthClientRegistration, OAuthStore, OAuthTokens } from '@mcpkit/protocol';
import type { VaultKeys } from './keys.js';

/** One sealed row as the store keeps it. */
export interface SealedRow {
  owner: string;
  name: string;
  keyId: string;
  sealed: Buffer;
  updatedAt: number;
}

/** Where sealed rows live (the authorization server's store: SQLite, or PostgreSQL for a fleet). */
export interface VaultRows {
  get(owner: string, name: string): Promise<SealedRow | undefined>;
  put(row: SealedRow): Promise<void>;
  /** Whether there was one. */
  delete(owner: string, name: string): Promise<boolean>;
  /** The names `owner` holds rows for, newest first (no secrets). */
  list(owner: string): Promise<{ name: string; updatedAt: number }[]>;
  /** Every row sealed with a key other than `keyId` (for re-sealing after a rotation). */
  sealedWithOtherThan(keyId: string): Promise<SealedRow[]>;
}

/** What one person gave for one backend. */
export type Credential = { type: 'secret'; value: string } | { type: 'oauth'; tokens: OAuthTokens };

/** The owner of the gateway's own rows (its OAuth client registrations at backends' servers). */
const GATEWAY_OWNER = '';

/** The credentials of every person, sealed. */
export class CredentialVault {
  readonly #rows: VaultRows;
  readonly #keys: VaultKeys;

  constructor(rows: VaultRows, keys: VaultKeys) {
    this.#rows = rows;
    this.#keys = keys;
  }

  /**
   * `subject`'s credential for `backend`; undefined when they have none. A row that does not
   * open (tampered, moved, its key gone) throws a VaultError: never a guess, never someone
   * else's.
   */
  async get(subject: string, backend: string): Promise<Credential | undefined> {
    const row = await this.#rows.get(subject, backend);
    if (!row) return undefined;
    return JSON.parse(
      this.#keys.open(row.keyId, row.sealed, context(subject, backend)),
    ) as Credential;
  }

  /** Keep `credential` as `subject`'s for `backend` (replacing theirs). */
  async set(subject: string, backend: string, credential: Credential): Promise<void> {
    if (subject === GATEWAY_OWNER) throw new Error('a credential belongs to a person');
    await this.#put(subject, backend, JSON.stringify(credential));
  }

  /** Forget `subject`'s credential for `backend`; whether there was one. */
  delete(subject: string, backend: string): Promise<boolean> {
    return this.#rows.delete(subject, backend);
  }

  /** The backends `subject` has given a credential for (names only). */
  connected(subject: string): Promise<{ name: string; updatedAt: number }[]> {
    return this.#rows.list(subject);
  }

  /**
   * Re-seal every row sealed with an earlier key under the current one (the second step of a
   * rotation; see the README). Rows that do not open are left as they are and counted.
   */
  async reseal(): Promise<{ resealed: number; unreadable: number }> {
    let resealed = 0;
    let unreadable = 0;
    for (const row of await this.#rows.sealedWithOtherThan(this.#keys.currentId)) {
      let plain: string;
      try {
        plain = this.#keys.open(row.keyId, row.sealed, context(row.owner, row.name));
      } catch {
        unreadable++;
        continue;
      }
      await this.#put(row.owner, row.name, plain);
      resealed++;
    }
    return { resealed, unreadable };
  }

  /**
   * An OAuthStore for McpClient's OAuthClient acting as `subject` at `backend`: its tokens are
   * the person's vault row; its registration at an authorization server is the gateway's own,
   * shared by everyone (one client per server, as a hosted connector registers once).
   */
  oauthStore(subject: string, backend: string): OAuthStore {
    return {
      tokens: async () => {
        const held = await this.get(subject, backend);
        return held?.type === 'oauth' ? held.tokens : undefined;
      },
      saveTokens: async (_resource, tokens) => {
        if (tokens) await this.set(subject, backend, { type: 'oauth', tokens });
        else await this.delete(subject, backend);
      },
      registration: async (issuer) => {
        const row = await this.#rows.get(GATEWAY_OWNER, registrationName(issuer));
        if (!row) return undefined;
        const plain = this.#keys.open(row.keyId, row.sealed, context(GATEWAY_OWNER, row.name));
        return JSON.parse(plain) as OAuthClientRegistration;
      },
      saveRegistration: async (issuer, registration) => {
        await this.#put(GATEWAY_OWNER, registrationName(issuer), JSON.stringify(registration));
      },
    };
  }

  async #put(owner: string, name: string, plain: string): Promise<void> {
    const { keyId, sealed } = this.#keys.seal(plain, context(owner, name));
    await this.#rows.put({ owner, name, keyId, sealed, updatedAt: Date.now() });
  }
}

/** What a row is bound to (GCM's additional data): a row moved to another person does not open. */
function context(owner: string, name: string): string {
  return `mcpkit-vault/1\0${owner}\0${name}`;
}

function registrationName(issuer: string): string {
  return `oauth-client:${issuer}`;
}
