import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteAuthStore } from '../auth/store.js';
import { newVaultKey, VaultError, VaultKeys } from './keys.js';
import { CredentialVault } from './vault.js';

afterAll(() => removeTempDirs());

const KEY = newVaultKey();
const keysOf = (env: Record<string, string>) => VaultKeys.load({}, env);

/** A vault on a fresh SQLite file, and the raw database to change rows behind its back. */
function fixture(env: Record<string, string> = { MCP_GATEWAY_VAULT_KEY: KEY }) {
  const path = join(tempDir('vault-'), 'auth.db');
  const store = openSqliteAuthStore(path);
  return { store, vault: new CredentialVault(store.vault, keysOf(env)), raw: new Database(path) };
}

describe('the vault key', () => {
  it('is 32 bytes from the environment (base64 or hex) or a file; anything else stops the start', () => {
    expect(keysOf({ MCP_GATEWAY_VAULT_KEY: KEY }).currentId).toMatch(/^[0-9a-f]{16}$/);
    const hex = Buffer.from(KEY, 'base64').toString('hex');
    expect(keysOf({ MCP_GATEWAY_VAULT_KEY: hex }).currentId).toBe(
      keysOf({ MCP_GATEWAY_VAULT_KEY: KEY }).currentId,
    );
    const file = join(tempDir('vault-key-'), 'key');
    writeFileSync(file, `${KEY}\n`);
    expect(VaultKeys.load({ keyFile: file }, {}).currentId).toBe(
      keysOf({ MCP_GATEWAY_VAULT_KEY: KEY }).currentId,
    );
    const failure = (load: () => unknown) => {
      try {
        load();
      } catch (err) {
        return VaultError.is(err) ? `${err.kind}: ${err.message}` : String(err);
      }
      return 'loaded';
    };
    expect(failure(() => keysOf({}))).toMatch(/^no_key: .*MCP_GATEWAY_VAULT_KEY.*vault-key/);
    expect(failure(() => keysOf({ MCP_GATEWAY_VAULT_KEY: 'c2hvcnQ=' }))).toMatch(
      /^bad_key: .*32 bytes.*this one is 5 bytes/,
    );
    expect(failure(() => VaultKeys.load({ keyFile: `${file}.missing` }, {}))).toMatch(
      /^no_key: gateway.vault.key_file: cannot read .*ENOENT/,
    );
    expect(
      failure(() =>
        keysOf({ MCP_GATEWAY_VAULT_KEY: KEY, MCP_GATEWAY_VAULT_PREVIOUS_KEYS: `${KEY},nope` }),
      ),
    ).toMatch(/^bad_key: MCP_GATEWAY_VAULT_PREVIOUS_KEYS\[1\]/);
  });
});

describe('the credential vault', () => {
  it('keeps each person’s credential per backend, sealed: the secret is nowhere in the file', async () => {
    const { store, vault, raw } = fixture();
    await vault.set('alice', 'github', { type: 'secret', value: 'ghp_alice_secret' });
    await vault.set('bob', 'github', { type: 'secret', value: 'ghp_bob_secret' });
    expect(await vault.get('alice', 'github')).toEqual({
      type: 'secret',
      value: 'ghp_alice_secret',
    });
    expect(await vault.get('bob', 'github')).toEqual({ type: 'secret', value: 'ghp_bob_secret' });
    expect(await vault.get('alice', 'linear')).toBeUndefined();
    expect((await vault.connected('alice')).map((c) => c.name)).toEqual(['github']);
    const rows = raw.prepare('SELECT sealed FROM vault_credentials').all() as { sealed: Buffer }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.sealed.toString('latin1')).not.toMatch(/ghp_/);
    expect(await vault.delete('alice', 'github')).toBe(true);
    expect(await vault.delete('alice', 'github')).toBe(false);
    expect(await vault.get('alice', 'github')).toBeUndefined();
    raw.close();
    await store.close();
  });

  it('refuses a changed row, and a row moved to another person, as tampered — never a guess', async () => {
    const { store, vault, raw } = fixture();
    await vault.set('alice', 'github', { type: 'secret', value: 'alice-key' });
    await vault.set('bob', 'github', { type: 'secret', value: 'bob-key' });
    const kind = async (subject: string) =>
      vault.get(subject, 'github').then(
        (c) => JSON.stringify(c),
        (err: unknown) => (VaultError.is(err) ? err.kind : String(err)),
      );
    // One bit of alice's ciphertext flipped.
    const { sealed } = raw
      .prepare("SELECT sealed FROM vault_credentials WHERE owner = 'alice'")
      .get() as { sealed: Buffer };
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    raw.prepare("UPDATE vault_credentials SET sealed = ? WHERE owner = 'alice'").run(flipped);
    expect(await kind('alice')).toBe('tampered');
    // Bob's row copied over alice's: it opens only as bob's.
    raw
      .prepare(
        "UPDATE vault_credentials SET sealed = (SELECT sealed FROM vault_credentials WHERE owner = 'bob') WHERE owner = 'alice'",
      )
      .run();
    expect(await kind('alice')).toBe('tampered');
    expect(await kind('bob')).toBe(JSON.stringify({ type: 'secret', value: 'bob-key' }));
    raw.prepare("UPDATE vault_credentials SET sealed = x'00' WHERE owner = 'bob'").run();
    expect(await kind('bob')).toBe('tampered');
    raw.close();
    await store.close();
  });

  it('rotates: a new key opens nothing old until the old key is given; then every row is re-sealed', async () => {
    const path = join(tempDir('vault-rotate-'), 'auth.db');
    const store = openSqliteAuthStore(path);
    const old = new CredentialVault(store.vault, keysOf({ MCP_GATEWAY_VAULT_KEY: KEY }));
    await old.set('alice', 'github', { type: 'secret', value: 'alice-key' });
    await old.oauthStore('bob', 'linear').saveTokens('https://linear.example/mcp', {
      accessToken: 'at',
      refreshToken: 'rt',
    });
    await old
      .oauthStore('bob', 'linear')
      .saveRegistration('https://as.example', { clientId: 'gw-client' });
    const next = newVaultKey();
    const withoutOld = new CredentialVault(store.vault, keysOf({ MCP_GATEWAY_VAULT_KEY: next }));
    await expect(withoutOld.get('alice', 'github')).rejects.toSatisfy(
      (err) => VaultError.is(err) && err.kind === 'unknown_key',
    );
    const rotating = new CredentialVault(
      store.vault,
      keysOf({ MCP_GATEWAY_VAULT_KEY: next, MCP_GATEWAY_VAULT_PREVIOUS_KEYS: KEY }),
    );
    expect(await rotating.reseal()).toEqual({ resealed: 3, unreadable: 0 });
    expect(await rotating.reseal()).toEqual({ resealed: 0, unreadable: 0 });
    // Re-sealed: the new key alone opens everything.
    expect(await withoutOld.get('alice', 'github')).toEqual({ type: 'secret', value: 'alice-key' });
    expect(await withoutOld.oauthStore('bob', 'linear').tokens('x')).toEqual({
      accessToken: 'at',
      refreshToken: 'rt',
    });
    expect(
      await withoutOld.oauthStore('alice', 'linear').registration('https://as.example'),
    ).toEqual({ clientId: 'gw-client' });
    await store.close();
  });
});
