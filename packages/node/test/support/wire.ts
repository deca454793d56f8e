/**
 * A client transport that keeps every frame the client sends, parsed, in order — for the client
 * tests that assert what went over the wire (the envelope, retries, cancellations).
 */
import type { ClientTransport } from '@mcpkit/protocol';

/** One frame the client sent. */
export interface WireMessage {
  id?: number | string;
  method?: string;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
}

/** `inner`, recording what is sent through it into `wire`. */
export function recording(inner: ClientTransport): {
  transport: ClientTransport;
  wire: WireMessage[];
} {
  const wire: WireMessage[] = [];
  const transport: ClientTransport = {
    start: (sink) => inner.start(sink),
    send: (frame) => {
      wire.push(JSON.parse(frame) as WireMessage);
      inner.send(frame);
    },
    close: () => inner.close(),
  };
  return { transport, wire };
}
