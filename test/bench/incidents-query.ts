/**
 * Benchmark 2: `GET /api/incidents` latency over a large archive, per kind of query, each
 * interleaved with a bare constant route on the same server.
 */
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import { BASELINE_BULK_PATH, BASELINE_PATH, setUpQueryWorld, type QueryWorld } from './query-setup.ts';
import { summarize, type Summary } from './stats.ts';
import { COMMON_WORD, RARE_WORD } from './synthetic.ts';
import { heading, ms, msAgainst, ratio, type Row, table } from './table.ts';
import { runClient } from './app-server.ts';

export type IncidentsQueryOptions = {
  archiveIncidents: number;
  rounds: number;
  warmUpRounds: number;
  /** A query whose runs have taken this long gets no more rounds (its `n` shows how many it had). */
  budgetPerQueryMs: number;
};

const P95_GOAL_MS = 10;

/**
 * `label` names the query in the report: its parameters, without the 100-character cursor.
 * `fresh` queries miss the response cache on every request (the query plan and its rows are
 * measured); the others are what a client repeating a request between two polls gets.
 */
type Query = { path: string; label: string; fresh: boolean };

/** The page whose size the bare route's constant body copies: the largest a client may ask for. */
const LARGEST_PAGE = '?limit=1000';

export async function benchIncidentsQuery(options: IncidentsQueryOptions): Promise<SectionReport> {
  const world = await setUpQueryWorld(options.archiveIncidents);
  try {
    return await measure(world, options);
  } finally {
    await world.close();
  }
}

async function measure(world: QueryWorld, options: IncidentsQueryOptions): Promise<SectionReport> {
  const queries = await buildQueries(world);
  const rowsReturned = new Map<string, number>();
  for (const query of queries) rowsReturned.set(query.label, (await getPage(world.url + query.path)).incidents.length);
  expectBench((rowsReturned.get(`?q=${RARE_WORD}`) ?? 0) > 0, `q=${RARE_WORD} found nothing: the rare word is missing from the seed`);
  // The floor of moving the largest page: its own bytes, built once, answered by a bare route.
  const largest = await getText(`${world.url}/api/incidents${LARGEST_PAGE}`);
  world.setBulkBody(largest);
  const largestBytes = Buffer.byteLength(largest);
  const bulkLabel = `bare route, the ${LARGEST_PAGE} page's ${(largestBytes / 1e6).toFixed(2)} MB as a constant`;

  // Each query runs right after a baseline: the same moment's machine, the same socket pool.
  const samples = await runClient({
    baseUrl: world.url,
    baseline: { name: 'baseline', path: BASELINE_PATH },
    cases: [
      ...queries.map((query) => ({ name: query.label, path: query.path, fresh: query.fresh })),
      { name: bulkLabel, path: BASELINE_BULK_PATH, fresh: true },
    ],
    warmUpRounds: options.warmUpRounds,
    rounds: options.rounds,
    budgetPerCaseMs: options.budgetPerQueryMs,
  });
  const base = summarize(samples.get('baseline')!);
  const results = queries.map((query) => ({ query, stats: summarize(samples.get(query.label)!) }));
  const bulk = summarize(samples.get(bulkLabel)!);
  const row = (name: string, rows: string, s: Summary): Row => [
    name,
    rows,
    s.n,
    ms(s.p50),
    ms(s.p95),
    ms(s.p99),
    ratio(s.p50 / base.p50),
    ratio(s.p95 / base.p95),
    s === base || s === bulk ? '' : s.p95 < P95_GOAL_MS ? 'yes' : 'MISS',
  ];
  const matches = [...world.ftsMatches].map(([word, n]) => `${word}: ${n} (${((100 * n) / options.archiveIncidents).toFixed(1)}%)`);
  const text = [
    heading(`2. GET /api/incidents, ${options.archiveIncidents.toLocaleString('en-US')}-incident archive`),
    `archive: seeded directly in SQL in ${(world.seedMs / 1000).toFixed(1)} s (rows checked identical to store.applyPoll on a sample; read back through the store)`,
    `full-text matches: ${matches.join(', ')}`,
    `up to ${options.rounds} interleaved rounds of every query, each right after the baseline (${BASELINE_PATH}, a constant JSON), ` +
      `sent by a client in another process; uncached unless marked (a unique Host makes every request miss the response cache), ` +
      `until the query has used ${(options.budgetPerQueryMs / 1000).toFixed(0)} s; after ${options.warmUpRounds} warm-up rounds`,
    `"bare route, ...": a constant body, the ${LARGEST_PAGE} page's bytes read once, sent as the response cache sends a built page ` +
      `(UTF-8 bytes encoded per request): the floor of moving that page on this machine, without the query`,
    '',
    table(
      ['GET /api/incidents', 'rows', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 / base', 'p95 / base', `p95 < ${P95_GOAL_MS} ms`],
      [
        row('baseline: bare Hono route', '-', base),
        ...results.map((r) => row(r.query.label, String(rowsReturned.get(r.query.label)), r.stats)),
        row(bulkLabel, '-', bulk),
      ],
    ),
  ].join('\n');

  const goals: Goal[] = results.map(({ query, stats }) => ({
    name: `GET /api/incidents ${query.label}: p95 under ${P95_GOAL_MS} ms`,
    met: stats.p95 < P95_GOAL_MS,
    detail: `p95 ${msAgainst(stats.p95, P95_GOAL_MS)} ms`,
  }));
  return { text, goals };
}

async function buildQueries(world: QueryWorld): Promise<Query[]> {
  // A quarter in the middle of the ten years the archive spans.
  const year = new Date(world.nowMs).getUTCFullYear() - 5;
  const first = await getPage(`${world.url}/api/incidents`);
  const cursor = first.response_metadata.next_cursor;
  expectBench(cursor !== '', 'the first page of /api/incidents has no next_cursor');
  const query = (params: string, label = params): Query => ({ path: `/api/incidents${params}`, label, fresh: true });
  const cached = (params: string, label = params): Query => ({ path: `/api/incidents${params}`, label: `${label}, cached`, fresh: false });
  return [
    query('', '(no filter)'),
    query('?service=Files'),
    query('?type=outage&status=resolved'),
    query(`?since=${year}-04-01&until=${year}-07-01`),
    query(`?q=${COMMON_WORD}`),
    query(`?q=${RARE_WORD}`),
    query('?q=upload&service=Files'),
    query('?limit=1000'),
    query(`?cursor=${encodeURIComponent(cursor)}`, '?cursor=(next_cursor of page 1)'),
    cached('', '(no filter)'),
    cached(`?q=${COMMON_WORD}`),
  ];
}

async function getText(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

type Page = { incidents: unknown[]; response_metadata: { next_cursor: string } };

async function getPage(url: string): Promise<Page> {
  return JSON.parse(await getText(url)) as Page;
}
