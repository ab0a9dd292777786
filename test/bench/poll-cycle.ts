/**
 * Benchmark 1: one poll cycle over a large archive, as a ratio to a bare fetch and JSON.parse of the
 * same two feed bodies, interleaved with it; plus the rows each poll writes.
 */
import { FEED_PATHS, type Poller, type PollResult } from '../../src/app/poller.ts';
import type { SimIncident } from '../../src/sim/world.ts';
import { archiveFingerprint, fingerprintChanges, writeCounters, type ArchiveFingerprint, type WriteCounters } from './archive-writes.ts';
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import { setUpPollWorld, type PollSetupOptions, type PollWorld } from './poll-setup.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';
import { heading, kb, ms, ratio, table, type Row } from './table.ts';

export type PollCycleOptions = PollSetupOptions & { rounds: number; conditionalRounds: number; warmUpRounds: number };

/** The goal: a poll costs at most this many times a bare fetch and parse of the same feed. */
const RATIO_GOAL = 2;

export async function benchPollCycle(options: PollCycleOptions): Promise<SectionReport> {
  const world = await setUpPollWorld(options);
  try {
    return await measure(world, options);
  } finally {
    await world.close();
  }
}

type PollWrites = { changes: number; pollRuns: number; archiveFields: string[] };

async function measure(world: PollWorld, options: PollCycleOptions): Promise<SectionReport> {
  const { vendor, archive } = world;
  const sqlite = archive.sqlite;
  const poller = world.newPoller(vendor.url);
  const baseline = bareFetchAndParse(vendor.url);

  // The first poll diffs the whole feed against the seed: it must find nothing to write.
  const seeded = archiveFingerprint(sqlite);
  const first = await poller.pollOnce();
  expectBench(first.status === 'ok' && first.events.length === 0, `the first poll should find the seeded archive current, got ${describe(first)}`);
  const moved = fingerprintChanges(seeded, archiveFingerprint(sqlite)).filter((f) => f !== 'lastSeenSum');
  expectBench(moved.length === 0, `the first poll rewrote seeded incidents (${moved.join(', ')}): the seed differs from the feed`);

  const bodies = await baseline.bodies();
  const renderMs = {
    history: medianOf(20, () => vendor.vendor.state.render('v2/history')),
    current: medianOf(20, () => vendor.vendor.state.render('v2/current')),
  };

  const unchanged = unchangedCase('poll, nothing changed', poller, sqlite);
  const changed = changedCase(poller, sqlite, vendor.vendor.upsertIncident, vendor.vendor.state.incidents());
  const plain: BenchCase = { name: 'baseline', run: baseline.run };
  const cases = [plain, unchanged.case, plain, changed.case];
  await interleave(cases, options.warmUpRounds);
  unchanged.writes.length = 0;
  changed.writes.length = 0;
  unchanged.shortcut = 0;
  const samples = await interleave(cases, options.rounds);
  const base = summarize(samples.get(plain.name)!);
  const unchangedStats = summarize(samples.get(unchanged.case.name)!);
  const changedStats = summarize(samples.get(changed.case.name)!);

  // Informative: the same unchanged poll when the vendor answers 304 to the poller's validators.
  const conditionalVendor = await world.startVendor({ conditional: true, incidents: vendor.vendor.state.incidents() });
  const conditionalPoller = world.newPoller(conditionalVendor.url);
  const filled = await conditionalPoller.pollOnce(); // fills its ETag cache; a full diff that finds nothing
  expectBench(filled.status === 'ok' && filled.events.length === 0, `a fresh poller on the same feed should find nothing new, got ${describe(filled)}`);
  const conditional = unchangedCase('poll, nothing changed (304s)', conditionalPoller, sqlite);
  await interleave([plain, conditional.case], options.warmUpRounds);
  conditional.writes.length = 0;
  conditional.notModified = 0;
  const conditionalSamples = await interleave([plain, conditional.case], options.conditionalRounds);
  const conditionalBase = summarize(conditionalSamples.get(plain.name)!);
  const conditionalStats = summarize(conditionalSamples.get(conditional.case.name)!);
  expectBench(conditional.notModified === conditional.writes.length, 'a conditional poll got a full body although nothing changed');

  // The sim renders every body in this process, so its cost sits in both sides of each ratio and
  // flatters it; the last ratio column takes it out, as an estimate of a remote vendor's case.
  const simMs = renderMs.history + renderMs.current;
  const row = (name: string, s: Summary, against: Summary, writes: string): Row => [
    name,
    ms(s.p50),
    ms(s.p95),
    ratio(s.p50 / against.p50),
    s === against ? '-' : ms(s.p50 - against.p50),
    ratio((s.p50 - simMs) / (against.p50 - simMs)),
    writes,
  ];
  const unchangedArchiveWrites = unchanged.writes.filter((w) => w.archiveFields.length > 0).length;
  const goals: Goal[] = [
    ratioGoal('poll, nothing changed', unchangedStats, base),
    ratioGoal('poll, one incident changed', changedStats, base),
    {
      name: 'no archive writes when nothing changed',
      met: unchangedArchiveWrites === 0,
      detail: `archive tables changed in ${unchangedArchiveWrites} of ${unchanged.writes.length} unchanged polls`,
    },
  ];

  const text = [
    heading(`1. Poll cycle, ${options.archiveIncidents.toLocaleString('en-US')}-incident archive`),
    `archive: ${seeded.incidents} incidents, ${seeded.notes} notes, seeded through store.applyPoll in ${(world.seedMs / 1000).toFixed(1)} s`,
    `feed: history ${bodies.historyIncidents} incidents (${kb(bodies.historyBytes)}), current ${bodies.activeIncidents} active (${kb(bodies.currentBytes)}); full 200 bodies`,
    `sim rendering, in-process and so inside every figure below: history ${ms(renderMs.history)} ms, current ${ms(renderMs.current)} ms`,
    `${options.rounds} interleaved rounds of: baseline, nothing changed, baseline, one incident changed (after ${options.warmUpRounds} warm-up rounds)`,
    '',
    table(
      ['case', 'p50 ms', 'p95 ms', 'p50 / baseline', 'p50 over baseline', 'same, sim render excluded (est.)', 'rows changed / poll (median)'],
      [
        row('bare fetch x2 + JSON.parse (baseline)', base, base, '-'),
        row('poll, nothing changed', unchangedStats, base, writesCell(unchanged.writes)),
        row('poll, one incident changed', changedStats, base, writesCell(changed.writes)),
        row(`baseline, during ${options.conditionalRounds} rounds with 304s`, conditionalBase, conditionalBase, '-'),
        row('poll, nothing changed, conditional (304s)', conditionalStats, conditionalBase, writesCell(conditional.writes)),
      ],
    ),
    '',
    `nothing changed: ${unchanged.shortcut}/${unchanged.writes.length} polls skipped the diff (bodies equal to the last diffed); per poll ` +
      `${median(unchanged.writes.map((w) => w.pollRuns))} poll_runs row, ${median(unchanged.writes.map((w) => w.changes - w.pollRuns))} ` +
      `other row changes (the poll lease: acquire + release); archive tables (incidents, services, notes, versions, events, ` +
      `last_seen_ms) changed in ${unchangedArchiveWrites} of ${unchanged.writes.length}`,
    `one incident changed: every poll returned exactly one incident.updated event; its row changes include last_seen_ms ` +
      `refreshed on every incident in the feed (${bodies.historyIncidents})`,
    `304s: ${conditional.notModified}/${conditional.writes.length} polls got 304 on both endpoints`,
  ].join('\n');
  return { text, goals };
}

