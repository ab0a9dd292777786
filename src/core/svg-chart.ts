/**
 * Charts as SVG text, drawn on the server so they need no script: each comes in a <figure> with
 * its title and description for screen readers and the same figures in a <table>. Every piece of
 * text is escaped here; colours come from classes (public/charts.css), as pages allow no inline styles.
 */
import { escapeHtml } from './email-render.ts';

/** The colour of a series: a severity, or one of two neutral line colours. */
/** The incident types' colours, or one of four series colours that no type uses (public/charts.css). */
export type SeriesTone = 'outage' | 'incident' | 'notice' | 'other' | '0' | '1' | '2' | '3';

export type ChartSeries = { name: string; tone: SeriesTone; values: (number | null)[] };

export type ChartSpec = {
  /** Unique on the page: the ids of the title and description derive from it. */
  id: string;
  title: string;
  /** What the chart shows and how to read it, for those who cannot see it. */
  description: string;
  /** One per x position (bars) or row (horizontal bars), in order. */
  categories: string[];
  /** The heading of the table's first column. */
  categoryName: string;
  series: ChartSeries[];
  /** How a value reads in tooltips and the table, and on the axis unless `axis` says otherwise. */
  format: (value: number) => string;
  /** The value axis for the largest value: round ticks of counts (valueAxis) unless given, durationAxis say. */
  axis?: (max: number) => Axis;
  /** False when the page tables these figures already, next to the chart. */
  table?: boolean;
  /** More columns for the table, not drawn: how many incidents a median stands on, say. */
  tableOnly?: { name: string; values: string[] }[];
};

/**
 * Each chart is drawn for three widths of its box, and public/charts.css shows the one that fits
 * (a container query): an SVG scales its text with its width, so one drawing 640 units wide made
 * 11 px labels about 6 px on a phone and used 60% of a desktop page. Each drawing is about as wide
 * in user units as the box that shows it, so labels render near FONT_PX everywhere.
 */
export const CHART_LAYOUTS = [
  { name: 'narrow', width: 360 },
  { name: 'medium', width: 560 },
  { name: 'wide', width: 880 },
] as const;
type Layout = (typeof CHART_LAYOUTS)[number];

/** The labels' font size in user units (public/charts.css `.chart-label`). */
const FONT_PX = 12;
/** A generous average glyph width, to keep labels inside the drawing; measured text is never wider. */
const CHAR_PX = FONT_PX * 0.62;
const HEIGHT = 180;
const TOP = 12;
const BOTTOM = 30;
const TICKS = 4;
/** No data that month, in the table. */
const EMPTY_CELL = '—';

const esc = escapeHtml;
const n = (value: number) => String(Math.round(value * 10) / 10);
const textWidth = (text: string) => text.length * CHAR_PX;

/** An axis: its round top, its ticks, and how a tick reads (the spec's `format` when absent). */
export type Axis = { top: number; ticks: number[]; label?: (value: number) => string };

type Drawing = { body: string; height: number };

