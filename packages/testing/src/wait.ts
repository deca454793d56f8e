/** A promise that resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** What {@link within} rejects with when the promise did not settle in time. */
export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label}: no answer within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * `promise`, or a {@link TimeoutError} naming `label` when it has not settled within `ms`. The
 * promise itself goes on; only the wait is bounded.
 *
 * @example
 * ```ts
 * const tools = await within(client.listTools(), 10_000, 'tools/list');
 * ```
 */
export async function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(label, ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` every `intervalMs` until it returns something other than `undefined` or `false`
 * (a throw counts as "not yet"), and resolves with that. After `timeoutMs` it throws, naming
 * `what` and the last error `check` threw.
 *
 * @example
 * ```ts
 * const backend = await waitFor('backend running', async () => {
 *   const b = (await status()).backends.fs;
 *   return b?.status === 'running' ? b : undefined;
 * });
 * ```
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}
