import { describe, expect, it } from 'vitest';
import { CACHED_TEXT, DocumentCache } from './document-cache.js';

describe('DocumentCache', () => {
  it('serves a document only at the version it was cached at', () => {
    const cache = new DocumentCache();
    const doc = { a: { $value: 1 } };
    cache.set('p1', 3, doc, 100);
    expect(cache.get('p1', 3)).toBe(doc);
    expect(cache.get('p2', 3)).toBeUndefined();
    // Another version was written: the old document is dropped, not served.
    expect(cache.get('p1', 4)).toBeUndefined();
    expect(cache.get('p1', 3)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps the most recently used documents within its size', () => {
    const cache = new DocumentCache(300);
    const docs = [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }];
    cache.set('p0', 1, docs[0] as Record<string, unknown>, 100);
    cache.set('p1', 1, docs[1] as Record<string, unknown>, 100);
    cache.set('p2', 1, docs[2] as Record<string, unknown>, 100);
    // p0 is used: p1 is now the least recently used, and goes when p3 comes.
    expect(cache.get('p0', 1)).toBe(docs[0]);
    cache.set('p3', 1, docs[3] as Record<string, unknown>, 100);
    expect(cache.size).toBe(3);
    expect(cache.get('p1', 1)).toBeUndefined();
    expect([cache.get('p0', 1), cache.get('p2', 1), cache.get('p3', 1)]).toEqual([
      docs[0],
      docs[2],
      docs[3],
    ]);
    // A new version of a cached project replaces its entry: its old size is given back.
    cache.set('p3', 2, { i: 4 }, 100);
    expect(cache.size).toBe(3);
    expect(cache.get('p0', 1)).toBe(docs[0]);
  });

  it('does not keep a document larger than all of it, and forgets a deleted project', () => {
    const cache = new DocumentCache(300);
    cache.set('p0', 1, { a: 1 }, 100);
    cache.set('big', 1, { b: 1 }, 301);
    expect(cache.get('big', 1)).toBeUndefined();
    expect(cache.get('p0', 1)).toEqual({ a: 1 });
    cache.delete('p0');
    cache.delete('p0');
    expect(cache.size).toBe(0);
    expect(new DocumentCache().maxSize).toBe(CACHED_TEXT);
  });
});
