/**
 * Fills a test's archive with the given incidents, as a poll that read them would, without a feed:
 * no simulated vendor, no HTTP. The incidents are parsed as a poll parses the vendor's JSON, listed
 * as the feed lists them (ongoing ones from current first, then history, newest update first),
 * diffed against the archive by the pure diff, and written by the store's own `applyPoll` in the
 * poller's pieces, with their events, their outbox rows for the active subscriptions, and the run
 * that read them. For route tests, which need an archive in a known state rather than a poll;
 * tests about the poll itself (feed health, blindness, the poll button) poll the simulated vendor.
 * Runs on either store: SQLite in the node project, D1 in the workers project.
 */
import { APPLY_PIECE_INCIDENTS, FEED_PATHS, LAST_SEEN_PRECISION_MS } from '../../src/app/poller.ts';
import { findChanges, planChanges, splitPlan, type ArchivedIncident } from '../../src/core/diff.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import { isOngoing, type Incident } from '../../src/core/incident.ts';
import { mergeObservations } from '../../src/core/observe.ts';
import type { PollRun, PollStore } from '../../src/core/ports.ts';
import { parsed, type RawIncident } from '../fixtures/vendor-builders.ts';

/**
 * STATUS_URL for an app whose archive is only ever seeded: nothing listens on port 9 (discard) on
 * loopback, so a poll it was not meant to make fails at once instead of reading some other feed.
 */
export const NO_FEED_URL = 'http://127.0.0.1:9';

/** What seeding writes through: the poller's own port, narrowed to the write path. */
export type SeedStore = Pick<PollStore, 'loadIncidents' | 'isSeeded' | 'applyPoll' | 'activeSubscriptions'>;

/** What a seed wrote: as the admin poll route answers a poll, for the tests that check it. */
export type Seeded = { outcome: 'ok'; run: PollRun; events: StatusEvent[] };

/**
 * Writes `incidents` into the archive as one good read of the feed at `now` (Date.now() unless
 * the app under test runs on another clock): the first seed of an archive is its backfill (history,
 * no news, nothing to deliver), later ones are news to the subscriptions active then. Incidents
 * archived but not given are left as they are, as a poll leaves what the feed no longer lists.
 */
export async function seedArchive(store: SeedStore, incidents: readonly RawIncident[], options: { now?: number } = {}): Promise<Seeded> {
  const now = options.now ?? Date.now();
  const all = parsed(...incidents);
  const current = all.filter((incident) => isOngoing(incident.status)).sort(byCreatedDesc);
  const history = [...all].sort(byUpdatedDesc);
  const observed = mergeObservations([
    { source: 'v2/current', incidents: current },
    { source: 'v2/history', incidents: history },
  ]);
  const seenIds = observed.map((incident) => incident.id);
  const seeded = await store.isSeeded();
  const archived: Map<string, ArchivedIncident> = await store.loadIncidents(seenIds);
  const plan = planChanges(findChanges(observed, archived), { now, backfill: !seeded });
  const subscriptions = plan.events.some((event) => !event.backfill) ? await store.activeSubscriptions() : [];
  const run: PollRun = {
    id: crypto.randomUUID(),
    startedAt: now,
    finishedAt: now,
    outcome: 'ok',
    sources: [
      // As a poll that read both bodies records them: each answered 200.
      { source: 'v2/current', path: FEED_PATHS['v2/current'], httpStatus: 200, durationMs: 0, incidents: current.length },
      { source: 'v2/history', path: FEED_PATHS['v2/history'], httpStatus: 200, durationMs: 0, incidents: history.length },
    ],
    changes: countByType(plan.events),
  };
  const pieces = splitPlan(plan, APPLY_PIECE_INCIDENTS);
  for (const [index, piece] of pieces.entries()) {
    const last = index === pieces.length - 1;
    await store.applyPoll({
      run,
      plan: piece,
      deliveries: planDeliveries(piece.events, subscriptions),
      seenIds: last ? seenIds : [],
      seenBefore: now - LAST_SEEN_PRECISION_MS,
      rejected: [],
      markSeeded: last && !seeded,
    });
  }
  return { outcome: 'ok', run, events: plan.events };
}

const byCreatedDesc = (a: Incident, b: Incident): number =>
  b.dateCreated.ms - a.dateCreated.ms || b.dateUpdated.ms - a.dateUpdated.ms || Number(b.id) - Number(a.id);
const byUpdatedDesc = (a: Incident, b: Incident): number =>
  b.dateUpdated.ms - a.dateUpdated.ms || b.dateCreated.ms - a.dateCreated.ms || Number(b.id) - Number(a.id);

function countByType(events: readonly StatusEvent[]): PollRun['changes'] {
  const counts: PollRun['changes'] = {};
  for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1;
  return counts;
}
