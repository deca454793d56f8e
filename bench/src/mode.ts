/**
 * The short mode (`--short`, what CI runs): every group still runs and prints every ratio, on
 * fewer and smaller rounds, so the bench phase stays inside CI's time budget. The full mode is
 * the one whose figures go into closing notes and READMEs.
 */
export const SHORT = process.argv.includes('--short');

/** `full` in the full mode, `short` under `--short`. */
export function size(full: number, short: number): number {
  return SHORT ? short : full;
}
