import type { FrameSink, FrameTransport } from '../jsonrpc/transport.js';

/**
 * One end of an in-memory channel. Frames are delivered to the peer after the current microtasks
 * (never re-entrantly inside `send`), in order, as strings — exactly what a socket would deliver,
 * so a server and a client tested over it run the same code paths as over stdio.
 */
class MemoryTransport implements FrameTransport {
  #sink: FrameSink | undefined;
  #peer: MemoryTransport | undefined;
  /** Frames that arrived before `start`: a peer may speak first. */
  #early: string[] = [];
  #closed = false;
  #ended = false;

  link(peer: MemoryTransport): void {
    this.#peer = peer;
  }

  start(sink: FrameSink): void {
    if (this.#sink) throw new Error('transport already started');
    this.#sink = sink;
    const early = this.#early;
    this.#early = [];
    for (const frame of early) sink.frame(frame);
    if (this.#closed) this.#end();
  }

  send(frame: string): void {
    if (this.#closed) throw new Error('transport closed');
    const peer = this.#peer;
    if (!peer) return;
    queueMicrotask(() => peer.#receive(frame));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const peer = this.#peer;
    // The peer sees EOF after the frames already on their way, as on a pipe.
    queueMicrotask(() => {
      if (peer) peer.#peerClosed();
      this.#end();
    });
  }

  #receive(frame: string): void {
    if (this.#ended) return;
    if (this.#sink) this.#sink.frame(frame);
    else this.#early.push(frame);
  }

  #peerClosed(): void {
    this.#closed = true;
    if (this.#sink) this.#end();
  }

  #end(): void {
    if (this.#ended || !this.#sink) return;
    this.#ended = true;
    this.#sink.end();
  }
}

/**
 * Two linked in-memory transports: what one sends, the other receives. For tests and for running
 * a client and a server in one process without a pipe or a socket.
 *
 * @example
 * ```ts
 * const [clientSide, serverSide] = createLinkedTransports();
 * void server.connect(serverSide);
 * const client = await McpClient.connect(clientSide);
 * ```
 */
export function createLinkedTransports(): [FrameTransport, FrameTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.link(b);
  b.link(a);
  return [a, b];
}