type UnchangedCase = { case: BenchCase; writes: PollWrites[]; shortcut: number; notModified: number };

function unchangedCase(name: string, poller: Poller, sqlite: PollWorld['archive']['sqlite']): UnchangedCase {
  let before: { counters: WriteCounters; fingerprint: ArchiveFingerprint } | undefined;
  const state: UnchangedCase = {
    writes: [],
    shortcut: 0,
    notModified: 0,
    case: {
      name,
      before: () => (before = { counters: writeCounters(sqlite), fingerprint: archiveFingerprint(sqlite) }),
      run: () => poller.pollOnce(),
      after(value) {
        const result = value as PollResult;
        expectBench(result.status === 'ok' && result.events.length === 0, `${name}: expected an ok poll without events, got ${describe(result)}`);
        if (result.unchanged) state.shortcut++;
        if (result.run.sources.every((s) => s.notModified)) state.notModified++;
        state.writes.push(writesSince(sqlite, before!));
      },
    },
  };
  return state;
}

function changedCase(
  poller: Poller,
  sqlite: PollWorld['archive']['sqlite'],
  upsert: (incident: SimIncident) => boolean,
  world: SimIncident[],
): { case: BenchCase; writes: PollWrites[] } {
  const editable = world.filter((i) => i.status === 'resolved');
  const writes: PollWrites[] = [];
  let edits = 0;
  let target: SimIncident | undefined;
  let before: { counters: WriteCounters; fingerprint: ArchiveFingerprint } | undefined;
  return {
    writes,
    case: {
      name: 'poll, one incident changed',
      before() {
        // A different incident each time, and a title it never had, so every poll sees one edit.
        target = editable[edits % editable.length]!;
        edits++;
        upsert({ ...target, title: `${target.title} (edit ${edits})` });
        before = { counters: writeCounters(sqlite), fingerprint: archiveFingerprint(sqlite) };
      },
      run: () => poller.pollOnce(),
      after(value) {
        const result = value as PollResult;
        const events = 'events' in result ? result.events : [];
        expectBench(
          events.length === 1 && events[0]?.type === 'incident.updated' && events[0].incidentId === String(target!.id),
          `one changed title should make exactly one incident.updated event for ${target!.id}, got ${describe(result)}`,
        );
        writes.push(writesSince(sqlite, before!));
      },
    },
  };
}

