/**
 * The token documents a store read or wrote last, parsed, by project and version. Parsing the
 * largest legal document (1 MB of JSON) holds the event loop ~10 ms in one piece — every merge
 * into it, every read of the design system, every build paid that (#35: another caller's ping
 * waited for it). A version number is written once per project and never rewritten, so a cached
 * document is current exactly while the project's row still holds its version: a reader asks
 * the database for the version (a few bytes) and parses the document only when it changed — in
 * a fleet, when another instance wrote it.
 *
 * The documents are shared by every reader: nothing may change them (a merge copies the groups
 * it changes, ../tokens/merge.ts). Bounded by the size of their JSON text; the least recently
 * used go first.
 */

/** JSON text, in UTF-16 units, the cached documents may add up to: eight of the largest. */
export const CACHED_TEXT = 8 * 1024 * 1024;

interface Entry {
  version: number;
  tokens: Record<string, unknown>;
  size: number;
}

/** Parsed token documents by project and version; see the module header. */
export class DocumentCache {
  /** By project, least recently used first (a Map keeps insertion order). */
  readonly #entries = new Map<string, Entry>();
  #size = 0;

  constructor(readonly maxSize = CACHED_TEXT) {}

  /** The project's document at `version`, if it is cached. */
  get(projectId: string, version: number): Record<string, unknown> | undefined {
    const entry = this.#entries.get(projectId);
    if (entry === undefined) return undefined;
    if (entry.version !== version) {
      this.delete(projectId);
      return undefined;
    }
    this.#entries.delete(projectId);
    this.#entries.set(projectId, entry);
    return entry.tokens;
  }

  /** Keeps the project's document at `version`; `size` is the length of its JSON text. */
  set(projectId: string, version: number, tokens: Record<string, unknown>, size: number): void {
    this.delete(projectId);
    if (size > this.maxSize) return;
    this.#entries.set(projectId, { version, tokens, size });
    this.#size += size;
    for (const [id, entry] of this.#entries) {
      if (this.#size <= this.maxSize) break;
      this.#entries.delete(id);
      this.#size -= entry.size;
    }
  }

  delete(projectId: string): void {
    const entry = this.#entries.get(projectId);
    if (entry === undefined) return;
    this.#entries.delete(projectId);
    this.#size -= entry.size;
  }

  /** Documents cached. */
  get size(): number {
    return this.#entries.size;
  }
}
