/**
 * The hot-path benchmark's load generator, run as a child process (a real client is another
 * process, and one sharing the server's event loop would take its CPU): bursts of concurrent
 * requests, each case right next to a burst of the baseline. Reads a job as JSON on stdin,
 * prints the samples on stdout.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export type HotPathTarget = {
  name: string;
  url: string;
  headers?: Record<string, string>;
  status: number;
  /** A unique Host on every request, so the server's response cache (keyed on the origin too) always misses. */
  fresh?: boolean;
};

export type HotPathJob = {
  baseline: HotPathTarget;
  cases: HotPathTarget[];
  /** Requests in flight at once, each on its own keep-alive connection. */
  concurrency: number;
  burstRequests: number;
  warmUpRounds: number;
  rounds: number;
  /** The address the requests come from (Linux answers on all of 127.0.0.0/8): a client of its own for the server's per-client budgets. */
  localAddress?: string;
};

/** Latency of every request, and the wall time of the bursts they were sent in. */
export type BurstSamples = { latenciesMs: number[]; elapsedMs: number };

/** Per case: its own samples and those of the baseline bursts run next to it. */
export type HotPathSamples = Record<string, { target: BurstSamples; baseline: BurstSamples }>;

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as HotPathJob;
  const pools = new Map<string, Pool>();
  const poolFor = (url: URL) => {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: job.concurrency, ...(job.localAddress ? { localAddress: job.localAddress } : {}) });
      pools.set(url.origin, pool);
    }
    return pool;
  };

  let requests = 0;
  const burst = async (target: HotPathTarget, into: BurstSamples) => {
    const url = new URL(target.url);
    const pool = poolFor(url);
    const path = url.pathname + url.search;
    let left = job.burstRequests;
    const worker = async () => {
      while (left-- > 0) {
        const started = performance.now();
        const headers = target.fresh ? { ...target.headers, host: `fresh-${++requests}.localhost:${url.port}` } : target.headers;
        const response = await pool.request({ path, method: 'GET', headers });
        const body = await response.body.text();
        into.latenciesMs.push(performance.now() - started);
        if (response.statusCode !== target.status)
          throw new Error(`${target.name}: HTTP ${response.statusCode}, expected ${target.status}: ${body.slice(0, 200)}`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: job.concurrency }, worker));
    into.elapsedMs += performance.now() - started;
  };

  const run = async (rounds: number): Promise<HotPathSamples> => {
    const samples: HotPathSamples = {};
    for (const target of job.cases) samples[target.name] = { target: { latenciesMs: [], elapsedMs: 0 }, baseline: { latenciesMs: [], elapsedMs: 0 } };
    for (let round = 0; round < rounds; round++) {
      for (const target of job.cases) {
        const { target: own, baseline } = samples[target.name]!;
        // Alternating who goes first: neither always gets the warmer connections and caches.
        if (round % 2 === 0) {
          await burst(job.baseline, baseline);
          await burst(target, own);
        } else {
          await burst(target, own);
          await burst(job.baseline, baseline);
        }
      }
    }
    return samples;
  };

  await run(job.warmUpRounds);
  const samples = await run(job.rounds);
  await Promise.all([...pools.values()].map((pool) => pool.close()));
  process.stdout.write(JSON.stringify(samples));
}

await main();
