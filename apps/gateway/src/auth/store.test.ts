import { statSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { signingKeys } from './provider.js';
import { openSqliteAuthStore } from './store.js';

afterAll(() => removeTempDirs());

describe('the SQLite store of the authorization server', () => {
  it('keeps what oidc-provider upserts, finds it by id, uid and user code, until it expires', async () => {
    const store = openSqliteAuthStore(':memory:');
    const sessions = store.adapter('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'alice' }, 60);
    expect(await sessions.find('s1')).toEqual({ uid: 'u1', accountId: 'alice' });
    expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1', accountId: 'alice' });
    const codes = store.adapter('DeviceCode');
    await codes.upsert('d1', { userCode: 'ABCD' }, 60);
    expect(await codes.findByUserCode('ABCD')).toEqual({ userCode: 'ABCD' });
    // Another model's row of the same id is another row.
    expect(await store.adapter('Grant').find('s1')).toBeUndefined();
    await sessions.upsert('gone', { uid: 'u2' }, -1);
    expect(await sessions.find('gone')).toBeUndefined();
    await store.prune();
    await sessions.destroy('s1');
    expect(await sessions.find('s1')).toBeUndefined();
    await store.close();
  });

  it('marks a consumed code, once (a second use of a code is what oidc-provider refuses)', async () => {
    const store = openSqliteAuthStore(':memory:');
    const codes = store.adapter('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    await codes.consume('c1');
    const first = (await codes.find('c1'))?.consumed;
    expect(typeof first).toBe('number');
    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toBe(first);
    await store.close();
  });

  it('revokes everything of a grant: its codes, access and refresh tokens', async () => {
    const store = openSqliteAuthStore(':memory:');
    await store.adapter('RefreshToken').upsert('r1', { grantId: 'g1' }, 600);
    await store.adapter('AccessToken').upsert('a1', { grantId: 'g1' }, 600);
    await store.adapter('AccessToken').upsert('a2', { grantId: 'g2' }, 600);
    await store.adapter('RefreshToken').revokeByGrantId('g1');
    expect(await store.adapter('RefreshToken').find('r1')).toBeUndefined();
    expect(await store.adapter('AccessToken').find('a1')).toBeUndefined();
    expect(await store.adapter('AccessToken').find('a2')).toBeDefined();
    await store.close();
  });

  it("lists a person's grants, tells whether one stands, and revokes them with their tokens", async () => {
    const store = openSqliteAuthStore(':memory:');
    const grants = store.adapter('Grant');
    await grants.upsert('g1', { accountId: 'alice', clientId: 'c1' }, 600);
    await grants.upsert('g2', { accountId: 'alice', clientId: 'c2' }, 600);
    await grants.upsert('g3', { accountId: 'bob', clientId: 'c1' }, 600);
    await store.adapter('RefreshToken').upsert('r1', { grantId: 'g1', accountId: 'alice' }, 600);
    expect((await store.grants('alice')).map((g) => g.clientId)).toEqual(['c1', 'c2']);
    expect(await store.grants()).toHaveLength(3);
    expect(await store.hasGrant('alice', 'c1')).toBe(true);
    expect(await store.revokeGrants('alice', 'c1')).toBe(1);
    expect(await store.hasGrant('alice', 'c1')).toBe(false);
    expect(await store.hasGrant('alice', 'c2')).toBe(true);
    expect(await store.adapter('RefreshToken').find('r1')).toBeUndefined();
    expect(await store.revokeGrants('alice')).toBe(1);
    expect(await store.hasGrant('bob', 'c1')).toBe(true);
    await store.close();
  });

  it('makes one signing key, keeps it across a reopen, and rotates when it is old', async () => {
    const path = join(tempDir('auth-store-'), 'nested', 'auth.db');
    let store = openSqliteAuthStore(path);
    const first = await signingKeys(store, 60_000);
    expect(first).toHaveLength(1);
    expect(first[0]?.d).toBeDefined(); // the private key: the provider signs with it
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    await store.close();
    store = openSqliteAuthStore(path);
    expect((await signingKeys(store, 60_000)).map((k) => k.kid)).toEqual([first[0]?.kid]);
    await store.close();
    // A newest key older than the rotation period: a new one first; keys younger than twice the
    // period kept, to verify what they signed; older ones gone.
    store = openSqliteAuthStore(':memory:');
    const jwk = first[0] as unknown as Record<string, unknown>;
    await store.addKey({ kid: 'ancient', jwk, createdAt: Date.now() - 200_000 });
    await store.addKey({ kid: 'old', jwk, createdAt: Date.now() - 90_000 });
    const rotated = await signingKeys(store, 60_000);
    expect(rotated.map((k) => k.kid).slice(1)).toEqual(['old']);
    expect(rotated[0]?.kid).not.toBe('old');
    expect(await store.secret('cookies', () => 'a')).toBe('a');
    expect(await store.secret('cookies', () => 'b')).toBe('a');
    await store.close();
  });

  it('names a path it cannot use', () => {
    expect(() => openSqliteAuthStore('/proc/version/auth.db')).toThrow();
  });
});
