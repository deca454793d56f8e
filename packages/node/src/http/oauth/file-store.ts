/**
 * A command-line client's tokens and registrations kept between runs: one JSON file, readable by
 * its owner only (0600, directory 0700), written whole through a temporary file and a rename, so
 * a crash mid-write leaves the old file, never half of one.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OAuthClientRegistration, OAuthStore, OAuthTokens } from '@mcpkit/protocol';

interface Stored {
  tokens: Record<string, OAuthTokens>;
  registrations: Record<string, OAuthClientRegistration>;
}

/**
 * An `OAuthStore` in a file (e.g. `~/.config/my-cli/oauth.json`). A file that is missing or not
 * this store's starts empty; tokens are secrets, so the file is created 0600.
 *
 * @example
 * ```ts
 * const oauth = new OAuthClient({ …, store: new FileOAuthStore(join(homedir(), '.config/my-cli/oauth.json')) });
 * ```
 */
export class FileOAuthStore implements OAuthStore {
  readonly #path: string;
  #data: Stored;

  /** `path`: the file, created with its directory on the first save. */
  constructor(path: string) {
    this.#path = path;
    this.#data = read(path);
  }

  /** {@inheritDoc @mcpkit/protocol#OAuthStore.tokens} */
  tokens(resource: string): OAuthTokens | undefined {
    return this.#data.tokens[resource];
  }

  /** {@inheritDoc @mcpkit/protocol#OAuthStore.saveTokens} */
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
    if (tokens) this.#data.tokens[resource] = tokens;
    else delete this.#data.tokens[resource];
    this.#write();
  }

  /** {@inheritDoc @mcpkit/protocol#OAuthStore.registration} */
  registration(issuer: string): OAuthClientRegistration | undefined {
    return this.#data.registrations[issuer];
  }

  /** {@inheritDoc @mcpkit/protocol#OAuthStore.saveRegistration} */
  saveRegistration(issuer: string, registration: OAuthClientRegistration): void {
    this.#data.registrations[issuer] = registration;
    this.#write();
  }

  #write(): void {
    mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
    const temporary = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.#data), { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.#path);
  }
}

function read(path: string): Stored {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Stored>;
    if (typeof parsed.tokens === 'object' && typeof parsed.registrations === 'object') {
      return { tokens: { ...parsed.tokens }, registrations: { ...parsed.registrations } };
    }
  } catch {
    // missing or unreadable: start empty (the next save writes a good one)
  }
  return { tokens: {}, registrations: {} };
}
