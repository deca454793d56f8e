/**
 * Where the gateway's authorization server keeps what must outlive a restart: oidc-provider's
 * models (registered clients, grants, sessions, codes, refresh tokens) and its signing keys. One
 * SQLite file by default; every instance of a fleet must share one store, or a token signed by
 * one instance is unknown to the next.
 */
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../private-file.js';
import type { SealedRow, VaultRows } from '../vault/vault.js';

/** One oidc-provider model's rows (oidc-provider's Adapter contract). */
export interface ModelAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** A signing key as stored: its private JWK and when it was made. */
export interface StoredKey {
  kid: string;
  jwk: Record<string, unknown>;
  createdAt: number;
}

/** A person's consent to one client, as stored. */
export interface GrantRecord {
  grantId: string;
  accountId: string;
  clientId: string;
  /** When it expires, ms since the epoch (undefined: never). */
  expiresAt?: number;
}

/** The authorization server's persistent state. */
export interface AuthStore {
  /** oidc-provider's adapter for `model` (`Client`, `Grant`, `Session`, …). */
  adapter(model: string): ModelAdapter;
  /** Every signing key, newest first. */
  keys(): Promise<StoredKey[]>;
  /** Keep a new signing key. */
  addKey(key: StoredKey): Promise<void>;
  /** Forget keys made before `before` (ms), keeping at least the newest. */
  retireKeys(before: number): Promise<void>;
  /** The grants (a person's consent to a client) there are, of one person or of everyone. */
  grants(accountId?: string): Promise<GrantRecord[]>;
  /** Whether `accountId` still has a grant for `clientId` (revoked: no). */
  hasGrant(accountId: string, clientId: string): Promise<boolean>;
  /**
   * Revoke a person's grants (to one client, or to all): the grants and everything issued under
   * them (refresh tokens, codes). Returns how many grants went.
   */
  revokeGrants(accountId: string, clientId?: string): Promise<number>;
  /** Remember a person who signed in upstream: their account id and claims (email, groups). */
  saveAccount(id: string, claims: Record<string, unknown>): Promise<void>;
  /** A person who signed in upstream before; undefined for anyone else. */
  account(id: string): Promise<Record<string, unknown> | undefined>;
  /** A named secret, made by `make` the first time (the first instance of a fleet wins). */
  secret(name: string, make: () => string): Promise<string>;
  /**
   * Run `fn` while no other instance sharing this store runs one under `name` (PostgreSQL: an
   * advisory lock; SQLite, one process: at once) — making the first signing key, say.
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The credential vault's sealed rows (see CredentialVault). */
  readonly vault: VaultRows;
  /** Drop rows past their expiry. */
  prune(): Promise<void>;
  close(): Promise<void>;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS oidc_models (
    model       TEXT NOT NULL,
    id          TEXT NOT NULL,
    payload     TEXT NOT NULL,
    grant_id    TEXT,
    user_code   TEXT,
    uid         TEXT,
    account_id  TEXT,
    client_id   TEXT,
    expires_at  INTEGER,
    consumed_at INTEGER,
    PRIMARY KEY (model, id)
  );
  CREATE INDEX IF NOT EXISTS oidc_models_grant ON oidc_models (grant_id);
  CREATE INDEX IF NOT EXISTS oidc_models_uid ON oidc_models (uid);
  CREATE INDEX IF NOT EXISTS oidc_models_user_code ON oidc_models (user_code);
  CREATE INDEX IF NOT EXISTS oidc_models_expires ON oidc_models (expires_at);
  CREATE INDEX IF NOT EXISTS oidc_models_account ON oidc_models (model, account_id, client_id);
  CREATE TABLE IF NOT EXISTS oidc_accounts (
    id         TEXT PRIMARY KEY,
    claims     TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS oidc_secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS vault_credentials (
    owner      TEXT NOT NULL,
    name       TEXT NOT NULL,
    key_id     TEXT NOT NULL,
    sealed     BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (owner, name)
  );
  CREATE TABLE IF NOT EXISTS oidc_keys (
    kid        TEXT PRIMARY KEY,
    jwk        TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
`;

interface Row {
  payload: string;
  expires_at: number | null;
  consumed_at: number | null;
}

/**
 * The store in one SQLite file (created 0600 in a 0700 directory: it holds signing keys and
 * refresh tokens), or `:memory:`. Synchronous better-sqlite3 on the event loop: sign-ins and
 * token grants are rare next to MCP calls, and each statement is an indexed point query.
 */
export function openSqliteAuthStore(path: string): AuthStore {
  ensurePrivateFile(path);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
  } catch (err) {
    db.close();
    throw err;
  }
  const now = () => Date.now();
  const get = db.prepare<[string, string], Row>(
    'SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND id = ?',
  );
  const byUid = db.prepare<[string, string], Row>(
    'SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND uid = ?',
  );
  const byUserCode = db.prepare<[string, string], Row>(
    'SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = ? AND user_code = ?',
  );
  const put = db.prepare(
    `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at, consumed_at)
     VALUES (@model, @id, @payload, @grantId, @userCode, @uid, @accountId, @clientId, @expiresAt, NULL)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
       user_code = excluded.user_code, uid = excluded.uid, account_id = excluded.account_id,
       client_id = excluded.client_id, expires_at = excluded.expires_at`,
  );
  const consume = db.prepare(
    'UPDATE oidc_models SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL',
  );
  const destroy = db.prepare('DELETE FROM oidc_models WHERE model = ? AND id = ?');
  const revoke = db.prepare('DELETE FROM oidc_models WHERE grant_id = ?');
  const prune = db.prepare(
    'DELETE FROM oidc_models WHERE expires_at IS NOT NULL AND expires_at <= ?',
  );
  const keys = db.prepare<[], { kid: string; jwk: string; created_at: number }>(
    'SELECT kid, jwk, created_at FROM oidc_keys ORDER BY created_at DESC, kid DESC',
  );
  const addKey = db.prepare('INSERT INTO oidc_keys (kid, jwk, created_at) VALUES (?, ?, ?)');
  const retire = db.prepare(
    'DELETE FROM oidc_keys WHERE created_at < ? AND kid <> (SELECT kid FROM oidc_keys ORDER BY created_at DESC, kid DESC LIMIT 1)',
  );

  const grantsOf = db.prepare<
    [number, string | null, string | null],
    { id: string; account_id: string; client_id: string; expires_at: number | null }
  >(
    `SELECT id, account_id, client_id, expires_at FROM oidc_models
     WHERE model = 'Grant' AND (expires_at IS NULL OR expires_at > ?) AND (? IS NULL OR account_id = ?)
     ORDER BY account_id, client_id`,
  );
  const hasGrant = db.prepare<[string, string, number], { n: number }>(
    `SELECT 1 AS n FROM oidc_models WHERE model = 'Grant' AND account_id = ? AND client_id = ?
     AND (expires_at IS NULL OR expires_at > ?) LIMIT 1`,
  );
  const grantIds = db.prepare<[string, string | null, string | null], { id: string }>(
    `SELECT id FROM oidc_models WHERE model = 'Grant' AND account_id = ? AND (? IS NULL OR client_id = ?)`,
  );
  const dropGrant = db.prepare(
    `DELETE FROM oidc_models WHERE (model = 'Grant' AND id = ?) OR grant_id = ?`,
  );
  const revokeAll = db.transaction((accountId: string, clientId: string | null) => {
    const ids = grantIds.all(accountId, clientId, clientId).map((r) => r.id);
    for (const id of ids) dropGrant.run(id, id);
    return ids.length;
  });
  const putAccount = db.prepare(
    `INSERT INTO oidc_accounts (id, claims, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET claims = excluded.claims, updated_at = excluded.updated_at`,
  );
  const getAccount = db.prepare<[string], { claims: string }>(
    'SELECT claims FROM oidc_accounts WHERE id = ?',
  );
  const putSecret = db.prepare(
    'INSERT INTO oidc_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING',
  );
  const getSecret = db.prepare<[string], { value: string }>(
    'SELECT value FROM oidc_secrets WHERE name = ?',
  );

  const vault = sqliteVaultRows(db);

  const read = (row: Row | undefined): Record<string, unknown> | undefined => {
    if (!row || (row.expires_at !== null && row.expires_at <= now())) return undefined;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    // oidc-provider reads `consumed` (epoch seconds) to refuse a code or token used twice.
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  };

  return {
    adapter: (model) => ({
      async upsert(id, payload, expiresIn) {
        put.run({
          model,
          id,
          payload: JSON.stringify(payload),
          grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
          userCode: typeof payload.userCode === 'string' ? payload.userCode : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          accountId: typeof payload.accountId === 'string' ? payload.accountId : null,
          clientId: typeof payload.clientId === 'string' ? payload.clientId : null,
          expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : null,
        });
      },
      find: async (id) => read(get.get(model, id)),
      findByUid: async (uid) => read(byUid.get(model, uid)),
      findByUserCode: async (userCode) => read(byUserCode.get(model, userCode)),
      async consume(id) {
        consume.run(Math.floor(now() / 1000), model, id);
      },
      async destroy(id) {
        destroy.run(model, id);
      },
      async revokeByGrantId(grantId) {
        revoke.run(grantId);
      },
    }),
    keys: async () =>
      keys.all().map((k) => ({ kid: k.kid, jwk: JSON.parse(k.jwk), createdAt: k.created_at })),
    async addKey(key) {
      addKey.run(key.kid, JSON.stringify(key.jwk), key.createdAt);
    },
    async retireKeys(before) {
      retire.run(before);
    },
    async grants(accountId) {
      const account = accountId ?? null;
      return grantsOf.all(now(), account, account).map((r) => ({
        grantId: r.id,
        accountId: r.account_id,
        clientId: r.client_id,
        ...(r.expires_at === null ? {} : { expiresAt: r.expires_at }),
      }));
    },
    async hasGrant(accountId, clientId) {
      return hasGrant.get(accountId, clientId, now()) !== undefined;
    },
    async revokeGrants(accountId, clientId) {
      return revokeAll(accountId, clientId ?? null);
    },
    async saveAccount(id, claims) {
      putAccount.run(id, JSON.stringify(claims), now());
    },
    async account(id) {
      const row = getAccount.get(id);
      return row ? (JSON.parse(row.claims) as Record<string, unknown>) : undefined;
    },
    async secret(name, make) {
      putSecret.run(name, make());
      return (getSecret.get(name) as { value: string }).value;
    },
    vault,
    exclusive: (_name, fn) => fn(),
    async prune() {
      prune.run(now());
    },
    async close() {
      db.close();
    },
  };
}

function sqliteVaultRows(db: Database.Database): VaultRows {
  type Stored = { owner: string; name: string; key_id: string; sealed: Buffer; updated_at: number };
  const toRow = (r: Stored): SealedRow => ({
    owner: r.owner,
    name: r.name,
    keyId: r.key_id,
    sealed: r.sealed,
    updatedAt: r.updated_at,
  });
  const get = db.prepare<[string, string], Stored>(
    'SELECT owner, name, key_id, sealed, updated_at FROM vault_credentials WHERE owner = ? AND name = ?',
  );
  const put = db.prepare(
    `INSERT INTO vault_credentials (owner, name, key_id, sealed, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (owner, name) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed,
       updated_at = excluded.updated_at`,
  );
  const del = db.prepare('DELETE FROM vault_credentials WHERE owner = ? AND name = ?');
  const list = db.prepare<[string], { name: string; updated_at: number }>(
    'SELECT name, updated_at FROM vault_credentials WHERE owner = ? ORDER BY updated_at DESC, name',
  );
  const others = db.prepare<[string], Stored>(
    'SELECT owner, name, key_id, sealed, updated_at FROM vault_credentials WHERE key_id <> ?',
  );
  return {
    get: async (owner, name) => {
      const row = get.get(owner, name);
      return row ? toRow(row) : undefined;
    },
    put: async (row) => {
      put.run(row.owner, row.name, row.keyId, row.sealed, row.updatedAt);
    },
    delete: async (owner, name) => del.run(owner, name).changes > 0,
    list: async (owner) => list.all(owner).map((r) => ({ name: r.name, updatedAt: r.updated_at })),
    sealedWithOtherThan: async (keyId) => others.all(keyId).map(toRow),
  };
}
