/**
 * The poll cycle inside workerd: the real poller over D1, in a worker that wrangler
 * bundles and Miniflare runs, against the simulated vendor on loopback; as a ratio to a bare
 * fetch of the same two feed bodies and JSON.parse inside the same worker, interleaved with it.
 * The archive is the Node benchmark's seed, moved into D1 by `statuswatch export-d1`'s statements.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import type { SimIncident } from '../../src/sim/world.ts';
import { dumpStatements } from '../../src/entry/export-d1.ts';
import { MIGRATIONS_DIR } from '../../src/entry/open-sqlite.ts';
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import { setUpPollWorld, type PollSetupOptions, type PollWorld } from './poll-setup.ts';
import { interleave, summarize, timed, type BenchCase, type Summary } from './stats.ts';
import { heading, ms, msAgainst, ratio, ratioAgainst, table } from './table.ts';

export type WorkerdPollOptions = PollSetupOptions & {
  rounds: number;
  warmUpRounds: number;
  /**
   * Runs of each case alone, for its workerd CPU: /proc counts in 10 ms ticks, so the figure is
   * known to 10 ms over this many runs. At 10 runs a poll of 9.5 ms could read 9 or 10, on either
   * side of the 10 ms goal.
   */
  aloneRuns: number;
};

const WORKER_ENTRY = fileURLToPath(new URL('./workerd-poll-worker.ts', import.meta.url));
const WRANGLER = fileURLToPath(new URL('../../node_modules/wrangler/bin/wrangler.js', import.meta.url));
const COMPATIBILITY_DATE = '2026-04-26';
/** A minute's poll must fit Workers Free's CPU limit (10 ms per invocation) with room to spare. */
const CPU_GOAL_MS = 10;
const UNCHANGED_RATIO_GOAL = 1.5;
/** Statements per D1 batch while loading the archive: each batch is one request to workerd. */
const LOAD_BATCH = 200;

type PollAnswer = { status: string; unchanged?: boolean; events?: string[]; reason?: string };

export async function benchPollCycleWorkerd(options: WorkerdPollOptions): Promise<SectionReport> {
  const world = await setUpPollWorld(options);
  let mf: Miniflare | undefined;
  try {
    const script = await bundleWorker(world.archive.dir);
    mf = new Miniflare({
      // The bundle lives in a temporary folder: module names are relative to it, not to the cwd.
      modules: [{ type: 'ESModule', path: script }],
      modulesRoot: dirname(script),
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: ['nodejs_compat'],
      d1Databases: ['DB'],
      bindings: { STATUS_URL: world.vendor.url },
    });
    const { ms: loadMs } = await timed(() => loadArchive(mf!, world));
    return await measure(mf, world, options, loadMs);
  } finally {
    await mf?.dispose();
    await world.close();
  }
}

/**
 * Runs `c` back to back, alone: its mean wall time, and the CPU of Miniflare's workerd (the child
 * of this process named workerd) per run, from /proc: user plus system time, in clock ticks.
 */
async function runAlone(c: BenchCase, runs: number): Promise<{ wallMs: number; cpuMs: number }> {
  const cpuBefore = workerdCpuMs();
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    await c.before?.();
    // Not `c.after?.(await c.run())`: with no `after`, that would skip the run itself.
    const result = await c.run();
    await c.after?.(result);
  }
  return { wallMs: (performance.now() - started) / runs, cpuMs: (workerdCpuMs() - cpuBefore) / runs };
}

let ticksPerSecond: number | undefined;

function workerdCpuMs(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  let ticks = 0;
  let found = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // "pid (comm) state ppid ...": the fields after the command name, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!stat.includes('(workerd)') || Number(fields[1]) !== process.pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    found++;
  }
  expectBench(found > 0, 'no workerd child process found to read its CPU time');
  return (ticks * 1000) / ticksPerSecond;
}

/** wrangler's own bundler, as `wrangler deploy` would build the Workers entry. */
async function bundleWorker(dir: string): Promise<string> {
  const project = join(dir, 'workerd-bench');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'wrangler.toml'),
    `name = "statuswatch-bench"\nmain = ${JSON.stringify(WORKER_ENTRY)}\ncompatibility_date = "${COMPATIBILITY_DATE}"\ncompatibility_flags = ["nodejs_compat"]\n`,
  );
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' };
  await promisify(execFile)(process.execPath, [WRANGLER, 'deploy', '--dry-run', '--outdir', join(project, 'dist')], { cwd: project, env });
  return join(project, 'dist', 'workerd-poll-worker.js');
}

/**
 * drizzle/, one batch per migration split at its breakpoints as drizzle's migrator splits it (the
 * schema `wrangler d1 migrations apply` makes), then the seeded Node archive's rows.
 */
