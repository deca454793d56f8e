/**
 * The authorization server's store in PostgreSQL, for a fleet: every instance reads and writes
 * the same clients, grants, sessions, signing keys and vault rows, so a person signs in through
 * one instance and calls through any other, a token signed by one verifies on all, and a grant
 * revoked on one is refused by all at their next request. The same tables as the SQLite store.
 */
import pg from 'pg';
import { lockedTransaction } from '../postgres-lock.js';
import type { SealedRow, VaultRows } from '../vault/vault.js';
import type { AuthStore, GrantRecord, ModelAdapter, StoredKey } from './store.js';

/** Connections per instance: sign-ins and grant checks are short point queries. */
const POOL_SIZE = 4;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS oidc_models (
    model       text NOT NULL,
    id          text NOT NULL,
    payload     text NOT NULL,
    grant_id    text,
    user_code   text,
    uid         text,
    account_id  text,
    client_id   text,
    expires_at  bigint,
    consumed_at bigint,
    PRIMARY KEY (model, id)
  )`,
  'CREATE INDEX IF NOT EXISTS oidc_models_grant ON oidc_models (grant_id)',
  'CREATE INDEX IF NOT EXISTS oidc_models_uid ON oidc_models (uid)',
  'CREATE INDEX IF NOT EXISTS oidc_models_user_code ON oidc_models (user_code)',
  'CREATE INDEX IF NOT EXISTS oidc_models_expires ON oidc_models (expires_at)',
  'CREATE INDEX IF NOT EXISTS oidc_models_account ON oidc_models (model, account_id, client_id)',
  `CREATE TABLE IF NOT EXISTS oidc_accounts (
    id text PRIMARY KEY, claims text NOT NULL, updated_at bigint NOT NULL
  )`,
  'CREATE TABLE IF NOT EXISTS oidc_secrets (name text PRIMARY KEY, value text NOT NULL)',
  `CREATE TABLE IF NOT EXISTS oidc_keys (
    kid text PRIMARY KEY, jwk text NOT NULL, created_at bigint NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS vault_credentials (
    owner text NOT NULL, name text NOT NULL, key_id text NOT NULL, sealed bytea NOT NULL,
    updated_at bigint NOT NULL, PRIMARY KEY (owner, name)
  )`,
];

interface Row {
  payload: string;
  expires_at: string | null;
  consumed_at: string | null;
}

/**
 * Connect to `url` (its `search_path` picks the schema), create the tables if need be, and
 * return the store. Rejects with the server's reason and the URL without its password.
 */
export async function openPostgresAuthStore(url: string): Promise<AuthStore> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  // An idle connection that drops must not crash the gateway; the next query reports it.
  pool.on('error', () => {});
  const exclusive = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    lockedTransaction(pool, name, fn);
  try {
    // Instances starting together: one creates the tables, the others wait and find them.
    await exclusive('gateway_auth_schema', async () => {
      for (const statement of SCHEMA) await pool.query(statement);
    });
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  const q = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = []) =>
    (await pool.query<R>(sql, values)).rows;
  const now = () => Date.now();
  const read = (row: Row | undefined): Record<string, unknown> | undefined => {
    if (!row || (row.expires_at !== null && Number(row.expires_at) <= now())) return undefined;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    // oidc-provider reads `consumed` (epoch seconds) to refuse a code or token used twice.
    return row.consumed_at === null ? payload : { ...payload, consumed: Number(row.consumed_at) };
  };
  const one = async (sql: string, values: unknown[]) => read((await q<Row>(sql, values))[0]);
  const SELECT = 'SELECT payload, expires_at, consumed_at FROM oidc_models';
  const adapter = (model: string): ModelAdapter => ({
    async upsert(id, payload, expiresIn) {
      const text = (key: string) => (typeof payload[key] === 'string' ? payload[key] : null);
      await q(
        `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at, consumed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, account_id = excluded.account_id,
           client_id = excluded.client_id, expires_at = excluded.expires_at`,
        [
          model,
          id,
          JSON.stringify(payload),
          text('grantId'),
          text('userCode'),
          text('uid'),
          text('accountId'),
          text('clientId'),
          typeof expiresIn === 'number' ? now() + expiresIn * 1000 : null,
        ],
      );
    },
    find: (id) => one(`${SELECT} WHERE model = $1 AND id = $2`, [model, id]),
    findByUid: (uid) => one(`${SELECT} WHERE model = $1 AND uid = $2`, [model, uid]),
    findByUserCode: (code) => one(`${SELECT} WHERE model = $1 AND user_code = $2`, [model, code]),
    async consume(id) {
      await q(
        'UPDATE oidc_models SET consumed_at = $1 WHERE model = $2 AND id = $3 AND consumed_at IS NULL',
        [Math.floor(now() / 1000), model, id],
      );
    },
    async destroy(id) {
      await q('DELETE FROM oidc_models WHERE model = $1 AND id = $2', [model, id]);
    },
    async revokeByGrantId(grantId) {
      await q('DELETE FROM oidc_models WHERE grant_id = $1', [grantId]);
    },
  });

  return {
    adapter,
    exclusive,
    keys: async () =>
      (
        await q<{ kid: string; jwk: string; created_at: string }>(
          'SELECT kid, jwk, created_at FROM oidc_keys ORDER BY created_at DESC, kid DESC',
        )
      ).map((k) => ({ kid: k.kid, jwk: JSON.parse(k.jwk), createdAt: Number(k.created_at) })),
    async addKey(key: StoredKey) {
      await q('INSERT INTO oidc_keys (kid, jwk, created_at) VALUES ($1, $2, $3)', [
        key.kid,
        JSON.stringify(key.jwk),
        key.createdAt,
      ]);
    },
    async retireKeys(before) {
      await q(
        'DELETE FROM oidc_keys WHERE created_at < $1 AND kid <> (SELECT kid FROM oidc_keys ORDER BY created_at DESC, kid DESC LIMIT 1)',
        [before],
      );
    },
    async grants(accountId): Promise<GrantRecord[]> {
      const rows = await q<{
        id: string;
        account_id: string;
        client_id: string;
        expires_at: string | null;
      }>(
        `SELECT id, account_id, client_id, expires_at FROM oidc_models
         WHERE model = 'Grant' AND (expires_at IS NULL OR expires_at > $1) AND ($2::text IS NULL OR account_id = $2)
         ORDER BY account_id, client_id`,
        [now(), accountId ?? null],
      );
      return rows.map((r) => ({
        grantId: r.id,
        accountId: r.account_id,
        clientId: r.client_id,
        ...(r.expires_at === null ? {} : { expiresAt: Number(r.expires_at) }),
      }));
    },
    async hasGrant(accountId, clientId) {
      const rows = await q(
        `SELECT 1 FROM oidc_models WHERE model = 'Grant' AND account_id = $1 AND client_id = $2
         AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
        [accountId, clientId, now()],
      );
      return rows.length > 0;
    },
    async revokeGrants(accountId, clientId) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ id: string }>(
          `SELECT id FROM oidc_models WHERE model = 'Grant' AND account_id = $1 AND ($2::text IS NULL OR client_id = $2)`,
          [accountId, clientId ?? null],
        );
        const ids = rows.map((r) => r.id);
        if (ids.length > 0) {
          await client.query(
            `DELETE FROM oidc_models WHERE (model = 'Grant' AND id = ANY($1)) OR grant_id = ANY($1)`,
            [ids],
          );
        }
        await client.query('COMMIT');
        return ids.length;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async saveAccount(id, claims) {
      await q(
        `INSERT INTO oidc_accounts (id, claims, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET claims = excluded.claims, updated_at = excluded.updated_at`,
        [id, JSON.stringify(claims), now()],
      );
    },
    async account(id) {
      const row = (
        await q<{ claims: string }>('SELECT claims FROM oidc_accounts WHERE id = $1', [id])
      )[0];
      return row ? (JSON.parse(row.claims) as Record<string, unknown>) : undefined;
    },
    async secret(name, make) {
      await q('INSERT INTO oidc_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        name,
        make(),
      ]);
      return (
        await q<{ value: string }>('SELECT value FROM oidc_secrets WHERE name = $1', [name])
      )[0]?.value as string;
    },
    vault: postgresVaultRows(q),
    async prune() {
      await q('DELETE FROM oidc_models WHERE expires_at IS NOT NULL AND expires_at <= $1', [now()]);
    },
    async close() {
      await pool.end();
    },
  };
}

