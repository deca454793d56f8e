/** What the event log stores and answers, and how `since` is read (the get_events contract). */

export const DAY_MS = 86_400_000;

/** How an event ended: `pending` for one still under way. */
export type EventStatus = 'success' | 'failure' | 'pending';

/** One entry of the event log, as `get_events` returns it. */
export interface GatewayEvent {
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-22T06:11:03.123Z */
  timestamp: string;
  /** an id in UUID form per client request (or per lifecycle event) */
  trace_id: string;
  /** gateway.started, backend.started, backend.failed, backend.restarted, gateway.tool_call, … */
  event_type: string;
  /** how it ended */
  status: EventStatus;
  /** the gateway's name, or the backend's name */
  source: string;
  /** the backend it concerns, if any */
  backend?: string | null;
  /** the tool called, for tool calls */
  tool?: string | null;
  /** how long it took, for calls */
  duration_ms?: number | null;
  /** small JSON details (error message, pid, …) */
  data?: Record<string, unknown> | null;
  /** the gateway process that recorded it (`host:pid:random`; see `gateway_status`) */
  instance?: string | null;
}

/** The filters of `get_events`: every one given must match. */
export interface EventQuery {
  /** events of one request */
  trace_id?: string;
  /** events of one type, e.g. `gateway.tool_call` */
  event_type?: string;
  /** events that ended this way */
  status?: EventStatus;
  /** events of one gateway process (its `instance` id) */
  instance?: string;
  /** "30m", "24h", "7d", "2w" or an ISO 8601 date; events at or after it */
  since?: string;
  /** 1..1000, default 100 */
  limit?: number;
}

/** How long and how much an EventLog keeps, and how often it writes. */
export interface EventLogOptions {
  /** events older than this are pruned; default 30 */
  retentionDays?: number;
  /** at most this many events are kept, the oldest are pruned first; default 1 000 000 */
  maxEvents?: number;
  /** how long recorded events may wait in memory before they are written; default 100 */
  flushIntervalMs?: number;
  /**
   * successful tool calls (`gateway.tool_call` events) recorded one by one per second of the
   * log's clock (`now`, whatever `timestamp` an event gives); the rest of that second's successes
   * are aggregated per (backend, tool) into one event per flush, as under overload (failures
   * are always kept one by one). Default 1 000; `Infinity` keeps every call.
   */
  detailPerSecond?: number;
  /** the clock, in epoch ms; default Date.now */
  now?: () => number;
  /** the id on every event recorded (default: `host:pid:random`, new per process) */
  instance?: string;
  /**
   * SQLite: start the writer thread once this settles rather than at once (writes wait in
   * order; a query starts it at once). The CLI passes its backends' start, so booting the
   * thread does not compete with them for the CPU.
   */
  startAfter?: Promise<unknown>;
}

/**
 * An event as `EventLog.record` takes it: timestamp, trace id and instance are filled in when
 * omitted.
 */
export type RecordedEvent = Omit<GatewayEvent, 'timestamp' | 'trace_id'> & {
  timestamp?: string;
  trace_id?: string;
  /**
   * Details of a successful event kept only when it is stored on its own — not when it is
   * counted into an aggregate (beyond the detail rate, or while the store lags): what a call
   * adds that is worth a row but not the cost of one (the rule that allowed it).
   */
  detail?: Record<string, unknown>;
};

/** A query the caller got wrong (bad `since`, `limit` or `status`): report it, don't retry it. */
export class EventQueryError extends Error {
  /** Always `'EventQueryError'`. */
  override name = 'EventQueryError';
}

/** Every {@link EventStatus}. */
export const EVENT_STATUSES: readonly EventStatus[] = ['success', 'failure', 'pending'];
/** Events `get_events` returns when no `limit` is given. */
export const DEFAULT_QUERY_LIMIT = 100;
/** The largest `limit` `get_events` accepts. */
export const MAX_QUERY_LIMIT = 1000;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS } as const;
const RELATIVE = /^(\d{1,6})([mhdw])$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `since` → epoch ms: "30m", "24h", "7d", "2w" count back from `now`; an ISO 8601 date
 * ("2026-11-22", "2026-11-22T06:11", "2026-11-22T06:11:03.123Z", "…+01:00") is absolute, and UTC
 * when it carries no offset (event timestamps are UTC). Throws EventQueryError for anything else,
 * including impossible dates such as 2026-02-30.
 */
export function parseSince(since: string, now: number): number {
  const bad = (why: string) =>
    new EventQueryError(
      `since must be a duration like "30m", "24h", "7d", "2w" or an ISO 8601 date such as "2026-11-22T06:00:00Z"${why}, got ${JSON.stringify(since)}`,
    );
  if (typeof since !== 'string') throw bad('');
  const s = since.trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const n = Number(rel[1]);
    if (n === 0) throw bad(' (a duration must be at least 1)');
    return now - n * UNIT_MS[rel[2] as keyof typeof UNIT_MS];
  }
  const iso = ISO.exec(s);
  if (!iso) throw bad('');
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone = 'Z'] = iso;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const [hour, minute, second] = [Number(h), Number(mi), Number(sec)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) throw bad(' (no such day)');
  if (hour > 23 || minute > 59 || second > 59) throw bad(' (no such time)');
  let offsetMin = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 23 || om > 59) throw bad(' (no such offset)');
    offsetMin = (digits[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const utc = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  return utc.getTime() - offsetMin * 60_000;
}
