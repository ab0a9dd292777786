/**
 * Benchmark 7: memory under unique URLs, which any client can send to grow a cache keyed by URL.
 * The real service runs as `statuswatch serve` in a child process over a seeded archive; a client
 * in another process sends a flood of GETs to the cached routes, every URL different, and the
 * server's peak RSS (VmHWM) is compared with its RSS after a warm-up, and with the caches' stated
 * budgets.
 *
 * Every request comes from an address of its own, as the service tells clients apart (an IPv6 /64,
 * through a trusted proxy's X-Forwarded-For), and the read budget keeps its default. From one
 * address the budget refuses the flood once its builds outrun that client's share of the server's
 * time (at the most there is, after ~90,000 requests): that is the service defending itself, not
 * what this measures. An attacker with many addresses gets past any per-client budget, so what
 * holds memory down is the caches' bounds, and the budget's own table of clients, filled here to
 * its bound too.
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_KEY_CHARS } from '../../src/http/response-cache.ts';
import { spawnCli } from '../helpers/cli.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';
import { runClientProcess } from './app-server.ts';
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import type { CacheMemoryJob, CacheMemoryResult } from './cache-memory-client.ts';
import { seedDirect } from './seed.ts';
import { DAY_MS, syntheticIncidents, toIncidents, YEAR_MS } from './synthetic.ts';
import { heading, table } from './table.ts';

export type CacheMemoryOptions = {
  archiveIncidents: number;
  requests: number;
  warmUpRequests: number;
  concurrency: number;
  /** The routes the URLs vary; default: every cache a request can fill. */
  paths?: string[];
};

const MB = 1024 * 1024;
/** The budgets of the three caches a request can fill (src/http/app.ts, src/http/routes/widget.ts, src/http/page-cache.ts). */
const CACHE_BUDGET_BYTES = 32 * MB + 4 * MB + 16 * MB;
/**
 * What the process may grow beyond the budgets: V8 lets the heap run ahead of what is live before
 * it collects, and sockets, parsers and SQLite pages come and go with the load. The read budget's
 * table of clients, full at 10,000 under this flood, is a megabyte or two of it.
 */
const FIXED_OVERHEAD_BYTES = 64 * MB;
/**
 * The read API's route (its cache also holds the feeds) and the widget's two hot
 * paths (the widget cache): the cheapest answers of each, so the flood is as fast as it can be.
 */
const PATHS = ['/api/events?limit=1&incident=', '/widget.json?service=', '/badge.svg?service=Files,', '/incidents?status=resolved&type='];
/**
 * A flood pads its URLs to ~14 KB (Node accepts 16 KB of headers); the longest a cache
 * still keeps is just under MAX_KEY_CHARS (the key is the whole URL, origin included). Half each.
 */
const PATH_CHARS = [14_000, MAX_KEY_CHARS - 100];

export async function benchCacheMemory(options: CacheMemoryOptions): Promise<SectionReport> {
  const dir = tempDir('statuswatch-bench-memory-');
  const databasePath = seedArchive(dir, options.archiveIncidents);
  const { child, done } = spawnCli(['serve'], {
    DATABASE_PATH: databasePath,
    PORT: '0',
    HOST: '127.0.0.1',
    STATUS_URL: 'http://127.0.0.1:9', // never read: the service does not poll in this benchmark
    POLL_ON_START: 'false',
    POLL_SCHEDULE: '0 0 1 1 *',
    LOG_LEVEL: 'info',
    // The flood's clients are told apart by the address the proxy appends (floodClientAddress).
    TRUST_PROXY: 'true',
  });
  try {
    const baseUrl = await servingUrl(child.stderr!);
    const pid = child.pid!;
    const paths = options.paths ?? PATHS;
    const job = { baseUrl, paths, pathChars: PATH_CHARS, concurrency: options.concurrency };
    const warmUp = await runClient({ ...job, requests: options.warmUpRequests, firstRequest: 0 });
    expectBench(warmUp.statuses['200'] === warmUp.sent, `warm-up: ${JSON.stringify(warmUp.statuses)}, expected ${warmUp.sent} x 200`);
    const baseline = memoryOf(pid);
    const flood = await runClient({ ...job, requests: options.requests, firstRequest: options.warmUpRequests });
    expectBench(flood.statuses['200'] === flood.sent, `flood: ${JSON.stringify(flood.statuses)}, expected ${flood.sent} x 200`);
    const after = memoryOf(pid);
    return report(options, baseline, after, flood);
  } finally {
    child.kill('SIGTERM');
    await done;
    rmSync(dir, { recursive: true, force: true });
  }
}

