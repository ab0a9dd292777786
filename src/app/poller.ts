/**
 * The poll cycle: read the vendor's feed (v2 current and history, v1 when v2 current fails), diff it
 * against the archive, plan the versions, events and deliveries, and have the store write them
 * atomically: at most POLL_MAX_INCIDENT_CHANGES incidents per poll, in pieces that each commit
 * whole. A piece planned against a revision another process moved is refused whole and planned again.
 */
import { sha256Hex } from '../core/content-hash.ts';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { DEFAULT_MAX_INCIDENT_WRITES_PER_POLL, findChanges, planChanges, splitPlan, type ArchivedIncident, type Candidate } from '../core/diff.ts';
import { FeedFetchError, RevisionConflictError } from '../core/errors.ts';
import type { MonitorEvent, StatusEvent } from '../core/events.ts';
import { planDeliveries } from '../core/fanout.ts';
import type { Incident } from '../core/incident.ts';
import { blindSpellEndedBy } from '../core/coverage.ts';
import { withSearchTexts } from '../core/html-text.ts';
import { STALE_AFTER_MS } from '../core/knowledge.ts';
import { compareUrgency } from '../core/mirror.ts';
import { decideMonitorEvent } from '../core/monitor-episode.ts';
import {
  createMemoizedIncidentParser,
  currentV1Entries,
  currentV2Entries,
  historyEntries,
  NotAFeedError,
  type FeedDocument,
  type MemoizedIncidentParser,
} from '../core/feed-schema.ts';
import { mergeObservations, type FeedSource, type Observation } from '../core/observe.ts';
import type {
  BlindSpell,
  Clock,
  DiffedFeed,
  FeedClient,
  FeedResponse,
  Hashes,
  LastDiff,
  LeaseRelease,
  Logger,
  OutboxSignal,
  PollOpening,
  PollRun,
  PollStore,
  RejectedPayload,
  SourceReport,
} from '../core/ports.ts';
import { forEachSlice, forEachSliceWithin, yieldToEventLoop } from './event-loop-slices.ts';
import { createFeedFailureLog } from './feed-failure-log.ts';
import { createIncidentDigester, isDiffedAlready, keptDigestsOf, keptRevisionsOf } from './incident-digests.ts';
import { keptMainFeedRefresh, LAST_SEEN_PRECISION_MS, lastRefreshOf, lastSeenRefresh } from './last-seen.ts';

export const FEED_PATHS = {
  'v2/current': '/api/v2.0.0/current',
  'v1/current': '/api/v1.0.0/current',
  'v2/history': '/api/v2.0.0/history',
} as const satisfies Record<FeedSource, string>;

const ENTRIES: Record<FeedSource, (json: unknown) => unknown[]> = {
  'v2/current': currentV2Entries,
  'v1/current': currentV1Entries,
  'v2/history': historyEntries,
};

const POLL_LEASE = 'poll';
/** Longer than the worst poll (three reads at their timeout); a crashed holder frees it by then. */
export const POLL_LEASE_TTL_MS = 120_000;
export { LAST_SEEN_PRECISION_MS };
/**
 * Plans of one poll refused on a moved revision before it stops trying: another process keeps
 * writing the archive, and what it did not write, the next poll plans again.
 */
const CONFLICT_RETRIES = 5;
/**
 * Incidents per atomic piece of a large poll. Writing one incident whose every note changed
 * takes 1-3 ms on a busy 2-core machine (more under heavy contention), so a piece holds the
 * event loop for tens of milliseconds at most (test/bench/poll-flood.ts).
 */
export const APPLY_PIECE_INCIDENTS = 10;

/**
 * Entries validated, loaded or compared between two yields. A changed entry costs about 0.3 ms to
 * validate on a busy 2-core machine, and a feed at the body cap can hold thousands of them.
 */
const SLICE_ENTRIES = 100;
/**
 * What an entry known from the last poll costs to parse, against one validated: a comparison of
 * its fields, a hundredth of a validation or less (~0.5 µs against 30-300 µs), counted as a tenth.
 * A feed of 120 with one changed entry is parsed in one turn; 1,000 known entries still get a yield.
 */
const KNOWN_ENTRY_COST = 0.1;

/** Skipped entries described in the log line of one body; the rest are counted. */
export const LOGGED_PROBLEMS_MAX = 10;

