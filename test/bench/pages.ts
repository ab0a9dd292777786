/**
 * Benchmark 6: the dashboard's HTML pages (`/`, `/incidents` and its filters, `/incidents/:id`)
 * over a year of archived incidents, each request interleaved with a bare constant route on the
 * same server. Pages are never cached (each carries a fresh CSP nonce): every request renders.
 */
import { expectBench, type SectionReport } from './harness.ts';
import { seedPagesArchive, type PagesExpectations } from './pages-archive.ts';
import { summarize, type Summary } from './stats.ts';
import { COMMON_WORD } from './synthetic.ts';
import { heading, kb, ms, ratio, table, type Row } from './table.ts';
import { BASELINE_PATH, runClient, serveAppWithBaseline, type ServedApp } from './app-server.ts';
import { escapeHtml } from '../../src/core/email-render.ts';

export type PagesBenchOptions = {
  archiveIncidents: number;
  rounds: number;
  warmUpRounds: number;
};

/** A page slower than expected stops being sampled after this long, rather than stretching the run. */
const BUDGET_PER_CASE_MS = 8_000;
const PAGE_ROWS = 25;


type PageCase = { name: string; path: string; check(body: string): string | null };

export async function benchPages(options: PagesBenchOptions): Promise<SectionReport> {
  const nowMs = Date.now();
  const { archive, seedMs, expected } = await seedPagesArchive(options.archiveIncidents, nowMs);
  let served: ServedApp | undefined;
  try {
    served = await serveAppWithBaseline(archive.store, { startedAt: nowMs });
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

    const samples = await runClient({
      baseUrl: url,
      baseline: { name: 'baseline', path: BASELINE_PATH },
      cases: cases.map((c) => ({ name: c.name, path: c.path })),
      warmUpRounds: options.warmUpRounds,
      rounds: options.rounds,
      budgetPerCaseMs: BUDGET_PER_CASE_MS,
    });
    const base = summarize(samples.get('baseline')!);
    const row = (name: string, size: string, s: Summary): Row => [name, size, s.n, ms(s.p50), ms(s.p95), ms(s.p99), ratio(s.p50 / base.p50)];
    const count = options.archiveIncidents.toLocaleString('en-US');
    const text = [
      heading(`6. Dashboard pages, ${count} incidents archived over the last year`),
      `archive: seeded in ${(seedMs / 1000).toFixed(1)} s (directly in SQL, and one incident through the store in four polls); ${expected.active.length} incidents going on, ` +
        `${expected.commonCount.toLocaleString('en-US')} (${((100 * expected.commonCount) / options.archiveIncidents).toFixed(0)}%) mention "${COMMON_WORD}", ` +
        `incident ${expected.story.id} has ${expected.story.notes} notes and ${expected.story.events} changes`,
      `up to ${options.rounds} interleaved rounds, each page right after the baseline (${BASELINE_PATH}); after ${options.warmUpRounds} warm-up rounds; ` +
        'no page is cached, so every request renders',
      table(
        ['GET', 'body', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 / base'],
        [row('baseline: bare Hono route', '-', base), ...cases.map((c) => row(c.name, kb(sizes.get(c.name) ?? 0), summarize(samples.get(c.name)!)))],
      ),
    ].join('\n');
    // The issue states no goal for the pages: the figures are reported, not judged.
    return { text, goals: [] };
  } finally {
    await served?.close();
    archive.remove();
  }
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


