/** Helpers the benches share. */

/** The median of `xs` (the mean of the middle two for an even count). */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Run `fn` with `env` added to this process's environment (what the server child inherits). */
export async function withEnv<T>(
  env: Record<string, string> | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env ?? {});
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(env ?? {})) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}