function postgresVaultRows(
  q: <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => Promise<R[]>,
): VaultRows {
  type Stored = { owner: string; name: string; key_id: string; sealed: Buffer; updated_at: string };
  const toRow = (r: Stored): SealedRow => ({
    owner: r.owner,
    name: r.name,
    keyId: r.key_id,
    sealed: r.sealed,
    updatedAt: Number(r.updated_at),
  });
  const COLUMNS = 'owner, name, key_id, sealed, updated_at';
  return {
    get: async (owner, name) => {
      const row = (
        await q<Stored>(`SELECT ${COLUMNS} FROM vault_credentials WHERE owner = $1 AND name = $2`, [
          owner,
          name,
        ])
      )[0];
      return row ? toRow(row) : undefined;
    },
    put: async (row) => {
      await q(
        `INSERT INTO vault_credentials (${COLUMNS}) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (owner, name) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed,
           updated_at = excluded.updated_at`,
        [row.owner, row.name, row.keyId, row.sealed, row.updatedAt],
      );
    },
    delete: async (owner, name) =>
      (
        await q<{ owner: string }>(
          'DELETE FROM vault_credentials WHERE owner = $1 AND name = $2 RETURNING owner',
          [owner, name],
        )
      ).length > 0,
    list: async (owner) =>
      (
        await q<{ name: string; updated_at: string }>(
          'SELECT name, updated_at FROM vault_credentials WHERE owner = $1 ORDER BY updated_at DESC, name',
          [owner],
        )
      ).map((r) => ({ name: r.name, updatedAt: Number(r.updated_at) })),
    sealedWithOtherThan: async (keyId) =>
      (await q<Stored>(`SELECT ${COLUMNS} FROM vault_credentials WHERE key_id <> $1`, [keyId])).map(
        toRow,
      ),
  };
}
