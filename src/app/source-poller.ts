/**
 * Polls one source (a page in the Statuspage format) into the archive, beside the main feed: one
 * poll at a time per source (its own lease), a conditional GET of the summary, then the incidents
 * and the maintenances lists only when the summary says they may hold news. What was seen is
 * diffed against the archive and written through the main poller's write path (the pure diff,
 * then applyPoll), so every version is kept, no event is made twice, and an incident that leaves
 * the page without being resolved stays as the archive knows it. A component whose state changed
 * since the last good read is a `component.status_changed` event, written with the new states in
 * the poll's last step (component-events.ts). Its events' deliveries are
 * planned as the main feed's are (planDeliveries) and written in the same transactions, so none is
 * lost or sent twice; only subscriptions that chose the source receive them. Blindness is per
 * source: the admin is told once per episode.
 */
import { blindSpellEndedBy } from '../core/coverage.ts';
import { findChanges, planChanges, splitPlan, DEFAULT_MAX_INCIDENT_WRITES_PER_POLL } from '../core/diff.ts';
import { FeedFetchError, SourceGoneError } from '../core/errors.ts';
import type { StatusEvent } from '../core/events.ts';
import { planDeliveries } from '../core/fanout.ts';
import { STALE_AFTER_MS } from '../core/knowledge.ts';
import type {
  ArchiveQueries,
  ArchiveWrites,
  Clock,
  EndpointValidators,
  Leases,
  Logger,
  OutboxSignal,
  PageRead,
  PageReader,
  PollRun,
  SourcePollState,
  SourceStore,
  StoredSource,
  SubscriptionStore,
} from '../core/ports.ts';
import {
  componentChanges,
  componentDirectory,
  componentStates,
  observedIncidents,
  sourceLeaseName,
  toSourceIncident,
  type ComponentChange,
  type PageReading,
} from '../core/statuspage/mapping.ts';
import { componentEvents } from '../core/statuspage/component-events.ts';
import { NotStatuspageError, parseIncidents, parseMaintenances, parseSummary } from '../core/statuspage/schema.ts';
import { forEachAtMost } from './concurrency.ts';
import { createKeptRefreshes, LAST_SEEN_PRECISION_MS, lastSeenRefresh } from './last-seen.ts';
import { APPLY_PIECE_INCIDENTS, POLL_LEASE_TTL_MS } from './poller.ts';
import { SUMMARY_PATH } from './sources.ts';

export const INCIDENTS_PATH = '/api/v2/incidents.json';
export const MAINTENANCES_PATH = '/api/v2/scheduled-maintenances.json';

/**
 * Whether the summary's body has the key at all. Pages compatible with the format without
 * maintenances leave it out; then only the list itself says what is scheduled. Inside a JSON
 * string the quotes would be escaped, so body text never matches.
 */
const MAINTENANCES_KEY = /"scheduled_maintenances"\s*:/;

/** One endpoint read in a poll: what came, or why nothing did. */
export type SourceEndpointReport = { path: string; durationMs: number; notModified?: boolean; bytes?: number; error?: string };

export type SourcePollResult =
  | { sourceId: string; status: 'skipped'; reason: 'another poll is running' | 'no such source' | 'polled since asked' }
  | {
      sourceId: string;
      status: 'ok' | 'failed';
      /** True when the summary was not modified: nothing else was read. */
      unchanged: boolean;
      events: StatusEvent[];
      componentChanges: ComponentChange[];
      /** Changed incidents left for the next polls (more than the poll's budget changed). */
      pendingIncidents: number;
      reads: SourceEndpointReport[];
      error?: string;
    };

