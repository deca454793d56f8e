/**
 * One history chart as uPlot draws it: what a chart holds between refreshes, its plot (axes and
 * ticks that read in the chart's unit, series told apart by colour and dash, in the theme's
 * colours), and the legend beside it, which is the view's own so its values are text. Which
 * charts there are, and fetching what they draw, is charts.ts.
 */
import uPlot from 'uplot';
import { bytes, el, pct } from './dom.js';

/** How a chart's values read: its axis labels and legend values. */
type Unit = 'percent' | 'load' | 'bytes/s';

/** One chart: the metrics it draws (in legend order) and how their values read. */
export interface ChartSpec {
  /** Suffix of the chart's element ids (`chart-<id>`) in dashboard.html. */
  id: string;
  unit: Unit;
  series: readonly { metric: string; label: string }[];
}

/** A value in a legend: as the panels print it. */
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
export const PLOT_HEIGHT = 140;

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
export interface Chart {
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
export function paintLegend(chart: Chart, idx: number | null | undefined): void {
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
export function drawPlot(chart: Chart): void {
  const metrics = chart.series.map((s) => s.metric).join(' ');
  if (!chart.plot || metrics !== chart.metrics) {
    chart.plot?.destroy();
    chart.plot = makePlot(chart);
    chart.metrics = metrics;
  } else chart.plot.setData([chart.xs, ...chart.series.map((s) => s.ys)]);
}
