/**
 * What changed between two token documents, token by token: added, removed and changed tokens
 * (value, type, description or deprecation), by path. Values compare as canonical JSON, so the
 * order of an object's members is no change.
 */
import { type FlatToken, flattenTokens } from './flatten.js';

/** A token on one side of a diff. */
export interface DiffToken {
  path: string;
  type: string | undefined;
  value: unknown;
}

/** A token that is on both sides and differs. */
export interface ChangedToken {
  path: string;
  /** What differs: any of `value`, `type`, `description`, `deprecated`. */
  changes: string[];
  from: { type: string | undefined; value: unknown; description?: string | undefined };
  to: { type: string | undefined; value: unknown; description?: string | undefined };
}

/** The difference of two documents; each list in document order, cut at `limit` entries. */
export interface TokenDiff {
  added: DiffToken[];
  removed: DiffToken[];
  changed: ChangedToken[];
  /** How many of each there are in all (the lists may be cut). */
  counts: { added: number; removed: number; changed: number; unchanged: number };
}

/** JSON with object members in key order: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const side = (t: FlatToken) => ({ path: t.path, type: t.type, value: t.value });

/** The difference from `before` to `after`, at most `limit` entries per list. */
export function diffTokens(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  limit = 500,
): TokenDiff {
  const a = flattenTokens(before);
  const b = flattenTokens(after);
  const diff: TokenDiff = {
    added: [],
    removed: [],
    changed: [],
    counts: { added: 0, removed: 0, changed: 0, unchanged: 0 },
  };
  for (const [path, old] of a) {
    const now = b.get(path);
    if (now === undefined) {
      if (diff.counts.removed++ < limit) diff.removed.push(side(old));
      continue;
    }
    const changes: string[] = [];
    if (canonicalJson(old.value) !== canonicalJson(now.value)) changes.push('value');
    if (old.type !== now.type) changes.push('type');
    if (old.description !== now.description) changes.push('description');
    if (old.deprecated !== now.deprecated) changes.push('deprecated');
    if (changes.length === 0) {
      diff.counts.unchanged++;
      continue;
    }
    if (diff.counts.changed++ < limit) {
      diff.changed.push({
        path,
        changes,
        from: { type: old.type, value: old.value, description: old.description },
        to: { type: now.type, value: now.value, description: now.description },
      });
    }
  }
  for (const [path, now] of b) {
    if (!a.has(path) && diff.counts.added++ < limit) diff.added.push(side(now));
  }
  return diff;
}
