import { describe, expect, it } from 'vitest';
import {
  CHART_LAYOUTS,
  chartTable,
  durationAxis,
  horizontalBarChart,
  lineChart,
  stackedColumnChart,
  valueAxis,
  countAxis,
  type ChartSpec,
} from '../../src/core/svg-chart.ts';

/** The first drawing of a chart (each comes in one per layout). */
const firstDrawing = (html: string) => /<svg [\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';

const HOSTILE = '<script>alert("x")</script>&';
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;';

function spec(overrides: Partial<ChartSpec> = {}): ChartSpec {
  return {
    id: 'chart-test',
    title: `Title ${HOSTILE}`,
    description: `Description ${HOSTILE}`,
    categories: ['2026-09', HOSTILE],
    categoryName: 'Month',
    series: [
      { name: `Series ${HOSTILE}`, tone: 'outage', values: [1, 2] },
      { name: 'Other', tone: 'notice', values: [3, null] },
    ],
    format: (v) => `${v} ${HOSTILE}`,
    ...overrides,
  };
}

describe('SVG charts', () => {
  for (const [name, build] of [
    ['stacked columns', stackedColumnChart],
    ['lines', lineChart],
    ['horizontal bars', horizontalBarChart],
  ] as const) {
    it(`${name}: an image named by its title and description, every text escaped`, () => {
      const html = build(spec());
      expect(html).toMatch(/^<figure class="chart" id="chart-test">/);
      // A drawing per layout, each as wide in user units as the box that shows it.
      for (const layout of CHART_LAYOUTS) {
        expect(html).toContain(`<svg class="chart-svg chart-svg-${layout.name}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${layout.width} `);
        expect(html).toContain(`role="img" aria-labelledby="chart-test-${layout.name}-title chart-test-${layout.name}-desc"`);
        expect(html).toContain(`<title id="chart-test-${layout.name}-title">Title ${ESCAPED}</title>`);
        expect(html).toContain(`<desc id="chart-test-${layout.name}-desc">Description ${ESCAPED}</desc>`);
      }
      expect(html).not.toContain('<script');
      expect(html).not.toContain('style=');
      expect(html).toContain('<table class="chart-table">');
    });
  }

  it('stacks the series of a category and names each piece', () => {
    const html = firstDrawing(stackedColumnChart(spec({ categories: ['a', 'b'], format: String })));
    expect(html.match(/<rect class="chart-bar-outage"/g)).toHaveLength(2);
    // A missing value draws nothing.
    expect(html.match(/<rect class="chart-bar-notice"/g)).toHaveLength(1);
    expect(html).toContain('<title>a, Other: 3</title>');
  });

  it('breaks a line where a value is missing', () => {
    const html = firstDrawing(
      lineChart(spec({ categories: ['a', 'b', 'c', 'd'], series: [{ name: 'm', tone: '0', values: [1, 2, null, 4] }], format: String })),
    );
    expect(html.match(/<polyline /g)).toHaveLength(1);
    expect(html.match(/<circle /g)).toHaveLength(3);
  });

  it('tables the figures: a header row, a row per category, a dash where there is no value, extra columns', () => {
    const html = chartTable(spec({ categories: ['a', 'b'], format: String, tableOnly: [{ name: 'Count', values: ['7', '8'] }] }));
    expect(html).toContain(`<caption>Title ${ESCAPED}: the figures</caption>`);
    expect(html).toContain(`<tr><th scope="col">Month</th><th scope="col">Series ${ESCAPED}</th><th scope="col">Other</th><th scope="col">Count</th></tr>`);
    expect(html).toContain('<tr><th scope="row">a</th><td>1</td><td>3</td><td>7</td></tr>');
    expect(html).toContain('<tr><th scope="row">b</th><td>2</td><td>—</td><td>8</td></tr>');
    // Folded by default, under a summary that says what opening it shows.
    expect(html).toMatch(/^<details class="chart-table-details"><summary>Table of the figures: 2 rows, one per Month, 4 columns<\/summary>/);
  });

  it('leaves the table out when the page has the figures in one already', () => {
    expect(horizontalBarChart(spec({ table: false }))).not.toContain('<table');
  });
});

describe('valueAxis', () => {
  it('rounds the top up to a step of 1, 2 or 5 times a power of ten', () => {
    expect(valueAxis(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(valueAxis(3)).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(valueAxis(14)).toEqual({ top: 15, ticks: [0, 5, 10, 15] });
    expect(valueAxis(0.7)).toEqual({ top: 0.8, ticks: [0, 0.2, 0.4, 0.6, 0.8] });
    expect(valueAxis(5.6)).toEqual({ top: 6, ticks: [0, 2, 4, 6] });
  });
});

describe('countAxis', () => {
  it('steps by whole numbers: two incidents read 0, 1, 2, never 0.5 or 1.5', () => {
    expect(countAxis(2)).toEqual({ top: 2, ticks: [0, 1, 2] });
    expect(countAxis(1)).toEqual({ top: 1, ticks: [0, 1] });
    expect(countAxis(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(countAxis(14)).toEqual({ top: 15, ticks: [0, 5, 10, 15] });
  });
});

describe('durationAxis', () => {
  const MIN = 60_000;
  const HOUR = 60 * MIN;
  const labels = (maxMs: number) => {
    const axis = durationAxis(maxMs);
    return axis.ticks.map((t) => axis.label!(t));
  };

  it('steps 1, 2, 5, 10 or 20 of one unit, every tick in that unit: no "50 min", no "1 h 40 min"', () => {
    // The ranges that gave odd ticks before: 3 h 20 min of p90, 3 h 9 min of downtime.
    expect(labels(200 * MIN)).toEqual(['0', '1 h', '2 h', '3 h', '4 h']);
    expect(labels(189 * MIN)).toEqual(['0', '1 h', '2 h', '3 h', '4 h']);
    expect(labels(33 * MIN)).toEqual(['0', '10 min', '20 min', '30 min', '40 min']);
    expect(labels(7 * MIN)).toEqual(['0', '2 min', '4 min', '6 min', '8 min']);
    expect(labels(45_000)).toEqual(['0', '20 s', '40 s', '60 s']);
    expect(labels(50 * HOUR)).toEqual(['0', '1 day', '2 days', '3 days']);
    expect(labels(0)).toEqual(['0', '1 s']);
  });

  it('has a round top at or above the largest value, whatever it is', () => {
    for (let maxMs = 1000; maxMs < 400 * 24 * HOUR; maxMs = Math.ceil(maxMs * 1.37)) {
      const axis = durationAxis(maxMs);
      expect(axis.top).toBeGreaterThanOrEqual(maxMs);
      expect(axis.ticks.length).toBeGreaterThanOrEqual(2);
      expect(axis.ticks.length).toBeLessThanOrEqual(6);
      const shown = axis.ticks.slice(1).map((t) => axis.label!(t));
      expect(
        shown.every((l) => /^\d+ (s|min|h|day|days)$/.test(l)),
        shown.join(', '),
      ).toBe(true);
    }
  });
});
