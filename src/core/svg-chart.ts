/**
 * Charts as SVG text, drawn on the server so they need no script: each comes in a <figure> with
 * its title and description for screen readers and the same figures in a <table>. Every piece of
 * text is escaped here; colours come from classes (public/charts.css), as pages allow no inline styles.
 */
import { escapeHtml } from './email-render.ts';

/** The colour of a series: a severity, or one of two neutral line colours. */
export type SeriesTone = 'outage' | 'incident' | 'notice' | 'other' | '0' | '1';

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
  /** How a value reads on the axis and in the table. */
  format: (value: number) => string;
  /** False when the page tables these figures already, next to the chart. */
  table?: boolean;
  /** More columns for the table, not drawn: how many incidents a median stands on, say. */
  tableOnly?: { name: string; values: string[] }[];
};

const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 14, right: 16, bottom: 40, left: 72 };
const TICKS = 4;
/** No data that month, in the table. */
const EMPTY_CELL = '—';

const esc = escapeHtml;
const n = (value: number) => String(Math.round(value * 10) / 10);

/** Columns per category, the series stacked: incidents per month by type. */
export function stackedColumnChart(spec: ChartSpec): string {
  const totals = spec.categories.map((_, i) => spec.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const axis = valueAxis(Math.max(0, ...totals));
  const plot = plotArea();
  const slot = plot.width / Math.max(1, spec.categories.length);
  const barWidth = slot * 0.6;
  const parts: string[] = [gridAndTicks(axis, plot, spec.format), categoryLabels(spec.categories, plot, slot)];
  spec.categories.forEach((category, i) => {
    let base = 0;
    for (const series of spec.series) {
      const value = series.values[i] ?? 0;
      if (value <= 0) continue;
      const y0 = plot.y(base / axis.top);
      const y1 = plot.y((base + value) / axis.top);
      base += value;
      parts.push(
        `<rect class="chart-bar-${series.tone}" x="${n(plot.left + slot * i + (slot - barWidth) / 2)}" y="${n(y1)}" width="${n(barWidth)}" height="${n(y0 - y1)}">` +
          `<title>${esc(`${category}, ${series.name}: ${spec.format(value)}`)}</title></rect>`,
      );
    }
  });
  return figure(spec, parts.join(''));
}

/** A line per series across the categories; a missing value breaks the line. */
export function lineChart(spec: ChartSpec): string {
  const values = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const axis = valueAxis(Math.max(0, ...values));
  const plot = plotArea();
  const slot = plot.width / Math.max(1, spec.categories.length);
  const x = (i: number) => plot.left + slot * i + slot / 2;
  const parts: string[] = [gridAndTicks(axis, plot, spec.format), categoryLabels(spec.categories, plot, slot)];
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
  return figure(spec, parts.join(''));
}

/** A row per category with one bar per series side by side: downtime per service. */
export function horizontalBarChart(spec: ChartSpec): string {
  const values = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const axis = valueAxis(Math.max(0, ...values));
  const rowHeight = 10 * spec.series.length + 10;
  const labelWidth = 190;
  const top = MARGIN.top;
  const height = top + rowHeight * spec.categories.length + 30;
  const left = labelWidth;
  const width = WIDTH - left - MARGIN.right;
  const xOf = (fraction: number) => left + width * fraction;
  const parts: string[] = [];
  for (const tick of axis.ticks) {
    const px = n(xOf(tick / axis.top));
    parts.push(
      `<line class="chart-grid" x1="${px}" x2="${px}" y1="${top}" y2="${n(height - 26)}"/>` +
        `<text class="chart-label" x="${px}" y="${n(height - 10)}" text-anchor="middle">${esc(spec.format(tick))}</text>`,
    );
  }
  spec.categories.forEach((category, i) => {
    const rowTop = top + rowHeight * i;
    parts.push(`<text class="chart-label" x="${left - 8}" y="${n(rowTop + rowHeight / 2 + 4)}" text-anchor="end">${esc(truncate(category, 30))}</text>`);
    spec.series.forEach((series, j) => {
      const value = series.values[i];
      if (value === null || value === undefined) return;
      parts.push(
        `<rect class="chart-bar-${series.tone}" x="${left}" y="${n(rowTop + 5 + 10 * j)}" width="${n(Math.max(value > 0 ? 1 : 0, xOf(value / axis.top) - left))}" height="9">` +
          `<title>${esc(`${category}, ${series.name}: ${spec.format(value)}`)}</title></rect>`,
      );
    });
  });
  parts.push(`<line class="chart-axis" x1="${left}" x2="${left}" y1="${top}" y2="${n(height - 26)}"/>`);
  return figure(spec, parts.join(''), height);
}

type Axis = { top: number; ticks: number[] };

/** A round top (1, 2 or 5 times a power of ten per tick) so the axis labels read plainly. */
export function valueAxis(max: number): Axis {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const raw = max / TICKS;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step / 1e9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { top, ticks };
}

function plotArea() {
  const left = MARGIN.left;
  const top = MARGIN.top;
  const width = WIDTH - MARGIN.left - MARGIN.right;
  const height = HEIGHT - MARGIN.top - MARGIN.bottom;
  /** The y of a fraction of the axis, 0 at the bottom. */
  const y = (fraction: number) => top + height * (1 - fraction);
  return { left, top, width, height, bottom: top + height, y };
}

type Plot = ReturnType<typeof plotArea>;

function gridAndTicks(axis: Axis, plot: Plot, format: (value: number) => string): string {
  const lines = axis.ticks.map((tick) => {
    const py = n(plot.y(tick / axis.top));
    return (
      `<line class="${tick === 0 ? 'chart-axis' : 'chart-grid'}" x1="${plot.left}" x2="${plot.left + plot.width}" y1="${py}" y2="${py}"/>` +
      `<text class="chart-label" x="${plot.left - 6}" y="${py}" dy="4" text-anchor="end">${esc(format(tick))}</text>`
    );
  });
  return lines.join('') + `<line class="chart-axis" x1="${plot.left}" x2="${plot.left}" y1="${plot.top}" y2="${plot.bottom}"/>`;
}

/** Every category labelled when they fit, else every other one (the table has them all). */
function categoryLabels(categories: string[], plot: Plot, slot: number): string {
  const every = slot < 60 ? 2 : 1;
  return categories
    .map((category, i) =>
      (categories.length - 1 - i) % every === 0
        ? `<text class="chart-label" x="${n(plot.left + slot * i + slot / 2)}" y="${n(plot.bottom + 18)}" text-anchor="middle">${esc(category)}</text>`
        : '',
    )
    .join('');
}

function figure(spec: ChartSpec, body: string, height = HEIGHT): string {
  const titleId = `${spec.id}-title`;
  const descId = `${spec.id}-desc`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${esc(titleId)} ${esc(descId)}">` +
    `<title id="${esc(titleId)}">${esc(spec.title)}</title><desc id="${esc(descId)}">${esc(spec.description)}</desc>` +
    `${body}</svg>`;
  // The legend repeats what the table says: screen readers skip it.
  const keys =
    spec.series.length > 1
      ? `<ul class="bar-legend chart-legend" aria-hidden="true">${spec.series
          .map((s) => `<li><span class="swatch chart-swatch-${s.tone}"></span>${esc(s.name)}</li>`)
          .join('')}</ul>`
      : '';
  return `<figure class="chart" id="${esc(spec.id)}"><figcaption class="chart-title">${esc(spec.title)}</figcaption>${svg}${keys}${spec.table === false ? '' : chartTable(spec)}</figure>`;
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
