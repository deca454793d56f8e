import { pollTurn } from '@mcpkit/protocol';

/**
 * Runs a generator of steps (one that yields between steps) to its end in slices of about
 * `sliceMs` of the event loop, with a turn of it between slices ({@link pollTurn}), so that
 * other callers' requests are served meanwhile: its return value.
 */
export async function runSliced<R>(steps: Generator<void, R, void>, sliceMs = 2): Promise<R> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await pollTurn();
      sliceStart = performance.now();
    }
  }
}
