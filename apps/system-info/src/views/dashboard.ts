/**
 * The live system dashboard, an MCP Apps view. It talks to the host only through the ext-apps
 * `App` bridge: the first tool result the host hands it is drawn at once, then the view calls the
 * server's own tools through the host on the intervals the server put in its config (one per
 * sampler TTL tier), and stops calling while it cannot be seen.
 *
 * Besides the present readings it charts what the server recorded (`get_metric_history`, drawn
 * with uPlot, bundled in) over a window the user picks, and lists the alerts `get_alerts` reports.
 * Each refresh of the fast readings costs one history call per charted series (eight) and one
 * alerts call, on top of the four reading calls.
 *
 * Opened through the mcpkit gateway, where several system-info servers (one per machine) can sit
 * under namespaces of their own, it offers a Host selector: found once at start (one
 * `gateway_status` call and one `get_os_info` per running backend), and picking a host redraws
 * every panel from that host's tools.
 */
import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import uPlot from 'uplot';

type Json = Record<string, unknown>;

interface Config {
  dynamicMs: number;
  semiMs: number;
  sensitive: boolean;
}

/** The config the server wrote into the page; safe defaults when it is missing or malformed. */
function readConfig(): Config {
  const fallback: Config = { dynamicMs: 2000, semiMs: 30_000, sensitive: false };
  try {
    const raw = JSON.parse(document.getElementById('config')?.textContent ?? '{}') as Json;
    const ms = (v: unknown, d: number) => (typeof v === 'number' && v >= 0 ? v : d);
    return {
      dynamicMs: ms(raw.dynamicMs, fallback.dynamicMs),
      semiMs: ms(raw.semiMs, fallback.semiMs),
      // Only an explicit true shows sensitive readings.
      sensitive: raw.sensitive === true,
    };
  } catch {
    return fallback;
  }
}