async function loadArchive(mf: Miniflare, world: PollWorld): Promise<void> {
  const db = await mf.getD1Database('DB');
  for (const file of readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(join(MIGRATIONS_DIR, file), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    await db.batch(statements.map((s) => db.prepare(s)));
  }
  const statements: string[] = [];
  const sqlite = world.archive.sqlite;
  sqlite.transaction(() => dumpStatements(sqlite, (s) => statements.push(s)))();
  for (let i = 0; i < statements.length; i += LOAD_BATCH) {
    await db.batch(statements.slice(i, i + LOAD_BATCH).map((s) => db.prepare(s)));
  }
  const [onD1] = (await db.prepare('SELECT count(*) FROM incidents').raw()) as [number][];
  const onNode = (sqlite.prepare('SELECT count(*) AS n FROM incidents').get() as { n: number }).n;
  expectBench(onD1?.[0] === onNode, `D1 holds ${onD1?.[0]} incidents after the load, the Node archive ${onNode}`);
}

async function measure(mf: Miniflare, world: PollWorld, options: WorkerdPollOptions, loadMs: number): Promise<SectionReport> {
  const call = async (path: string): Promise<PollAnswer> => {
    const response = await mf.dispatchFetch(`http://bench${path}`, { method: 'POST' });
    const text = await response.text();
    expectBench(response.ok, `${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as PollAnswer;
  };
  const quiet = (name: string) => (answer: unknown) => {
    const a = answer as PollAnswer;
    expectBench(a.status === 'ok' && a.events?.length === 0, `${name}: expected an ok poll without events, got ${JSON.stringify(a)}`);
  };

  // The first poll diffs the whole feed against the moved archive: it must find nothing new.
  const first = await call('/poll');
  quiet('the first poll over the moved archive')(first);

  const vendor = world.vendor.vendor;
  const editable = vendor.state.incidents().filter((i: SimIncident) => i.status === 'resolved');
  let edits = 0;
  let target: SimIncident | undefined;
  const plain: BenchCase = { name: 'baseline', run: () => call('/bare') };
  const unchanged: BenchCase = { name: 'poll, nothing changed', run: () => call('/poll'), after: quiet('poll, nothing changed') };
  const fresh: BenchCase = { name: 'poll, nothing changed, new poller', run: () => call('/poll-fresh'), after: quiet('poll, new poller') };
  const changed: BenchCase = {
    name: 'poll, one incident changed',
    before() {
      target = editable[edits % editable.length]!;
      edits++;
      vendor.upsertIncident({ ...target, title: `${target.title} (edit ${edits})` });
      vendor.state.render('v2/current');
      vendor.state.render('v2/history');
    },
    run: () => call('/poll'),
    after(answer) {
      const a = answer as PollAnswer;
      expectBench(
        a.status === 'ok' && a.events?.length === 1 && a.events[0] === `incident.updated ${target!.id}`,
        `one changed title should make one incident.updated event for ${target!.id}, got ${JSON.stringify(a)}`,
      );
    },
  };
  // Interleaved, each poll's record (written after its answer) is in before the next request, so
  // it does not slow the baseline that follows; run alone, the next poll waits for it anyway.
  const settled = (c: BenchCase): BenchCase => ({
    ...c,
    async after(result) {
      await c.after?.(result);
      await mf.dispatchFetch('http://bench/settled', { method: 'POST' }).then((r) => r.text());
    },
  });
  const cases = [plain, settled(unchanged), plain, settled(fresh), plain, settled(changed)];
  await interleave(cases, options.warmUpRounds);
  const samples = await interleave(cases, options.rounds);
  const alone = new Map<string, { wallMs: number; cpuMs: number }>();
  for (const c of [plain, unchanged, fresh, changed]) alone.set(c.name, await runAlone(c, options.aloneRuns));
  const base = summarize(samples.get(plain.name)!);
  const row = (c: BenchCase, name = c.name) => {
    const s: Summary = summarize(samples.get(c.name)!);
    // /proc counts in clock ticks (10 ms): below one tick over all the runs, only a bound is known.
    const { wallMs, cpuMs } = alone.get(c.name)!;
    const tickMs = 1000 / (ticksPerSecond ?? 100) / options.aloneRuns;
    return [name, ms(s.p50), ms(s.p95), ratio(s.p50 / base.p50), ms(wallMs), cpuMs < tickMs ? `< ${ms(tickMs)}` : ms(cpuMs)] as const;
  };

  const text = [
    heading(`1b. Poll cycle inside workerd, over D1, ${options.archiveIncidents.toLocaleString('en-US')}-incident archive`),
    `worker bundled by wrangler, run by Miniflare (workerd) with a local D1; archive moved in by export-d1's statements in ${(loadMs / 1000).toFixed(1)} s`,
    `each figure is a request from Node into the worker and back, the baseline's too; ${options.rounds} rounds, interleaved`,
    '',
    table(
      ['case', 'p50 ms', 'p95 ms', 'ratio', 'alone, mean ms', 'workerd CPU ms'],
      [row(plain, 'baseline: bare fetch of both bodies + JSON.parse in the worker'), row(unchanged), row(fresh), row(changed)],
    ),
    '',
    '"new poller": made for the request, as when a cron event starts a new isolate; its first diff of the feed is a full one.',
    `"alone": each case run ${options.aloneRuns} times back to back by itself after the interleaved rounds, its mean wall time and the CPU time of the`,
    "workerd process per request: the worker's own CPU plus local D1's SQLite and workerd's HTTP plumbing, so an upper",
    'bound of what Cloudflare would count as CPU time.',
  ].join('\n');
  const unchangedRatio = summarize(samples.get(unchanged.name)!).p50 / base.p50;
  const cpuGoal = (c: BenchCase, name: string): Goal => {
    const { cpuMs } = alone.get(c.name)!;
    return { name: `${name}: under ${CPU_GOAL_MS} ms of workerd CPU`, met: cpuMs < CPU_GOAL_MS, detail: `${msAgainst(cpuMs, CPU_GOAL_MS)} ms per poll` };
  };
  const goals: Goal[] = [
    {
      name: `workerd poll, nothing changed: p50 within ${UNCHANGED_RATIO_GOAL}x of bare fetch + parse in the worker`,
      met: unchangedRatio <= UNCHANGED_RATIO_GOAL,
      detail: ratioAgainst(unchangedRatio, UNCHANGED_RATIO_GOAL),
    },
    cpuGoal(fresh, 'workerd poll in a new isolate'),
    cpuGoal(changed, 'workerd poll, one incident changed'),
  ];
  return { text, goals };
}
