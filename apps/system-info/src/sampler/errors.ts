/**
 * A collector that did not answer within its deadline (`df` on a hung network mount). Tools
 * recognise it by class to answer "unavailable" instead of failing, whatever the message says.
 */
export class CollectorTimeoutError extends Error {
  constructor(
    /** The command or source that hung, e.g. `df`. */
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
    this.name = 'CollectorTimeoutError';
  }
}
