/**
 * The vault's keys: AES-256-GCM, 32 random bytes each, from an environment variable or a file —
 * never from the config file, which is shared and checked in. The current key seals; earlier
 * ones (during a rotation) still open what they sealed, until the gateway re-seals it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hasBrand } from '@mcpkit/protocol';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VAULT_ERROR = Symbol.for('mcpkit.gateway.VaultError');

/** Why the vault cannot be used or a credential cannot be read; `kind` says which. */
export class VaultError extends Error {
  /** Marks one from any copy of this package. */
  readonly [VAULT_ERROR] = true;
  /**
   * `no_key`: no key configured; `bad_key`: a key that is not 32 bytes; `unknown_key`: a row
   * sealed with a key the gateway no longer has; `tampered`: a row that does not open (changed,
   * moved to another person or backend, or truncated).
   */
  readonly kind: 'no_key' | 'bad_key' | 'unknown_key' | 'tampered';
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is VaultError {
    return hasBrand(value, VAULT_ERROR);
  }
  constructor(kind: VaultError['kind'], message: string) {
    super(message);
    this.name = 'VaultError';
    this.kind = kind;
  }
}

/** One key and its id (a hash of it: rows say which key sealed them, never the key). */
interface Key {
  id: string;
  bytes: Buffer;
}

/** Where the keys come from: the settings of `gateway.vault` and the environment. */
export interface KeySource {
  /** The variable holding the current key (base64 or hex). Default `MCP_GATEWAY_VAULT_KEY`. */
  keyEnv?: string;
  /** A file holding the current key instead (its first line). */
  keyFile?: string;
  /** The variable holding earlier keys, comma-separated. Default `MCP_GATEWAY_VAULT_PREVIOUS_KEYS`. */
  previousKeysEnv?: string;
}

/** A fresh key, base64: what `mcp-gateway vault-key` prints. */
export function newVaultKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

function parseKey(text: string, where: string): Key {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (bytes.length !== KEY_BYTES) {
    throw new VaultError(
      'bad_key',
      `${where}: a vault key is 32 bytes, base64 or hex (make one with \`mcp-gateway vault-key\`); this one is ${bytes.length} bytes`,
    );
  }
  const id = createHash('sha256')
    .update('mcpkit-vault-key\0')
    .update(bytes)
    .digest('hex')
    .slice(0, 16);
  return { id, bytes };
}

/** The current key and the earlier ones, by id. */
export class VaultKeys {
  readonly #current: Key;
  readonly #byId: Map<string, Key>;

  private constructor(current: Key, previous: readonly Key[]) {
    this.#current = current;
    this.#byId = new Map([current, ...previous].map((k) => [k.id, k]));
  }

  /**
   * The keys `source` names in `env`; a {@link VaultError} (`no_key`, `bad_key`) when there is
   * no current key or one is malformed — at start, before anything is sealed with it.
   */
  static load(source: KeySource = {}, env: NodeJS.ProcessEnv = process.env): VaultKeys {
    const keyEnv = source.keyEnv ?? 'MCP_GATEWAY_VAULT_KEY';
    const previousEnv = source.previousKeysEnv ?? 'MCP_GATEWAY_VAULT_PREVIOUS_KEYS';
    let text: string | undefined;
    let where = keyEnv;
    if (source.keyFile) {
      where = source.keyFile;
      try {
        text = readFileSync(source.keyFile, 'utf8').split('\n')[0];
      } catch (err) {
        throw new VaultError(
          'no_key',
          `gateway.vault.key_file: cannot read ${source.keyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
    } else {
      text = env[keyEnv];
    }
    if (!text?.trim()) {
      throw new VaultError(
        'no_key',
        `the credential vault has no key: set ${keyEnv} (or gateway.vault.key_file) to 32 random bytes, base64 — \`mcp-gateway vault-key\` prints one`,
      );
    }
    const previous = (env[previousEnv] ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map((k, i) => parseKey(k, `${previousEnv}[${i}]`));
    return new VaultKeys(parseKey(text, where), previous);
  }

  /** The id of the key that seals. */
  get currentId(): string {
    return this.#current.id;
  }

  /**
   * `plaintext` sealed with the current key, bound to `context` (who and what it is for): a row
   * copied to another person or backend does not open.
   */
  seal(plaintext: string, context: string): { keyId: string; sealed: Buffer } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.bytes, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.#current.id, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]) };
  }

  /** What {@link seal} sealed; a {@link VaultError} when the key is gone or the row was changed. */
  open(keyId: string, sealed: Buffer, context: string): string {
    const key = this.#byId.get(keyId);
    if (!key) {
      throw new VaultError(
        'unknown_key',
        `sealed with vault key ${keyId}, which this gateway does not have (give it in MCP_GATEWAY_VAULT_PREVIOUS_KEYS until it is re-sealed)`,
      );
    }
    if (sealed.length < IV_BYTES + TAG_BYTES) {
      throw new VaultError('tampered', 'a vault row is truncated');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new VaultError(
        'tampered',
        'a vault row does not open: it was changed, or moved to another person or backend',
      );
    }
  }
}
