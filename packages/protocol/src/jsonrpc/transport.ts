/** Receives what a transport reads. */
export interface FrameSink {
  /** One frame's text: a message or a batch, not yet parsed. */
  frame(text: string): void;
  /** The transport rejected a frame before parsing it (too large, not UTF-8). */
  rejected(reason: 'too_large' | 'not_utf8', bytes: number): void;
  /** No more frames will come (the peer closed, or the transport failed). */
  end(error?: Error): void;
}

/** A bidirectional channel of JSON-RPC frames: stdio lines, a socket, an HTTP exchange … */
export interface FrameTransport {
  /** Start reading: every frame from the peer goes to `sink`. Called once. */
  start(sink: FrameSink): void;
  /** Queue one serialized frame for the peer. */
  send(frame: string): void;
  /** Stop reading, flush what was queued, release the streams. */
  close(): Promise<void>;
}
