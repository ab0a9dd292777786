/**
 * The search benchmark's attacker, run as a child process: sends one search at a fixed rate (open
 * loop: it does not wait for answers), or from `loopers` clients each sending its next request as
 * soon as the last was answered, each request missing the response cache, until its stdin closes,
 * then prints what came back. Job as JSON in argv[2]; prints "ready" once its first answer arrived,
 * or, looping, once the loops have spent their address's burst (the first 429; at most
 * LOOP_WARM_MAX_MS): what follows is what a client looping for good keeps up.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/** `perSecond`: open loop at that rate; `loopers`: that many closed loops instead. */
export type AttackJob = { url: string; perSecond: number; loopers?: number };

/** `warm`: looping, how long the loops ran before "ready", what they sent, and whether a 429 ended it. */
export type AttackReport = {
  sent: number;
  statuses: Record<string, number>;
  latenciesMs: number[];
  skipped: number;
  warm?: { ms: number; sent: number; refused: boolean };
};

/** Linux answers on every 127.0.0.0/8 address: a second client machine, on loopback. */
const ATTACKER_ADDRESS = '127.0.0.2';

/** Looping, "ready" comes at the first refusal, or after this long if none comes. */
const LOOP_WARM_MAX_MS = 10_000;

/** Requests left waiting beyond this are skipped, not queued: the client must not grow without end. */
const MAX_IN_FLIGHT = 64;

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as AttackJob;
  const url = new URL(job.url);
  // From an address of its own, apart from the widget's visitor: the read budget is per client.
  const pool = new Pool(url.origin, { connections: Math.max(8, job.loopers ?? 0), localAddress: ATTACKER_ADDRESS });
  // A different `since` on every request, a second apart and years before the archive begins, so
  // the answer is the same costly one and misses the response cache each time: a made-up
  // parameter would be refused, or left out of the key, and an attacker would do this instead.
  let request = 0;
  const since = () => new Date(Date.UTC(1990, 0, 1) + ++request * 1000).toISOString();
  const path = () => `${url.pathname}${url.search}${url.search ? '&' : '?'}since=${since()}`;
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
  if (job.loopers) {
    report.statuses = {};
    let stopped = false;
    const loops = Array.from({ length: job.loopers }, async () => {
      while (!stopped) {
        report.sent++;
        await send();
      }
    });
    const warmStarted = performance.now();
    while (!report.statuses['429'] && performance.now() - warmStarted < LOOP_WARM_MAX_MS) await new Promise((resolve) => setTimeout(resolve, 5));
    report.warm = { ms: performance.now() - warmStarted, sent: report.sent, refused: Boolean(report.statuses['429']) };
    report.sent = 0;
    report.statuses = {};
    report.latenciesMs = [];
    process.stdout.write('ready\n');
    for await (const _ of process.stdin) {
      // Runs until the parent closes stdin.
    }
    stopped = true;
    await Promise.allSettled(loops);
    await pool.close();
    process.stdout.write(JSON.stringify(report));
    return;
  }
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
