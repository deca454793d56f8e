/**
 * What every part of the dashboard builds with: finding its elements, making new ones, reading
 * the loosely typed JSON the server's tools answer, and printing numbers for people. Nothing here
 * knows a panel or a tool.
 */

export type Json = Record<string, unknown>;

export const $ = (id: string): HTMLElement => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dashboard: #${id} is missing`);
  return el;
};

export const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** Bytes for people: 1536 → "1.5 KiB". */
export function bytes(n: number | null): string {
  if (n === null) return '–';
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${UNITS[u]}`;
}
export const pct = (n: number | null): string => (n === null ? '–' : `${n.toFixed(1)} %`);

/** An element with text, built without innerHTML: every value from the server is data. */
export function el(tag: string, text?: string, attrs: Record<string, string> = {}): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** Puts a failure where the element's readings would be. */
export function problem(id: string, message: string): void {
  $(id).replaceChildren(el('p', message, { class: 'error' }));
}
