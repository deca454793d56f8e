import { isUtf8 } from 'node:buffer';

/** Receives what a {@link LineFramer} splits off. */
export interface LineSink {
  /** One complete line, decoded, without its newline. */
  line(text: string): void;
  /** A line longer than the limit was dropped; `bytes` is how long it was. */
  oversized(bytes: number): void;
  /** A line that is not valid UTF-8 was dropped. */
  malformed(bytes: number): void;
}

/**
 * Splits a byte stream into newline-delimited lines. Works on bytes, not strings, so a UTF-8
 * character split across chunks is decoded whole; keeps a partial line as a list of slices and
 * joins it once, so a long line arriving in many chunks costs linear time; and stops buffering a
 * line that grows past `maxLineBytes`, discarding it up to the next newline.
 */
export class LineFramer {
  readonly #maxLineBytes: number;
  readonly #sink: LineSink;
  #parts: Buffer[] = [];
  #partBytes = 0;
  #discarding = false;

  constructor(maxLineBytes: number, sink: LineSink) {
    if (!(maxLineBytes > 0)) throw new RangeError('maxLineBytes must be positive');
    this.#maxLineBytes = maxLineBytes;
    this.#sink = sink;
  }

  /** Feed the next chunk of the stream; complete lines go to the sink at once. */
  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(0x0a);
    while (nl !== -1) {
      if (this.#discarding) {
        this.#discarding = false;
        const bytes = this.#partBytes + nl - start;
        this.#partBytes = 0;
        this.#sink.oversized(bytes);
      } else if (this.#partBytes === 0) {
        this.#emit(chunk, start, nl);
      } else {
        this.#parts.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(this.#parts, this.#partBytes + nl - start);
        this.#parts = [];
        this.#partBytes = 0;
        this.#emit(whole, 0, whole.length);
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) this.#keep(chunk, start);
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.#discarding) {
      this.#discarding = false;
      const bytes = this.#partBytes;
      this.#partBytes = 0;
      this.#sink.oversized(bytes);
      return;
    }
    if (this.#partBytes > 0) {
      const whole = Buffer.concat(this.#parts, this.#partBytes);
      this.#parts = [];
      this.#partBytes = 0;
      this.#emit(whole, 0, whole.length);
    }
  }

  #keep(chunk: Buffer, start: number): void {
    const bytes = chunk.length - start;
    this.#partBytes += bytes;
    if (this.#discarding) return;
    if (this.#partBytes > this.#maxLineBytes) {
      this.#discarding = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(start === 0 ? chunk : chunk.subarray(start));
  }

  #emit(buf: Buffer, start: number, end: number): void {
    let stop = end;
    if (stop > start && buf[stop - 1] === 0x0d) stop--; // CRLF from Windows writers
    const bytes = stop - start;
    if (bytes === 0) return;
    if (bytes > this.#maxLineBytes) {
      this.#sink.oversized(bytes);
      return;
    }
    const text = buf.toString('utf8', start, stop);
    // toString() replaces invalid sequences with U+FFFD; only then is the strict check worth it.
    if (text.includes('\uFFFD') && !isUtf8(buf.subarray(start, stop))) {
      this.#sink.malformed(bytes);
      return;
    }
    this.#sink.line(text);
  }
}
