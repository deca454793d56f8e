// @module-tag postgres
/**
 * The authorization server's store in PostgreSQL (a fleet's), against the real server on
 * 127.0.0.1: three stores on one schema stand for three gateway instances. Each test has a
 * schema of its own, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newVaultKey, VaultKeys } from '../vault/keys.js';
import { CredentialVault } from '../vault/vault.js';
import { openPostgresAuthStore } from './postgres-store.js';
import { signingKeys } from './provider.js';
import type { AuthStore } from './store.js';

const URL_ = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schemas: string[] = [];
const stores: AuthStore[] = [];

async function sql(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: URL_, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** `n` stores on one fresh schema, opened at once (instances starting together). */
async function fleet(n: number): Promise<AuthStore[]> {
  const name = `gw_auth_${randomBytes(4).toString('hex')}`;
  schemas.push(name);
  await sql(`CREATE SCHEMA "${name}"`);
  const url = new URL(URL_);
  url.searchParams.set('options', `-c search_path=${name}`);
  const opened = await Promise.all(
    Array.from({ length: n }, () => openPostgresAuthStore(url.toString())),
  );
  stores.push(...opened);
  return opened;
}

beforeAll(async () => {
  // PostgreSQL runs here and in CI (.ci/run starts it); a clear failure if it does not.
  await sql('SELECT 1');
});

afterAll(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const name of schemas) await sql(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
});

describe('the authorization store in PostgreSQL', () => {
  it('three instances starting together make one signing key, and all sign with it', async () => {
    const [a, b, c] = await fleet(3);
    const keys = await Promise.all(
      [a, b, c].map((s) => signingKeys(s as AuthStore, 30 * 86_400_000)),
    );
    expect(new Set(keys.map((k) => k.map((j) => j.kid).join()))).toHaveProperty('size', 1);
    expect(keys[0]).toHaveLength(1);
    // One cookie secret too, whoever asks first.
    const secrets = await Promise.all(
      [a, b, c].map((s) =>
        (s as AuthStore).secret('cookies', () => randomBytes(8).toString('hex')),
      ),
    );
    expect(new Set(secrets).size).toBe(1);
  });

  it('a grant made on one instance is seen, and its revocation honoured, on the others', async () => {
    const [a, b] = (await fleet(2)) as [AuthStore, AuthStore];
    await a.adapter('Grant').upsert('g1', { accountId: 'alice', clientId: 'app' }, 600);
    await a.adapter('RefreshToken').upsert('r1', { grantId: 'g1', accountId: 'alice' }, 600);
    await a.adapter('Grant').upsert('g2', { accountId: 'bob', clientId: 'app' }, 600);
    expect(await b.hasGrant('alice', 'app')).toBe(true);
    expect((await b.grants('alice')).map((g) => g.grantId)).toEqual(['g1']);
    expect(await b.revokeGrants('alice')).toBe(1);
    expect(await a.hasGrant('alice', 'app')).toBe(false);
    expect(await a.adapter('RefreshToken').find('r1')).toBeUndefined();
    expect(await a.hasGrant('bob', 'app')).toBe(true);
    // An expired grant is no grant (a consent that lapsed).
    await a.adapter('Grant').upsert('g3', { accountId: 'carol', clientId: 'app' }, -1);
    expect(await b.hasGrant('carol', 'app')).toBe(false);
  });

  it('marks a consumed code once, finds by uid and user code, prunes what expired', async () => {
    const [a, b] = (await fleet(2)) as [AuthStore, AuthStore];
    const codes = a.adapter('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g', uid: 'u1', userCode: 'ABCD' }, 60);
    await b.adapter('AuthorizationCode').consume('c1');
    const first = (await codes.find('c1'))?.consumed;
    expect(typeof first).toBe('number');
    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toBe(first);
    expect(await b.adapter('AuthorizationCode').findByUid('u1')).toMatchObject({ uid: 'u1' });
    expect(await b.adapter('AuthorizationCode').findByUserCode('ABCD')).toMatchObject({
      uid: 'u1',
    });
    await codes.upsert('old', { uid: 'u2' }, -1);
    await b.prune();
    expect(await codes.find('old')).toBeUndefined();
  });

  it('keeps the vault’s sealed rows: a credential set on one instance opens on another', async () => {
    const [a, b] = (await fleet(2)) as [AuthStore, AuthStore];
    const keys = VaultKeys.load({}, { MCP_GATEWAY_VAULT_KEY: newVaultKey() });
    await new CredentialVault(a.vault, keys).set('alice', 'github', {
      type: 'secret',
      value: 'alice-token',
    });
    const other = new CredentialVault(b.vault, keys);
    expect(await other.get('alice', 'github')).toEqual({ type: 'secret', value: 'alice-token' });
    expect((await other.connected('alice')).map((c) => c.name)).toEqual(['github']);
    expect(await other.delete('alice', 'github')).toBe(true);
    expect(await new CredentialVault(a.vault, keys).get('alice', 'github')).toBeUndefined();
  });
});
