/**
 * A pause until the event loop's next turn (after pending I/O): long work on one caller's request
 * takes it between steps, so that other callers' requests are served meanwhile.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
