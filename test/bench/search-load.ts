/**
 * Benchmark 7: what one search may cost, and what costly reads may cost the hot paths. The CPU of the worst searches an anonymous client may send against an ordinary one;
 * `/widget.json`'s rate alone against its rate while another process sends 25 of the worst searches
 * a second, and while eight clients each loop on the worst request anyone may send.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_READ_BUDGET_MS_PER_SECOND } from '../../src/core/cost-budget.ts';
import type { IncidentFilter } from '../../src/core/ports.ts';
import { parseSearch, toFtsQuery } from '../../src/core/search-query.ts';
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import type { AttackJob, AttackReport } from './search-attack-client.ts';
import type { HotPathJob, HotPathSamples } from './hot-paths-client.ts';
import { setUpQueryWorld, type QueryWorld } from './query-setup.ts';
import { summarize } from './stats.ts';
import { COMMON_WORD } from './synthetic.ts';
import { heading, ms, ratio, ratioAgainst, table } from './table.ts';

export type SearchLoadOptions = {
  archiveIncidents: number;
  /** Interleaved rounds of the CPU measurement, each running every search once. */
  cpuRounds: number;
  searchesPerSecond: number;
  /** Rounds of three phases (widget alone, with ordinary searches, with the worst allowed), rotated. */
  phaseRounds: number;
  burstsPerPhase: number;
  burstRequests: number;
  concurrency: number;
  /** Clients looping on the worst request, each sending the next as soon as the last is answered. */
  loopers: number;
};

/** The goal: under the attack, /widget.json keeps more than half its rate. */
const RATE_GOAL = 0.5;
/** The costliest search once known: twelve one-letter prefixes. */
const PREFIX_ATTACK = 'a e i o u s t r n l c d';

/**
 * The searches measured, by their `q` and filters. The candidates for the worst allowed push the
 * bounds: the most words, the last a three-letter prefix that starts the archive's most frequent
 * words (`res`: resolved, response, result), and a filter no incident passes, so every match up
 * to the budget is examined. The costliest of them in this run is the one the load phase sends.
 */
type Search = { label: string; q: string; params: string; filter: Omit<IncidentFilter, 'q'> };
const ORDINARY: Search = { label: `ordinary: q=${COMMON_WORD}`, q: COMMON_WORD, params: '', filter: {} };
const WORST_ALLOWED: Search[] = [
  { label: 'eight words, a 3-letter prefix last', q: 'we are the to of and for res', params: '', filter: {} },
  { label: 'a 3-letter prefix, no incident passes the filter', q: 'res', params: '&status=scheduled', filter: { statuses: ['scheduled'] } },
  { label: 'both at once', q: 'we are the to of and for res', params: '&status=scheduled', filter: { statuses: ['scheduled'] } },
];

/**
 * Besides the searches, the worst request may be a plain listing of the largest page: 1,000
 * incidents with their latest notes, through a filter that every row is checked against.
 */
const LISTING_OF_1000 = { label: 'a listing of 1,000: service=Files&limit=1000', path: '/api/incidents?service=Files&limit=1000' };
/** Requests of each candidate timed to choose the worst (the median counts). */
const WORST_PICK_REQUESTS = 7;

/** A page of 1,000 (limit=1000): what a search could ask for before search pages were capped at 100. */
const PAGE_OF_1000: Search = { label: 'ordinary, a page of 1,000 (before the page cap)', q: COMMON_WORD, params: '&limit=1000', filter: {} };

export async function benchSearchLoad(options: SearchLoadOptions): Promise<SectionReport> {
  // The service's own default budget: what protects the widget is part of what is measured.
  const world = await setUpQueryWorld(options.archiveIncidents, { readBudgetMsPerSecond: DEFAULT_READ_BUDGET_MS_PER_SECOND });
  try {
    const cpu = await measureCpu(world, options);
    const worst = cpu.rows.filter((r) => WORST_ALLOWED.includes(r.search)).sort((a, b) => b.cpuMs - a.cpuMs)[0]!;
    const worstRequest = await costliestRequest(world, [
      { label: `${worst.search.label}: q=${worst.search.q}${worst.search.params}&limit=1000`, path: searchPath(worst.search) },
      LISTING_OF_1000,
    ]);
    const load = await measureLoad(world, options, worst.search, worstRequest);
    return report(options, cpu, worst.search, load, worstRequest);
  } finally {
    await world.close();
  }
}

type CpuRow = { search: Search; cpuMs: number; outcome: string };

