/**
 * The query benchmark's HTTP client, run as a child process: a real client is another process,
 * and one sharing the server's event loop would add its own work (reading 100 KB bodies) and
 * its garbage to every latency measured. Reads a job as JSON on stdin, prints samples on stdout.
 */
import { request } from 'undici';
import { interleavePairs, type BenchCase } from './stats.ts';

export type ClientJob = {
  baseUrl: string;
  baseline: { name: string; path: string };
  /**
   * `fresh`: a unique Host on every request, so the server's response cache always misses (its key
   * holds the origin, which links in answers are built from; a made-up parameter is refused or
   * left out of the key).
   */
  cases: { name: string; path: string; fresh?: boolean }[];
  warmUpRounds: number;
  rounds: number;
  budgetPerCaseMs: number;
};

async function getText(url: string, host?: string): Promise<string> {
  const response = await request(url, host ? { headers: { host } } : {});
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${response.statusCode}: ${body.slice(0, 200)}`);
  return body;
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as ClientJob;
  let requests = 0;
  const toCase = (c: { name: string; path: string; fresh?: boolean }): BenchCase => ({
    name: c.name,
    run: () => getText(job.baseUrl + c.path, c.fresh ? `fresh-${++requests}.localhost:${new URL(job.baseUrl).port}` : undefined),
  });
  const baseline = toCase(job.baseline);
  const cases = job.cases.map(toCase);
  await interleavePairs(baseline, cases, job.warmUpRounds);
  const samples = await interleavePairs(baseline, cases, job.rounds, job.budgetPerCaseMs);
  process.stdout.write(JSON.stringify(Object.fromEntries(samples)));
}

await main();
