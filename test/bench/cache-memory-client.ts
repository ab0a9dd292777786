/**
 * The cache-memory benchmark's attacker, run as a child process: GET requests whose URLs are all
 * different (a unique, padded query), each from a client address of its own, a few in flight, as
 * fast as the server answers. Reads a job as JSON on stdin, prints what it sent on stdout.
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

/**
 * Request n's client: an IPv6 address in a /64 of its own (the unit the service keys a client by)
 * within 2001:db8::/32, the documentation prefix. One /48 holds 65,536 such clients, so an attacker
 * has them to spare; the service sees them through the proxy's X-Forwarded-For (TRUST_PROXY).
 */
export function floodClientAddress(n: number): string {
  return `2001:db8:${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}::1`;
}

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
      const response = await pool.request({ path, method: 'GET', headers: { 'x-forwarded-for': floodClientAddress(n) } });
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
