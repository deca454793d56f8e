import { splitMetric } from '../history/metrics.js';
import type { AppLogger } from '../logger.js';
import type { AlertRule } from './rules.js';

/** An alert: one rule breached on one metric, from raise to clear. */
export interface Alert {
  /** Increasing number of this process's alerts. */
  id: number;
  rule: string;
  metric: string;
  severity: AlertRule['severity'];
  summary: string;
  state: 'firing' | 'resolved';
  /** ISO 8601: when the breach began (not when its hold time ran out). */
  started_at: string;
  /** ISO 8601: when the alert was raised. */
  raised_at: string;
  resolved_at: string | null;
  threshold: number;
  clear: number;
  value_at_raise: number;
  /** The worst value while it fired. */
  peak: number;
  /** The latest value seen. */
  value: number;
}

/** Raised or resolved: what a listener hears. */
export type AlertChange = 'raised' | 'resolved';

interface Track {
  state: 'ok' | 'pending' | 'firing' | 'clearing';
  since: number;
  alert?: Alert;
}

/** How many alerts the history keeps, newest first (active ones are never dropped). */
export const ALERT_HISTORY = 200;

const iso = (t: number) => new Date(t).toISOString();
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Evaluates the rules on every recorded reading. Per rule and metric a small state machine:
 * `ok` → `pending` on a breach, `firing` once the breach has lasted `for_seconds` (a sample back
 * inside resets it), `clearing` once the value is past `clear`, `ok` once that lasted
 * `clear_for_seconds` (a sample back over `clear` returns to `firing`). A value between `clear`
 * and the threshold changes nothing: that band is what keeps an alert from flapping.
 */
export class AlertEngine {
  readonly rules: readonly AlertRule[];
  readonly #tracks = new Map<string, Track>();
  readonly #history: Alert[] = [];
  readonly #listeners = new Set<(alert: Alert, change: AlertChange) => void>();
  readonly #logger: AppLogger | undefined;
  #nextId = 1;

  constructor(rules: readonly AlertRule[], logger?: AppLogger) {
    this.rules = rules;
    this.#logger = logger;
  }

  /** Be told when an alert is raised or resolved. Returns the way to stop. */
  onChange(listener: (alert: Alert, change: AlertChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Feed one reading: its time and the values it recorded, by metric. */
  evaluate(t: number, values: ReadonlyMap<string, number>): void {
    for (const rule of this.rules) {
      const { kind, instance } = splitMetric(rule.metric);
      if (instance === '*') {
        for (const [metric, value] of values) {
          if (metric.startsWith(`${kind}:`)) this.#step(rule, metric, t, value);
        }
      } else {
        const value = values.get(rule.metric);
        if (value !== undefined) this.#step(rule, rule.metric, t, value);
      }
    }
  }

  /** Alerts firing now, newest first. */
  active(): Alert[] {
    return this.#history.filter((a) => a.state === 'firing').map((a) => ({ ...a }));
  }

  /** Every alert kept, newest first. */
  history(): Alert[] {
    return this.#history.map((a) => ({ ...a }));
  }

  #step(rule: AlertRule, metric: string, t: number, value: number): void {
    const key = `${rule.id}\u0000${metric}`;
    const track = this.#tracks.get(key) ?? { state: 'ok', since: t };
    this.#tracks.set(key, track);
    const breach = rule.above !== undefined ? value > rule.above : value < (rule.below as number);
    const cleared = rule.above !== undefined ? value < rule.clear : value > rule.clear;
    const held = (seconds: number) => t - track.since >= seconds * 1000;
    if (track.alert) {
      const a = track.alert;
      a.value = round(value);
      a.peak = rule.above !== undefined ? Math.max(a.peak, a.value) : Math.min(a.peak, a.value);
    }
    switch (track.state) {
      case 'ok':
        if (!breach) return;
        track.state = 'pending';
        track.since = t;
        if (held(rule.for_seconds)) this.#raise(rule, metric, track, t, value);
        return;
      case 'pending':
        if (!breach) track.state = 'ok';
        else if (held(rule.for_seconds)) this.#raise(rule, metric, track, t, value);
        return;
      case 'firing':
        if (!cleared) return;
        track.state = 'clearing';
        track.since = t;
        if (held(rule.clear_for_seconds)) this.#resolve(track, t);
        return;
      case 'clearing':
        if (!cleared) track.state = 'firing';
        else if (held(rule.clear_for_seconds)) this.#resolve(track, t);
        return;
    }
  }

  #raise(rule: AlertRule, metric: string, track: Track, t: number, value: number): void {
    const instance = splitMetric(metric).instance ?? '';
    const v = round(value);
    const alert: Alert = {
      id: this.#nextId++,
      rule: rule.id,
      metric,
      severity: rule.severity,
      summary: rule.summary
        .replaceAll('{value}', String(v))
        .replaceAll('{metric}', metric)
        .replaceAll('{instance}', instance),
      state: 'firing',
      started_at: iso(track.since),
      raised_at: iso(t),
      resolved_at: null,
      threshold: (rule.above ?? rule.below) as number,
      clear: rule.clear,
      value_at_raise: v,
      peak: v,
      value: v,
    };
    track.state = 'firing';
    track.alert = alert;
    this.#history.unshift(alert);
    // Resolved alerts beyond the cap go, oldest first; firing ones stay whatever the count.
    for (let i = this.#history.length - 1; i >= 0 && this.#history.length > ALERT_HISTORY; i--) {
      if (this.#history[i]?.state === 'resolved') this.#history.splice(i, 1);
    }
    this.#logger?.warn(
      { alert: alert.rule, metric, value: v, severity: rule.severity },
      'alert raised',
    );
    this.#tell(alert, 'raised');
  }

  #resolve(track: Track, t: number): void {
    const alert = track.alert as Alert;
    alert.state = 'resolved';
    alert.resolved_at = iso(t);
    track.state = 'ok';
    track.alert = undefined;
    this.#logger?.info?.({ alert: alert.rule, metric: alert.metric }, 'alert resolved');
    this.#tell(alert, 'resolved');
  }

  #tell(alert: Alert, change: AlertChange): void {
    for (const listener of this.#listeners) {
      try {
        listener({ ...alert }, change);
      } catch (err) {
        this.#logger?.warn({ err }, 'alert listener failed');
      }
    }
  }
}
