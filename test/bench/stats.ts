/** Timing samples and their summaries: percentiles, ratios, and interleaved runs of several cases. */
import { performance } from 'node:perf_hooks';

export type Summary = { n: number; mean: number; p50: number; p95: number; p99: number; min: number; max: number };

/** Nearest-rank percentile of an ascending list; `p` in 0..100. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export type BenchCase = {
  name: string;
  /** Untimed, before each run: e.g. make the change the run must see. */
  before?(): unknown;
  run(): Promise<unknown>;
  /** Untimed, after each run, with its result: verify it, count rows written. */
  after?(result: unknown): unknown;
};

/**
 * Runs every case once per round, in the given order, and returns the milliseconds of each run.
 * Interleaving puts a case and its baseline under the same machine weather (GC, CPU frequency,
 * a neighbour's burst), so their ratio stays meaningful on a noisy machine. Cases that share a
 * name (a baseline run before each of several cases) share one list of samples.
 */
export async function interleave(cases: readonly BenchCase[], rounds: number): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      await c.before?.();
      const started = performance.now();
      const result = await c.run();
      samples.get(c.name)!.push(performance.now() - started);
      await c.after?.(result);
    }
  }
  return samples;
}

/**
 * Like interleave, with `baseline` run right before every case. A case stops being sampled once
 * its own runs have taken `budgetMs`, and its baseline with it: one very slow case would
 * otherwise decide how long the whole benchmark takes.
 */
export async function interleavePairs(
  baseline: BenchCase,
  cases: readonly BenchCase[],
  rounds: number,
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<Map<string, number[]>> {
  const spent = new Map<string, number>();
  const samples = new Map<string, number[]>([[baseline.name, []]]);
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      if ((spent.get(c.name) ?? 0) >= budgetMs) continue;
      for (const [name, [ms = 0]] of await interleave([baseline, c], 1)) {
        if (!samples.has(name)) samples.set(name, []);
        samples.get(name)!.push(ms);
        if (name === c.name) spent.set(name, (spent.get(name) ?? 0) + ms);
      }
    }
  }
  return samples;
}

export async function timed<T>(run: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}
