/** The write side of the archive: what the poller reads to plan a poll, and the atomic step that writes the plan. */
import type { ArchivedIncident, PollPlan } from '../diff.ts';
import type { EventType, MonitorEvent } from '../events.ts';
import type { PlannedDelivery } from '../fanout.ts';
import type { ComponentState } from '../statuspage/mapping.ts';
import type { FeedSource } from '../observe.ts';
import type { LeaseClaim, LeaseRelease } from './leases.ts';
import type { BlindSpell } from './sources.ts';

/** What one endpoint gave in one poll, kept with the poll run. */
export type SourceReport = {
  source: FeedSource;
  path: string;
  url?: string;
  httpStatus?: number;
  bytes?: number;
  durationMs: number;
  notModified?: boolean;
  incidents?: number;
  skipped?: number;
  error?: string;
};

export type PollOutcome = 'ok' | 'partial' | 'failed';

export type PollRun = {
  id: string;
  startedAt: number;
  finishedAt: number;
  outcome: PollOutcome;
  sources: SourceReport[];
  /** Count of events per type. */
  changes: Partial<Record<EventType, number>>;
  /**
   * Changed incidents this poll left for the next polls (more than POLL_MAX_INCIDENT_CHANGES
   * changed); absent when none.
   */
  pendingIncidents?: number;
  error?: string;
};

/** A payload that was not a feed at all, kept raw for a human to inspect (once per distinct `sha256`). */
export type RejectedPayload = { source: FeedSource; url: string; body: string; error: string; sha256: string };

/**
 * A rejected payload as a poll run shows it: its body is the one copy kept for every poll that got
 * the same bytes, with how often and when they came; null once retention pruned it.
 */
export type RecordedRejection = Omit<RejectedPayload, 'body'> & {
  receivedAt: number;
  body: { text: string; seenCount: number; firstSeenAt: number; lastSeenAt: number } | null;
};

/**
 * What the last full diff read, kept with the archive so any poller (a Worker makes one per cron
 * invocation) can tell that bodies equal to these would find nothing: per source, the body's
 * SHA-256 and what it held; when it was diffed; and the main feed's generation the diff left.
 */
export type DiffedFeed = {
  atMs: number;
  generation: number;
  sources: { source: FeedSource; sha256: string; incidents: number; skipped: number }[];
  /**
   * Per incident the diff saw: the revision it left archived and a digest of the incident as the
   * feed showed it (IncidentDigests). While an incident's revision is still that one, the same
   * digest means a diff would find nothing, so a changed feed diffs only its changed incidents.
   * Absent when the feed held more incidents than are worth keeping.
   */
  incidents?: IncidentDigests;
  /**
   * When a refresh of last_seen_at last covered every incident kept here (last-seen.ts): a diff
   * soon after it skips the refresh. Absent: unknown, the next diff refreshes.
   */
  seenRefreshedAtMs?: number;
};

/** Incident id to [archived revision, digest of the incident as observed]. */
export type IncidentDigests = Record<string, [number, string]>;

/**
 * The main feed's generation now (it moves whenever one of the main feed's incident rows is
 * written, by any process; a source's writes move only the archive generation), and the
 * DiffedFeed kept by the last poll that diffed in full (null: none).
 */
export type LastDiff = { generation: number; diffed: DiffedFeed | null };

/** What a poll reads before it fetches, read with its lease in one step (`openPoll`). */
export type PollOpening = {
  acquired: boolean;
  lastDiff: LastDiff;
  latestMonitor: MonitorEvent | null;
  seeded: boolean;
  /** When the last poll that read the main feed (ok or partial) began; null: it was never read. */
  lastGoodReadAt: number | null;
  /**
   * The version of the subscriptions list (every write to a subscription moves it): the poll plans
   * its deliveries for the list as it was at this read, without reading it again when the store
   * still holds the list of this version (SubscriptionStore.activeSubscriptions).
   */
  subscriptionsVersion: string;
};

