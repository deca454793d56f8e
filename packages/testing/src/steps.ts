/**
 * A generator of steps (one that yields wherever its caller may pause, as the projects app's
 * sliced token checks do) run to its end at once: what it returned, and how often it paused —
 * what a test of such a walk asserts.
 */
export function runSteps<R>(steps: Generator<void, R, void>): { value: R; pauses: number } {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value, pauses };
    pauses++;
  }
}