/**
 * CPU of the search itself (store.listIncidents, a page of 101 as the API asks for), in this
 * process, every search once per round. The twelve-prefix attack is run as the query builder made it
 * before the bounds (twelve prefixes): what it cost, against what it costs now (a refusal).
 */
async function measureCpu(world: QueryWorld, options: SearchLoadOptions): Promise<{ rows: CpuRow[] }> {
  const store = world.archive.store;
  const attackBefore = PREFIX_ATTACK.split(' ')
    .map((w) => `"${w}"*`)
    .join(' ');
  const cases = [ORDINARY, ...WORST_ALLOWED].map((search) => {
    const parsed = parseSearch(search.q);
    expectBench(parsed.ok, `the allowed search "${search.q}" is refused`);
    return { search, filter: { ...search.filter, q: parsed.match } as IncidentFilter, limit: 101 };
  });
  const attack = { label: PREFIX_ATTACK, q: PREFIX_ATTACK, params: '', filter: {} };
  cases.push({ search: { ...attack, label: `${PREFIX_ATTACK} (before: twelve prefixes)` }, filter: { q: attackBefore }, limit: 101 });
  cases.push({ search: PAGE_OF_1000, filter: { q: toFtsQuery(COMMON_WORD)! }, limit: 1001 });
  expectBench(!parseSearch(PREFIX_ATTACK).ok, 'the twelve-prefix attack is not refused');

  const samples = new Map<Search, number[]>(cases.map((c) => [c.search, []]));
  const outcomes = new Map<Search, string>();
  const run = async (filter: IncidentFilter, limit: number): Promise<string> => {
    try {
      return `${(await store.listIncidents(filter, null, limit)).length} rows`;
    } catch (error) {
      return error instanceof Error ? error.name : String(error);
    }
  };
  for (let round = 0; round < options.cpuRounds + 1; round++) {
    for (const c of cases) {
      const before = process.cpuUsage();
      const outcome = await run(c.filter, c.limit);
      const used = process.cpuUsage(before);
      if (round === 0) continue; // warm-up
      samples.get(c.search)!.push((used.user + used.system) / 1000);
      outcomes.set(c.search, outcome);
    }
  }
  return { rows: cases.map((c) => ({ search: c.search, cpuMs: summarize(samples.get(c.search)!).p50, outcome: outcomes.get(c.search)! })) };
}

type Phase = { kind: 'alone' | 'ordinary' | 'attack' | 'looping'; requests: number; elapsedMs: number; p99s: number[]; attack?: AttackReport };

type Candidate = { label: string; path: string };

/** limit=1000 too: the largest page anyone may ask for (a search gets 100 of them). */
const searchPath = (search: Search) => `/api/incidents?q=${encodeURIComponent(search.q)}${search.params}&limit=1000`;

/**
 * The candidate whose answer takes longest to build, each timed over loopback with a `since` that
 * changes the key but not the answer (as the attacker sends it), from an address of its own.
 */
async function costliestRequest(world: QueryWorld, candidates: Candidate[]): Promise<Candidate & { medianMs: number }> {
  let n = 0;
  const timed = candidates.map((candidate) => ({ candidate, samples: [] as number[] }));
  for (let round = 0; round < WORST_PICK_REQUESTS; round++) {
    for (const entry of timed) {
      const since = new Date(Date.UTC(1980, 0, 1) + ++n * 1000).toISOString();
      const started = performance.now();
      const response = await fetch(`${world.url}${entry.candidate.path}&since=${since}`);
      await response.arrayBuffer();
      expectBench(response.status === 200, `GET ${entry.candidate.path}: HTTP ${response.status}`);
      entry.samples.push(performance.now() - started);
    }
  }
  const ranked = timed.map((t) => ({ ...t.candidate, medianMs: summarize(t.samples).p50 })).sort((a, b) => b.medianMs - a.medianMs);
  return ranked[0]!;
}

async function measureLoad(world: QueryWorld, options: SearchLoadOptions, worst: Search, worstRequest: Candidate): Promise<Phase[]> {
  const widgetUrl = `${world.url}/widget.json`;
  const check = await fetch(widgetUrl);
  expectBench(check.status === 200, `GET /widget.json: HTTP ${check.status}`);
  await check.arrayBuffer();
  const urls: Record<Phase['kind'], string | null> = {
    alone: null,
    ordinary: world.url + searchPath(ORDINARY),
    attack: world.url + searchPath(worst),
    looping: world.url + worstRequest.path,
  };
  const phases: Phase[] = [];
  for (let round = 0; round < options.phaseRounds; round++) {
    // Rotating which goes first: none always gets the warmer machine.
    const kinds: Phase['kind'][] = ['alone', 'ordinary', 'attack', 'looping'];
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(i + round) % kinds.length]!;
      phases.push(await runPhase(kind, widgetUrl, urls[kind], options));
    }
  }
  return phases;
}

