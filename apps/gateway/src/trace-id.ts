import { randomBytes } from 'node:crypto';

/*
 * Trace ids for events and calls: unique, not secret (they name a request in the event log; no
 * authority comes from knowing one), so no CSPRNG call per request. A random 80-bit prefix per
 * process and a 48-bit counter give strings in the UUID v4 shape get_events has always returned.
 */
const seed = randomBytes(10).toString('hex');
const prefix = `${seed.slice(0, 8)}-${seed.slice(8, 12)}-4${seed.slice(12, 15)}-${(
  (Number.parseInt(seed.slice(15, 16), 16) & 0x3) | 0x8
).toString(16)}${seed.slice(16, 19)}-`;
let counter = Number.parseInt(seed.slice(19, 20), 16) * 2 ** 40;
const WRAP = 2 ** 48;

/** A fresh trace id: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, unique within the process. */
export function nextTraceId(): string {
  counter = (counter + 1) % WRAP;
  return prefix + counter.toString(16).padStart(12, '0');
}
