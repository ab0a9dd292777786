/**
 * The poll cycle: read the vendor's feed (v2 current and history, v1 when v2 current fails), diff it
 * against the archive, and apply versions and events in one atomic step.
 */
import { sha256Hex } from '../core/content-hash.ts';
import { planPoll, type ArchivedIncident } from '../core/diff.ts';
import { FeedFetchError, RevisionConflictError } from '../core/errors.ts';
import type { StatusEvent } from '../core/events.ts';
import {
  createMemoizedIncidentParser,
  NotAFeedError,
  parseCurrentV1,
  parseCurrentV2,
  parseHistory,
  type FeedDocument,
  type IncidentListParser,
} from '../core/feed-schema.ts';
import { mergeObservations, type FeedSource, type Observation } from '../core/observe.ts';
import type { Clock, FeedClient, Logger, PollRun, PollStore, RejectedPayload, SourceReport } from '../core/ports.ts';

export const FEED_PATHS = {
  'v2/current': '/api/v2.0.0/current',
  'v1/current': '/api/v1.0.0/current',
  'v2/history': '/api/v2.0.0/history',
} as const satisfies Record<FeedSource, string>;

const PARSERS: Record<FeedSource, (json: unknown, parseList: IncidentListParser) => FeedDocument> = {
  'v2/current': parseCurrentV2,
  'v1/current': parseCurrentV1,
  'v2/history': parseHistory,
};

const POLL_LEASE = 'poll';
/** Longer than the worst poll (three reads at their timeout); a crashed holder frees it by then. */
const POLL_LEASE_TTL_MS = 120_000;
/**
 * How fresh last_seen_at is kept. Unchanged bodies skip the diff, but not for longer than this;
 * and a diff rewrites last_seen_at only where it is older, so a change to one incident does not
 * rewrite every other incident in the feed.
 */
export const LAST_SEEN_PRECISION_MS = 10 * 60_000;
const CONFLICT_RETRIES = 3;

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
  newId: () => string;
};

type SourceRead = {
  source: FeedSource;
  report: SourceReport;
  body?: string;
  document?: FeedDocument;
  rejected?: RejectedPayload;
};

export type Poller = { pollOnce(): Promise<PollResult> };

