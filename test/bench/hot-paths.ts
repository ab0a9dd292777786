/**
 * Benchmark 3: the embeddables' hot paths (`/widget.json`, `/badge.svg`, full answers and 304s)
 * under concurrent load, each against a bare Hono `c.json` route on the same kind of server.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/entry/node.ts';
import { startSimulatedVendor, type RunningSimulatedVendor } from '../../src/sim/server.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { runClientProcess } from './app-server.ts';
import { expectBench, silentLogger, type Goal, type SectionReport } from './harness.ts';
import type { BurstSamples, HotPathJob, HotPathSamples, HotPathTarget } from './hot-paths-client.ts';
import { summarize } from './stats.ts';
import { DAY_MS, syntheticIncidents } from './synthetic.ts';
import { heading, ms, ratio, ratioAgainst, table } from './table.ts';

export type HotPathsOptions = {
  concurrency: number;
  burstRequests: number;
  rounds: number;
  warmUpRounds: number;
};

/** The goal: at least 0.8 of the bare route's throughput, and so p99 at most 1 / 0.8 of its. */
const RATIO_GOAL = 0.8;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const BASELINE_PATH = '/bench/baseline.json';
/** The baseline measured against itself: how far noise alone moves a ratio in this run. */
const NOISE_CASE = 'baseline again (noise)';

type HotPathWorld = { serviceUrl: string; baselineUrl: string; close(): Promise<void> };

export async function benchHotPaths(options: HotPathsOptions): Promise<SectionReport> {
  const widget = { current: null as unknown };
  const world = await setUpWorld(() => widget.current);
  try {
    const targets = await buildTargets(world, widget);
    const baseline: HotPathTarget = { name: 'baseline', url: world.baselineUrl + BASELINE_PATH, status: 200 };
    const samples = await runClient({ baseline, cases: [...targets, { ...baseline, name: NOISE_CASE }], ...options });
    return report(targets, samples, options);
  } finally {
    await world.close();
  }
}

/**
 * The real service (as `statuswatch serve` wires it) with an archive polled from the simulated
 * vendor, and next to it a bare Hono app on its own @hono/node-server, in the same process.
 */
async function setUpWorld(baselineBody: () => unknown): Promise<HotPathWorld> {
  const dir = tempDir('statuswatch-bench-hot-');
  const opened: { close(): Promise<void> }[] = [];
  try {
    const vendor: RunningSimulatedVendor = await startSimulatedVendor({
      host: '127.0.0.1',
      port: 0,
      scenario: { name: 'bench', initialWorld: () => [], steps: [], loop: false },
      historyWindowDays: 366,
    });
    opened.push(vendor);
    // A realistic feed: about the vendor's history window, two incidents going on.
    vendor.vendor.setIncidents(syntheticIncidents({ count: 120, endMs: Date.now() - DAY_MS, spanMs: 180 * DAY_MS, active: 2, seed: 30 }));

    const config = parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'archive.db'),
      STATUS_URL: vendor.url,
      POLL_SCHEDULE: '0 0 1 1 *', // the benchmark polls once, through the admin API
      POLL_ON_START: 'false',
      ADMIN_TOKEN,
    });
    const service: RunningService = await startService(config, silentLogger);
    opened.push(service);
    const poll = await fetch(`${service.url}/api/admin/poll`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const polled = (await poll.json()) as { outcome?: string };
    expectBench(polled.outcome === 'ok', `the seeding poll did not succeed: ${JSON.stringify(polled).slice(0, 300)}`);

    const baseline = new Hono().get(BASELINE_PATH, (c) => c.json(baselineBody()));
    const server = serve({ fetch: baseline.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    opened.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    });
    const { port } = server.address() as AddressInfo;

    return {
      serviceUrl: service.url,
      baselineUrl: `http://127.0.0.1:${port}`,
      close: () => closeAll(opened, dir),
    };
  } catch (error) {
    await closeAll(opened, dir);
    throw error;
  }
}