function writesSince(sqlite: PollWorld['archive']['sqlite'], before: { counters: WriteCounters; fingerprint: ArchiveFingerprint }): PollWrites {
  const counters = writeCounters(sqlite);
  return {
    changes: counters.totalChanges - before.counters.totalChanges,
    pollRuns: counters.pollRuns - before.counters.pollRuns,
    archiveFields: fingerprintChanges(before.fingerprint, archiveFingerprint(sqlite)),
  };
}

/** What the poller does minus everything of its own: the two requests in parallel, then JSON.parse. */
function bareFetchAndParse(baseUrl: string) {
  const currentUrl = baseUrl + FEED_PATHS['v2/current'];
  const historyUrl = baseUrl + FEED_PATHS['v2/history'];
  const get = async (url: string) => (await fetch(url, { headers: { accept: 'application/json' } })).text();
  const fetchBoth = () => Promise.all([get(currentUrl), get(historyUrl)]);
  return {
    async run() {
      const [current, history] = await fetchBoth();
      return [JSON.parse(current), JSON.parse(history)];
    },
    async bodies() {
      const [current, history] = await fetchBoth();
      return {
        currentBytes: Buffer.byteLength(current),
        historyBytes: Buffer.byteLength(history),
        activeIncidents: (JSON.parse(current) as { active_incidents: unknown[] }).active_incidents.length,
        historyIncidents: (JSON.parse(history) as unknown[]).length,
      };
    },
  };
}

function ratioGoal(name: string, s: Summary, base: Summary): Goal {
  const r = s.p50 / base.p50;
  return { name: `${name}: within ${RATIO_GOAL}x of bare fetch + parse`, met: r <= RATIO_GOAL, detail: `${ratio(r)} (p50 ${ms(s.p50)} vs ${ms(base.p50)} ms)` };
}

function writesCell(writes: readonly PollWrites[]): string {
  return writes.length === 0 ? '-' : String(median(writes.map((w) => w.changes)));
}

function median(values: readonly number[]): number {
  return summarize(values).p50;
}

function medianOf(times: number, run: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function describe(result: PollResult): string {
  if (result.status === 'skipped') return 'a skipped poll';
  return `${result.status}, ${result.events.length} events (${result.events.map((e) => `${e.type} ${e.incidentId}`).join(', ') || 'none'})`;
}