export function createPoller(deps: PollerDeps): Poller {
  const { store, feed, clock, logger } = deps;
  // Bodies of the last poll that was diffed in full. Equal bodies cannot hold a change, so the
  // common minute (nothing happened) costs two fetches and two string comparisons.
  let lastDiffed: { bodies: Map<FeedSource, string>; at: number; generation: number } | null = null;
  // The last body read from each source and its document: most minutes the body is the same
  // (or a 304 hands back the cached one), and it is not parsed again.
  const lastParsed = new Map<FeedSource, { body: string; document: FeedDocument }>();
  // Parsed entries of the previous poll, per source: in a changed body, unchanged incidents skip
  // validation.
  const incidentParsers = new Map<FeedSource, IncidentListParser>();
  // The archived state of the incidents the last poll saw. Trusted only where the archive's
  // revision still matches, so a write by another process is always read back.
  let archivedCache = new Map<string, ArchivedIncident>();

  async function read(source: FeedSource): Promise<SourceRead> {
    const path = FEED_PATHS[source];
    const started = clock.now();
    let response;
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
    try {
      const known = lastParsed.get(source);
      const document = known?.body === response.body ? known.document : parse(source, response.body);
      lastParsed.set(source, { body: response.body, document });
      report.incidents = document.incidents.length;
      if (document.problems.length > 0) report.skipped = document.problems.length;
      return { source, report, body: response.body, document };
    } catch (error) {
      if (!(error instanceof NotAFeedError || error instanceof SyntaxError)) throw error;
      const reason = error instanceof SyntaxError ? `invalid JSON: ${error.message}` : `not a feed: ${error.message}`;
      report.error = reason;
      // Hashed here, once: the store keeps one copy per distinct body however often it comes.
      const sha256 = await sha256Hex(response.body);
      return { source, report, rejected: { source, url: response.url, body: response.body, error: reason, sha256 } };
    }
  }

  /** Throws SyntaxError or NotAFeedError for a body that is not that source's document. */
  function parse(source: FeedSource, body: string): FeedDocument {
    let parseList = incidentParsers.get(source);
    if (!parseList) incidentParsers.set(source, (parseList = createMemoizedIncidentParser()));
    const document = PARSERS[source](JSON.parse(body), parseList);
    // Logged when first seen, not every minute while the vendor keeps serving the same entry.
    if (document.problems.length > 0) logger.warn('skipped malformed incidents', { source, problems: document.problems });
    return document;
  }

  async function readCurrent(): Promise<SourceRead[]> {
    const v2 = await read('v2/current');
    if (v2.document) return [v2];
    logger.warn('v2 current failed, falling back to v1', { error: v2.report.error });
    return [v2, await read('v1/current')];
  }

  async function pollLocked(startedAt: number): Promise<PollResult> {
    const [currentReads, historyRead] = await Promise.all([readCurrent(), read('v2/history')]);
    const reads = [...currentReads, historyRead];
    const good = reads.filter((r) => r.document);
    const rejected = reads.flatMap((r) => (r.rejected ? [r.rejected] : []));
    // ok: v2 current and history both read; partial: something was read (v1 instead of v2 counts).
    const complete = currentReads.length === 1 && currentReads[0]!.document !== undefined && historyRead.document !== undefined;
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

    if (outcome === 'failed' || (await unchangedSinceLastDiff(good, startedAt))) {
      run.finishedAt = clock.now();
      await store.recordPollRun(run, rejected);
      if (outcome === 'failed') logger.error('poll failed', { run: run.id, error: run.error });
      else logger.debug('poll: feed unchanged', { run: run.id });
      return { status: outcome, run, events: [], unchanged: outcome !== 'failed' };
    }

    const observations: Observation[] = good.map((r) => ({ source: r.source, incidents: r.document!.incidents }));
    const observed = mergeObservations(observations);
    const seenIds = observed.map((i) => i.id);
    const historyWasRead = historyRead.document !== undefined;

    for (let attempt = 1; ; attempt++) {
      const seeded = await store.isSeeded();
      const archived = await loadArchived(seenIds, attempt > 1);
      const plan = planPoll({ observed, archived, now: startedAt, backfill: !seeded });
      run.changes = countByType(plan.events);
      run.finishedAt = clock.now();
      let generation: number;
      try {
        generation = await store.applyPoll({
          run,
          plan,
          seenIds,
          seenBefore: startedAt - LAST_SEEN_PRECISION_MS,
          rejected,
          markSeeded: !seeded && historyWasRead,
        });
      } catch (error) {
        if (error instanceof RevisionConflictError && attempt < CONFLICT_RETRIES) {
          logger.warn('archive moved under this poll; planning again', { error: error.message });
          continue;
        }
        // The transaction rolled back (disk full, database busy...): nothing of this poll was
        // kept, so the next poll sees the same changes again. Say so in the run history.
        return recordWriteFailure(run, rejected, error);
      }
      lastDiffed = { bodies: new Map(good.map((r) => [r.source, r.body!])), at: startedAt, generation };
      for (const write of plan.writes) {
        archivedCache.set(write.incident.id, { ...write.incident, revision: write.revision, resolvedAt: write.resolvedAt });
      }
      if (plan.events.length > 0) {
        logger.info('poll changed the archive', {
          run: run.id,
          outcome,
          backfill: !seeded,
          changes: run.changes,
          incidents: [...new Set(plan.events.map((e) => e.incidentId))],
        });
      } else if (outcome === 'partial') {
        logger.warn('poll partial', { run: run.id, sources: run.sources.filter((s) => s.error) });
      }
      return { status: outcome, run, events: plan.events, unchanged: false };
    }
  }

  /** The archive's state of these incidents: cached copies whose revision still holds, the rest read. */
  async function loadArchived(ids: string[], bypassCache: boolean): Promise<Map<string, ArchivedIncident>> {
    const revisions = await store.loadRevisions(ids);
    const archived = new Map<string, ArchivedIncident>();
    const stale: string[] = [];
    for (const [id, revision] of revisions) {
      const cached = archivedCache.get(id);
      if (!bypassCache && cached?.revision === revision) archived.set(id, cached);
      else stale.push(id);
    }
    if (stale.length > 0) for (const [id, incident] of await store.loadIncidents(stale)) archived.set(id, incident);
    archivedCache = new Map(archived);
    return archived;
  }

  async function recordWriteFailure(run: PollRun, rejected: RejectedPayload[], error: unknown): Promise<PollResult> {
    const failed: PollRun = {
      ...run,
      outcome: 'failed',
      changes: {},
      finishedAt: clock.now(),
      error: `could not write the archive: ${error instanceof Error ? error.message : String(error)}`,
    };
    logger.error('poll failed', { run: run.id, error: failed.error });
    try {
      await store.recordPollRun(failed, rejected);
    } catch (recordError) {
      logger.error('could not record the failed poll either', { run: run.id, error: String(recordError) });
    }
    return { status: 'failed', run: failed, events: [], unchanged: false };
  }

  async function acquireLease(now: number): Promise<boolean> {
    if (await store.tryAcquireLease(POLL_LEASE, deps.instanceId, now, POLL_LEASE_TTL_MS)) return true;
    const holder = await store.leaseHolder(POLL_LEASE);
    if (!holder || !deps.isLeaseHolderGone?.(holder)) return false;
    logger.warn('taking over the poll lease of a process that is gone', { holder });
    return store.takeOverLease(POLL_LEASE, holder, deps.instanceId, now, POLL_LEASE_TTL_MS);
  }

  /**
   * True when every body read equals what the last full diff saw and no process has written the
   * archive since: then the diff would find nothing. Another process's write (and a feed that
   * went back to what we saw before it) must be diffed, hence the generation check.
   */
  async function unchangedSinceLastDiff(good: SourceRead[], now: number): Promise<boolean> {
    if (!lastDiffed || now - lastDiffed.at >= LAST_SEEN_PRECISION_MS) return false;
    const previous = lastDiffed.bodies;
    if (!good.every((r) => previous.get(r.source) === r.body)) return false;
    return (await store.archiveGeneration()) === lastDiffed.generation;
  }

  return {
    async pollOnce() {
      const startedAt = clock.now();
      if (!(await acquireLease(startedAt))) {
        logger.info('poll skipped: another poll holds the lease');
        return { status: 'skipped', reason: 'another poll is running' };
      }
      try {
        return await pollLocked(startedAt);
      } finally {
        await store.releaseLease(POLL_LEASE, deps.instanceId);
      }
    },
  };
}

function countByType(events: readonly StatusEvent[]): PollRun['changes'] {
  const counts: PollRun['changes'] = {};
  for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return counts;
}
