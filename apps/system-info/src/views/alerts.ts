/**
 * The alerts panel: what `get_alerts` reports, the active alerts first, then the few most
 * recently resolved. The panel is a polite live region, so it remembers what it shows and is
 * rewritten only when that changed.
 */
import { $, el, type Json, list, str } from './dom.js';

/** How many recent alerts the view asks for; it lists the resolved among them. */
export const ALERTS_ASKED = 20;
/** How many resolved alerts it lists. */
const RESOLVED_SHOWN = 5;
/** What the alerts panel shows now, as a key: an unchanged panel is not rewritten. */
let shownAlerts = '';

/** `2026-11-29T05:17:20Z` → the local time, with the date when it is not today. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '–';
  return d.toDateString() === new Date().toDateString()
    ? d.toLocaleTimeString()
    : d.toLocaleString();
}

function alertItem(a: Json): HTMLElement {
  const severity = str(a.severity);
  const item = el('li', undefined, {
    class: `alert ${severity}`,
    'data-alert-id': String(a.id),
    'data-rule': str(a.rule),
    'data-state': str(a.state),
    'data-severity': severity,
  });
  const firing = a.state === 'firing';
  item.append(
    el('span', severity, { class: 'severity' }),
    el('span', str(a.summary), { class: 'summary' }),
    el(
      'span',
      firing
        ? `since ${when(str(a.started_at))}`
        : `${when(str(a.raised_at))} – ${when(str(a.resolved_at))}`,
      { class: 'sub' },
    ),
  );
  return item;
}

/**
 * Active alerts first, then the recently resolved. The list is a polite live region, so it is
 * rewritten only when what it shows changed: a refresh that found the same alerts says nothing.
 */
export function paintAlerts(report: Json): void {
  const active = list(report.active);
  const resolved = list(report.history)
    .filter((a) => a.state === 'resolved')
    .slice(0, RESOLVED_SHOWN);
  const key = JSON.stringify([active, resolved].map((l) => l.map((a) => [a.id, a.summary])));
  if (key === shownAlerts) return;
  shownAlerts = key;
  const section = $('alerts-section');
  section.dataset.active = String(active.length);
  section.classList.toggle('firing', active.length > 0);
  const parts: HTMLElement[] = [];
  if (active.length > 0) {
    const ul = el('ul', undefined, { class: 'alerts active' });
    ul.append(...active.map(alertItem));
    parts.push(ul);
  } else
    parts.push(el('p', resolved.length > 0 ? 'No active alerts' : 'No alerts', { class: 'sub' }));
  if (resolved.length > 0) {
    const ul = el('ul', undefined, { class: 'alerts resolved', 'aria-label': 'Recently resolved' });
    ul.append(...resolved.map(alertItem));
    parts.push(el('h3', 'Recently resolved'), ul);
  }
  $('alerts').replaceChildren(...parts);
}

/** Forgets what the panel shows: the next answer is drawn whatever it is. */
export function forgetShownAlerts(): void {
  shownAlerts = '';
}

/** Empties the panel, as when another host is picked: it waits for that host's alerts. */
export function clearAlerts(): void {
  $('alerts').replaceChildren(el('p', 'Loading…', { class: 'sub' }));
  shownAlerts = '';
  const alerts = $('alerts-section');
  delete alerts.dataset.active;
  alerts.classList.remove('firing');
}
