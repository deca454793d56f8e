/** Units a window or step may be given in: seconds, minutes, hours, days. */
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The pattern of a duration: a whole number and a unit, `90s`, `10m`, `6h`, `2d`. */
export const DURATION_PATTERN = /^(\d{1,6})(s|m|h|d)$/;

/** `10m` → 600,000 ms; undefined for anything else (zero included). */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_PATTERN.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms > 0 ? ms : undefined;
}

/** 600,000 ms → `10m`: the largest unit that divides it. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
