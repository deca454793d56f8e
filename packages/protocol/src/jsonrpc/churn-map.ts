/**
 * A map for keys that come and go once per request — a peer's request ids, of any kind — backed
 * by a prototype-less dictionary object instead of a `Map`. For ids the holder hands out itself,
 * counting up, an {@link IdMap} is ~3× as fast.
 *
 * Why: V8 (as in Node 20) rehashes a `Map` or `Set` into a new table every few dozen inserts when
 * keys keep arriving and leaving, and links the old table to the new one (for live iterators).
 * Once one old table has been promoted to the old generation — it only has to outlive two
 * scavenges once, e.g. during a pause — that dead table keeps its successor alive through the
 * next scavenge, which promotes it and every request it holds, and so on down the chain until a
 * full collection. A gateway forwarding 20,000 calls/s at concurrency 32 then promoted ~2.5 MB
 * per scavenge and spent 15 % of its time in scavenges (against 4 %); a dictionary object has no
 * such link. Keys are strings or integers (an integer key is its decimal string); iteration order
 * is not insertion order.
 */
export class ChurnMap<V> {
  // Object.create(null): a dictionary-mode object from the start (no hidden-class transition per
  // new key) with no prototype, so a peer's id such as "__proto__" or "constructor" is a key
  // like any other.
  #slots: Record<string, V> = Object.create(null);
  #size = 0;

  /** Entries held. */
  get size(): number {
    return this.#size;
  }

  /** The value under `key`, or undefined. */
  get(key: string | number): V | undefined {
    return this.#slots[key];
  }

  /** Whether `key` is held. */
  has(key: string | number): boolean {
    return this.#slots[key] !== undefined;
  }

  /** Hold `value` under `key` (undefined is not a value: use `delete`). */
  set(key: string | number, value: V): this {
    const slots = this.#slots;
    if (slots[key] === undefined) this.#size++;
    slots[key] = value;
    return this;
  }

  /** Drop `key`; true when it was held. */
  delete(key: string | number): boolean {
    const slots = this.#slots;
    if (slots[key] === undefined) return false;
    delete slots[key];
    this.#size--;
    return true;
  }

  /** Every entry, as a snapshot (the map may change while it is walked). */
  entries(): [string, V][] {
    const slots = this.#slots;
    const all: [string, V][] = [];
    for (const key in slots) all.push([key, slots[key] as V]);
    return all;
  }

  /** Every key, as a snapshot (an integer key as its decimal string). */
  keys(): string[] {
    return Object.keys(this.#slots);
  }

  /** Every value, as a snapshot. */
  values(): V[] {
    const slots = this.#slots;
    const all: V[] = [];
    for (const key in slots) all.push(slots[key] as V);
    return all;
  }

  /** Drop every entry. */
  clear(): void {
    this.#slots = Object.create(null);
    this.#size = 0;
  }
}
