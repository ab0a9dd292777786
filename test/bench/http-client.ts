/**
 * The query benchmark's HTTP client, run as a child process: a real client is another process,
 * and one sharing the server's event loop would add its own work (reading 100 KB bodies) and
 * its garbage to every latency measured. Reads a job as JSON on stdin, prints samples on stdout.
 */
import { interleavePairs, type BenchCase } from './stats.ts';

export type ClientJob = {
  baseUrl: string;
  baseline: { name: string; path: string };
  /** `fresh`: a unique dummy parameter on every request, so the server's response cache always misses. */
  cases: { name: string; path: string; fresh?: boolean }[];
  warmUpRounds: number;
  rounds: number;
  budgetPerCaseMs: number;
};

async function getText(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as ClientJob;
  let request = 0;
  const toCase = (c: { name: string; path: string; fresh?: boolean }): BenchCase => ({
    name: c.name,
    run: () => getText(job.baseUrl + c.path + (c.fresh ? `${c.path.includes('?') ? '&' : '?'}_bench=${++request}` : '')),
  });
  const baseline = toCase(job.baseline);
  const cases = job.cases.map(toCase);
  await interleavePairs(baseline, cases, job.warmUpRounds);
  const samples = await interleavePairs(baseline, cases, job.rounds, job.budgetPerCaseMs);
  process.stdout.write(JSON.stringify(Object.fromEntries(samples)));
}

await main();
