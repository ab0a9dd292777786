/**
 * Benchmark 1: one poll cycle over a large archive, as a ratio to a bare fetch and JSON.parse of the
 * same two feed bodies, interleaved with it; plus the rows each poll writes.
 */
import { FEED_PATHS, type Poller, type PollResult } from '../../src/app/poller.ts';
import type { SimIncident } from '../../src/sim/world.ts';
import { archiveFingerprint, fingerprintChanges, writeCounters, type ArchiveFingerprint, type WriteCounters } from './archive-writes.ts';
import { expectBench, type SectionReport } from './harness.ts';
import { pollReport, type PollWrites } from './poll-report.ts';
import { setUpPollWorld, type PollSetupOptions, type PollWorld } from './poll-setup.ts';
import { interleave, summarize, type BenchCase } from './stats.ts';

export type PollCycleOptions = PollSetupOptions & { rounds: number; conditionalRounds: number; warmUpRounds: number };

export async function benchPollCycle(options: PollCycleOptions): Promise<SectionReport> {
  const world = await setUpPollWorld(options);
  try {
    return await measure(world, options);
  } finally {
    await world.close();
  }
}

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

  const unchanged = unchangedCase('poll, nothing changed', poller, sqlite);
  const renderFeed = () => {
    vendor.vendor.state.render('v2/current');
    vendor.vendor.state.render('v2/history');
  };
  const changed = changedCase(poller, sqlite, vendor.vendor.upsertIncident, vendor.vendor.state.incidents(), renderFeed);
  const plain: BenchCase = { name: 'baseline', run: baseline.run };
  const cases = [plain, unchanged.case, plain, changed.case];
  await interleave(cases, options.warmUpRounds);
  unchanged.reset();
  changed.writes.length = 0;
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
  conditional.reset();
  const conditionalSamples = await interleave([plain, conditional.case], options.conditionalRounds);
  const conditionalBase = summarize(conditionalSamples.get(plain.name)!);
  const conditionalStats = summarize(conditionalSamples.get(conditional.case.name)!);
  expectBench(conditional.notModified === conditional.writes.length, 'a conditional poll got a full body although nothing changed');

  return pollReport({
    options,
    seedMs: world.seedMs,
    archive: { incidents: seeded.incidents, notes: seeded.notes },
    feed: bodies,
    baseline: base,
    unchanged: { stats: unchangedStats, writes: unchanged.writes, shortcut: unchanged.shortcut },
    changed: { stats: changedStats, writes: changed.writes },
    conditional: { baseline: conditionalBase, stats: conditionalStats, writes: conditional.writes, notModified: conditional.notModified },
  });
}

/** `shortcut`: polls that skipped the diff on equal bodies; `notModified`: polls answered 304 twice. */
type UnchangedCase = { case: BenchCase; writes: PollWrites[]; shortcut: number; notModified: number; reset(): void };

function unchangedCase(name: string, poller: Poller, sqlite: PollWorld['archive']['sqlite']): UnchangedCase {
  let before: Snapshot | undefined;
  const state: UnchangedCase = {
    writes: [],
    shortcut: 0,
    notModified: 0,
    reset() {
      state.writes = [];
      state.shortcut = 0;
      state.notModified = 0;
    },
    case: {
      name,
      before: () => (before = snapshot(sqlite, true)),
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
  renderFeed: () => void,
): { case: BenchCase; writes: PollWrites[] } {
  const editable = world.filter((i) => i.status === 'resolved');
  const writes: PollWrites[] = [];
  let edits = 0;
  let target: SimIncident | undefined;
  let before: Snapshot | undefined;
  return {
    writes,
    case: {
      name: 'poll, one incident changed',
      before() {
        // A different incident each time, and a title it never had, so every poll sees one edit.
        target = editable[edits % editable.length]!;
        edits++;
        upsert({ ...target, title: `${target.title} (edit ${edits})` });
        // The sim renders a changed feed once (~12 ms for this history) and reuses it; do that
        // here, untimed, so the poll is measured against a vendor that serves, not one that renders.
        renderFeed();
        before = snapshot(sqlite, false);
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

type Snapshot = { counters: WriteCounters; fingerprint?: ArchiveFingerprint };

/** The fingerprint scans every note (a few ms), so only the polls that must not write take one. */
function snapshot(sqlite: PollWorld['archive']['sqlite'], withFingerprint: boolean): Snapshot {
  return { counters: writeCounters(sqlite), ...(withFingerprint ? { fingerprint: archiveFingerprint(sqlite) } : {}) };
}

function writesSince(sqlite: PollWorld['archive']['sqlite'], before: Snapshot): PollWrites {
  const counters = writeCounters(sqlite);
  return {
    changes: counters.totalChanges - before.counters.totalChanges,
    pollRuns: counters.pollRuns - before.counters.pollRuns,
    ...(before.fingerprint ? { archiveFields: fingerprintChanges(before.fingerprint, archiveFingerprint(sqlite)) } : {}),
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

function describe(result: PollResult): string {
  if (result.status === 'skipped') return 'a skipped poll';
  return `${result.status}, ${result.events.length} events (${result.events.map((e) => `${e.type} ${e.incidentId}`).join(', ') || 'none'})`;
}
