/**
 * Sources: 100 status pages in the Statuspage format, each a simulated page on loopback (served by
 * a process of their own, sources-pages.ts), polled by this Node process as its cron does each
 * minute (every source, SOURCE_POLLS_AT_ONCE at once).
 * A quiet minute and a minute in which 10 pages changed, each against a bare fetch and JSON.parse
 * of the same bodies at the same concurrency, interleaved with it; and the memory the sources
 * cost, RSS and heap after polling them against none.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createFetchPageReader } from '../../src/adapters/fetch-page-reader.ts';
import { forEachAtMost } from '../../src/app/concurrency.ts';
import { createSourcePoller, INCIDENTS_PATH, MAINTENANCES_PATH, SOURCE_POLLS_AT_ONCE, type SourcePollResult } from '../../src/app/source-poller.ts';
import { LAST_SEEN_PRECISION_MS } from '../../src/app/last-seen.ts';
import { SUMMARY_PATH } from '../../src/app/sources.ts';
import type { Clock } from '../../src/core/ports.ts';
import { USER_AGENT } from '../../src/entry/node.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';
import { expectBench, silentLogger, type SectionReport } from './harness.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';
import { heading, ms, ratio, ratioAgainst, table } from './table.ts';

export type SourcesOptions = { sources: number; changedPerMinute: number; rounds: number; warmUpRounds: number };

/** A quiet minute's polls cost at most this many times bare fetches and parses of the same pages. */
const QUIET_RATIO_GOAL = 2;
/** A minute in which a tenth of the pages changed: their lists are diffed and written too. */
const CHANGED_RATIO_GOAL = 3;
/**
 * Memory each further source may cost a Node process once polled: SOURCES_MAX (100 by default)
 * sources in 100 MB of RSS, a fifth of a 512 MB VM; the heap is the part statuswatch holds.
 */
const RSS_PER_SOURCE_GOAL_BYTES = 1024 * 1024;
const HEAP_PER_SOURCE_GOAL_BYTES = 100 * 1024;

const MB = 1024 * 1024;
/** Sources polled before the memory of each further one is measured. */
const FIRST_SOURCES = 10;