/**
 * The widget's visitor is a client of its own, as the attacker is (search-attack-client.ts): this
 * process's own timed searches spend 127.0.0.1's read budget, and the widget's rebuild once its
 * cache entry aged out (a minute into the section) was refused for them.
 */
const WIDGET_VISITOR_ADDRESS = '127.0.0.3';
const WIDGET_CLIENT = fileURLToPath(new URL('./hot-paths-client.ts', import.meta.url));
const ATTACK_CLIENT = fileURLToPath(new URL('./search-attack-client.ts', import.meta.url));

async function runPhase(kind: Phase['kind'], widgetUrl: string, searchUrl: string | null, options: SearchLoadOptions): Promise<Phase> {
  const attacker = searchUrl
    ? await startAttacker({ url: searchUrl, perSecond: options.searchesPerSecond, loopers: kind === 'looping' ? options.loopers : undefined })
    : null;
  try {
    const widget = { name: 'widget', url: widgetUrl, status: 200 };
    // The hot-path client's bursts, with the widget as its own baseline: every burst is the widget.
    const job: HotPathJob = {
      baseline: widget,
      cases: [widget],
      concurrency: options.concurrency,
      burstRequests: options.burstRequests,
      warmUpRounds: 0,
      rounds: Math.max(1, Math.floor(options.burstsPerPhase / 2)),
      localAddress: WIDGET_VISITOR_ADDRESS,
    };
    const samples = await runChild<HotPathSamples>(WIDGET_CLIENT, [], JSON.stringify(job));
    const bursts = [samples.widget!.target, samples.widget!.baseline];
    return {
      kind,
      requests: bursts.reduce((n, b) => n + b.latenciesMs.length, 0),
      elapsedMs: bursts.reduce((n, b) => n + b.elapsedMs, 0),
      p99s: [summarize(bursts.flatMap((b) => b.latenciesMs)).p99],
      attack: attacker ? await attacker.stop() : undefined,
    };
  } catch (error) {
    await attacker?.stop();
    throw error;
  }
}

/** Starts the attacker and waits until its first search was answered, so the phase measures it at full rate. */
async function startAttacker(job: AttackJob): Promise<{ stop(): Promise<AttackReport> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ATTACK_CLIENT, JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (output.includes('ready\n')) markReady();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await Promise.race([ready, exited]);
  expectBench(output.includes('ready\n'), 'the search attacker exited before it started');
  return {
    async stop() {
      child.stdin.end();
      const code = await exited;
      expectBench(code === 0, `the search attacker exited with ${code}`);
      return JSON.parse(output.slice(output.indexOf('ready\n') + 'ready\n'.length)) as AttackReport;
    },
  };
}

async function runChild<T>(script: string, args: string[], input: string): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end(input);
  const code = await exited;
  expectBench(code === 0, `${script} exited with ${code}`);
  return JSON.parse(output) as T;
}

