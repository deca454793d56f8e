/**
 * Resolves after the event loop has polled for I/O at least once: what long work pauses with so
 * that other callers' requests, arrived meanwhile, are served before its next step.
 *
 * Two hops of `setImmediate`, because one is not always a turn: an immediate queued from an I/O
 * callback (the poll phase: where a request's body is read and its handler starts, or a signal
 * handler runs) runs in the check phase of the same loop iteration, before the loop polls again.
 * An immediate queued from an immediate runs in the next iteration, after its poll (Node.js, "The
 * Node.js Event Loop": check phase).
 */
export function pollTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}
