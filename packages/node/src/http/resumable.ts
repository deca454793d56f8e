import type { SseStream } from './sse.js';

/**
 * The messages of one POST's SSE stream, kept so a client that lost the connection (or that the
 * server asked to poll) can resume with `Last-Event-ID` (MCP 2025-11-25, resumability).
 * Event ids are `<stream>-<n>`; n counts the stream's messages from 1, 0 is the priming event.
 */
/** Messages kept per stream for replay; a long call's older notifications make room. */
export const MAX_REPLAY_EVENTS = 1000;

/**
 * Where a stream's messages are also written so another instance can replay them (a fleet's
 * state store): called in order, once per message; `done` with the last one (json '' when the
 * stream ended without a message of its own).
 */
export type StreamMirror = (json: string, done: boolean) => void;

export class StreamLog {
  readonly id: string;
  readonly #mirror: StreamMirror | undefined;
  #events: string[] = [];
  /** Messages dropped from the front of #events (event n is at index n - 1 - #dropped). */
  #dropped = 0;
  #sent = 0;
  #live: SseStream | undefined;
  #done = false;
  finishedAt = 0;

  constructor(id: string, live: SseStream, mirror?: StreamMirror) {
    this.id = id;
    this.#live = live;
    this.#mirror = mirror;
  }

  get done(): boolean {
    return this.#done;
  }

  prime(retryMs: number): void {
    this.#live?.prime(`${this.id}-0`, retryMs);
  }

  /** Log and send one message; `last`: it ends the stream (its response). */
  send(json: string, last = false): void {
    this.#mirror?.(json, last);
    this.#sent++;
    this.#events.push(json);
    if (this.#events.length > MAX_REPLAY_EVENTS) {
      // Amortised: drop the oldest half at once rather than shifting on every message.
      const cut = this.#events.length - MAX_REPLAY_EVENTS / 2;
      this.#events = this.#events.slice(cut);
      this.#dropped += cut;
    }
    this.#live?.send(json, `${this.id}-${this.#sent}`);
  }

  /** End the HTTP response but keep the stream: later messages wait for a resuming GET. */
  detach(): void {
    const live = this.#live;
    this.#live = undefined;
    live?.end();
  }

  /** The stream's last message was sent (`mirrored`: it said so to the mirror already). */
  finish(mirrored = false): void {
    if (!mirrored) this.#mirror?.('', true);
    this.#done = true;
    this.finishedAt = Date.now();
    this.detach();
  }

  /** Replay what followed event `after`, then follow the stream live (or end if it is done). */
  resume(stream: SseStream, after: number): void {
    this.#live?.end();
    stream.start();
    // What was dropped cannot be replayed; the rest (always including the result) is.
    for (let n = Math.max(after, this.#dropped) + 1; n <= this.#sent; n++) {
      stream.send(this.#events[n - 1 - this.#dropped] as string, `${this.id}-${n}`);
    }
    if (this.#done) {
      stream.end();
      return;
    }
    this.#live = stream;
  }
}

/** `<stream>-<n>` → its parts, or undefined for an id we did not issue. */
export function parseEventId(value: string | undefined): { stream: string; n: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^([A-Za-z0-9]{1,32})-(\d{1,9})$/.exec(value);
  return match ? { stream: match[1] as string, n: Number(match[2]) } : undefined;
}