/** Columns per category, the series stacked: incidents per month by type. */
export function stackedColumnChart(spec: ChartSpec): string {
  const totals = spec.categories.map((_, i) => spec.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const axis = axisOf(spec, Math.max(0, ...totals));
  return figure(spec, (layout) => {
    const plot = plotArea(spec, axis, layout);
    const barWidth = plot.slot * 0.6;
    const parts: string[] = [gridAndTicks(axis, plot, spec), categoryLabels(spec.categories, plot)];
    spec.categories.forEach((category, i) => {
      let base = 0;
      for (const series of spec.series) {
        const value = series.values[i] ?? 0;
        if (value <= 0) continue;
        const y0 = plot.y(base / axis.top);
        const y1 = plot.y((base + value) / axis.top);
        base += value;
        parts.push(
          `<rect class="chart-bar-${series.tone}" x="${n(plot.left + plot.slot * i + (plot.slot - barWidth) / 2)}" y="${n(y1)}" width="${n(barWidth)}" height="${n(y0 - y1)}">` +
            `<title>${esc(`${category}, ${series.name}: ${spec.format(value)}`)}</title></rect>`,
        );
      }
    });
    return { body: parts.join(''), height: HEIGHT };
  });
}

/** A line per series across the categories; a missing value breaks the line. */
export function lineChart(spec: ChartSpec): string {
  const values = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const axis = axisOf(spec, Math.max(0, ...values));
  return figure(spec, (layout) => {
    const plot = plotArea(spec, axis, layout);
    const x = (i: number) => plot.left + plot.slot * i + plot.slot / 2;
    const parts: string[] = [gridAndTicks(axis, plot, spec), categoryLabels(spec.categories, plot)];
    for (const series of spec.series) {
      let run: string[] = [];
      const flush = () => {
        if (run.length > 1) parts.push(`<polyline class="chart-line-${series.tone}" points="${run.join(' ')}"/>`);
        run = [];
      };
      series.values.forEach((value, i) => {
        if (value === null) {
          flush();
          return;
        }
        const px = x(i);
        const py = plot.y(value / axis.top);
        run.push(`${n(px)},${n(py)}`);
        parts.push(
          `<circle class="chart-point-${series.tone}" cx="${n(px)}" cy="${n(py)}" r="3.5">` +
            `<title>${esc(`${spec.categories[i]}, ${series.name}: ${spec.format(value)}`)}</title></circle>`,
        );
      });
      flush();
    }
    return { body: parts.join(''), height: HEIGHT };
  });
}

/**
 * A row per category with one bar per series side by side: downtime per service. Names stand left
 * of their bars where there is room, above them on a narrow drawing (long service names would
 * leave the bars no width).
 */
export function horizontalBarChart(spec: ChartSpec): string {
  const values = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const axis = axisOf(spec, Math.max(0, ...values));
  const tickText = axis.label ?? spec.format;
  const barStride = 9;
  return figure(spec, (layout) => {
    const namesAbove = layout.name === 'narrow';
    const nameHeight = namesAbove ? FONT_PX + 4 : 0;
    const rowHeight = nameHeight + barStride * spec.series.length + 6;
    const longestName = Math.max(0, ...spec.categories.map((c) => textWidth(c)));
    const left = namesAbove ? 8 : Math.min(Math.ceil(longestName) + 16, Math.round(layout.width * 0.36));
    const nameChars = Math.floor((namesAbove ? layout.width - 16 : left - 16) / CHAR_PX);
    // The last tick's label is centred on the plot's right edge: room for its half.
    const right = Math.ceil(textWidth(tickText(axis.top)) / 2) + 6;
    const top = TOP;
    const height = top + rowHeight * spec.categories.length + BOTTOM;
    const width = layout.width - left - right;
    const xOf = (fraction: number) => left + width * fraction;
    const parts: string[] = [];
    for (const tick of axis.ticks) {
      const px = n(xOf(tick / axis.top));
      parts.push(
        `<line class="chart-grid" x1="${px}" x2="${px}" y1="${top}" y2="${n(height - BOTTOM + 4)}"/>` +
          `<text class="chart-label" x="${px}" y="${n(height - 10)}" text-anchor="middle">${esc(tickText(tick))}</text>`,
      );
    }
    spec.categories.forEach((category, i) => {
      const rowTop = top + rowHeight * i;
      const name = esc(truncate(category, nameChars));
      parts.push(
        namesAbove
          ? `<text class="chart-label" x="${left}" y="${n(rowTop + FONT_PX)}">${name}</text>`
          : `<text class="chart-label" x="${left - 8}" y="${n(rowTop + rowHeight / 2 + 4)}" text-anchor="end">${name}</text>`,
      );
      spec.series.forEach((series, j) => {
        const value = series.values[i];
        if (value === null || value === undefined) return;
        parts.push(
          `<rect class="chart-bar-${series.tone}" x="${left}" y="${n(rowTop + nameHeight + 3 + barStride * j)}" width="${n(Math.max(value > 0 ? 1 : 0, xOf(value / axis.top) - left))}" height="${barStride - 1}">` +
            `<title>${esc(`${category}, ${series.name}: ${spec.format(value)}`)}</title></rect>`,
        );
      });
    });
    parts.push(`<line class="chart-axis" x1="${left}" x2="${left}" y1="${top}" y2="${n(height - BOTTOM + 4)}"/>`);
    return { body: parts.join(''), height };
  });
}

function axisOf(spec: ChartSpec, max: number): Axis {
  return spec.axis ? spec.axis(max) : valueAxis(max);
}

/** A round top (1, 2 or 5 times a power of ten per tick) so the axis labels read plainly. */
export function valueAxis(max: number): Axis {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const raw = max / TICKS;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return stepAxis(max, step);
}

/** An axis of whole things (incidents): the steps of valueAxis, never less than 1, so no tick reads "1.5 incidents". */
export function countAxis(max: number): Axis {
  const axis = valueAxis(max);
  const step = axis.ticks[1]! - axis.ticks[0]!;
  return step >= 1 ? axis : stepAxis(Math.max(max, 1), 1);
}

function stepAxis(max: number, step: number): Axis {
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step / 1e9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { top, ticks };
}

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * Tick steps of a duration axis, each 1, 2 or 5 (or 10, 20) of one unit, and never one that makes
 * a tick straddle two units: 50 min steps gave "1 h 40 min", so after 20 min the next step is 1 h.
 */
const DURATION_STEPS: { ms: number; unit: string; units: string; unitMs: number }[] = [
  ...[1, 2, 5, 10, 20].map((k) => ({ ms: k * SECOND_MS, unit: 's', units: 's', unitMs: SECOND_MS })),
  ...[1, 2, 5, 10, 20].map((k) => ({ ms: k * MINUTE_MS, unit: 'min', units: 'min', unitMs: MINUTE_MS })),
  ...[1, 2, 5, 10].map((k) => ({ ms: k * HOUR_MS, unit: 'h', units: 'h', unitMs: HOUR_MS })),
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500].map((k) => ({ ms: k * DAY_MS, unit: 'day', units: 'days', unitMs: DAY_MS })),
];