function seedArchive(dir: string, count: number): string {
  const nowMs = Date.now();
  const archive = openTempArchive(dir);
  try {
    seedDirect(archive.sqlite, toIncidents(syntheticIncidents({ count, endMs: nowMs - DAY_MS, spanMs: YEAR_MS, active: 2, seed: 70 })), nowMs);
    return archive.path;
  } finally {
    archive.close();
  }
}

/** The URL the service logs once it listens (LOG_FORMAT=json). */
function servingUrl(stderr: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        if (!line.includes('statuswatch is serving')) continue;
        stderr.off('data', onData);
        resolve((JSON.parse(line) as { url: string }).url);
        return;
      }
    };
    stderr.on('data', onData);
    stderr.once('end', () => reject(new Error(`the service exited before serving: ${buffered.slice(-500)}`)));
  });
}

type Memory = { rssBytes: number; peakBytes: number };

/** VmRSS (now) and VmHWM (the peak since the process started), from /proc. */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kb('VmRSS'), peakBytes: kb('VmHWM') };
}

const CLIENT = fileURLToPath(new URL('./cache-memory-client.ts', import.meta.url));

const runClient = (job: CacheMemoryJob) => runClientProcess<CacheMemoryResult>(CLIENT, job);

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

function report(options: CacheMemoryOptions, baseline: Memory, after: Memory, flood: CacheMemoryResult): SectionReport {
  const growth = after.peakBytes - baseline.rssBytes;
  const allowed = CACHE_BUDGET_BYTES + FIXED_OVERHEAD_BYTES;
  const met = growth <= allowed;
  const text = [
    heading('7. Memory under unique URLs'),
    `${options.requests.toLocaleString('en')} GETs, every URL different, half padded to ${PATH_CHARS[0]!.toLocaleString('en')} characters and half to ` +
      `${PATH_CHARS[1]!.toLocaleString('en')} (the longest a cache keeps), over ${(options.paths ?? PATHS).length} cached routes, ${options.concurrency} in flight, ` +
      `from a client in another process, each request from an address of its own (a new IPv6 /64 in X-Forwarded-For, with TRUST_PROXY; ` +
      `the read budget at its default never refuses a new client), against \`statuswatch serve\` in a child process over ${options.archiveIncidents.toLocaleString('en')} incidents ` +
      `(${((flood.sent * 1000) / flood.elapsedMs).toFixed(0)} req/s). Baseline: the server's RSS after ${options.warmUpRequests} such requests. ` +
      `Goal: peak RSS at most the baseline plus the caches' budgets (${mb(CACHE_BUDGET_BYTES)}, keys included) plus ${mb(FIXED_OVERHEAD_BYTES)}.`,
    '',
    table(
      ['server RSS', 'MB', 'over the baseline'],
      [
        ['after the warm-up (baseline)', mb(baseline.rssBytes), ''],
        ['peak during the flood (VmHWM)', mb(after.peakBytes), `${mb(growth)} (${(after.peakBytes / baseline.rssBytes).toFixed(2)}x)`],
        ['after the flood', mb(after.rssBytes), mb(after.rssBytes - baseline.rssBytes)],
        ['allowed: budgets + fixed overhead', mb(baseline.rssBytes + allowed), mb(allowed)],
      ],
    ),
  ].join('\n');
  const goals: Goal[] = [
    {
      name: `${options.requests.toLocaleString('en')} unique URLs: peak RSS within the cache budgets plus ${mb(FIXED_OVERHEAD_BYTES)}`,
      met,
      detail: `grew ${mb(growth)} over a ${mb(baseline.rssBytes)} baseline; allowed ${mb(allowed)}`,
    },
  ];
  return { text, goals };
}