export type PollResult =
  | { status: 'skipped'; reason: 'another poll is running' }
  | { status: PollRun['outcome']; run: PollRun; events: StatusEvent[]; unchanged: boolean };

export type PollerDeps = {
  store: PollStore;
  feed: FeedClient;
  clock: Clock;
  logger: Logger;
  /** Names this process in the poll lease. */
  instanceId: string;
  /**
   * True when the named lease holder is known to be gone (a process on this host that died):
   * its lease is taken over at once instead of after the TTL, so a crash does not stall polling.
   */
  isLeaseHolderGone?: (holder: string) => boolean;
  /** How long the lease outlives a holder that died without releasing it; POLL_LEASE_TTL_MS by default. */
  leaseTtlMs?: number;
  newId: () => string;
  /** POLL_MAX_INCIDENT_CHANGES: changed incidents one poll writes; the rest wait for the next polls. */
  maxIncidentWrites?: number;
  /** Told when a poll wrote news (and so outbox rows); absent where nothing delivers (tests). */
  outbox?: OutboxSignal;
  /**
   * Told of a monitor event this poll wrote (the feed went blind, or is read again), after it is
   * in the archive with its deliveries: the admin's email (admin-notice.ts).
   */
  announce?: (event: MonitorEvent) => Promise<void>;
  /**
   * When polling began, for a feed never read: blind counts from then. By default the poller's
   * creation (a Node process polls for its whole life); a runtime that makes a poller per
   * invocation (Workers' cron) passes a time kept with the archive instead.
   */
  pollingSince?: () => Promise<number>;
  /** Told of each poll's result once, however many callers waited on it (metrics). */
  onResult?: (result: PollResult) => void;
  /**
   * The runtime's hashes for the bodies' and incidents' digests; Web Crypto by default. Node's
   * are synchronous: a Web Crypto digest there is a trip through the thread pool.
   */
  hashes?: Hashes;
  /**
   * Keeps work going after the poll's answer (Workers' waitUntil: the invocation lives until it
   * ends). Given, a poll that writes nothing but its run (the feed unchanged, or not read) answers
   * once it knows its result and records the run, giving the lease back, here, asked for once the
   * answer is out: a D1 round trip off the cron tick's path to the sources' polls. This poller's
   * next poll waits for that record.
   */
  keepAlive?: (work: Promise<unknown>) => void;
};

type SourceRead = {
  source: FeedSource;
  report: SourceReport;
  body?: string;
  /** The body's SHA-256, for every body read. */
  sha256?: string;
  document?: FeedDocument;
  /**
   * The body is the one the archive's last full diff read from this source (so it is a feed):
   * not parsed unless the poll must diff after all.
   */
  diffed?: true;
  rejected?: RejectedPayload;
};

/** A body that is this source's feed: parsed, or known to be the last diffed one. */
const isGood = (r: SourceRead) => r.document !== undefined || r.diffed === true;

/**
 * The poll lease of one poll. The poll's last write gives it back in the same step (one round
 * trip less, on D1 a request less); `released` says it did, else the poll gives it back at the end.
 * `recording`: that last write, still under way after the poll answered (PollerDeps.keepAlive).
 */
type HeldLease = { release: LeaseRelease; released: boolean; recording?: Promise<void> };

export type Poller = {
  /**
   * Polls now, or, while a poll of this poller is running, waits for it and answers its result:
   * one poll at a time for every caller (schedule, start-up, admin route). The lease keeps other
   * processes out, but lets its own holder in again, so it cannot do this by itself.
   */
  pollOnce(): Promise<PollResult>;
};

