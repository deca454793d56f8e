/** A slot no id holds (ids are non-negative). */
const EMPTY = -1;
/**
 * Slots a new map starts with: few, since a map may live for one request (a stateless HTTP
 * request's cancellation registry); it doubles as it fills.
 */
const INITIAL = 8;

/**
 * A map for the ids one side hands out itself — its request ids, its call numbers — counting up,
 * a few dozen alive at a time: an open-addressing table in two arrays, indexed by an id's low
 * bits. Ids given out in order fall into distinct slots, so a lookup, an insert and a delete are
 * each an array access or two; the arrays are made once (doubled when half full), never per
 * entry, so a key that comes and goes per call leaves nothing for the garbage collector (unlike
 * a `Map`, see {@link ChurnMap}). ~3× a ChurnMap's speed on such keys, which cost a forwarding
 * gateway ~6 % of its CPU at concurrency 32 (#35). Keys are non-negative safe integers; for a
 * peer's ids (any string or number) use a ChurnMap.
 */
export class IdMap<V> {
  #keys: number[];
  #values: (V | undefined)[];
  #mask: number;
  #size = 0;

  constructor() {
    this.#keys = new Array<number>(INITIAL).fill(EMPTY);
    this.#values = new Array<V | undefined>(INITIAL).fill(undefined);
    this.#mask = INITIAL - 1;
  }

  /** Entries held. */
  get size(): number {
    return this.#size;
  }

  /** The value under `id`, or undefined (also for any number that is not a key: -1, 1.5). */
  get(id: number): V | undefined {
    const i = this.#slot(id);
    return i < 0 ? undefined : this.#values[i];
  }

  /** Whether `id` is held. */
  has(id: number): boolean {
    return this.#slot(id) >= 0;
  }

  /**
   * Hold `value` under `id`, a non-negative safe integer (a RangeError otherwise: these are the
   * holder's own ids, so another key is a bug).
   */
  set(id: number, value: V): this {
    if (!Number.isSafeInteger(id) || id < 0) {
      throw new RangeError(`IdMap keys are non-negative safe integers, got ${id}`);
    }
    const found = this.#slot(id);
    if (found >= 0) {
      this.#values[found] = value;
      return this;
    }
    if ((this.#size + 1) * 2 > this.#keys.length) this.#grow();
    const keys = this.#keys;
    const mask = this.#mask;
    let i = id & mask;
    while (keys[i] !== EMPTY) i = (i + 1) & mask;
    keys[i] = id;
    this.#values[i] = value;
    this.#size++;
    return this;
  }

  /** Drop `id`; true when it was held. */
  delete(id: number): boolean {
    let i = this.#slot(id);
    if (i < 0) return false;
    // Backward-shift deletion (linear probing without tombstones): each entry after the hole
    // whose home slot is not between the hole and itself moves into the hole.
    const keys = this.#keys;
    const values = this.#values;
    const mask = this.#mask;
    for (let j = (i + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = (keys[j] as number) & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      keys[i] = keys[j] as number;
      values[i] = values[j];
      i = j;
    }
    keys[i] = EMPTY;
    values[i] = undefined;
    this.#size--;
    return true;
  }

  /** Every value, as a snapshot (the map may change while it is walked). */
  values(): V[] {
    const all: V[] = [];
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== EMPTY) all.push(this.#values[i] as V);
    }
    return all;
  }

  /** Every key, as a snapshot. */
  keys(): number[] {
    return this.#keys.filter((k) => k !== EMPTY);
  }

  /** Every entry, as a snapshot. */
  entries(): [number, V][] {
    const all: [number, V][] = [];
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      if (k !== EMPTY) all.push([k, this.#values[i] as V]);
    }
    return all;
  }

  /** Drop every entry. */
  clear(): void {
    this.#keys.fill(EMPTY);
    this.#values.fill(undefined);
    this.#size = 0;
  }

  /** The slot holding `id`, or -1. */
  #slot(id: number): number {
    if (!(id >= 0)) return -1;
    const keys = this.#keys;
    const mask = this.#mask;
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === id) return i;
      if (k === EMPTY) return -1;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const length = keys.length * 2;
    this.#keys = new Array<number>(length).fill(EMPTY);
    this.#values = new Array<V | undefined>(length).fill(undefined);
    this.#mask = length - 1;
    this.#size = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as number;
      if (k !== EMPTY) this.set(k, values[i] as V);
    }
  }
}