async function closeAll(opened: { close(): Promise<void> }[], dir: string): Promise<void> {
  for (const item of opened.reverse()) await item.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The four cases, each checked once before it is measured; the baseline then serves the widget's own data. */
async function buildTargets(world: HotPathWorld, widget: { current: unknown }): Promise<HotPathTarget[]> {
  const targets: HotPathTarget[] = [];
  for (const [name, path] of [
    ['/widget.json', '/widget.json'],
    ['/badge.svg?service=Files', '/badge.svg?service=Files'],
  ] as const) {
    const url = world.serviceUrl + path;
    const response = await fetch(url);
    const body = await response.text();
    const etag = response.headers.get('etag');
    expectBench(response.status === 200 && etag !== null, `GET ${path}: HTTP ${response.status}, ETag ${etag}`);
    const revalidated = await fetch(url, { headers: { 'if-none-match': etag } });
    expectBench(revalidated.status === 304, `GET ${path} with its own ETag: HTTP ${revalidated.status}, not 304`);
    if (path === '/widget.json') {
      const data = JSON.parse(body) as { incidents: unknown[] };
      expectBench(data.incidents.length === 2, `/widget.json shows ${data.incidents.length} incidents, not the 2 going on`);
      // Same bytes from both: the ratio compares serving, not payload size.
      widget.current = data;
    }
    targets.push({ name: `${name} 200`, url, status: 200 });
    targets.push({ name: `${name} 304`, url, headers: { 'if-none-match': etag }, status: 304 });
  }
  return targets;
}

const CLIENT = fileURLToPath(new URL('./hot-paths-client.ts', import.meta.url));

const runClient = (job: HotPathJob) => runClientProcess<HotPathSamples>(CLIENT, job);

const rps = (s: BurstSamples) => (s.latenciesMs.length * 1000) / s.elapsedMs;

function report(targets: HotPathTarget[], samples: HotPathSamples, options: HotPathsOptions): SectionReport {
  const rows = [...targets, { name: NOISE_CASE }].map(({ name }) => {
    const { target, baseline } = samples[name]!;
    const own = { rps: rps(target), p99: summarize(target.latenciesMs).p99 };
    const base = { rps: rps(baseline), p99: summarize(baseline.latenciesMs).p99 };
    const met = own.rps / base.rps >= RATIO_GOAL && own.p99 <= base.p99 / RATIO_GOAL;
    return { name, n: target.latenciesMs.length, own, base, met };
  });
  const text = [
    heading('3. Hot paths: /widget.json and /badge.svg'),
    `${options.rounds} rounds of ${options.burstRequests}-request bursts at ${options.concurrency} in flight (after ${options.warmUpRounds} warm-up rounds), ` +
      `from a client in another process; each burst next to one of the baseline, a bare Hono c.json route answering the same widget data ` +
      `from its own @hono/node-server in the service's process. Goal: at least ${RATIO_GOAL}x the baseline's requests per second, p99 at most ${ratio(1 / RATIO_GOAL)} of its. ` +
      `The last row runs the baseline against itself: its distance from 1.00x is this run's noise.`,
    '',
    table(
      ['case', 'n', 'req/s', 'base req/s', 'req/s / base', 'p99 ms', 'base p99 ms', 'p99 / base', 'goal'],
      rows.map((r) => [
        r.name,
        r.n,
        r.own.rps.toFixed(0),
        r.base.rps.toFixed(0),
        ratio(r.own.rps / r.base.rps),
        ms(r.own.p99),
        ms(r.base.p99),
        ratio(r.own.p99 / r.base.p99),
        r.name === NOISE_CASE ? '' : r.met ? 'yes' : 'MISS',
      ]),
    ),
  ].join('\n');
  const goals: Goal[] = rows
    .filter((r) => r.name !== NOISE_CASE)
    .map((r) => ({
      name: `GET ${r.name}: at least ${RATIO_GOAL}x a bare Hono route`,
      met: r.met,
      detail: `req/s ${ratioAgainst(r.own.rps / r.base.rps, RATIO_GOAL)}, p99 ${ratioAgainst(r.own.p99 / r.base.p99, 1 / RATIO_GOAL)} of the baseline's`,
    }));
  return { text, goals };
}
