/** One timeout value's deadlines, in the order they were set — which is also expiry order. */
interface Queue {
  ids: number[];
  at: number[];
  head: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Below this many spent entries a queue is not worth compacting. */
const COMPACT_MIN = 1024;

/**
 * The deadlines of requests in flight with one timer per distinct timeout value instead of one
 * per request: a client sending 100,000 calls a second with the same deadline arms a timer when
 * the oldest deadline falls due, not 100,000 times. Requests that finish are not removed one by
 * one; their entries are skipped when reached, and a queue holding far more entries than
 * requests in flight is compacted (amortised O(1) per request).
 */
export class Deadlines {
  readonly #queues = new Map<number, Queue>();
  readonly #expire: (id: number) => void;
  readonly #alive: (id: number) => boolean;
  readonly #liveCount: () => number;

  /**
   * @param expire called when a request's deadline passes while it is still `alive`
   * @param alive whether the request is still waiting for its answer
   * @param liveCount how many requests are waiting (bounds the spent entries kept)
   */
  constructor(
    expire: (id: number) => void,
    alive: (id: number) => boolean,
    liveCount: () => number,
  ) {
    this.#expire = expire;
    this.#alive = alive;
    this.#liveCount = liveCount;
  }

  add(id: number, timeoutMs: number): void {
    let queue = this.#queues.get(timeoutMs);
    if (!queue) {
      queue = { ids: [], at: [], head: 0, timer: undefined };
      this.#queues.set(timeoutMs, queue);
    }
    queue.ids.push(id);
    queue.at.push(Date.now() + timeoutMs);
    if (queue.timer === undefined) this.#arm(timeoutMs, queue, timeoutMs);
    else if (!queue.timer.hasRef()) queue.timer.ref();
    else if (queue.ids.length - queue.head > 2 * this.#liveCount() + COMPACT_MIN) {
      this.#compact(queue);
    }
  }

  /**
   * Nothing is waiting: the timers stay armed (re-arming one per request costs more than the
   * entries they skip) but no longer keep the process alive; the next `add` holds it again.
   */
  idle(): void {
    for (const queue of this.#queues.values()) queue.timer?.unref();
  }

  /** Stop every timer (the client closed). */
  clear(): void {
    for (const queue of this.#queues.values()) {
      if (queue.timer !== undefined) clearTimeout(queue.timer);
    }
    this.#queues.clear();
  }

  #arm(timeoutMs: number, queue: Queue, delay: number): void {
    queue.timer = setTimeout(() => this.#fire(timeoutMs, queue), Math.max(1, delay));
  }

  #fire(timeoutMs: number, queue: Queue): void {
    queue.timer = undefined;
    const now = Date.now();
    const { ids, at } = queue;
    while (queue.head < ids.length && (at[queue.head] as number) <= now) {
      const id = ids[queue.head] as number;
      queue.head++;
      if (this.#alive(id)) this.#expire(id);
    }
    // Skip the finished ones at the front, so the next timer is for a request still waiting.
    while (queue.head < ids.length && !this.#alive(ids[queue.head] as number)) queue.head++;
    if (queue.head >= ids.length) {
      this.#queues.delete(timeoutMs);
      return;
    }
    if (queue.head > COMPACT_MIN) this.#compact(queue);
    this.#arm(timeoutMs, queue, (queue.at[queue.head] as number) - now);
  }

  #compact(queue: Queue): void {
    const ids: number[] = [];
    const at: number[] = [];
    for (let i = queue.head; i < queue.ids.length; i++) {
      const id = queue.ids[i] as number;
      if (this.#alive(id)) {
        ids.push(id);
        at.push(queue.at[i] as number);
      }
    }
    queue.ids = ids;
    queue.at = at;
    queue.head = 0;
  }
}