export type ApplyPollInput = {
  run: PollRun;
  plan: PollPlan;
  /** The outbox rows the plan's events cause (fanout.ts planDeliveries), planned by the poller. */
  deliveries: readonly PlannedDelivery[];
  /** Every incident id the poll saw: their last_seen_at is refreshed if older than `seenBefore`. */
  seenIds: readonly string[];
  seenBefore: number;
  rejected: readonly RejectedPayload[];
  /** Mark the archive seeded: later events are news, not backfill. */
  markSeeded: boolean;
  /**
   * Kept as the archive's DiffedFeed, with the generation this piece leaves (a poll's last piece,
   * whose diff left nothing pending); null forgets the one kept; absent leaves it.
   */
  diffedFeed?: Omit<DiffedFeed, 'generation'> | null;
  /** The poll's lease, given back with this piece, its last write. */
  releaseLease?: LeaseRelease;
  /**
   * False for the poll of a source beside the main feed: its state is kept with the source
   * (SourceStore.savePollState), and the run history says how the main feed is read. True by default.
   */
  recordRun?: boolean;
  /**
   * The main feed's blind spell this poll's good read ended (coverage.ts blindSpellEndedBy),
   * written with the run (only where `recordRun`). Written again (a piece, a retry, another
   * process that read the same last good read), it stays one spell.
   */
  endedSpell?: BlindSpell;
  /**
   * The source whose incidents these are (SourceRecord.id); absent for the main feed. Only the
   * main feed's writes move LastDiff's generation.
   */
  source?: string;
  /**
   * The source's components as this read showed them, made its kept states in the same atomic
   * step (SourceStore.saveComponentStates's rule, as of `run.startedAt`): the events of their
   * changes are in this piece, so a crash keeps both or neither. Only with `source`.
   */
  components?: readonly ComponentState[];
};

/**
 * The write side of the archive. `applyPoll` is one atomic step (a transaction, or a D1 batch)
 * that writes what the poller planned and decides nothing; a large poll calls it once per piece
 * of its plan with the same run, which each call records anew (the last call's run is what the
 * poll did).
 */
export interface ArchiveWrites {
  loadIncidents(ids: readonly string[]): Promise<Map<string, ArchivedIncident>>;
  /** Just the current revision of each id that is archived: a cheap check of a cached copy. */
  loadRevisions(ids: readonly string[]): Promise<Map<string, number>>;
  isSeeded(): Promise<boolean>;
  /**
   * Throws RevisionConflictError when an incident moved past the plan's base revision: nothing of
   * the piece is written, and the poll plans again. Throws SourceGoneError, writing nothing, when
   * `source` is removed or purging. Deliveries for a subscription no longer
   * active when the piece is written are left out. Returns
   * the archive generation after the poll (see `archiveGeneration`).
   */
  applyPoll(input: ApplyPollInput): Promise<number>;
  /** A number that changes whenever any incident row is written (last_seen_at included), by any process. */
  archiveGeneration(): Promise<number>;
  lastDiff(): Promise<LastDiff>;
  /**
   * A poll's first step, one round trip: takes the lease as Leases.tryAcquireLease does and, in
   * the same atomic step, reads what every poll reads before it fetches. The reads are answered
   * whether or not the lease was taken; a poller without it must not act on them.
   */
  openPoll(claim: LeaseClaim): Promise<PollOpening>;
  /** The newest `monitor.blind` or `monitor.recovered` event (monitor-episode.ts), if any. */
  latestMonitorEvent(): Promise<MonitorEvent | null>;
  /**
   * A poll that applied nothing: a failure, or a feed unchanged since the last one; with its lease
   * given back in the same step, if named, and the main feed's blind spell its good read ended
   * (as ApplyPollInput's `endedSpell`).
   */
  recordPollRun(run: PollRun, rejected: readonly RejectedPayload[], releaseLease?: LeaseRelease, endedSpell?: BlindSpell): Promise<void>;
}