/**
 * An axis of durations in milliseconds: at most about four steps of a round duration, every tick
 * in the step's own unit ("0", "20 min", "40 min", "60 min"; "0", "1 h", "2 h", "3 h").
 */
export function durationAxis(maxMs: number): Axis {
  const wanted = Math.max(maxMs, SECOND_MS) / TICKS;
  const step = DURATION_STEPS.find((s) => s.ms >= wanted) ?? DURATION_STEPS.at(-1)!;
  const count = (ms: number) => Math.round(ms / step.unitMs);
  return {
    ...stepAxis(Math.max(maxMs, step.ms), step.ms),
    label: (ms) => (ms === 0 ? '0' : `${count(ms)} ${count(ms) === 1 ? step.unit : step.units}`),
  };
}

/** The plot's box in a drawing: room on the left for the value labels, below for the categories. */
function plotArea(spec: ChartSpec, axis: Axis, layout: Layout) {
  const tickText = axis.label ?? spec.format;
  const left = Math.ceil(Math.max(...axis.ticks.map((t) => textWidth(tickText(t))))) + 12;
  // A category label is centred on its slot; the last may reach past the plot by up to half its width.
  const right = Math.max(12, Math.ceil(textWidth(spec.categories.at(-1) ?? '') / 2) - 8);
  const top = TOP;
  const width = layout.width - left - right;
  const height = HEIGHT - TOP - BOTTOM;
  const slot = width / Math.max(1, spec.categories.length);
  /** The y of a fraction of the axis, 0 at the bottom. */
  const y = (fraction: number) => top + height * (1 - fraction);
  return { left, top, width, height, bottom: top + height, slot, y };
}

type Plot = ReturnType<typeof plotArea>;

