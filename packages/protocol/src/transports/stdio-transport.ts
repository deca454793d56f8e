// The transport alone, apart from the JSON-RPC helpers of stdio.ts: a client that only spawns a
// server (StdioClientTransport) need not load the dispatcher and connection with it.
import type { Readable, Writable } from 'node:stream';
import type { FrameSink, FrameTransport } from '../jsonrpc/transport.js';
import { LineFramer } from './line-framer.js';

/** Options of {@link StdioTransport}: which streams, and how much a line may hold. */
export interface StdioTransportOptions {
  /** Where frames are read from. Default `process.stdin`. */
  input?: Readable;
  /** Where frames are written. Default `process.stdout`. */
  output?: Writable;
  /** Largest frame accepted; a longer line is answered with an error and skipped. Default 16 MiB. */
  maxFrameBytes?: number;
  /** End `output` on close (signals EOF to a child process). Default: unless it is process.stdout. */
  endOutputOnClose?: boolean;
  /**
   * Stop reading while the output pushes back. Default true: a server reads no more requests
   * than it can answer. A client sets false — it must keep reading answers while its requests
   * wait, or client and server each wait for the other to read (a deadlock).
   */
  pauseInputOnBackpressure?: boolean;
}

/**
 * The most frames one write holds. Coalescing saves a write per frame, but a batch of every
 * call in flight moves processes in lock-step: a gateway forwarding 32 calls wrote them to its
 * backend at once, which answered all 32 at once, while the client and the gateway itself
 * waited — one of the three processes busy at a time. Sixteen frames let the next process start
 * on the first ones (the gateway at c=32 over stdio: ~15.5k → ~21k calls/s on 2 cores, #35; 8
 * did no better), while an HTTP front's 50 calls of one poll still reach the backend in 4 writes
 * (8 frames a write cost it ~10 % of its requests per second).
 */
const FRAMES_PER_WRITE = 16;

/** The largest line a stdio transport accepts by default: 16 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a pair of streams: a server's stdin/stdout, or a child
 * process's stdout/stdin seen from the parent.
 *
 * Writes are coalesced, up to sixteen frames a write: replies produced while one input chunk is
 * processed, and asynchronous ones gathered until the event loop's I/O phase ends. When the
 * output pushes back, reading pauses until it drains, so a reader that stops reading bounds our
 * memory instead of growing a queue; exactly one `drain` listener exists at a time.
 */
export class StdioTransport implements FrameTransport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxFrameBytes: number;
  readonly #endOutput: boolean;
  readonly #pauseInput: boolean;
  #sink: FrameSink | undefined;
  #framer: LineFramer | undefined;
  #queue: string[] = [];
  #inChunk = false;
  #scheduled = false;
  #blocked = false;
  #inputDone = false;
  #outputBroken = false;
  #closing: Promise<void> | undefined;
  #drainWaiters: (() => void)[] = [];

  constructor(options: StdioTransportOptions = {}) {
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#endOutput = options.endOutputOnClose ?? this.#output !== process.stdout;
    this.#pauseInput = options.pauseInputOnBackpressure ?? true;
  }

  /** Start reading lines from the input; each goes to `sink`. Called once. */
  start(sink: FrameSink): void {
    if (this.#sink) throw new Error('transport already started');
    this.#sink = sink;
    this.#framer = new LineFramer(this.#maxFrameBytes, {
      line: (text) => sink.frame(text),
      oversized: (bytes) => sink.rejected('too_large', bytes),
      malformed: (bytes) => sink.rejected('not_utf8', bytes),
    });
    this.#input.on('data', this.#onData);
    this.#input.once('end', this.#onInputEnd);
    this.#input.once('close', this.#onInputEnd);
    this.#input.on('error', this.#onInputError);
    this.#output.on('error', this.#onOutputError);
  }

  /** The largest line accepted. */
  get maxFrameBytes(): number {
    return this.#maxFrameBytes;
  }

  /**
   * Queue one frame; frames queued together leave in one write. Dropped once the output broke.
   * The write waits for the end of the event loop's I/O phase (setImmediate), not the end of the
   * current task: a gateway forwarding calls that arrived on many sockets in one poll sends them
   * to a backend in one write instead of one each (the write syscall dominated its HTTP path).
   * A queue of sixteen frames is written at once (see FRAMES_PER_WRITE).
   */
  send(frame: string): void {
    if (this.#outputBroken) return;
    this.#queue.push(frame);
    if (this.#queue.length >= FRAMES_PER_WRITE) {
      this.#flush();
      return;
    }
    if (!this.#inChunk && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** Stop reading, write what is queued (waiting for a drain), end the output if configured. */
  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  async #doClose(): Promise<void> {
    this.#detachInput();
    this.#flush();
    if (this.#blocked && !this.#outputBroken) {
      await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    }
    this.#output.off('error', this.#onOutputError);
    // A late EPIPE after we are done must not become an uncaught exception.
    this.#output.on('error', noop);
    if (this.#endOutput && !this.#outputBroken) {
      await new Promise<void>((resolve) => this.#output.end(resolve));
    }
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.#inChunk = true;
    try {
      this.#framer?.push(bytes);
    } finally {
      this.#inChunk = false;
    }
    this.#flush();
  };

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#blocked || this.#outputBroken || this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    const data = queue.length === 1 ? `${queue[0]}\n` : `${queue.join('\n')}\n`;
    if (!this.#output.write(data)) {
      this.#blocked = true;
      if (!this.#inputDone && this.#pauseInput) this.#input.pause();
      this.#output.once('drain', this.#onDrain);
    }
  };

  readonly #onDrain = (): void => {
    this.#blocked = false;
    this.#flush();
    if (this.#blocked) return;
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
    if (!this.#inputDone) this.#input.resume();
  };

  readonly #onInputEnd = (): void => {
    if (this.#inputDone) return;
    this.#framer?.end();
    this.#detachInput();
    this.#sink?.end();
  };

  readonly #onInputError = (err: Error): void => {
    if (this.#inputDone) return;
    this.#detachInput();
    this.#sink?.end(err);
  };

  readonly #onOutputError = (err: Error): void => {
    // EPIPE: the reader went away. Nothing we write can arrive any more.
    this.#outputBroken = true;
    this.#queue = [];
    this.#blocked = false;
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
    if (!this.#inputDone) {
      this.#detachInput();
      this.#sink?.end(err);
    }
  };

  #detachInput(): void {
    if (this.#inputDone) return;
    this.#inputDone = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onInputEnd);
    this.#input.off('close', this.#onInputEnd);
    this.#input.off('error', this.#onInputError);
    this.#input.on('error', noop);
    this.#input.pause();
  }
}

function noop(): void {}
