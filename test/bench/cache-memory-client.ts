/**
 * The cache-memory benchmark's attacker, run as a child process: GET requests whose URLs are all
 * different (a unique, padded query), a few in flight, as fast as the server answers. Reads a job
 * as JSON on stdin, prints what it sent on stdout.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export type CacheMemoryJob = {
  baseUrl: string;
  /**
   * Cached routes, each with its query so far ending in a parameter it takes (`&incident=`): the
   * padding is that parameter's value, since a parameter a route does not take is refused or left
   * out of the cache key.
   */
  paths: string[];
  requests: number;
  /** Every request alternates between these path lengths (padding included). */
  pathChars: number[];
  /** Numbering starts here, so a second job never repeats the first one's URLs. */
  firstRequest: number;
  concurrency: number;
};

export type CacheMemoryResult = { sent: number; elapsedMs: number; statuses: Record<string, number> };

/** `/api/events?limit=1&incident=17-zzzz…` padded to `chars` characters. */
function paddedPath(path: string, n: number, chars: number): string {
  const start = `${path}${n}-`;
  return start + 'z'.repeat(Math.max(0, chars - start.length));
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as CacheMemoryJob;
  const pool = new Pool(job.baseUrl, { connections: job.concurrency });
  const statuses: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < job.requests; i = next++) {
      const n = job.firstRequest + i;
      const path = paddedPath(job.paths[i % job.paths.length]!, n, job.pathChars[i % job.pathChars.length]!);
      const response = await pool.request({ path, method: 'GET' });
      await response.body.dump();
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  const result: CacheMemoryResult = { sent: job.requests, elapsedMs: performance.now() - started, statuses };
  await pool.close();
  process.stdout.write(JSON.stringify(result));
}

await main();