function gridAndTicks(axis: Axis, plot: Plot, spec: ChartSpec): string {
  const tickText = axis.label ?? spec.format;
  const lines = axis.ticks.map((tick) => {
    const py = n(plot.y(tick / axis.top));
    return (
      `<line class="${tick === 0 ? 'chart-axis' : 'chart-grid'}" x1="${plot.left}" x2="${n(plot.left + plot.width)}" y1="${py}" y2="${py}"/>` +
      `<text class="chart-label" x="${plot.left - 6}" y="${py}" dy="4" text-anchor="end">${esc(tickText(tick))}</text>`
    );
  });
  return lines.join('') + `<line class="chart-axis" x1="${plot.left}" x2="${plot.left}" y1="${plot.top}" y2="${plot.bottom}"/>`;
}

/** Every category labelled when they fit, else every second or third, the newest always (the table has them all). */
function categoryLabels(categories: string[], plot: Plot): string {
  const widest = Math.max(0, ...categories.map(textWidth));
  const every = Math.max(1, Math.ceil((widest + 8) / plot.slot));
  return categories
    .map((category, i) =>
      (categories.length - 1 - i) % every === 0
        ? `<text class="chart-label" x="${n(plot.left + plot.slot * i + plot.slot / 2)}" y="${n(plot.bottom + 18)}" text-anchor="middle">${esc(category)}</text>`
        : '',
    )
    .join('');
}

/** The chart in a <figure>: a drawing per layout (the stylesheet shows one), a legend, the table. */
function figure(spec: ChartSpec, draw: (layout: Layout) => Drawing): string {
  const svgs = CHART_LAYOUTS.map((layout) => {
    const { body, height } = draw(layout);
    // Ids per drawing: the hidden ones are out of the accessibility tree, the shown one is named.
    const titleId = `${spec.id}-${layout.name}-title`;
    const descId = `${spec.id}-${layout.name}-desc`;
    return (
      `<svg class="chart-svg chart-svg-${layout.name}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${layout.width} ${n(height)}" role="img" aria-labelledby="${esc(titleId)} ${esc(descId)}">` +
      `<title id="${esc(titleId)}">${esc(spec.title)}</title><desc id="${esc(descId)}">${esc(spec.description)}</desc>` +
      `${body}</svg>`
    );
  });
  // The legend repeats what the table says: screen readers skip it.
  const keys =
    spec.series.length > 1
      ? `<ul class="bar-legend chart-legend" aria-hidden="true">${spec.series
          .map((s) => `<li><span class="swatch chart-swatch-${s.tone}"></span>${esc(s.name)}</li>`)
          .join('')}</ul>`
      : '';
  return `<figure class="chart" id="${esc(spec.id)}"><figcaption class="chart-title">${esc(spec.title)}</figcaption>${svgs.join('')}${keys}${spec.table === false ? '' : chartTable(spec)}</figure>`;
}

/** The figures behind the chart, exactly, for screen readers and anyone who prefers numbers. */
export function chartTable(spec: ChartSpec): string {
  const extra = spec.tableOnly ?? [];
  const head =
    `<tr><th scope="col">${esc(spec.categoryName)}</th>` + [...spec.series, ...extra].map((s) => `<th scope="col">${esc(s.name)}</th>`).join('') + '</tr>';
  const rows = spec.categories.map(
    (category, i) =>
      `<tr><th scope="row">${esc(category)}</th>${spec.series
        .map((s) => {
          const value = s.values[i];
          return `<td>${value === null || value === undefined ? EMPTY_CELL : esc(spec.format(value))}</td>`;
        })
        .join('')}${extra.map((column) => `<td>${esc(column.values[i] ?? EMPTY_CELL)}</td>`).join('')}</tr>`,
  );
  // Folded by default: four open twelve-month tables, mostly dashes, made /reliability 4,646 px
  // tall at 1,280 px. The summary says what opening it shows.
  const columns = 1 + spec.series.length + extra.length;
  const summary = `Table of the figures: ${spec.categories.length} rows, one per ${spec.categoryName}, ${columns} columns`;
  return `<details class="chart-table-details"><summary>${esc(summary)}</summary><div class="chart-table-wrap"><table class="chart-table"><caption>${esc(`${spec.title}: the figures`)}</caption><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div></details>`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