const config = readConfig();
const $ = (id: string): HTMLElement => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dashboard: #${id} is missing`);
  return el;
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** Bytes for people: 1536 → "1.5 KiB". */
function bytes(n: number | null): string {
  if (n === null) return '–';
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${UNITS[u]}`;
}
const pct = (n: number | null): string => (n === null ? '–' : `${n.toFixed(1)} %`);

/** An element with text, built without innerHTML: every value from the server is data. */
function el(tag: string, text?: string, attrs: Record<string, string> = {}): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

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

function problem(id: string, message: string): void {
  $(id).replaceChildren(el('p', message, { class: 'error' }));
}

// ---- painters: each takes a tool's structuredContent and tolerates missing fields ----

function paintCpu(c: Json): void {
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

function paintLoad(la: Json, cores: number | null): void {
  const parts = [num(la.one), num(la.five), num(la.fifteen)].map((v) =>
    v === null ? '–' : v.toFixed(2),
  );
  $('load').textContent = `${parts.join(' · ')}${cores === null ? '' : ` (${cores} cores)`}`;
}

function paintMemory(m: Json): void {
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

function paintProcesses(procs: Json[]): void {
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

function paintDisks(d: Json): void {
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

function paintNetwork(n: Json): void {
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

function paintSessions(s: Json): void {
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

/** Draws whichever tool's result the host handed over (the dashboard is linked from five). */
function paintResult(sc: Json): void {
  if ('top_cpu' in sc) {
    // get_system_snapshot
    const cpu = sc.cpu as Json | undefined;
    if (cpu) {
      $('cpu-total').textContent = pct(num(cpu.percent));
      const la = cpu.load_average as Json | undefined;
      if (la) paintLoad(la, num(cpu.cores));
    }
    if (sc.memory) paintMemory(sc.memory as Json);
    paintProcesses(list(sc.top_cpu));
  } else if ('per_cpu' in sc || 'cpu_percent' in sc) paintCpu(sc);
  else if ('total_bytes' in sc) paintMemory(sc);
  else if ('processes' in sc) paintProcesses(list(sc.processes));
  else if ('points' in sc) {
    // get_metric_history: the charts take its window when the selector offers it (48h is `2d`).
    const ms = durationMs(str(sc.window));
    const offered = Object.keys(WINDOW_MS).find((w) => WINDOW_MS[w] === ms);
    if (offered) setWindow(offered);
  }
}

// ---- history charts ----

/** The windows the selector offers, as the buttons' values: the server takes any `<n>[smhd]`. */
const WINDOW_MS: Readonly<Record<string, number>> = {
  '10m': 600_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '48h': 172_800_000,
};
/** The window the charts show: the pressed button's. */
let chartWindow = '10m';

/** How a chart's values read: its axis labels and legend values. */
type Unit = 'percent' | 'load' | 'bytes/s';

/** One chart: the metrics it draws (in legend order) and how their values read. */
interface ChartSpec {
  /** Suffix of the chart's element ids (`chart-<id>`) in dashboard.html. */
  id: string;
  unit: Unit;
  series: readonly { metric: string; label: string }[];
}

const CHARTS: readonly ChartSpec[] = [
  { id: 'cpu', unit: 'percent', series: [{ metric: 'cpu.percent', label: 'All cores' }] },
  {
    id: 'memory',
    unit: 'percent',
    series: [
      { metric: 'memory.used_percent', label: 'RAM' },
      { metric: 'swap.used_percent', label: 'Swap' },
    ],
  },
  {
    id: 'load',
    unit: 'load',
    series: [
      { metric: 'load.1m', label: '1 min' },
      { metric: 'load.5m', label: '5 min' },
      { metric: 'load.15m', label: '15 min' },
    ],
  },
  {
    id: 'network',
    unit: 'bytes/s',
    series: [
      { metric: 'net.rx_bytes_per_sec', label: 'Receive' },
      { metric: 'net.tx_bytes_per_sec', label: 'Send' },
    ],
  },
];

/** A value in a legend: as the panels above print it. */
const FORMAT: Readonly<Record<Unit, (v: number | null) => string>> = {
  percent: pct,
  load: (v) => (v === null ? '–' : v.toFixed(2)),
  'bytes/s': (v) => (v === null ? '–' : `${bytes(v)}/s`),
};

/** A tick on a value axis: round steps, so no decimals that say nothing (`50 %`, `2.5`). */
const TICK: Readonly<Record<Unit, (v: number) => string>> = {
  percent: (v) => `${v} %`,
  load: (v) => String(Number(v.toFixed(2))),
  'bytes/s': (v) => `${bytes(v)}/s`,
};

/** A tick on the time axis: the time of day, with the weekday over two days. */
function timeTick(seconds: number, span: string): string {
  const options: Intl.DateTimeFormatOptions =
    span === '48h'
      ? { weekday: 'short', hour: 'numeric', minute: '2-digit' }
      : { hour: 'numeric', minute: '2-digit' };
  return new Date(seconds * 1000).toLocaleTimeString([], options);
}

/**
 * An axis as wide as its longest tick label (uPlot's own recipe): byte rates such as
 * `512.0 KiB/s` need more room than percentages, and a fixed width clips them.
 */
const axisSize: uPlot.Axis.Size = (u, values, axisIdx) => {
  const axis = u.axes[axisIdx];
  if (!axis) return 50;
  const longest = (values ?? []).reduce((a, v) => (v.length > a.length ? v : a), '');
  let size = (axis.ticks?.size ?? 0) + (axis.gap ?? 0);
  if (longest) {
    u.ctx.font = axis.font?.[0] ?? u.ctx.font;
    size += u.ctx.measureText(longest).width / devicePixelRatio;
  }
  return Math.ceil(size);
};

/**
 * Tick steps for byte rates: powers of two below 1 KiB, then 1-2-5 steps of KiB, MiB and up, so
 * the axis reads 256 B/s, 512 B/s, 768 B/s, 1.0 KiB/s — round in the units `bytes()` prints —
 * rather than the decimal steps (1000, 2000) that it would print as 1000 B/s, 2.0 KiB/s.
 */
const BYTE_STEPS = [
  ...[1, 2, 4, 8, 16, 32, 64, 128, 256],
  ...[1, 2, 3, 4, 5].flatMap((p) => [1, 2, 5, 10, 20, 50, 100, 200, 500].map((m) => m * 1024 ** p)),
];

/** Line patterns by position in a chart, so series differ by more than colour. */
const DASHES: readonly (number[] | undefined)[] = [undefined, [6, 3], [2, 3]];
/** Height of a plot in CSS px; its width follows its box. */
const PLOT_HEIGHT = 140;

/** One series as last drawn: its metric and label, and what it drew. */
interface Drawn {
  metric: string;
  label: string;
  /** Position in the chart's spec: its colour and dash. */
  index: number;
  ys: (number | null)[];
  latest: number | null;
}

/** What one chart holds between refreshes. */
interface Chart {
  spec: ChartSpec;
  /** The window it shows. */
  span: string;
  figure: HTMLElement;
  plotBox: HTMLElement;
  legend: HTMLElement;
  plot?: uPlot;
  /** The metrics the plot was made with: another set of series needs another plot. */
  metrics: string;
  /** The refresh round last drawn: an older round's answer never replaces a newer one. */
  round: number;
  xs: number[];
  series: Drawn[];
}

const charts: Chart[] = CHARTS.map((spec) => ({
  spec,
  span: chartWindow,
  figure: $(`chart-${spec.id}`),
  plotBox: $(`plot-${spec.id}`),
  legend: $(`legend-${spec.id}`),
  metrics: '',
  round: 0,
  xs: [],
  series: [],
}));
let chartRound = 0;

/**
 * A theme colour as the canvas needs it. The palette is CSS custom properties whose values are
 * `light-dark()` pairs, which only a used `color` resolves, so a hidden probe element takes each.
 */
function themeColor(variable: string): string {
  const probe = el('span', undefined, { hidden: '', style: `color:var(${variable})` });
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

/** The same colour, see-through: `rgb(r, g, b)` → `rgba(r, g, b, a)`. */
const alpha = (rgb: string, a: number) =>
  rgb.startsWith('rgb(') ? `rgba(${rgb.slice(4, -1)}, ${a})` : rgb;

/** The values under the cursor, or the latest of each series when the cursor is elsewhere. */
function paintLegend(chart: Chart, idx: number | null | undefined): void {
  const format = FORMAT[chart.spec.unit];
  chart.legend.replaceChildren(
    ...chart.series.map((s) => {
      const value = idx === null || idx === undefined ? s.latest : (s.ys[idx] ?? null);
      const item = el('li', undefined, {
        'data-metric': s.metric,
        'data-points': String(s.ys.filter((v) => v !== null).length),
        'data-latest': String(s.latest),
      });
      item.append(
        el('span', undefined, { class: `key key${s.index}`, 'aria-hidden': 'true' }),
        el('span', `${s.label} ${format(value)}`),
      );
      return item;
    }),
  );
}

/** A new plot for the chart's current series, in the current theme's colours. */
function makePlot(chart: Chart): uPlot {
  const { unit } = chart.spec;
  const line = themeColor('--line');
  const axis = {
    stroke: themeColor('--muted'),
    grid: { stroke: line, width: 1 },
    ticks: { stroke: line, width: 1 },
  };
  const colors = [themeColor('--chart-1'), themeColor('--chart-2'), themeColor('--chart-3')];
  // Percentages keep their full scale; loads and rates start at 0 with room above the peak.
  const floor = unit === 'load' ? 1 : 1024;
  const range: uPlot.Range.Function = (_u, _min, max) =>
    unit === 'percent' ? [0, 100] : [0, Math.max(floor, (max ?? 0) * 1.15)];
  return new uPlot(
    {
      width: chart.plotBox.clientWidth || 300,
      height: PLOT_HEIGHT,
      // The legend is the view's own (values as text, theme colours), not uPlot's.
      legend: { show: false },
      // No drag to zoom: the next refresh would reset it every couple of seconds.
      cursor: { drag: { x: false, y: false, setScale: false } },
      scales: { y: { range } },
      axes: [
        { ...axis, values: (_u, splits) => splits.map((v) => timeTick(v, chart.span)) },
        {
          ...axis,
          size: axisSize,
          values: (_u, splits) => splits.map(TICK[unit]),
          ...(unit === 'bytes/s' ? { incrs: BYTE_STEPS } : {}),
        },
      ],
      series: [
        {},
        ...chart.series.map((s) => {
          const color = colors[s.index] ?? axis.stroke;
          return {
            label: s.label,
            stroke: color,
            width: 1.5,
            // The chart's main series is filled below its line; the others are lines only.
            ...(s.index === 0 ? { fill: alpha(color, 0.12) } : {}),
            ...(DASHES[s.index] ? { dash: DASHES[s.index] } : {}),
            points: { show: false },
          };
        }),
      ],
      hooks: { setCursor: [(u) => paintLegend(chart, u.cursor.idx)] },
    },
    [chart.xs, ...chart.series.map((s) => s.ys)],
    chart.plotBox,
  );
}

/** Draws the chart's series as they are held, making a new plot when they changed. */
function drawPlot(chart: Chart): void {
  const metrics = chart.series.map((s) => s.metric).join(' ');
  if (!chart.plot || metrics !== chart.metrics) {
    chart.plot?.destroy();
    chart.plot = makePlot(chart);
    chart.metrics = metrics;
  } else chart.plot.setData([chart.xs, ...chart.series.map((s) => s.ys)]);
}

/**
 * Draws one chart from its answers, one per series of its spec. A series whose metric failed
 * (one this machine does not record, such as swap without swap) is left out; the chart says why
 * only when every one of its series failed.
 */
function paintChart(chart: Chart, span: string, answers: Answer[]): void {
  const got = chart.spec.series.flatMap((s, index) => {
    const a = answers[index];
    return a?.ok && a.value ? [{ ...s, index, answer: a.value }] : [];
  });
  const note = chart.figure.querySelector('.note');
  if (got.length === 0) {
    const failed = answers.find((a) => !a.ok);
    note?.replaceChildren(
      el('span', `No history: ${failed && !failed.ok ? failed.reason : 'no answer'}`, {
        class: 'error',
      }),
    );
  } else note?.replaceChildren();
  // The x values are the steps' start times, in seconds (uPlot's time unit). Answers made a
  // moment apart can end a step apart, so each series is placed on the union of their steps.
  const stepStart = (p: Json) => Date.parse(str(p.t)) / 1000;
  const xs = [...new Set(got.flatMap((g) => list(g.answer.points).map(stepStart)))]
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  chart.span = span;
  chart.xs = xs;
  chart.series = got.map((g) => {
    const ys: (number | null)[] = xs.map(() => null);
    for (const p of list(g.answer.points)) {
      const i = at.get(stepStart(p));
      if (i !== undefined) ys[i] = num(p.value);
    }
    const summary = (g.answer.summary ?? {}) as Json;
    return { metric: g.metric, label: g.label, index: g.index, ys, latest: num(summary.latest) };
  });
  if (got.length > 0) drawPlot(chart);
  else {
    // Nothing to draw: no lines left over from an earlier answer either.
    chart.plot?.destroy();
    chart.plot = undefined;
  }
  paintLegend(chart, chart.plot?.cursor.idx);
  // What the chart drew, for tests and tools that read the page: its main series' figures.
  const main = chart.series[0];
  chart.figure.dataset.window = span;
  chart.figure.dataset.points = String(main ? main.ys.filter((v) => v !== null).length : 0);
  chart.figure.dataset.latest = String(main?.latest ?? null);
}

/** Fetches every chart's series over the selected window, all at once, and draws each chart. */
async function refreshCharts(): Promise<void> {
  const span = chartWindow;
  const epoch = hostEpoch;
  const round = ++chartRound;
  await Promise.all(
    charts.map(async (chart) => {
      const answers = await Promise.all(
        chart.spec.series.map((s) => ask('get_metric_history', { metric: s.metric, window: span })),
      );
      // Another window or host was picked meanwhile (its own fetch is under way), or a later
      // round drew.
      if (span !== chartWindow || epoch !== hostEpoch || round < chart.round) return;
      chart.round = round;
      paintChart(chart, span, answers);
    }),
  );
}

/** Empties every chart, as when another host is picked: nothing of the last one's is left. */
function clearCharts(): void {
  for (const chart of charts) {
    chart.plot?.destroy();
    chart.plot = undefined;
    chart.metrics = '';
    chart.xs = [];
    chart.series = [];
    chart.legend.replaceChildren();
    chart.figure.querySelector('.note')?.replaceChildren();
    for (const key of ['window', 'points', 'latest']) delete chart.figure.dataset[key];
  }
}

/** Remakes every plot, as after a change of theme: the canvas holds colours, not variables. */
function repaintCharts(): void {
  for (const chart of charts) {
    chart.plot?.destroy();
    chart.plot = undefined;
    if (chart.series.length > 0) drawPlot(chart);
  }
}

const windowButtons = [...$('windows').querySelectorAll('button')];

/** Presses the window's button; the charts show it from their next fetch. */
function setWindow(span: string): void {
  if (!(span in WINDOW_MS)) return;
  chartWindow = span;
  for (const b of windowButtons) b.setAttribute('aria-pressed', String(b.value === span));
}

/** `90s`, `6h`, `2d` (as the server names a window) → ms; NaN for anything else. */
function durationMs(text: string): number {
  const m = /^(\d+)([smhd])$/.exec(text);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m?.[2] ?? ''];
  return m && unit ? Number(m[1]) * unit : Number.NaN;
}

for (const b of windowButtons) {
  b.addEventListener('click', () => {
    if (b.value === chartWindow) return;
    setWindow(b.value);
    // Fetched now, not at the next tick: the user is waiting for it.
    void refreshCharts();
  });
}

// Plots are sized in pixels: each follows the width of its box.
new ResizeObserver(() => {
  for (const chart of charts) {
    const width = chart.plotBox.clientWidth;
    if (chart.plot && width > 0 && width !== chart.plot.width)
      chart.plot.setSize({ width, height: PLOT_HEIGHT });
  }
}).observe($('charts'));
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', repaintCharts);

// ---- alerts ----

/** How many recent alerts the view asks for; it lists the resolved among them. */
const ALERTS_ASKED = 20;
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
function paintAlerts(report: Json): void {
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

// ---- the bridge and the refresh loop ----

const app = new App(
  { name: 'mcpkit-system-dashboard', version: '1.0.0' },
  {},
  { autoResize: true },
);
let updates = 0;
/** What the view puts before the server's tool names: see {@link prefixOf} and {@link useHost}. */
let toolPrefix = '';
/**
 * Which host the view shows, counted: picking another one bumps it, and an answer to a call made
 * before that is dropped, never drawn over the new host's readings.
 */
let hostEpoch = 0;
let userPaused = false;
let visible = document.visibilityState === 'visible';
let onScreen = true;
const timers: ReturnType<typeof setTimeout>[] = [];

/** A tool's answer: its structured content, or why there is none. */
type Answer = { ok: true; value: Json | undefined } | { ok: false; reason: string };

/**
 * Calls a tool through the host under the server's names (`prefix`: the current host's by
 * default, see {@link prefixOf}); never throws.
 */
async function ask(name: string, args: Json, prefix = toolPrefix): Promise<Answer> {
  try {
    const result = await app.callServerTool({ name: `${prefix}${name}`, arguments: args });
    if (result.isError) {
      const text = result.content?.find((c) => c.type === 'text');
      return { ok: false, reason: text && 'text' in text ? text.text : 'no reason given' };
    }
    return { ok: true, value: (result.structuredContent as Json | undefined) ?? undefined };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Calls a tool through the host; a failure is drawn where its readings would be, never thrown.
 * Undefined too when another host was picked while it was under way.
 */
async function call(name: string, args: Json, target?: string): Promise<Json | undefined> {
  const epoch = hostEpoch;
  const answer = await ask(name, args);
  if (epoch !== hostEpoch) return undefined;
  if (answer.ok) return answer.value;
  if (target) problem(target, `${name} failed: ${answer.reason}`);
  return undefined;
}

async function refreshDynamic(): Promise<void> {
  const epoch = hostEpoch;
  const [cpu, mem, procs, net, alerts] = await Promise.all([
    call('get_cpu_info', { per_cpu: true }, 'cores'),
    call('get_memory_info', {}, 'mem'),
    call('get_processes', { top: 8, sort_by: 'cpu' }, 'procs'),
    call('get_network_info', {}, 'net'),
    call('get_alerts', { limit: ALERTS_ASKED }, 'alerts'),
    refreshCharts(),
  ]);
  // Another host was picked meanwhile: its own refresh is under way.
  if (epoch !== hostEpoch) return;
  if (cpu) paintCpu(cpu);
  if (mem) paintMemory(mem);
  if (procs) paintProcesses(list(procs.processes));
  if (net) paintNetwork(net);
  if (alerts) paintAlerts(alerts);
  else shownAlerts = ''; // the failure replaced the list: the next answer is drawn whatever it is
  const sampled = str(cpu?.sampled_at);
  updates++;
  document.body.dataset.updates = String(updates);
  if (sampled) document.body.dataset.sampledAt = sampled;
  showStatus();
}

async function refreshSemi(): Promise<void> {
  const disks = await call('get_disk_info', {}, 'disks');
  if (disks) paintDisks(disks);
  // Sensitive readings are asked for only when the server said this caller may see them.
  if (config.sensitive) {
    const sessions = await call('get_user_sessions', {}, 'sessions');
    if (sessions) paintSessions(sessions);
  }
}

const running = () => !userPaused && visible && onScreen;

function showStatus(): void {
  const why = userPaused
    ? 'Paused'
    : !visible
      ? 'Paused while hidden'
      : !onScreen
        ? 'Paused while off screen'
        : '';
  const when = document.body.dataset.sampledAt
    ? new Date(document.body.dataset.sampledAt).toLocaleTimeString()
    : '';
  $('status').textContent = why
    ? why
    : `Live · every ${config.dynamicMs / 1000} s${when ? ` · sampled ${when}` : ''}`;
  document.body.dataset.state = why ? 'paused' : 'live';
}

/**
 * Which run of the loops is current: a pause and resume while a tick is still waiting for its
 * tools starts a new run, and the old tick must then end instead of scheduling a second loop.
 */
let generation = 0;

/** Runs `task` now and then every `ms` while the dashboard is running; a tick never overlaps. */
function loop(task: () => Promise<void>, ms: number): void {
  const mine = generation;
  const tick = async () => {
    if (!running() || mine !== generation) return;
    await task();
    if (ms > 0 && running() && mine === generation) timers.push(setTimeout(tick, ms));
  };
  void tick();
}

function stop(): void {
  generation++;
  for (const t of timers.splice(0)) clearTimeout(t);
}

function start(): void {
  stop();
  showStatus();
  if (!running()) return;
  loop(refreshDynamic, config.dynamicMs);
  loop(refreshSemi, config.semiMs);
}

/** Re-evaluates running/paused after any change of visibility or of the user's choice. */
function changed(): void {
  if (running()) start();
  else {
    stop();
    showStatus();
  }
}

document.addEventListener('visibilitychange', () => {
  visible = document.visibilityState === 'visible';
  changed();
});
// A dashboard scrolled out of the chat costs nothing: the host's iframe leaving the viewport
// stops the calls as surely as a hidden tab does.
new IntersectionObserver((entries) => {
  const last = entries[entries.length - 1];
  if (!last || last.isIntersecting === onScreen) return;
  onScreen = last.isIntersecting;
  changed();
}).observe(document.body);

const toggle = $('toggle');
toggle.addEventListener('click', () => {
  userPaused = !userPaused;
  toggle.textContent = userPaused ? 'Resume' : 'Pause';
  toggle.setAttribute('aria-pressed', String(userPaused));
  changed();
});

/** The tools the dashboard is linked from: the host names one of them in `toolInfo`. */
const LINKED = [
  'get_system_snapshot',
  'get_cpu_info',
  'get_memory_info',
  'get_processes',
  'get_metric_history',
];

/**
 * What a proxy put before this server's tool names, read off the tool the host says it called:
 * behind the mcpkit gateway `get_system_snapshot` is `system-info__get_system_snapshot`, and the
 * view's own calls must use the same prefix. Empty when the host talks to the server directly.
 */
function prefixOf(ctx: McpUiHostContext | undefined): string {
  const name = ctx?.toolInfo?.tool?.name;
  if (typeof name !== 'string') return '';
  const own = LINKED.find((t) => name.endsWith(t));
  return own ? name.slice(0, name.length - own.length) : '';
}

// ---- hosts behind a gateway ----

/** A system-info server behind the gateway: the prefix of its tools, and what names it. */
interface Host {
  prefix: string;
  namespace: string;
  hostname: string;
}

/** The hosts the selector lists, in the gateway's order. */
let hosts: Host[] = [];
/** When the hosts were last looked for (ms since the epoch); see {@link HOSTS_STALE_MS}. */
let hostsFoundAt = 0;
/** A focus of the selector looks for hosts again once the list is this old. */
const HOSTS_STALE_MS = 30_000;
const hostPicker = $('host-picker');
const hostSelect = $('host-select') as HTMLSelectElement;

/**
 * The system-info servers behind the gateway this view was opened through: `gateway_status`
 * (the gateway's own tool, not namespaced) lists the backends with their namespaces, and each
 * running one that answers `get_os_info` under its namespace is one — another server answers an
 * error. Undefined when there is no `gateway_status` (a proxy that is not the mcpkit gateway) or
 * it failed.
 */
async function findHosts(): Promise<Host[] | undefined> {
  const status = await ask('gateway_status', {}, '');
  if (!status.ok || !status.value) return undefined;
  const backends = status.value.backends;
  const namespaces = list(typeof backends === 'object' && backends ? Object.values(backends) : [])
    .filter((b) => b.status === 'running')
    .map((b) => str(b.namespace))
    .filter(Boolean);
  // What the gateway puts between a namespace and a tool's name (`__`, or `:` under its `colon`
  // naming), read off this view's own prefix.
  const own = namespaces
    .filter((ns) => toolPrefix.startsWith(ns) && toolPrefix.length > ns.length)
    .sort((a, b) => b.length - a.length)[0];
  const separator = own === undefined ? '__' : toolPrefix.slice(own.length);
  const found = await Promise.all(
    namespaces.map(async (namespace): Promise<Host | undefined> => {
      const prefix = `${namespace}${separator}`;
      const os = await ask('get_os_info', {}, prefix);
      return os.ok && os.value
        ? { prefix, namespace, hostname: str(os.value.hostname) }
        : undefined;
    }),
  );
  return found.filter((h) => h !== undefined);
}

/**
 * Looks for the hosts and lists them in the selector, shown when there are two or more. A host
 * that stopped answering stays listed while it is the current one, so the user can leave it; a
 * look that failed leaves the list as it was.
 */
async function refreshHosts(): Promise<void> {
  hostsFoundAt = Date.now();
  const found = await findHosts();
  if (!found) return;
  const current = hosts.find((h) => h.prefix === toolPrefix);
  if (current && !found.some((h) => h.prefix === current.prefix)) found.unshift(current);
  const key = (l: Host[]) => l.map((h) => `${h.prefix} ${h.hostname}`).join('\n');
  if (key(found) === key(hosts)) return;
  hosts = found;
  hostSelect.replaceChildren(
    ...hosts.map((h) =>
      el('option', h.hostname ? `${h.hostname} (${h.namespace})` : h.namespace, {
        value: h.prefix,
      }),
    ),
  );
  hostSelect.value = toolPrefix;
  hostPicker.hidden = hosts.length < 2 || hostSelect.value !== toolPrefix;
}

/** Empties every panel and chart, as when another host is picked. */
function clearReadings(): void {
  $('cpu-total').textContent = '–';
  for (const id of ['cpu-model', 'load']) $(id).textContent = '';
  for (const id of ['cores', 'mem', 'disks', 'net', 'procs', 'sessions']) $(id).replaceChildren();
  $('alerts').replaceChildren(el('p', 'Loading…', { class: 'sub' }));
  shownAlerts = '';
  const alerts = $('alerts-section');
  delete alerts.dataset.active;
  alerts.classList.remove('firing');
  delete document.body.dataset.sampledAt;
  clearCharts();
}

/**
 * Shows another host: its tools from now on, every panel redrawn from them at once, and any
 * answer still under way from the last host dropped (see {@link hostEpoch}).
 */
function useHost(prefix: string): void {
  const host = hosts.find((h) => h.prefix === prefix);
  if (!host || prefix === toolPrefix) return;
  toolPrefix = prefix;
  hostEpoch++;
  clearReadings();
  $('host').textContent = `— ${host.hostname}`;
  if (running()) start();
  else {
    // Paused, the new host is drawn once all the same: the user is waiting for it.
    showStatus();
    void refreshDynamic();
    void refreshSemi();
  }
}

hostSelect.addEventListener('change', () => useHost(hostSelect.value));
// Hosts come and go behind a gateway: the list is looked at again when the user goes to it.
hostSelect.addEventListener('focus', () => {
  if (Date.now() - hostsFoundAt > HOSTS_STALE_MS) void refreshHosts();
});

/** The prefix the host's `toolInfo` gave last: given again, it does not undo a pick of host. */
let linkedPrefix: string | undefined;

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (ctx?.theme) {
    applyDocumentTheme(ctx.theme);
    repaintCharts();
  }
  const prefix = ctx?.toolInfo ? prefixOf(ctx) : undefined;
  if (prefix !== undefined && prefix !== linkedPrefix) {
    linkedPrefix = prefix;
    toolPrefix = prefix;
  }
}

app.addEventListener('toolresult', (params) => {
  const sc = params.structuredContent as Json | undefined;
  if (sc && !params.isError) paintResult(sc);
});
app.addEventListener('hostcontextchanged', (ctx) => applyContext(ctx));
app.onteardown = async () => {
  stop();
  return {};
};

app
  .connect()
  .then(async () => {
    applyContext(app.getHostContext());
    const os = await call('get_os_info', {});
    if (os) $('host').textContent = `— ${str(os.hostname)}`;
    start();
    // Behind a proxy, there may be other hosts to offer.
    if (toolPrefix) void refreshHosts();
  })
  .catch((err: unknown) => {
    $('status').textContent =
      `Not connected to a host: ${err instanceof Error ? err.message : String(err)}`;
    $('status').classList.add('error');
  });