function report(
  options: SearchLoadOptions,
  cpu: { rows: CpuRow[] },
  worst: Search,
  phases: Phase[],
  worstRequest: Candidate & { medianMs: number },
): SectionReport {
  const ordinary = cpu.rows.find((r) => r.search === ORDINARY)!;
  const rate = (kind: Phase['kind']) => {
    const of = phases.filter((p) => p.kind === kind);
    return (of.reduce((n, p) => n + p.requests, 0) * 1000) / of.reduce((n, p) => n + p.elapsedMs, 0);
  };
  const p99 = (kind: Phase['kind']) => Math.max(...phases.filter((p) => p.kind === kind).flatMap((p) => p.p99s));
  const alone = rate('alone');
  const ordinaryRate = rate('ordinary');
  const attacked = rate('attack');
  const looped = rate('looping');
  const reportsOf = (kind: Phase['kind']) => phases.flatMap((p) => (p.kind === kind && p.attack ? [p.attack] : []));
  const statusesOf = (reports: AttackReport[]) =>
    reports.reduce<Record<string, number>>((all, a) => {
      for (const [status, n] of Object.entries(a.statuses)) all[status] = (all[status] ?? 0) + n;
      return all;
    }, {});
  const loops = reportsOf('looping');
  const warms = loops.flatMap((a) => (a.warm ? [a.warm] : []));
  const loopLatency = summarize(loops.flatMap((a) => a.latenciesMs));
  const attacks = reportsOf('attack');
  const sent = attacks.reduce((n, a) => n + a.sent, 0);
  const statuses = statusesOf(attacks);
  const skipped = attacks.reduce((n, a) => n + a.skipped, 0);
  const searchLatency = summarize(attacks.flatMap((a) => a.latenciesMs));
  const met = attacked / alone > RATE_GOAL;

  const text = [
    heading(`7. The cost of a search, ${options.archiveIncidents.toLocaleString('en-US')}-incident archive`),
    `CPU per search: store.listIncidents for a page of 101, in the benchmark's process, p50 of ${options.cpuRounds} interleaved rounds; ` +
      `the last row is the twelve-prefix attack as the query was built before the bounds (it is now refused before it reaches the database).`,
    '',
    table(
      ['search', 'q', 'outcome', 'CPU ms', 'x ordinary'],
      cpu.rows.map((r) => [r.search.label, `${r.search.q}${r.search.params}`, r.outcome, ms(r.cpuMs), ratio(r.cpuMs / ordinary.cpuMs)]),
    ),
    '',
    `/widget.json from another process, ${options.burstRequests}-request bursts at ${options.concurrency} in flight, ${options.burstsPerPhase} bursts a phase, ` +
      `${options.phaseRounds} rounds of three phases, rotated: alone, and while a third process sends ${options.searchesPerSecond} searches a second, each missing ` +
      `the response cache and asking for limit=1000: ordinary (q=${ORDINARY.q}), then the worst allowed (${worst.label}: q=${worst.q}${worst.params}). ` +
      `Goal: under the worst, more than ${RATE_GOAL}x the rate alone.`,
    '',
    table(
      ['/widget.json', 'req/s', 'ratio', 'worst phase p99 ms'],
      [
        ['alone', alone.toFixed(0), '', ms(p99('alone'))],
        [`with ${options.searchesPerSecond} ordinary searches/s`, ordinaryRate.toFixed(0), ratio(ordinaryRate / alone), ms(p99('ordinary'))],
        [`with ${options.searchesPerSecond} worst allowed searches/s`, attacked.toFixed(0), ratio(attacked / alone), ms(p99('attack'))],
        [`with ${options.loopers} clients looping on the worst request`, looped.toFixed(0), ratio(looped / alone), ms(p99('looping'))],
      ],
    ),
    '',
    `worst allowed searches sent: ${sent} (answers by status: ${JSON.stringify(statuses)}; ${skipped} skipped at the client's in-flight cap), ` +
      `search latency p50 ${ms(searchLatency.p50)} ms, p99 ${ms(searchLatency.p99)} ms`,
    `the worst request anyone may send, of the costliest search and a listing of 1,000 (median of ${WORST_PICK_REQUESTS} builds each): ` +
      `${worstRequest.label}, ${ms(worstRequest.medianMs)} ms a build. ${options.loopers} clients on one address looped on it, each sending the next ` +
      `as soon as the last was answered, a new \`since\` each time so every request misses the cache. Before each phase they ran until the ` +
      `first 429 (at most 10 s): ${warms.map((w) => `${(w.ms / 1000).toFixed(1)} s, ${w.sent} sent${w.refused ? '' : ', never refused'}`).join('; ')}; ` +
      `the phase measures what follows, what looping for good keeps up. In the phases: ${loops.reduce((n, a) => n + a.sent, 0)} sent ` +
      `(answers by status: ${JSON.stringify(statusesOf(loops))}), latency p50 ${ms(loopLatency.p50)} ms. Goal: more than ${RATE_GOAL}x the rate alone.`,
  ].join('\n');
  const goals: Goal[] = [
    {
      name: `/widget.json under ${options.searchesPerSecond} worst allowed searches a second: more than ${RATE_GOAL}x its rate alone`,
      met,
      detail: `${ratioAgainst(attacked / alone, RATE_GOAL)} (${attacked.toFixed(0)} vs ${alone.toFixed(0)} req/s)`,
    },
    {
      name: `/widget.json under ${options.loopers} clients looping on the worst request anyone may send: more than ${RATE_GOAL}x its rate alone`,
      met: looped / alone > RATE_GOAL,
      detail: `${ratioAgainst(looped / alone, RATE_GOAL)} (${looped.toFixed(0)} vs ${alone.toFixed(0)} req/s)`,
    },
  ];
  return { text, goals };
}
