/**
 * The live panels: CPU and its cores, load, memory and swap, disks, network, the top processes
 * and the signed-in sessions, with the bars and tables they are drawn with. The painters: each
 * takes a tool's `structuredContent` and tolerates missing fields.
 */
import { $, bytes, el, type Json, list, num, pct, str } from './dom.js';

/** A labelled bar: role=meter with its value, so it reads as a number, not only as a colour. */
function bar(label: string, percent: number | null, value: string): HTMLElement {
  const p = percent === null ? 0 : Math.max(0, Math.min(100, percent));
  const row = el('div', undefined, { class: 'row' });
  const track = el('div', undefined, {
    class: 'bar',
    role: 'meter',
    'aria-label': label,
    'aria-valuemin': '0',
    'aria-valuemax': '100',
    'aria-valuenow': String(Math.round(p)),
    'aria-valuetext': value,
  });
  track.append(
    el('span', undefined, { class: p >= 90 ? 'bad' : p >= 70 ? 'warn' : '', style: `width:${p}%` }),
  );
  row.append(el('span', label), track, el('span', value));
  return row;
}

/** One core: its name, a bar and its load, stacked to fit a narrow tile. */
function core(label: string, percent: number | null, cpu: string): HTMLElement {
  const box = el('div', undefined, { class: 'core', 'data-cpu': cpu });
  const row = bar(label, percent, pct(percent));
  box.append(...row.children);
  return box;
}

function table(headers: string[], rows: HTMLElement[], numeric: ReadonlySet<number>): HTMLElement {
  const t = el('table');
  const head = el('tr');
  headers.forEach((h, i) => {
    head.append(el('th', h, { scope: 'col', ...(numeric.has(i) ? { class: 'num' } : {}) }));
  });
  const body = el('tbody');
  body.append(...rows);
  t.append(el('thead'), body);
  t.firstElementChild?.append(head);
  return t;
}

function cells(values: string[], numeric: ReadonlySet<number>, attrs: Record<string, string>) {
  const tr = el('tr', undefined, attrs);
  values.forEach((v, i) => {
    tr.append(el('td', v, numeric.has(i) ? { class: 'num' } : {}));
  });
  return tr;
}

export function paintCpu(c: Json): void {
  const total = num(c.cpu_percent);
  $('cpu-total').textContent = pct(total);
  $('cpu-total').dataset.value = String(total);
  const model = str(c.model);
  const cores = num(c.cores);
  $('cpu-model').textContent = [model, cores === null ? '' : `${cores} cores`]
    .filter(Boolean)
    .join(' · ');
  const perCpu = list(c.per_cpu);
  if (perCpu.length > 0) {
    $('cores').replaceChildren(
      ...perCpu.map((p) => {
        const load = num(p.load_percent);
        return core(`cpu${String(p.cpu)}`, load, String(p.cpu));
      }),
    );
  }
  const la = c.load_average as Json | undefined;
  if (la) paintLoad(la, cores);
}

export function paintLoad(la: Json, cores: number | null): void {
  const parts = [num(la.one), num(la.five), num(la.fifteen)].map((v) =>
    v === null ? '–' : v.toFixed(2),
  );
  $('load').textContent = `${parts.join(' · ')}${cores === null ? '' : ` (${cores} cores)`}`;
}

export function paintMemory(m: Json): void {
  const total = num(m.total_bytes);
  const swapTotal = num(m.swap_total_bytes);
  const used =
    total !== null && num(m.available_bytes) !== null
      ? total - (num(m.available_bytes) ?? 0)
      : null;
  const memRow = bar('Memory', num(m.used_percent), `${bytes(used)} / ${bytes(total)}`);
  memRow.id = 'mem-row';
  memRow.dataset.total = String(total);
  const swapRow = bar(
    'Swap',
    num(m.swap_used_percent),
    swapTotal ? `${bytes(num(m.swap_used_bytes))} / ${bytes(swapTotal)}` : 'none',
  );
  swapRow.id = 'swap-row';
  swapRow.dataset.total = String(swapTotal);
  const pressure = el('p', `Pressure: ${str(m.pressure) || '–'}`, { class: 'sub' });
  $('mem').replaceChildren(memRow, swapRow, pressure);
}

export function paintProcesses(procs: Json[]): void {
  const numeric = new Set([0, 3, 4, 5]);
  $('procs').replaceChildren(
    table(
      ['PID', 'Name', 'User', 'CPU %', 'Mem %', 'RSS'],
      procs.map((p) =>
        cells(
          [
            String(p.pid),
            str(p.name),
            str(p.user),
            pct(num(p.cpu_percent)),
            pct(num(p.memory_percent)),
            bytes(num(p.memory_rss_bytes)),
          ],
          numeric,
          { 'data-pid': String(p.pid) },
        ),
      ),
      numeric,
    ),
  );
}

export function paintDisks(d: Json): void {
  const fss = list(d.filesystems);
  if (fss.length === 0) {
    $('disks').replaceChildren(
      el('p', str(d.unavailable_reason) || 'No filesystems', { class: 'sub' }),
    );
    return;
  }
  $('disks').replaceChildren(
    ...fss.map((f) => {
      const row = bar(
        str(f.mount),
        num(f.use_percent),
        `${bytes(num(f.used_bytes))} / ${bytes(num(f.size_bytes))}`,
      );
      row.dataset.mount = str(f.mount);
      row.dataset.size = String(num(f.size_bytes));
      return row;
    }),
  );
}

export function paintNetwork(n: Json): void {
  const ifaces = list(n.interfaces).filter((i) => i.internal !== true);
  const numeric = new Set([1, 2]);
  const rate = (v: unknown) => (num(v) === null ? '–' : `${bytes(num(v))}/s`);
  $('net').replaceChildren(
    ifaces.length === 0
      ? el('p', 'No external interfaces', { class: 'sub' })
      : table(
          ['Interface', 'Receive', 'Send'],
          ifaces.map((i) =>
            cells([str(i.name), rate(i.rx_bytes_per_sec), rate(i.tx_bytes_per_sec)], numeric, {
              'data-iface': str(i.name),
            }),
          ),
          numeric,
        ),
  );
}

export function paintSessions(s: Json): void {
  const sessions = list(s.sessions);
  $('sessions-section').hidden = false;
  $('sessions').replaceChildren(
    table(
      ['User', 'Terminal', 'From', 'Since'],
      sessions.map((x) =>
        cells([str(x.user), str(x.tty), str(x.from) || 'local', str(x.login_time)], new Set(), {}),
      ),
      new Set(),
    ),
  );
}
