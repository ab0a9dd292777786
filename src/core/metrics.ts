/**
 * A small metrics registry (counters and histograms kept in this process) and the Prometheus text
 * exposition format (version 0.0.4) it is read in. Gauges read at scrape time are passed to render.
 */

type Labels = Record<string, string>;

export type Histogram = { observe(value: number, labels?: Labels): void };
export type Counter = { inc(labels?: Labels, by?: number): void };

type CounterDef = { kind: 'counter'; name: string; help: string; values: Map<string, { labels: Labels; value: number }> };
type HistogramDef = {
  kind: 'histogram';
  name: string;
  help: string;
  buckets: readonly number[];
  series: Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>;
};

/** A value read when scraped (deliveries by state, outbox depth): no state kept here. */
export type GaugeSample = { name: string; help: string; values: { labels?: Labels; value: number }[] };

export type MetricsRegistry = {
  counter(name: string, help: string): Counter;
  histogram(name: string, help: string, buckets: readonly number[]): Histogram;
  /** The exposition text: the registry's counters and histograms, then the gauges given. */
  render(gauges: readonly GaugeSample[]): string;
};

/** Seconds, from a fast poll to a slow vendor (the poll timeout is 10 s by default). */
export const POLL_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds from a change being written to its delivery confirmed: seconds when healthy, hours on retries. */
export const DELIVERY_LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400];

export function createMetricsRegistry(): MetricsRegistry {
  const defs: (CounterDef | HistogramDef)[] = [];
  return {
    counter(name, help) {
      const def: CounterDef = { kind: 'counter', name, help, values: new Map() };
      defs.push(def);
      return {
        inc(labels = {}, by = 1) {
          const key = labelKey(labels);
          const entry = def.values.get(key) ?? { labels, value: 0 };
          entry.value += by;
          def.values.set(key, entry);
        },
      };
    },
    histogram(name, help, buckets) {
      const def: HistogramDef = { kind: 'histogram', name, help, buckets: [...buckets].sort((a, b) => a - b), series: new Map() };
      defs.push(def);
      return {
        observe(value, labels = {}) {
          const key = labelKey(labels);
          const entry = def.series.get(key) ?? { labels, counts: def.buckets.map(() => 0), sum: 0, count: 0 };
          def.buckets.forEach((le, i) => {
            if (value <= le) entry.counts[i]! += 1;
          });
          entry.sum += value;
          entry.count += 1;
          def.series.set(key, entry);
        },
      };
    },
    render(gauges) {
      const lines: string[] = [];
      for (const def of defs) {
        lines.push(`# HELP ${def.name} ${escapeHelp(def.help)}`, `# TYPE ${def.name} ${def.kind}`);
        if (def.kind === 'counter') {
          for (const { labels, value } of def.values.values()) lines.push(`${def.name}${formatLabels(labels)} ${formatNumber(value)}`);
        } else {
          for (const { labels, counts, sum, count } of def.series.values()) {
            for (const [i, le] of def.buckets.entries()) lines.push(`${def.name}_bucket${formatLabels({ ...labels, le: formatNumber(le) })} ${counts[i]}`);
            lines.push(`${def.name}_bucket${formatLabels({ ...labels, le: '+Inf' })} ${count}`);
            lines.push(`${def.name}_sum${formatLabels(labels)} ${formatNumber(sum)}`, `${def.name}_count${formatLabels(labels)} ${count}`);
          }
        }
      }
      for (const gauge of gauges) {
        lines.push(`# HELP ${gauge.name} ${escapeHelp(gauge.help)}`, `# TYPE ${gauge.name} gauge`);
        for (const { labels, value } of gauge.values) lines.push(`${gauge.name}${formatLabels(labels ?? {})} ${formatNumber(value)}`);
      }
      return lines.join('\n') + '\n';
    },
  };
}

function labelKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  // The format's escapes for label values: backslash, double quote and line feed.
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