export async function benchSources(options: SourcesOptions): Promise<SectionReport> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const served = await startPages(options.sources);
  const pages = served.pages;
  const archive = openTempArchive(tempDir('statuswatch-bench-sources-'));
  try {
    // The bare reads: the same endpoints, unconditional, each body parsed, as many at once.
    const bare = async (reads: readonly (readonly [Page, string])[]) =>
      forEachAtMost(reads, SOURCE_POLLS_AT_ONCE, async ([page, path]) => JSON.parse(await (await fetch(page.url + path)).text()));
    const summaries = pages.map((page) => [page, SUMMARY_PATH] as const);
    // Measured once every page has served its three lists and the process holds a connection to each.
    await bare(pages.flatMap((page) => [[page, SUMMARY_PATH] as const, [page, INCIDENTS_PATH] as const, [page, MAINTENANCES_PATH] as const]));
    const none = memory(gc);

    let now = Date.now();
    const clock: Clock = { now: () => now };
    const poller = createSourcePoller({
      store: archive.store,
      reader: createFetchPageReader({ timeoutMs: 10_000, maxBytes: 5_000_000, userAgent: USER_AGENT, clock }),
      clock,
      logger: silentLogger,
      instanceId: 'bench',
      newId: randomUUID,
    });
    const sourceId = (page: number) => `src_bench${String(page).padStart(4, '0')}`;
    const addSources = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const id = sourceId(i);
        const added = await archive.store.addSource({ id, kind: 'statuspage', name: `Vendor ${i}`, url: pages[i]!.url, createdAt: now }, options.sources);
        expectBench(added.added, `could not add source ${i}`);
      }
    };
    // Every minute polled, in order: when, what each source did, and which pages had moved on for it.
    const minutes: PolledMinute[] = [];
    let movedOn = new Set<string>();
    const pollMinute = async () => {
      now += 60_000;
      const results = await poller.pollAll();
      minutes.push({ at: now, results, movedOn });
      movedOn = new Set();
      return results;
    };
    // A few sources first: what polling costs once whatever the number of sources (code loaded and
    // compiled, statements prepared) is paid there, and the rest is the cost of each further source.
    await addSources(0, FIRST_SOURCES);
    await pollMinute();
    await pollMinute();
    const few = memory(gc);
    await addSources(FIRST_SOURCES, options.sources);
    // The first minute of all backfills the new pages' histories, untimed.
    const first = await pollMinute();
    expectBench(first.length === options.sources && first.every((r) => r.status === 'ok'), 'the first minute should read every page');
    await pollMinute();
    const all = memory(gc);

    let changedStart = 0;
    let changedPages: Page[] = [];
    const changedPolls: SourcePollResult[][] = [];
    const cases: BenchCase[] = [
      { name: 'bare, quiet', run: () => bare(summaries) },
      { name: 'poll, quiet', run: pollMinute },
      {
        name: 'bare, changed',
        // The pages that change this round, moved on one step of their story (told again once
        // told), untimed; their three lists and every other page's summary.
        async before() {
          changedPages = Array.from({ length: options.changedPerMinute }, (_, i) => pages[(changedStart + i) % pages.length]!);
          changedStart += options.changedPerMinute;
          await Promise.all(changedPages.map(advance));
          movedOn = new Set(changedPages.map((page) => sourceId(pages.indexOf(page))));
        },
        run: () => bare([...summaries, ...changedPages.flatMap((page) => [[page, INCIDENTS_PATH] as const, [page, MAINTENANCES_PATH] as const])]),
      },
      { name: 'poll, changed', run: pollMinute, after: (r) => changedPolls.push(r as SourcePollResult[]) },
    ];
    await interleave(cases, options.warmUpRounds);
    changedPolls.length = 0;
    const samples = await interleave(cases, options.rounds);
    const refreshes = checkFullReads(minutes);
    const timedRefreshes = refreshes.slice(-2 * options.rounds);
    const polled = memory(gc);

    const stats = (name: string) => summarize(samples.get(name)!);
    const quiet = { bare: stats('bare, quiet'), poll: stats('poll, quiet') };
    const changed = { bare: stats('bare, changed'), poll: stats('poll, changed') };
    const events = changedPolls.flat().reduce((sum, r) => sum + (r.status === 'ok' ? r.events.length : 0), 0);
    const further = options.sources - FIRST_SOURCES;
    const rssPerSource = (all.rss - few.rss) / further;
    const heapPerSource = (all.heapUsed - few.heapUsed) / further;
    const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
    const row = (name: string, s: Summary, against: Summary) => [name, ms(s.p50), ms(s.p95), ratio(s.p50 / against.p50)];
    const text = [
      heading(`Sources: ${options.sources} pages in the Statuspage format, one Node process`),
      `each minute polls every source, ${SOURCE_POLLS_AT_ONCE} at once (conditional GETs; the lists only when the summary changed);`,
      `the baseline fetches the same endpoints unconditionally at the same concurrency and parses each body.`,
      `${options.rounds} interleaved rounds (after ${options.warmUpRounds} warm-up): bare quiet, quiet minute, bare changed, changed minute (${options.changedPerMinute} pages moved on a step of their story)`,
      '',
      table(
        ['case', 'p50 ms', 'p95 ms', 'p50 / bare'],
        [
          row('bare: 100 summaries', quiet.bare, quiet.bare),
          row('a quiet minute (no page moved on)', quiet.poll, quiet.bare),
          row(`bare: 100 summaries + ${options.changedPerMinute} x 2 lists`, changed.bare, changed.bare),
          row(`a minute with ${options.changedPerMinute} pages changed`, changed.poll, changed.bare),
        ],
      ),
      '',
      `changed minutes: ${events} events (component changes among them) in ${changedPolls.length} minutes.`,
      `A page that answers 304 is read in full again ${LAST_SEEN_PRECISION_MS / 60_000} minutes after its last full read (its incidents' last_seen_at); ` +
        `${timedRefreshes.filter((n) => n > 0).length} of the ${timedRefreshes.length} timed minutes read pages for that too (at most ${Math.max(0, ...timedRefreshes)}), and are among the samples.`,
      `memory of this process after a full GC (the pages run in a process of their own), RSS and heap above none polled:`,
      `  ${FIRST_SOURCES} sources polled: ${mb(few.rss - none.rss)}, ${mb(few.heapUsed - none.heapUsed)} (what polling costs once, code and statements)`,
      `  ${options.sources} sources polled: ${mb(all.rss - none.rss)}, ${mb(all.heapUsed - none.heapUsed)}; after the timed minutes: ${mb(polled.rss - none.rss)}, ${mb(polled.heapUsed - none.heapUsed)}`,
      `  each further source: RSS ${(rssPerSource / 1024).toFixed(1)} KB, heap ${(heapPerSource / 1024).toFixed(1)} KB`,
    ].join('\n');
    const quietRatio = quiet.poll.p50 / quiet.bare.p50;
    const changedRatio = changed.poll.p50 / changed.bare.p50;
    return {
      text,
      goals: [
        {
          name: `sources: a quiet minute of ${options.sources} within ${QUIET_RATIO_GOAL}x bare fetches`,
          met: quietRatio <= QUIET_RATIO_GOAL,
          detail: `${ratioAgainst(quietRatio, QUIET_RATIO_GOAL)} (p50 ${ms(quiet.poll.p50)} ms against ${ms(quiet.bare.p50)} ms)`,
        },
        {
          name: `sources: a minute with ${options.changedPerMinute} of ${options.sources} changed within ${CHANGED_RATIO_GOAL}x bare fetches`,
          met: changedRatio <= CHANGED_RATIO_GOAL,
          detail: `${ratioAgainst(changedRatio, CHANGED_RATIO_GOAL)} (p50 ${ms(changed.poll.p50)} ms against ${ms(changed.bare.p50)} ms)`,
        },
        {
          name: `sources: at most ${RSS_PER_SOURCE_GOAL_BYTES / 1024} KB of RSS and ${HEAP_PER_SOURCE_GOAL_BYTES / 1024} KB of heap a source`,
          met: rssPerSource <= RSS_PER_SOURCE_GOAL_BYTES && heapPerSource <= HEAP_PER_SOURCE_GOAL_BYTES,
          detail: `RSS ${(rssPerSource / 1024).toFixed(1)} KB, heap ${(heapPerSource / 1024).toFixed(1)} KB`,
        },
      ],
    };
  } finally {
    archive.remove();
    await served.close();
  }
}

