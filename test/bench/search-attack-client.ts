/**
 * The search benchmark's attacker, run as a child process: sends one search at a fixed rate (open
 * loop, as an attacker would: it does not wait for answers), each request missing the response
 * cache, until its stdin closes, then prints what came back. Job as JSON in argv[2]; prints
 * "ready" once its first answer arrived.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export type AttackJob = { url: string; perSecond: number };

export type AttackReport = { sent: number; statuses: Record<string, number>; latenciesMs: number[]; skipped: number };

/** Requests left waiting beyond this are skipped, not queued: the client must not grow without end. */
const MAX_IN_FLIGHT = 64;

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as AttackJob;
  const url = new URL(job.url);
  const pool = new Pool(url.origin, { connections: 8 });
  // A fresh parameter on every request, as an attacker would add: each one misses the response cache.
  let request = 0;
  const path = () => `${url.pathname}${url.search}${url.search ? '&' : '?'}_attack=${++request}`;
  const report: AttackReport = { sent: 0, statuses: {}, latenciesMs: [], skipped: 0 };
  let inFlight = 0;
  const send = async () => {
    inFlight++;
    const started = performance.now();
    try {
      const response = await pool.request({ path: path(), method: 'GET' });
      await response.body.text();
      report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1;
      report.latenciesMs.push(performance.now() - started);
    } finally {
      inFlight--;
    }
  };

  await send(); // warm: the connection is open and the server has seen the query once
  report.statuses = {};
  report.latenciesMs = [];
  process.stdout.write('ready\n');
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (inFlight >= MAX_IN_FLIGHT) {
      report.skipped++;
      return;
    }
    report.sent++;
    const request = send();
    pending.add(request);
    void request.finally(() => pending.delete(request));
  }, 1000 / job.perSecond);

  for await (const _ of process.stdin) {
    // Runs until the parent closes stdin.
  }
  clearInterval(timer);
  await Promise.allSettled([...pending]);
  await pool.close();
  process.stdout.write(JSON.stringify(report));
}

await main();