export function createPoller(deps: PollerDeps): Poller {
  const { store, feed, clock, logger } = deps;
  // A feed never read is blind from when polling began (as /healthz counts a fresh start).
  const createdAt = clock.now();
  const pollingSince = deps.pollingSince ?? (async () => createdAt);
  const leaseTtlMs = deps.leaseTtlMs ?? POLL_LEASE_TTL_MS;
  const maxIncidentWrites = deps.maxIncidentWrites ?? DEFAULT_MAX_INCIDENT_WRITES_PER_POLL;
  const feedFailures = createFeedFailureLog(logger);
  // The last body read from each source, its digest and its document: most minutes the body is
  // the same (or a 304 hands back the cached one), and it is neither hashed nor parsed again.
  const lastParsed = new Map<FeedSource, { body: string; sha256: string; document?: FeedDocument }>();
  // Parsed entries of the previous poll, per source: in a changed body, unchanged incidents skip
  // validation.
  const incidentParsers = new Map<FeedSource, MemoizedIncidentParser>();
  // The archived state of the incidents the last poll saw. Trusted only where the archive's
  // revision still matches, so a write by another process is always read back.
  let archivedCache = new Map<string, ArchivedIncident>();
  const digester = createIncidentDigester(deps.hashes);

  /**
   * Fetches one source. A body equal to the one the archive's last full diff read (`diffed`) is
   * not parsed here: equal bodies cannot hold a change, so the common minute (nothing happened)
   * costs two fetches and two digests, even for a poller made for this poll.
   */
  async function read(source: FeedSource, diffed: DiffedFeed | null): Promise<SourceRead> {
    const path = FEED_PATHS[source];
    const started = clock.now();
    let response: FeedResponse;
    try {
      response = await feed.get(path);
    } catch (error) {
      const known = error instanceof FeedFetchError ? error : null;
      const report: SourceReport = { source, path, durationMs: clock.now() - started, error: known?.message ?? `unexpected: ${String(error)}` };
      if (known?.status) report.httpStatus = known.status;
      return { source, report };
    }
    const report: SourceReport = {
      source,
      path,
      url: response.url,
      httpStatus: response.status,
      bytes: response.bytes,
      durationMs: response.durationMs,
      notModified: response.notModified,
    };
    const known = lastParsed.get(source);
    // Hashed once per distinct body: the digest to compare, and a refused body's key in the store.
    // Of the bytes as they came where the client has them: the same digest for a UTF-8 body.
    const sha256 = known?.body === response.body ? known.sha256 : await sha256Hex(response.raw ?? response.body, deps.hashes);
    const read: SourceRead = { source, report, body: response.body, sha256 };
    if (known?.body === response.body && known.document) return interpret(read, known.document);
    const kept = diffed?.sources.find((s) => s.source === source);
    if (kept?.sha256 !== sha256) return interpret(read);
    lastParsed.set(source, { body: response.body, sha256 });
    report.incidents = kept.incidents;
    if (kept.skipped > 0) report.skipped = kept.skipped;
    return { ...read, diffed: true };
  }

  /** Parses a read's body (unless `document` is already its reading), or turns it into a refused payload. */
  async function interpret(read: SourceRead, document?: FeedDocument): Promise<SourceRead> {
    const { source, report, body, sha256 } = read;
    try {
      const parsed = document ?? (await parse(source, body!));
      lastParsed.set(source, { body: body!, sha256: sha256!, document: parsed });
      report.incidents = parsed.incidents.length;
      if (parsed.problems.length > 0) report.skipped = parsed.problems.length;
      else delete report.skipped;
      return { source, report, body, sha256, document: parsed };
    } catch (error) {
      if (!(error instanceof NotAFeedError || error instanceof SyntaxError)) throw error;
      const reason = error instanceof SyntaxError ? `invalid JSON: ${error.message}` : `not a feed: ${error.message}`;
      report.error = reason;
      delete report.incidents;
      delete report.skipped;
      // The store keeps one copy per distinct body however often it comes.
      return { source, report, rejected: { source, url: report.url ?? '', body: body!, error: reason, sha256: sha256! } };
    }
  }

  /**
   * Throws SyntaxError or NotAFeedError for a body that is not that source's document. Entries are
   * read a slice at a time with a yield once SLICE_ENTRIES were validated (or ten times as many
   * known ones compared), so a huge changed feed does not hold the event loop (JSON.parse itself
   * still does, for ~10 ms per MB), and a usual one is read in one turn.
   */
  async function parse(source: FeedSource, body: string): Promise<FeedDocument> {
    let parser = incidentParsers.get(source);
    if (!parser) {
      parser = createMemoizedIncidentParser();
      incidentParsers.set(source, parser);
    }
    const entries = ENTRIES[source](JSON.parse(body));
    const session = parser.begin();
    await forEachSliceWithin(entries, SLICE_ENTRIES, SLICE_ENTRIES, (slice, start) => {
      const validated = session.add(slice, start);
      return validated + (slice.length - validated) * KNOWN_ENTRY_COST;
    });
    const document = session.finish();
    // Logged when first seen, not every minute while the vendor keeps serving the same entry; the
    // first few say why, the count says how many (a hostile feed can hold thousands).
    if (document.problems.length > 0) {
      logger.warn('skipped malformed incidents', { source, skipped: document.problems.length, problems: document.problems.slice(0, LOGGED_PROBLEMS_MAX) });
    }
    return document;
  }

  async function readCurrent(diffed: DiffedFeed | null): Promise<SourceRead[]> {
    const v2 = await read('v2/current', diffed);
    if (isGood(v2)) return [v2];
    // Debug: the poll's own line says how it ended (v1 read instead: partial; nothing: failed).
    logger.debug('v2 current failed, falling back to v1', { error: v2.report.error });
    return [v2, await read('v1/current', diffed)];
  }

  async function pollLocked(startedAt: number, opening: PollOpening, lease: HeldLease): Promise<PollResult> {
    const { lastDiff } = opening;
    const [currentReads, historyReadFirst] = await Promise.all([readCurrent(lastDiff.diffed), read('v2/history', lastDiff.diffed)]);
    let reads = [...currentReads, historyReadFirst];
    const unchanged = unchangedSinceLastDiff(reads.filter(isGood), lastDiff, startedAt);
    // Bodies the last diff read, left unparsed, when this poll must diff after all.
    if (!unchanged) reads = await Promise.all(reads.map((r) => (r.diffed ? interpret(r) : r)));
    const historyRead = reads.at(-1)!;
    const good = reads.filter(isGood);
    let rejected = reads.flatMap((r) => (r.rejected ? [r.rejected] : []));
    // ok: v2 current and history both read; partial: something was read (v1 instead of v2 counts).
    const complete = currentReads.length === 1 && isGood(reads[0]!) && isGood(historyRead);
    const outcome: PollRun['outcome'] = good.length === 0 ? 'failed' : complete ? 'ok' : 'partial';
    const run: PollRun = {
      id: deps.newId(),
      startedAt,
      finishedAt: startedAt,
      outcome,
      sources: reads.map((r) => r.report),
      changes: {},
      ...(outcome === 'failed' ? { error: reads.map((r) => `${r.source}: ${r.report.error}`).join('; ') } : {}),
    };

    // A good read the staleness limit or more after the last ends a blind spell, recorded with
    // every write of the run: no read failed (the process was down, or nothing polled), so no
    // monitor episode says so, and the track record would count the time unread as observed.
    // The archive speaks for nothing before the feed's first read: that is no spell.
    const { lastGoodReadAt } = opening;
    const endedSpell = outcome === 'failed' || lastGoodReadAt === null ? null : blindSpellEndedBy(lastGoodReadAt, startedAt);
    const spell: { endedSpell?: BlindSpell } = endedSpell ? { endedSpell } : {};

    // Blind past the limit, or reading again after: news of its own, written before the poll's
    // changes so a subscriber hears "recovered" first and the changes found on recovery after it.
    const monitor = await monitorNews(run, outcome !== 'failed', rejected, startedAt, opening.latestMonitor, spell);
    // Its step recorded the run with the refused payloads: later steps upsert the run alone.
    if (monitor) rejected = [];
    const monitorEvents = monitor ? [monitor] : [];

    if (outcome === 'failed' || unchanged) {
      run.finishedAt = clock.now();
      // Kept alive, the record is asked for a macrotask later, once the answer is out: in workerd
      // a D1 request made before the answer was sent held the answer back behind its write.
      if (deps.keepAlive) lease.recording = yieldToEventLoop().then(() => store.recordPollRun(run, rejected, lease.release, spell.endedSpell));
      else await store.recordPollRun(run, rejected, lease.release, spell.endedSpell);
      lease.released = true;
      if (outcome === 'failed') feedFailures.failed(run);
      else {
        feedFailures.read(run);
        logger.debug('poll: feed unchanged', { run: run.id });
      }
      return { status: outcome, run, events: monitorEvents, unchanged: outcome !== 'failed' };
    }

    const observations: Observation[] = good.map((r) => ({ source: r.source, incidents: r.document!.incidents }));
    const observed = mergeObservations(observations);
    const seenIds = observed.map((i) => i.id);
    const seen = lastSeenRefresh(keptMainFeedRefresh(lastDiff), seenIds, startedAt);
    const historyWasRead = isGood(historyRead);
    const digests = await digester.digestAll(observed);
    const keptDigests = lastDiff.diffed?.incidents;

    // Applied in pieces of APPLY_PIECE_INCIDENTS, yielding between them, so a large poll does not
    // stop the server answering; each piece is atomic with its events and outbox rows. Across a
    // conflict retry, the pieces already written stay written and count as this poll's.
    const applied: StatusEvent[] = [...monitorEvents];
    let runRecorded = false;
    for (let attempt = 1; ; attempt++) {
      // Read with the lease for the first plan; a plan made again reads what the other writer left.
      const seeded = attempt === 1 ? opening.seeded : await store.isSeeded();
      const revisions = attempt === 1 ? await revisionsAtOpening(seenIds, lastDiff) : await store.loadRevisions(seenIds);
      // Incidents the last diff saw as they are now, at the revision it left: nothing to find.
      const toDiff = observed.filter((i) => !isDiffedAlready(keptDigests, i.id, revisions.get(i.id), digests.get(i.id)));
      const archived = await loadArchived(toDiff, revisions, attempt > 1);
      const candidates: Candidate[] = [];
      await forEachSlice(toDiff, SLICE_ENTRIES, (slice) => candidates.push(...findChanges(slice, archived)));
      const plan = planChanges(candidates, { now: startedAt, backfill: !seeded, maxWrites: maxIncidentWrites });
      if (plan.pending > 0) run.pendingIncidents = plan.pending;
      else delete run.pendingIncidents;
      const pieces = splitPlan(plan, APPLY_PIECE_INCIDENTS);
      const writtenRevisions = new Map(plan.writes.map((w) => [w.incident.id, w.revision]));
      const diffedFeed = (): Omit<DiffedFeed, 'generation'> | null => {
        // With changes left over, equal bodies must still be diffed next time: they hold them.
        if (plan.pending > 0) return null;
        const incidents = keptDigestsOf(digests, (id) => writtenRevisions.get(id) ?? revisions.get(id));
        return { ...diffedFeedOf(good, startedAt), ...(incidents ? { incidents, seenRefreshedAtMs: seen.refreshedAtMs } : {}) };
      };
      // The list as the poll's opening found it (its version read with the lease; a store that
      // holds the list of that version reads nothing more, a read transaction less per changed
      // poll), or as a plan made again finds it. Read before the writes, so a subscription may
      // change in between. That is acceptable: one created or resumed meanwhile misses this poll
      // as if it came a moment later, filters edited meanwhile apply from the next poll, and the
      // store leaves out rows for one no longer active (a deleted one would leave rows no one
      // claims). Guarding with a subscriptions version instead would let a stream of sign-ups
      // stall polling. Backfill causes no deliveries (fanout.ts), so seeding never reads them.
      const versionSeen = attempt === 1 ? opening.subscriptionsVersion : undefined;
      const subscriptions = plan.events.some((e) => !e.backfill) ? await store.activeSubscriptions(versionSeen) : [];
      // The incidents this poll leaves for later once the pieces before `from` are written: those
      // beyond its budget plus those of the pieces from `from` on.
      const pendingFrom = (from: number) => plan.pending + pieces.slice(from).reduce((sum, rest) => sum + rest.writes.length, 0);
      // The piece being written: on a conflict, the first piece not written.
      let current = 0;
      try {
        for (const [index, piece] of pieces.entries()) {
          current = index;
          const last = index === pieces.length - 1;
          if (index > 0) await yieldToEventLoop();
          run.changes = countByType([...applied, ...piece.events]);
          run.finishedAt = clock.now();
          // Each piece records the run as it stands once that piece is in: the incidents beyond
          // this poll's budget plus those of its pieces still to come. A process killed between
          // two pieces leaves a run that says how much is left, never "nothing pending".
          const pending = pendingFrom(index + 1);
          if (pending > 0) run.pendingIncidents = pending;
          else delete run.pendingIncidents;
          // Each note with its search text, found once: the store writes it, and the copy kept
          // for the next diff has it, as a copy read from the archive does, so the next write of
          // this incident converts none of its unchanged notes again.
          const writes = piece.writes.map((write) => ({
            ...write,
            incident: { ...write.incident, notes: withSearchTexts(write.incident.notes, write.previous?.notes) },
          }));
          await store.applyPoll({
            run,
            plan: { ...piece, writes },
            deliveries: planDeliveries(piece.events, subscriptions),
            seenIds: last ? seen.ids : [],
            seenBefore: seen.seenBefore,
            rejected: runRecorded ? [] : rejected,
            // A backfill cut short is not done: the rest of the history must not count as news.
            markSeeded: last && !seeded && historyWasRead && plan.pending === 0,
            ...spell,
            ...(last ? { diffedFeed: diffedFeed(), releaseLease: lease.release } : {}),
          });
          if (last) lease.released = true;
          runRecorded = true;
          applied.push(...piece.events);
          for (const write of writes) {
            archivedCache.set(write.incident.id, { ...write.incident, revision: write.revision, resolvedAt: write.resolvedAt });
          }
        }
      } catch (error) {
        if (error instanceof RevisionConflictError) {
          if (attempt < CONFLICT_RETRIES) {
            logger.warn('archive moved under this poll; planning again', { error: error.message });
            continue;
          }
          // Another writer moved the archive every time: not a failure of this poll, whose reads
          // stand. What it could not write stays pending for the next poll, which diffs again.
          return recordConflictLeftover(run, outcome, applied, pendingFrom(current), runRecorded ? [] : rejected, error, lease, spell.endedSpell);
        }
        // The piece's transaction rolled back (disk full, database busy...): nothing of it was
        // kept, so the next poll sees its changes again. Say so in the run history.
        return recordWriteFailure(run, applied, runRecorded ? [] : rejected, error, lease);
      }
      if (plan.pending > 0) {
        logger.warn('poll capped: more incidents changed than one poll may write; the next polls apply the rest', {
          run: run.id,
          applied: plan.writes.length,
          pending: plan.pending,
          maxIncidentWrites,
        });
      }
      if (applied.length > 0) {
        logger.info('poll changed the archive', {
          run: run.id,
          outcome,
          backfill: !seeded,
          changes: run.changes,
          incidents: [...new Set(applied.map((e) => e.incidentId))],
        });
      } else if (outcome === 'partial') {
        logger.warn('poll partial', { run: run.id, sources: run.sources.filter((s) => s.error) });
      }
      feedFailures.read(run);
      return { status: outcome, run, events: applied, unchanged: false };
    }
  }

  /**
   * Decides the monitor's news for this poll (monitor-episode.ts) and writes it, with the run, the
   * payloads it refused and its deliveries, in one atomic step. Its id is the episode's, so a poll
   * planned twice, or by two processes, records and sends it once.
   */
  async function monitorNews(
    run: PollRun,
    read: boolean,
    rejected: readonly RejectedPayload[],
    now: number,
    latest: MonitorEvent | null,
    spell: { endedSpell?: BlindSpell },
  ): Promise<MonitorEvent | null> {
    const blindnessOpen = latest?.type === 'monitor.blind';
    // The common minutes, one indexed read: reading with no blindness open, or failing within one.
    if (read ? !blindnessOpen : blindnessOpen) return null;
    const [health, ongoing] = read ? [null, []] : await Promise.all([store.feedHealth(), store.ongoingIncidents(MAIN_FEED_SOURCE)]);
    const event = decideMonitorEvent({
      read,
      now,
      lastSuccessAt: health?.lastSuccessAt ?? null,
      pollingSince: await pollingSince(),
      staleAfterMs: STALE_AFTER_MS,
      latest,
      error: run.error ?? '',
      ongoing: [...ongoing].sort(compareUrgency),
    });
    if (!event) return null;
    try {
      await store.applyPoll({
        run: { ...run, changes: { [event.type]: 1 }, finishedAt: clock.now() },
        plan: { writes: [], events: [event] },
        deliveries: planDeliveries([event], await store.activeSubscriptions()),
        seenIds: [],
        seenBefore: now,
        rejected,
        markSeeded: false,
        ...spell,
      });
    } catch (error) {
      // Nothing of it was written (one atomic step): the next poll decides it again. The poll
      // itself goes on, and records its own failure as it would have.
      logger.warn('could not record the monitor event; the next poll tries again', { event: event.id, error: String(error) });
      return null;
    }
    run.changes = { [event.type]: 1 };
    if (event.data.type === 'monitor.blind') {
      logger.error('monitor blind: the feed has not been read for the staleness limit', { since: event.data.since, error: event.data.last_error });
    } else {
      logger.info('monitor recovered: the feed is read again', { since: event.data.since, blindForMs: event.data.blind_for_ms });
    }
    try {
      await deps.announce?.(event);
    } catch (error) {
      logger.warn('could not tell the admin of the monitor event', { event: event.id, error: String(error) });
    }
    return event;
  }

  /**
   * The archived revision of each incident seen, as the poll's first reads found the archive: the
   * ones the last full diff kept while nothing has been written since, the rest read (for one
   * changed incident, no read at all). A write by another process after the opening fails the
   * revision guard, and the plan made again reads them all.
   */
  async function revisionsAtOpening(ids: readonly string[], lastDiff: LastDiff): Promise<Map<string, number>> {
    const kept = keptRevisionsOf(lastDiff, ids);
    if (!kept) return store.loadRevisions(ids);
    if (kept.unknown.length > 0) for (const [id, revision] of await store.loadRevisions(kept.unknown)) kept.revisions.set(id, revision);
    return kept.revisions;
  }

  /**
   * The archive's state of these incidents (`revisions`: of every incident seen, as just read):
   * cached copies whose revision still holds, the rest read. The cache keeps every seen incident
   * whose copy still holds, diffed this time or not.
   */
  async function loadArchived(
    incidents: readonly Incident[],
    revisions: ReadonlyMap<string, number>,
    bypassCache: boolean,
  ): Promise<Map<string, ArchivedIncident>> {
    const archived = new Map<string, ArchivedIncident>();
    const stale: string[] = [];
    for (const { id } of incidents) {
      const revision = revisions.get(id);
      if (revision === undefined) continue;
      const cached = archivedCache.get(id);
      if (!bypassCache && cached?.revision === revision) archived.set(id, cached);
      else stale.push(id);
    }
    await forEachSlice(stale, SLICE_ENTRIES, async (slice) => {
      for (const [id, incident] of await store.loadIncidents(slice)) archived.set(id, incident);
    });
    const kept = new Map(archived);
    for (const [id, revision] of revisions) {
      const cached = archivedCache.get(id);
      if (!kept.has(id) && cached?.revision === revision) kept.set(id, cached);
    }
    archivedCache = kept;
    return archived;
  }

  async function recordConflictLeftover(
    run: PollRun,
    outcome: PollRun['outcome'],
    applied: StatusEvent[],
    pending: number,
    rejected: RejectedPayload[],
    error: RevisionConflictError,
    lease: HeldLease,
    endedSpell: BlindSpell | undefined,
  ): Promise<PollResult> {
    // Pieces written before the conflict stay written; the rest of the plan is pending (at most:
    // the other writer may have written some of it), and equal bodies must be diffed again.
    // The kept DiffedFeed, if any, names a generation the other writer has moved on from.
    const kept: PollRun = { ...run, outcome, changes: countByType(applied), finishedAt: clock.now(), pendingIncidents: pending };
    logger.warn('the archive kept moving under this poll; the next poll plans the rest again', { run: run.id, pending, error: error.message });
    await store.recordPollRun(kept, rejected, lease.release, endedSpell);
    lease.released = true;
    feedFailures.read(kept);
    return { status: outcome, run: kept, events: applied, unchanged: false };
  }

  async function recordWriteFailure(run: PollRun, applied: StatusEvent[], rejected: RejectedPayload[], error: unknown, lease: HeldLease): Promise<PollResult> {
    // Pieces written before the failure stay written: the run says what they changed.
    const failed: PollRun = {
      ...run,
      outcome: 'failed',
      changes: countByType(applied),
      finishedAt: clock.now(),
      error: `could not write the archive: ${error instanceof Error ? error.message : String(error)}`,
    };
    logger.error('poll failed', { run: run.id, error: failed.error });
    try {
      await store.recordPollRun(failed, rejected, lease.release);
      lease.released = true;
    } catch (recordError) {
      logger.error('could not record the failed poll either', { run: run.id, error: String(recordError) });
    }
    return { status: 'failed', run: failed, events: applied, unchanged: false };
  }

  /** Takes the poll lease with the poll's first reads (null: another poll holds it). */
  async function openPoll(now: number): Promise<PollOpening | null> {
    const claim = { name: POLL_LEASE, holder: deps.instanceId, now, ttlMs: leaseTtlMs };
    const opening = await store.openPoll(claim);
    if (opening.acquired) return opening;
    const holder = await store.leaseHolder(POLL_LEASE);
    if (!holder || !deps.isLeaseHolderGone?.(holder)) return null;
    logger.warn('taking over the poll lease of a process that is gone', { holder });
    if (!(await store.takeOverLease(POLL_LEASE, holder, deps.instanceId, now, leaseTtlMs))) return null;
    // Ours now: opening again renews it and reads what the poll needs, as the holder's own.
    const renewed = await store.openPoll(claim);
    return renewed.acquired ? renewed : null;
  }

  /**
   * True when some body was read, every body read equals what the last full diff saw (by any
   * poller) and no process has written the main feed's incidents since: then the diff would find
   * nothing. Another process's write (and a feed that went back to what was seen before it) must
   * be diffed, hence the check of the main feed's generation; a source's writes leave it.
   */
  function unchangedSinceLastDiff(good: SourceRead[], { generation, diffed }: LastDiff, now: number): boolean {
    if (good.length === 0 || !diffed || now - lastRefreshOf(diffed) >= LAST_SEEN_PRECISION_MS || generation !== diffed.generation) return false;
    return good.every((r) => diffed.sources.some((s) => s.source === r.source && s.sha256 === r.sha256));
  }

  async function pollLeased(): Promise<PollResult> {
    const startedAt = clock.now();
    const opening = await openPoll(startedAt);
    if (!opening) {
      logger.info('poll skipped: another poll holds the lease');
      return { status: 'skipped', reason: 'another poll is running' };
    }
    const lease: HeldLease = { release: { name: POLL_LEASE, holder: deps.instanceId }, released: false };
    let result: PollResult;
    try {
      result = await pollLocked(startedAt, opening, lease);
    } finally {
      if (!lease.released) await store.releaseLease(POLL_LEASE, deps.instanceId);
    }
    if (lease.recording) finishInBackground(lease.recording, result);
    // News (not a backfill's history) wrote outbox rows with its events: it goes out within the
    // poll's second, not at the runtime's next check.
    if (result.status !== 'skipped' && result.events.some((e) => !e.backfill)) deps.outbox?.outboxChanged();
    return result;
  }

  /** The record of a poll that already answered, still being written (PollerDeps.keepAlive). */
  let finishing: Promise<void> | null = null;

  function finishInBackground(recording: Promise<void>, result: PollResult): void {
    const runId = result.status === 'skipped' ? '' : result.run.id;
    const tail = recording.catch(async (error: unknown) => {
      // The run is lost, as it would be had the poll waited for it; the lease must not stay held.
      logger.error('could not record the poll run', { run: runId, error: String(error) });
      try {
        await store.releaseLease(POLL_LEASE, deps.instanceId);
      } catch (releaseError) {
        logger.error('could not give the poll lease back; it frees itself when it expires', { error: String(releaseError) });
      }
    });
    const settled: Promise<void> = tail.finally(() => {
      if (finishing === settled) finishing = null;
    });
    finishing = settled;
    deps.keepAlive!(settled);
  }

  let running: Promise<PollResult> | null = null;
  return {
    pollOnce() {
      if (running) {
        logger.debug('poll requested while one runs: answering with that poll');
        return running;
      }
      // A poll that answered while its record is still written is over for its callers: the next
      // one is a poll of its own, begun once that record (and the lease's release with it) is in.
      running = (finishing ? finishing.then(pollLeased) : pollLeased())
        .then((result) => {
          deps.onResult?.(result);
          return result;
        })
        .finally(() => {
          running = null;
        });
      return running;
    },
  };
}

/** What a full diff of these bodies read, for the archive to keep. */
function diffedFeedOf(good: readonly SourceRead[], atMs: number): Omit<DiffedFeed, 'generation'> {
  return {
    atMs,
    sources: good.map((r) => ({ source: r.source, sha256: r.sha256!, incidents: r.document!.incidents.length, skipped: r.document!.problems.length })),
  };
}

function countByType(events: readonly StatusEvent[]): PollRun['changes'] {
  const counts: PollRun['changes'] = {};
  for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return counts;
}