export type SourcePollerDeps = {
  store: Pick<SourceStore, 'openSourcePoll' | 'listSources' | 'savePollState' | 'componentStates'> &
    Pick<ArchiveWrites, 'loadIncidents' | 'applyPoll'> &
    Pick<ArchiveQueries, 'ongoingIncidents'> &
    Pick<Leases, 'releaseLease'> &
    Pick<SubscriptionStore, 'activeSubscriptions'>;
  reader: PageReader;
  clock: Clock;
  logger: Logger;
  /** Names this process in the source's lease. */
  instanceId: string;
  newId: () => string;
  /** POLL_MAX_INCIDENT_CHANGES: changed incidents one poll of a source writes. */
  maxIncidentWrites?: number;
  leaseTtlMs?: number;
  /** Tells the admin a source went blind (admin-notice.ts), once per episode. */
  tellBlind?: (source: StoredSource, blindSince: number, error: string) => Promise<void>;
  /** Sources polled at once by `pollAll`; SOURCE_POLLS_AT_ONCE by default. */
  pollsAtOnce?: number;
  /** Told when a poll wrote news (and so outbox rows); absent where nothing delivers (tests). */
  outbox?: OutboxSignal;
};

/**
 * Sources polled at once. A page that answers slowly holds its place for at most its three reads'
 * time limits; the others go on in the remaining places, and the main feed is polled apart.
 */
export const SOURCE_POLLS_AT_ONCE = 8;

export type SourcePoller = {
  /**
   * Polls the source now, unless another poll of it holds its lease. `unlessPolledSince`: not when
   * a poll of it began at or after that instant (a poll asked for twice is done once).
   */
  pollSource(sourceId: string, options?: { unlessPolledSince?: number }): Promise<SourcePollResult>;
  /**
   * Polls every source, each on its own (a few at a time): one that fails, even on the archive,
   * is that source's failed result, never the others'. Results in the order of the sources.
   * `atMost`: only that many, those whose last poll is oldest first (never polled before all), so
   * a runtime with a budget per invocation polls every source in turn.
   */
  pollAll(options?: { atMost?: number }): Promise<SourcePollResult[]>;
};

/** Why a source could not be read this time: the page's failure, as its state records it. */
class SourceReadFailure extends Error {}

/** The poll's hold on its source's lease: given back with the poll state (its last write), or on its own if that never came. */
type HeldSourceLease = { released: boolean };

