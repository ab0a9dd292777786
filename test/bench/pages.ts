/**
 * Benchmark 6: the dashboard's HTML pages (`/`, `/incidents` and its filters, `/incidents/:id`)
 * over a year of archived incidents. First what one build of each costs, one request at a time,
 * each interleaved with a bare constant route on the same server; then `/` under the crowd of an
 * outage (many clients reloading at once), from the page cache, 200 and 304, against a bare Hono
 * route answering the same bytes.
 */
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import type { BurstSamples, HotPathSamples, HotPathTarget } from './hot-paths-client.ts';
import { seedPagesArchive, type PagesExpectations } from './pages-archive.ts';
import { summarize, type Summary } from './stats.ts';
import { COMMON_WORD } from './synthetic.ts';
import { heading, kb, ms, ratio, ratioAgainst, type Row, table } from './table.ts';
import { BASELINE_PAGE_PATH, BASELINE_PATH, runClient, runConcurrentClient, serveAppWithBaseline, type ServedApp } from './app-server.ts';
import { escapeHtml } from '../../src/core/email-render.ts';

export type PagesBenchOptions = {
  archiveIncidents: number;
  rounds: number;
  warmUpRounds: number;
  crowd: CrowdOptions;
};

/** `/` under many clients at once: bursts of `burstRequests`, `concurrency` in flight. */
export type CrowdOptions = {
  concurrency: number;
  burstRequests: number;
  rounds: number;
  warmUpRounds: number;
  /** Building `/` for every request is slow: its bursts are smaller, so the run stays short. */
  buildBurstRequests: number;
  buildRounds: number;
};

/** The goal: `/` served at least at half the rate of a bare route answering the same bytes. */
const CROWD_GOAL = 0.5;

/** A page slower than expected stops being sampled after this long, rather than stretching the run. */
const BUDGET_PER_CASE_MS = 8_000;
const PAGE_ROWS = 25;

type PageCase = { name: string; path: string; check(body: string): string | null };