type Page = { url: string; steps: number };

type PolledMinute = { at: number; results: SourcePollResult[]; movedOn: Set<string> };

/**
 * Checks that every minute read in full exactly the pages it had to: those that moved on since the
 * last minute, and those whose last full read is LAST_SEEN_PRECISION_MS old (or that were never
 * read), every other one answered 304. Returns, for each minute, how many were read for their age.
 */
function checkFullReads(minutes: readonly PolledMinute[]): number[] {
  const lastFullRead = new Map<string, number>();
  return minutes.map(({ at, results, movedOn }) => {
    const stale = (id: string) => {
      const last = lastFullRead.get(id);
      return last === undefined || at - last >= LAST_SEEN_PRECISION_MS;
    };
    let forAge = 0;
    for (const r of results) {
      expectBench(r.status === 'ok', `a minute's poll of ${r.sourceId} failed`);
      const due = movedOn.has(r.sourceId) || stale(r.sourceId);
      expectBench(due === !r.unchanged, `${r.sourceId} was ${r.unchanged ? 'not ' : ''}read in full, though it ${due ? 'was due' : 'was not'}`);
      if (!r.unchanged && !movedOn.has(r.sourceId)) forAge++;
      if (!r.unchanged) lastFullRead.set(r.sourceId, at);
    }
    return forAge;
  });
}

/** The pages' process: their addresses, and a close that waits for it to end. */
async function startPages(count: number): Promise<{ pages: Page[]; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./sources-pages.ts', import.meta.url).pathname, String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let output = '';
  const urls = await new Promise<string[]>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('\n')) resolve(JSON.parse(output) as string[]);
    });
    child.on('close', (code) => reject(new Error(`the pages' process exited with ${code} before it served`)));
  });
  return {
    pages: urls.map((url) => ({ url, steps: 0 })),
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/** Moves a page on one step of its story over its control API; a story told is told again. */
async function advance(page: Page): Promise<void> {
  const post = async (path: string) => {
    const res = await fetch(page.url + path, { method: 'POST' });
    expectBench(res.ok, `POST ${path} answered ${res.status}`);
    return (await res.json()) as { step: number; stepCount: number };
  };
  const { step, stepCount } = await post('/_sim/advance');
  if (step === page.steps && step >= stepCount) {
    await post('/_sim/reset');
    page.steps = (await post('/_sim/advance')).step;
  } else page.steps = step;
}

function memory(gc: () => void): { rss: number; heapUsed: number } {
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}