export function createSourcePoller(deps: SourcePollerDeps): SourcePoller {
  const { store, clock, logger } = deps;
  const leaseTtlMs = deps.leaseTtlMs ?? POLL_LEASE_TTL_MS;
  const maxIncidentWrites = deps.maxIncidentWrites ?? DEFAULT_MAX_INCIDENT_WRITES_PER_POLL;
  // Each source's last last-seen refresh: a diff soon after it, of incidents it covered, skips
  // it, by the main feed's rule (last-seen.ts).
  const refreshes = createKeptRefreshes();

  /**
   * Reads one endpoint, conditionally unless `full`; a failure is recorded in `reads` and thrown
   * as the poll's.
   */
  async function read(source: StoredSource, path: string, reads: SourceEndpointReport[], full: boolean): Promise<PageRead> {
    const started = clock.now();
    try {
      const answer = await deps.reader.read(source.url, path, full ? null : (source.poll.validators[path] ?? null));
      reads.push({ path, durationMs: answer.durationMs, notModified: answer.notModified, ...(answer.notModified ? {} : { bytes: answer.bytes }) });
      return answer;
    } catch (error) {
      if (!(error instanceof FeedFetchError)) throw error;
      reads.push({ path, durationMs: clock.now() - started, error: error.message });
      throw new SourceReadFailure(error.message);
    }
  }

  /** Parses a body, turning a body that is not in the format into the poll's failure. */
  function parse<T>(path: string, parser: (text: string) => T, body: string): T {
    try {
      return parser(body);
    } catch (error) {
      if (error instanceof NotStatuspageError) throw new SourceReadFailure(`${path}: ${error.message}`);
      throw error;
    }
  }

  async function pollLocked(source: StoredSource, startedAt: number, lease: HeldSourceLease): Promise<SourcePollResult> {
    const reads: SourceEndpointReport[] = [];
    const validators: Record<string, EndpointValidators> = { ...source.poll.validators };
    // A page that stays the same answers 304 and is never diffed, so its incidents' last_seen_at
    // would age as long as it does: once its summary was last read in full LAST_SEEN_PRECISION_MS
    // ago (or when, is not known), every endpoint is read in full and the diff refreshes them.
    const lastFullRead = source.poll.validators[SUMMARY_PATH]?.readAt;
    const full = lastFullRead === undefined || startedAt - lastFullRead >= LAST_SEEN_PRECISION_MS;
    const readInFull = (answer: Extract<PageRead, { notModified: false }>): EndpointValidators => ({ ...answer.validators, readAt: startedAt });
    let summaryRead: PageRead;
    try {
      summaryRead = await read(source, SUMMARY_PATH, reads, full);
    } catch (error) {
      if (error instanceof SourceReadFailure) return failed(source, startedAt, reads, error.message, lease);
      throw error;
    }
    if (summaryRead.notModified) {
      await saveState(source, succeeded(source.poll, startedAt, validators), lease);
      return { sourceId: source.id, status: 'ok', unchanged: true, events: [], componentChanges: [], pendingIncidents: 0, reads };
    }
    try {
      const summary = parse(SUMMARY_PATH, parseSummary, summaryRead.body);
      validators[SUMMARY_PATH] = readInFull(summaryRead);
      const directory = componentDirectory(summary.components.items);
      const reading: PageReading = { summary };
      const openArchived = await store.ongoingIncidents(source.id);
      const inSummary = new Set(observedIncidents(source.id, reading, directory).map((i) => i.id));
      // The summary changed, so the full list may hold news (an update, an incident opened and
      // closed within the minute). An open incident gone from the summary was resolved or is
      // no longer shown: only the list can say which.
      const incidentsRead = await read(source, INCIDENTS_PATH, reads, full);
      if (!incidentsRead.notModified) {
        reading.incidents = parse(INCIDENTS_PATH, parseIncidents, incidentsRead.body).incidents.items;
        validators[INCIDENTS_PATH] = readInFull(incidentsRead);
      }
      // The maintenances list only when the summary's maintenances moved, an open one left it,
      // the page leaves them out of its summary, or the list was never read.
      const summaryMaintenances = summary.scheduledMaintenances.items.map((m) => toSourceIncident(source.id, m, 'maintenance', directory));
      const archivedMaintenances = await store.loadIncidents(summaryMaintenances.map((m) => m.id));
      const maintenancesDue =
        !MAINTENANCES_KEY.test(summaryRead.body) ||
        source.poll.validators[MAINTENANCES_PATH] === undefined ||
        findChanges(summaryMaintenances, archivedMaintenances).length > 0 ||
        openArchived.some((i) => i.type === 'maintenance' && !inSummary.has(i.id));
      if (maintenancesDue) {
        const maintenancesRead = await read(source, MAINTENANCES_PATH, reads, full);
        if (!maintenancesRead.notModified) {
          reading.maintenances = parse(MAINTENANCES_PATH, parseMaintenances, maintenancesRead.body).scheduledMaintenances.items;
          validators[MAINTENANCES_PATH] = readInFull(maintenancesRead);
        }
      }

      const observed = observedIncidents(source.id, reading, directory);
      const seenIds = observed.map((i) => i.id);
      const seen = lastSeenRefresh(refreshes.get(source.id), seenIds, startedAt);
      const archived = await store.loadIncidents(seenIds);
      // A source's first good read backfills its history: known from before, not news.
      const plan = planChanges(findChanges(observed, archived), { now: startedAt, backfill: source.poll.lastSuccessAt === null, maxWrites: maxIncidentWrites });
      const run: PollRun = { id: deps.newId(), startedAt, finishedAt: startedAt, outcome: 'ok', sources: [], changes: {} };
      const pieces = splitPlan(plan, APPLY_PIECE_INCIDENTS);
      // The components as the previous good read left them, against this read's: a change of
      // state is an event, written with the new states in the poll's last piece (a crash keeps
      // both or neither). The first good read has nothing to compare with.
      const keptComponents = new Map(source.poll.lastSuccessAt === null ? [] : (await store.componentStates(source.id)).map((c) => [c.id, c]));
      const states = componentStates(summary.components.items);
      const changes = componentChanges(keptComponents, states);
      const flips = componentEvents({ source, kept: keptComponents, read: states, detectedAt: startedAt });
      // As the main poller does: subscriptions are read before the writes, and not at all for a
      // backfill (which causes no deliveries). Which subscriptions want a source's events is the
      // filters' rule (fanout.ts): those that chose the source, never one made before it without it.
      const subscriptions = plan.events.some((e) => !e.backfill) || flips.length > 0 ? await store.activeSubscriptions() : [];
      const applied: StatusEvent[] = [];
      for (const [index, piece] of pieces.entries()) {
        const last = index === pieces.length - 1;
        const events = last ? [...piece.events, ...flips] : piece.events;
        await store.applyPoll({
          run,
          plan: { writes: piece.writes, events },
          deliveries: planDeliveries(events, subscriptions),
          seenIds: last ? seen.ids : [],
          seenBefore: seen.seenBefore,
          rejected: [],
          markSeeded: false,
          recordRun: false,
          source: source.id,
          ...(last ? { components: states } : {}),
        });
        applied.push(...events);
      }
      // Written: the refresh, if this diff made one, covered every incident it saw.
      if (seen.ids.length > 0) refreshes.remember(source.id, seen.refreshedAtMs, seenIds);
      if (flips.length > 0)
        logger.info('source components changed', { source: source.id, changes: flips.map((e) => `${e.data.component.name}: ${e.data.from} -> ${e.data.to}`) });
      if (applied.length > flips.length) logger.info('source poll changed the archive', { source: source.id, events: applied.length - flips.length });

      // With changes left for later, the bodies that hold them must be read in full again.
      const kept = plan.pending > 0 ? source.poll.validators : validators;
      await saveState(source, succeeded(source.poll, startedAt, kept), lease);
      return {
        sourceId: source.id,
        status: 'ok',
        unchanged: false,
        events: applied,
        componentChanges: changes,
        pendingIncidents: plan.pending,
        reads,
      };
    } catch (error) {
      if (error instanceof SourceReadFailure) return failed(source, startedAt, reads, error.message, lease);
      throw error;
    }
  }

  /** The poll's last write: its state, with its lease given back in the same step (one round trip). */
  async function saveState(source: StoredSource, state: SourcePollState, lease: HeldSourceLease): Promise<void> {
    // A good read the staleness limit or more after the last ends a blind spell: saved with the
    // state in one step, so the page's track record counts that time as no data.
    const read = state.lastSuccessAt !== source.poll.lastSuccessAt ? state.lastSuccessAt : null;
    const ended = read === null ? null : blindSpellEndedBy(source.poll.lastSuccessAt ?? source.createdAt, read);
    try {
      await store.savePollState(source.id, state, ended ?? undefined, deps.instanceId);
    } catch (error) {
      // A source gone since still had its lease given back by that step; any other failure wrote nothing.
      if (error instanceof SourceGoneError) lease.released = true;
      throw error;
    }
    lease.released = true;
  }

  /**
   * A failed read: counted, and once the source has gone unread past the staleness limit, the
   * admin is told, once per episode (its start and telling kept with the source).
   */
  async function failed(source: StoredSource, now: number, reads: SourceEndpointReport[], error: string, lease: HeldSourceLease): Promise<SourcePollResult> {
    const previous = source.poll;
    const readSince = previous.lastSuccessAt ?? source.createdAt;
    const state: SourcePollState = {
      ...previous,
      lastFailureAt: now,
      lastError: error,
      consecutiveFailures: previous.consecutiveFailures + 1,
    };
    const blind = now - readSince >= STALE_AFTER_MS;
    if (blind && state.blindSince === null) state.blindSince = readSince;
    logger.warn('source poll failed', { source: source.id, error, consecutiveFailures: state.consecutiveFailures });
    if (blind && state.blindToldAt === null) {
      // Marked told before telling: a mail that fails is logged, never sent twice.
      state.blindToldAt = now;
      await saveState(source, state, lease);
      logger.error('source blind: the page has not been read for the staleness limit', { source: source.id, since: state.blindSince, error });
      try {
        await deps.tellBlind?.(source, state.blindSince ?? readSince, error);
      } catch (tellError) {
        logger.warn('could not tell the admin of the blind source', { source: source.id, error: String(tellError) });
      }
    } else {
      await saveState(source, state, lease);
    }
    return { sourceId: source.id, status: 'failed', unchanged: false, events: [], componentChanges: [], pendingIncidents: 0, reads, error };
  }

  async function pollSource(sourceId: string, options: { unlessPolledSince?: number } = {}): Promise<SourcePollResult> {
    const startedAt = clock.now();
    // The lease and the source's row in one round trip. Read under the lease: a poll that ended
    // just before it was taken left its validators and its last poll time, and this one goes on
    // from them. A source not watched has no lease taken for it.
    const opening = await store.openSourcePoll(sourceId, { holder: deps.instanceId, now: startedAt, ttlMs: leaseTtlMs });
    const source = opening.source;
    if (!source) return { sourceId, status: 'skipped', reason: 'no such source' };
    if (!opening.acquired) {
      logger.info('source poll skipped: another poll holds its lease', { source: sourceId });
      return { sourceId, status: 'skipped', reason: 'another poll is running' };
    }
    const lease: HeldSourceLease = { released: false };
    let result: SourcePollResult;
    try {
      if (options.unlessPolledSince !== undefined && lastPolledAt(source) >= options.unlessPolledSince) {
        return { sourceId, status: 'skipped', reason: 'polled since asked' };
      }
      result = await pollLocked(source, startedAt, lease);
    } catch (error) {
      // Removed (or purging) since it was found: the store wrote nothing of this poll, and every
      // caller (the admin's route, the queue, pollAll) answers as for a source that is not there.
      if (!(error instanceof SourceGoneError)) throw error;
      logger.info('source poll dropped: the source was removed while it was polled', { source: sourceId });
      return { sourceId, status: 'skipped', reason: 'no such source' };
    } finally {
      if (!lease.released) await store.releaseLease(sourceLeaseName(sourceId), deps.instanceId);
    }
    // News wrote outbox rows with its events: it goes out now, not at the runtime's next check.
    if (result.status === 'ok' && result.events.some((e) => !e.backfill)) deps.outbox?.outboxChanged();
    return result;
  }

  return {
    pollSource,
    async pollAll(options = {}) {
      const listed = await store.listSources();
      const sources = options.atMost === undefined ? listed : [...listed].sort((a, b) => lastPolledAt(a) - lastPolledAt(b)).slice(0, options.atMost);
      const results = new Map<string, SourcePollResult>();
      await forEachAtMost(sources, deps.pollsAtOnce ?? SOURCE_POLLS_AT_ONCE, async (source) => {
        try {
          results.set(source.id, await pollSource(source.id));
        } catch (error) {
          // The archive refused this source's writes (disk full, busy): nothing of its poll stands.
          const message = `could not poll: ${error instanceof Error ? error.message : String(error)}`;
          logger.error('source poll failed', { source: source.id, error: message });
          results.set(source.id, {
            sourceId: source.id,
            status: 'failed',
            unchanged: false,
            events: [],
            componentChanges: [],
            pendingIncidents: 0,
            reads: [],
            error: message,
          });
        }
      });
      return sources.flatMap((s) => results.get(s.id) ?? []);
    },
  };
}

/** When the source was last polled, read or not; never polled: before every other. */
function lastPolledAt(source: StoredSource): number {
  return Math.max(source.poll.lastSuccessAt ?? Number.NEGATIVE_INFINITY, source.poll.lastFailureAt ?? Number.NEGATIVE_INFINITY);
}

/** A good read: failures and blindness end, and the validators of what was read are kept. */
function succeeded(previous: SourcePollState, now: number, validators: Record<string, EndpointValidators>): SourcePollState {
  return { ...previous, validators, lastSuccessAt: now, lastError: null, consecutiveFailures: 0, blindSince: null, blindToldAt: null };
}