export async function benchPages(options: PagesBenchOptions): Promise<SectionReport> {
  const nowMs = Date.now();
  const { archive, seedMs, expected } = await seedPagesArchive(options.archiveIncidents, nowMs);
  let served: ServedApp | undefined;
  const baselinePage = { body: '' };
  try {
    // The clock stands at the seed's now: on a loaded machine the crowd outlasts the page cache's
    // minute, and the rebuilt `/` (its availability over 90 days moved by 0.001%) had a new ETag
    // that the crowd's 304s no longer matched.
    const clock = { now: () => nowMs };
    served = await serveAppWithBaseline(archive.connection, { startedAt: nowMs, clock, baselinePage: () => baselinePage.body });
    const url = served.url;

    const cases = pageCases(expected);
    const sizes = new Map<string, number>();
    for (const c of cases) {
      const response = await fetch(url + c.path);
      const body = await response.text();
      expectBench(response.status === 200, `GET ${c.path} answered ${response.status}: ${body.slice(0, 200)}`);
      const problem = c.check(body);
      expectBench(problem === null, `GET ${c.path} did not render the archive: ${problem}`);
      sizes.set(c.name, Buffer.byteLength(body));
    }

    // Each request names a unique Host: it misses the page cache, so this is one build.
    const samples = await runClient({
      baseUrl: url,
      baseline: { name: 'baseline', path: BASELINE_PATH },
      cases: cases.map((c) => ({ name: c.name, path: c.path, fresh: true })),
      warmUpRounds: options.warmUpRounds,
      rounds: options.rounds,
      budgetPerCaseMs: BUDGET_PER_CASE_MS,
    });
    const base = summarize(samples.get('baseline')!);
    const row = (name: string, size: string, s: Summary): Row => [name, size, s.n, ms(s.p50), ms(s.p95), ms(s.p99), ratio(s.p50 / base.p50)];
    const count = options.archiveIncidents.toLocaleString('en-US');
    const crowd = await benchCrowd(url, baselinePage, options.crowd);
    const text = [
      heading(`6. Dashboard pages, ${count} incidents archived over the last year`),
      `archive: seeded in ${(seedMs / 1000).toFixed(1)} s (directly in SQL, and one incident through the store in four polls); ${expected.active.length} incidents going on, ` +
        `${expected.commonCount.toLocaleString('en-US')} (${((100 * expected.commonCount) / options.archiveIncidents).toFixed(0)}%) mention "${COMMON_WORD}", ` +
        `incident ${expected.story.id} has ${expected.story.notes} notes and ${expected.story.events} changes`,
      '',
      `6a. One build of each page: up to ${options.rounds} interleaved rounds, each page right after the baseline (${BASELINE_PATH}); after ${options.warmUpRounds} warm-up rounds; ` +
        'each request names a unique Host, so it misses the page cache and the page is built',
      table(
        ['GET', 'body', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 / base'],
        [row('baseline: bare Hono route', '-', base), ...cases.map((c) => row(c.name, kb(sizes.get(c.name) ?? 0), summarize(samples.get(c.name)!)))],
      ),
      '',
      crowd.text,
    ].join('\n');
    return { text, goals: crowd.goals };
  } finally {
    await served?.close();
    archive.remove();
  }
}

const rps = (s: BurstSamples) => (s.latenciesMs.length * 1000) / s.elapsedMs;

/**
 * `/` as an outage crowd asks for it: many clients at once, some with the page already (304). Each
 * burst runs next to one of the baseline, a bare Hono route answering the very bytes of `/`.
 */
async function benchCrowd(url: string, baselinePage: { body: string }, options: CrowdOptions): Promise<SectionReport> {
  const first = await fetch(`${url}/`);
  const body = await first.text();
  const etag = first.headers.get('etag');
  expectBench(first.status === 200 && etag !== null, `GET / answered ${first.status} with ETag ${etag}`);
  const revalidated = await fetch(`${url}/`, { headers: { 'if-none-match': etag } });
  expectBench(revalidated.status === 304, `GET / with its own ETag answered ${revalidated.status}, not 304`);
  baselinePage.body = body;
  const copy = await (await fetch(url + BASELINE_PAGE_PATH)).text();
  expectBench(copy === body, `the baseline answers ${copy.length} characters, not the ${body.length} of /`);

  const baseline: HotPathTarget = { name: 'baseline', url: url + BASELINE_PAGE_PATH, status: 200 };
  const cached: HotPathTarget[] = [
    { name: '/ 200', url: `${url}/`, status: 200 },
    { name: '/ 304', url: `${url}/`, headers: { 'if-none-match': etag }, status: 304 },
  ];
  const built: HotPathTarget = { name: '/ built for each request (no cache)', url: `${url}/`, status: 200, fresh: true };
  const { concurrency } = options;
  const samples: HotPathSamples = {
    ...(await runConcurrentClient({
      baseline,
      cases: cached,
      concurrency,
      burstRequests: options.burstRequests,
      rounds: options.rounds,
      warmUpRounds: options.warmUpRounds,
    })),
    ...(await runConcurrentClient({
      baseline,
      cases: [built],
      concurrency,
      burstRequests: options.buildBurstRequests,
      rounds: options.buildRounds,
      warmUpRounds: 0,
    })),
  };

  const rows = [...cached, built].map(({ name }) => {
    const { target, baseline: base } = samples[name]!;
    const own = { rps: rps(target), p99: summarize(target.latenciesMs).p99 };
    const theirs = { rps: rps(base), p99: summarize(base.latenciesMs).p99 };
    return { name, n: target.latenciesMs.length, own, base: theirs, ratio: own.rps / theirs.rps };
  });
  const text = [
    `6b. / under a crowd: bursts of ${options.burstRequests} requests at ${concurrency} in flight, ${options.rounds} rounds after ${options.warmUpRounds} warm-up ` +
      `(built for each request: ${options.buildRounds} rounds of ${options.buildBurstRequests}), from a client in another process; each burst next to one of the baseline, ` +
      `a bare Hono route on the same server answering the same ${kb(Buffer.byteLength(body))}. Goal: / at least ${CROWD_GOAL}x the baseline's requests per second, 200 and 304.`,
    table(
      ['case', 'n', 'req/s', 'base req/s', 'req/s / base', 'p99 ms', 'base p99 ms', 'p99 / base'],
      rows.map((r) => [r.name, r.n, r.own.rps.toFixed(0), r.base.rps.toFixed(0), ratio(r.ratio), ms(r.own.p99), ms(r.base.p99), ratio(r.own.p99 / r.base.p99)]),
    ),
  ].join('\n');
  const goals: Goal[] = rows
    .filter((r) => r.name !== built.name)
    .map((r) => ({
      name: `GET ${r.name} at ${concurrency} clients: at least ${CROWD_GOAL}x a bare route answering the same bytes`,
      met: r.ratio >= CROWD_GOAL,
      detail: `req/s ${ratioAgainst(r.ratio, CROWD_GOAL)}, p99 ${ratio(r.own.p99 / r.base.p99)} of the baseline's`,
    }));
  return { text, goals };
}

/** The cases, each with a check that its page shows the seeded archive (null: it does). */
function pageCases(expected: PagesExpectations): PageCase[] {
  const link = (id: string) => `href="/incidents/${encodeURIComponent(id)}"`;
  const rows = (body: string) => body.split('class="incident-row ').length - 1;
  const firstLink = (body: string) => /<li class="incident-row [^"]*"><h3><a (href="[^"]*")/.exec(body)?.[1];
  const list = (newestId: string) => (body: string) => {
    if (rows(body) !== PAGE_ROWS) return `${rows(body)} rows, not ${PAGE_ROWS}`;
    if (firstLink(body) !== link(newestId)) return `the first row links ${firstLink(body)}, not incident ${newestId}`;
    return null;
  };
  const { story } = expected;
  return [
    {
      name: '/ (status page)',
      path: '/',
      check: (body) => {
        const missing = expected.active.find((a) => !body.includes(`<a ${link(a.id)}>${escapeHtml(a.title)}</a>`));
        if (missing) return `no card for ongoing incident ${missing.id}`;
        // A day's bar is labelled (and its tooltip drawn from the label) with its incidents' titles.
        const named = `${escapeHtml(expected.recent.title)} (${expected.recent.type})`;
        return body.includes(named) ? null : `no bar names "${expected.recent.title}"`;
      },
    },
    { name: `/incidents (first ${PAGE_ROWS})`, path: '/incidents', check: list(expected.newestId) },
    { name: `/incidents?q=${COMMON_WORD}`, path: `/incidents?q=${COMMON_WORD}`, check: list(expected.newestCommonId) },
    { name: '/incidents?service=Files', path: '/incidents?service=Files', check: list(expected.newestFilesId) },
    {
      name: `/incidents/${story.id} (${story.notes} notes, ${story.events} changes)`,
      path: `/incidents/${story.id}`,
      check: (body) => {
        if (!body.includes(`<h1 id="incident-title">${escapeHtml(story.title)}</h1>`)) return 'no title';
        const notes = body.split('class="note-body').length - 1;
        if (notes !== story.notes) return `${notes} notes, not ${story.notes}`;
        const changes = (body.split('class="change-list"')[1]?.split('</section>')[0]?.split('class="timeline-time"').length ?? 1) - 1;
        if (changes !== story.events) return `${changes} changes listed, not ${story.events}`;
        const said = ['Archived from the vendor', 'Title changed from', 'Note edited.', 'Status changed from'].find((s) => !body.includes(s));
        return said ? `no "${said}" in the changes` : null;
      },
    },
  ];
}
