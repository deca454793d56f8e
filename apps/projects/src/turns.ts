/**
 * A pause until pending I/O has been served: long work on one caller's request takes it between
 * steps, so that other callers' requests are served meanwhile.
 *
 * Two hops of `setImmediate`, because one is not always a turn: an immediate queued from an I/O
 * callback (the poll phase: where a request's body is parsed and its handler starts) runs in the
 * check phase of the same loop iteration, before the loop polls again, so another caller's request
 * that arrived meanwhile would still wait. An immediate queued from an immediate runs in the next
 * iteration, after its poll (Node.js, "The Node.js Event Loop": check phase).
 */
export const nextTurn = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Runs a generator of steps (one that yields between steps) to its end in slices of about
 * `sliceMs` of the event loop, with {@link nextTurn} between slices: its return value.
 */
export async function runSliced<R>(steps: Generator<void, R, void>, sliceMs = 2): Promise<R> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}
