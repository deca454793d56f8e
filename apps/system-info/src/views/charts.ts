/**
 * The history charts: which ones there are and the metrics each draws, fetching their series
 * from `get_metric_history` over the window the selector holds, and the selector itself. A
 * fetch costs one call per charted series; an answer is drawn only while its window, its host
 * and its round are still the newest. How one chart is drawn is plot.ts.
 */
import { type Answer, ask, hostEpoch } from './calls.js';
import { $, el, type Json, list, num, str } from './dom.js';
import { type Chart, type ChartSpec, drawPlot, PLOT_HEIGHT, paintLegend } from './plot.js';

/** The windows the selector offers, as the buttons' values: the server takes any `<n>[smhd]`. */
export const WINDOW_MS: Readonly<Record<string, number>> = {
  '10m': 600_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '48h': 172_800_000,
};
/** The window the charts show: the pressed button's. */
let chartWindow = '10m';

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
export async function refreshCharts(): Promise<void> {
  const span = chartWindow;
  const epoch = hostEpoch();
  const round = ++chartRound;
  await Promise.all(
    charts.map(async (chart) => {
      const answers = await Promise.all(
        chart.spec.series.map((s) => ask('get_metric_history', { metric: s.metric, window: span })),
      );
      // Another window or host was picked meanwhile (its own fetch is under way), or a later
      // round drew.
      if (span !== chartWindow || epoch !== hostEpoch() || round < chart.round) return;
      chart.round = round;
      paintChart(chart, span, answers);
    }),
  );
}

/** Empties every chart, as when another host is picked: nothing of the last one's is left. */
export function clearCharts(): void {
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
export function repaintCharts(): void {
  for (const chart of charts) {
    chart.plot?.destroy();
    chart.plot = undefined;
    if (chart.series.length > 0) drawPlot(chart);
  }
}

const windowButtons = [...$('windows').querySelectorAll('button')];

/** Presses the window's button; the charts show it from their next fetch. */
export function setWindow(span: string): void {
  if (!(span in WINDOW_MS)) return;
  chartWindow = span;
  for (const b of windowButtons) b.setAttribute('aria-pressed', String(b.value === span));
}

/** `90s`, `6h`, `2d` (as the server names a window) → ms; NaN for anything else. */
export function durationMs(text: string): number {
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
