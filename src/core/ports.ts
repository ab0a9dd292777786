/** The interfaces the core and the use cases need from the outside world; adapters implement them. */
import type { ArchivedIncident, PollPlan } from './diff.ts';
import type { EventType, StatusEvent } from './events.ts';
import type { PlannedDelivery } from './fanout.ts';
import type { Note } from './incident.ts';
import type { FeedSource } from './observe.ts';
import type { VendorIncidentJson } from './vendor-format.ts';
import type { StoredToken, TokenRecord } from './confirmation-token.ts';
import type { GuessDecision, GuessLimit } from './guess-throttle.ts';
import type { LimitDecision, LimitRule } from './rate-limit.ts';
import type { Channel, Subscription, SubscriptionStatus } from './subscription.ts';

export interface Clock {
  now(): number;
}

/**
 * Told that the outbox gained work that may be due now: a poll wrote deliveries, an admin replayed
 * some, a paused subscription was resumed. The runtime decides when the next round of
 * `deliverDue` (app/due-deliveries.ts) runs: on Node a timer is moved forward
 * (adapters/node-delivery-scheduler.ts); on Workers this will send one Queue message whose consumer
 * calls the same `deliverDue`. A hint only, never awaited: the outbox rows are already committed,
 * and a runtime that misses it still finds them at its next check.
 */
export interface OutboxSignal {
  outboxChanged(): void;
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A body read from the vendor (a 304 comes back as the cached body with notModified set). */
export type FeedResponse = {
  url: string;
  status: number;
  body: string;
  bytes: number;
  durationMs: number;
  notModified: boolean;
};

export interface FeedClient {
  /** GETs `path` below the status host. Throws FeedFetchError (core/errors.ts) on any failure. */
  get(path: string): Promise<FeedResponse>;
}

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
};

/**
 * The write side of the archive. `applyPoll` is one atomic step (a transaction, or a D1 batch)
 * that writes what the poller planned and decides nothing; a large poll calls it once per piece
 * of its plan with the same run, which each call records anew (the last call's run is what the
 * poll did).
 */
export interface PollStore {
  loadIncidents(ids: readonly string[]): Promise<Map<string, ArchivedIncident>>;
  /** Just the current revision of each id that is archived: a cheap check of a cached copy. */
  loadRevisions(ids: readonly string[]): Promise<Map<string, number>>;
  isSeeded(): Promise<boolean>;
  /** The subscriptions a poll's deliveries are planned for (status active). */
  activeSubscriptions(): Promise<readonly Subscription[]>;
  /**
   * Throws RevisionConflictError when an incident moved past the plan's base revision: nothing of
   * the piece is written, and the poll plans again. Deliveries for a subscription no longer
   * active when the piece is written are left out. Returns
   * the archive generation after the poll (see `archiveGeneration`).
   */
  applyPoll(input: ApplyPollInput): Promise<number>;
  /** A number that changes whenever any incident row is written (last_seen_at included), by any process. */
  archiveGeneration(): Promise<number>;
  /** A poll that applied nothing: a failure, or a feed unchanged since the last one. */
  recordPollRun(run: PollRun, rejected: readonly RejectedPayload[]): Promise<void>;
  /** A named lease across processes sharing the database; true when `holder` now holds it. */
  tryAcquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Who holds the lease now, if anyone (expired or not). */
  leaseHolder(name: string): Promise<string | null>;
  /** Takes the lease from `previous` (known to be dead); true when it was still theirs. */
  takeOverLease(name: string, previous: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
}

export type StoredIncident = ArchivedIncident & {
  firstSeenAt: number;
  lastSeenAt: number;
  resolvedAt: number | null;
};

export type IncidentFilter = {
  services?: string[];
  types?: string[];
  statuses?: string[];
  /** On date_created, epoch ms, inclusive. */
  sinceMs?: number;
  /** On date_created, epoch ms, exclusive. */
  untilMs?: number;
  /** Words to find in titles and note bodies. */
  q?: string;
};

/** Position after which the next page starts: the archive's sort key (newest first by date_created). */
export type IncidentPosition = { sortKey: number };

/** A note as lists show it: with its plain text, stored when the note was written. */
export type ListedNote = Note & { text: string };

/** An incident in a list: everything but the notes, of which only the count and the latest. */
export type ListedIncident = Omit<StoredIncident, 'notes'> & { sortKey: number; noteCount: number; latestNote: ListedNote | null };

export type IncidentVersion = { revision: number; recordedAt: number; pollRunId: string | null; incident: VendorIncidentJson };

export type EventFilter = { types?: EventType[]; incidentId?: string; includeBackfill?: boolean };

export type StoredEvent = StatusEvent & { seq: number; pollRunId: string | null };

/**
 * An incident as the track record and the daily bars read it: when it went on, and when we and
 * the vendor's notes caught up with it. Instants are epoch ms.
 */
export type IncidentSpan = {
  id: string;
  title: string;
  type: string;
  status: string;
  services: string[];
  /** The vendor's date_created: when it says the incident began. */
  createdAt: number;
  /** Null while it goes on. */
  resolvedAt: number | null;
  firstSeenAt: number;
  /**
   * The vendor's first update: its earliest note dated after date_created. The opening note is
   * stamped with date_created itself (all 2026 data, FACTS.md), so it is the announcement, not an
   * update. Null when no later note exists.
   */
  firstNoteAt: number | null;
  /** First archived while seeding the archive: firstSeenAt is when we started, not a detection. */
  backfill: boolean;
};

export type FeedHealth = {
  lastRun: PollRun | null;
  lastSuccessAt: number | null;
  consecutiveFailures: number;
};

/** The read side of the archive, for the HTTP API and the vendor mirror. */
export interface ArchiveQueries {
  listIncidents(filter: IncidentFilter, after: IncidentPosition | null, limit: number): Promise<ListedIncident[]>;
  /** Newest date_updated first (then newest created): what a feed of the latest changes shows. */
  recentlyUpdated(filter: Pick<IncidentFilter, 'services'>, limit: number): Promise<ListedIncident[]>;
  getIncident(id: string): Promise<StoredIncident | null>;
  /** Every stored version of an incident, oldest first: the whole incident as the feed showed it. */
  listVersions(incidentId: string, limit: number): Promise<IncidentVersion[]>;
  listEvents(filter: EventFilter, afterSeq: number, limit: number): Promise<StoredEvent[]>;
  /** Incidents still going on (any status that is not finished). */
  ongoingIncidents(): Promise<StoredIncident[]>;
  /** Incidents updated at or after `sinceMs`, newest update first. */
  incidentsUpdatedSince(sinceMs: number, limit: number): Promise<StoredIncident[]>;
  latestCreatedIncident(): Promise<StoredIncident | null>;
  /** Every service name an archived incident names, in code-unit order, at most `limit` of them. */
  knownServices(limit: number): Promise<string[]>;
  /** Incidents going on at any time since `sinceMs`: not resolved before it (ongoing included). */
  incidentSpans(sinceMs: number): Promise<IncidentSpan[]>;
  feedHealth(): Promise<FeedHealth>;
  listPollRuns(beforeStartedAt: number | null, limit: number): Promise<PollRun[]>;
  /** One poll run and the payloads it kept because they were not a feed. */
  getPollRun(id: string): Promise<{ run: PollRun; rejected: RecordedRejection[] } | null>;
  /** A random secret that lives with the archive (e.g. the cursor signing key), made on first use. */
  secret(name: string, generate: () => string): Promise<string>;
}

export type Store = PollStore & ArchiveQueries & NotificationStore & AdminAccessStore & RetentionStore;

/** An admin session as stored: never its id (only a hash) nor the token (only a fingerprint). */
export type AdminSessionRecord = { idHash: string; tokenFingerprint: string; createdAt: number; expiresAt: number };

/** Admin sessions and the throttle of admin-token guesses. */
export interface AdminAccessStore {
  /**
   * Saves a new session; on the way drops expired sessions, sessions made with another token, and
   * all but the newest `maxLive`, so the table stays small whoever signs in how often.
   */
  createAdminSession(session: AdminSessionRecord, maxLive: number): Promise<void>;
  /**
   * The live session with this id hash made with this token fingerprint, marked seen at `now`;
   * null otherwise. Sessions made with any other token are deleted first: a new ADMIN_TOKEN ends them.
   */
  touchAdminSession(idHash: string, tokenFingerprint: string, now: number): Promise<AdminSessionRecord | null>;
  deleteAdminSession(idHash: string): Promise<void>;
  /** Decides one guess of the admin token against the logs of `limits` and writes the decision, atomically. */
  throttleGuess(limits: readonly GuessLimit[], wrong: boolean, now: number): Promise<GuessDecision>;
}

/**
 * Deletes what retention no longer keeps (core/retention.ts has the rules). Each call removes at
 * most `limit` rows in one atomic step (a fixed list of statements: one transaction, or one D1
 * batch) and returns how many went; the caller repeats while a call comes back full.
 */
export interface RetentionStore {
  /** Poll runs started before `beforeMs` and their rejection records; never the newest run nor the newest ok/partial one. */
  prunePollRuns(beforeMs: number, limit: number): Promise<number>;
  /** Rejected bodies last seen before `beforeMs`, then the least recently seen beyond `maxBytes` in total (the newest stays). */
  pruneRejectedBodies(beforeMs: number, maxBytes: number, limit: number): Promise<number>;
  /** Pending (unconfirmed) subscriptions created before `createdBeforeMs` with no link valid at `now`. */
  prunePendingSignups(createdBeforeMs: number, now: number, limit: number): Promise<number>;
  /** Link tokens that expired before `expiredBeforeMs`. */
  pruneLinkTokens(expiredBeforeMs: number, limit: number): Promise<number>;
  /** Rate-limit logs whose window ended at or before `expiredByMs`. */
  pruneRateLimits(expiredByMs: number, limit: number): Promise<number>;
}


/** A rendered email addressed to one recipient: what a Mailer sends. */
export type OutgoingMail = { to: string; subject: string; text: string; html: string; headers: Record<string, string> };

/**
 * How a send ended. `recipient_rejected` is permanent for that address (the caller suppresses
 * it); `message_rejected` is permanent for this message only (a 5xx at MAIL FROM or DATA);
 * `temporary` (4xx) and `connection` (refused, timed out, TLS or login failed) may succeed later.
 */
export type MailResult =
  | { ok: true; response: string; messageId: string }
  | {
      ok: false;
      kind: 'temporary' | 'recipient_rejected' | 'message_rejected' | 'connection';
      code: number | null;
      response: string;
      retryable: boolean;
    };

export interface Mailer {
  send(mail: OutgoingMail): Promise<MailResult>;
  close(): void;
}

export type WebhookRequest = { url: string; headers: Record<string, string>; body: string };

/** One webhook delivery attempt as the log keeps it. */
export type WebhookAttempt = {
  /** A 2xx answer, and only that. */
  ok: boolean;
  /** Null when no answer came (refused target, network failure, timeout before the headers). */
  status: number | null;
  durationMs: number;
  /** The first KB of the answer, as text. */
  responseExcerpt: string;
  /** From Retry-After (delay in seconds, or an HTTP-date), whatever the status. */
  retryAfterMs: number | null;
  error: string | null;
  /** The receiver answered 410 Gone: the subscription should be paused. */
  gone: boolean;
  /** A failure that retrying cannot fix: a refused target, a 410, an invalid URL. */
  permanent: boolean;
};

export interface WebhookSender {
  /** Never throws for network or target problems: they come back as an attempt with `error`. */
  send(request: WebhookRequest): Promise<WebhookAttempt>;
  /** Closes pooled connections; the sender is unusable afterwards. */
  close(): Promise<void>;
}

/** A subscription as the store keeps it: the core's Subscription plus its bookkeeping. */
export type StoredSubscription = Subscription & {
  origin: 'admin' | 'public';
  pausedReason: string | null;
  /** Sealed (secret-box.ts) signing secrets of a webhook: the current one, and during a rotation the previous one. */
  secretSealed: string | null;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  failingSince: number | null;
  lastSuccessAt: number | null;
  createdAt: number;
  updatedAt: number;
};

export type SubscriptionPatch = Partial<
  Pick<StoredSubscription, 'target' | 'filters' | 'timeZone' | 'status' | 'pausedReason' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil' | 'failingSince'>
>;

export type SubscriptionFilter = { status?: SubscriptionStatus; channel?: Channel };

export type DeliveryState = 'pending' | 'done' | 'dead';

export type Delivery = {
  id: number;
  key: string;
  subscriptionId: string;
  channel: Channel;
  eventIds: string[];
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
  lastError: string | null;
};

export type DeliveryAttemptRecord = {
  attemptedAt: number;
  ok: boolean;
  status: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string | null;
};

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = { delivery: Delivery; subscription: StoredSubscription; events: StatusEvent[] };

/** How an attempt ends a delivery's turn: confirmed, tried again later, or given up. */
export type DeliveryOutcome = { kind: 'done' } | { kind: 'retry'; at: number; error: string } | { kind: 'dead'; reason: string };

/** What an attempt does to its subscription's health. */
export type SubscriptionHealthChange =
  | { kind: 'succeeded' }
  | { kind: 'failed' }
  | { kind: 'paused'; reason: string };

export type AttemptToRecord = {
  deliveryId: number;
  attempt: DeliveryAttemptRecord;
  outcome: DeliveryOutcome;
  health: SubscriptionHealthChange;
};

export type DeliveryFilter = { subscriptionId?: string; state?: DeliveryState; sinceMs?: number };

export type DeliveryCounts = Record<DeliveryState, number> & { due: number; oldestPendingAt: number | null };

/** Subscriptions, the outbox, its attempts, email link tokens and rate limits. */
export interface NotificationStore {
  createSubscription(subscription: StoredSubscription): Promise<void>;
  getSubscription(id: string): Promise<StoredSubscription | null>;
  /** Oldest first, after the subscription with id `afterId`. */
  listSubscriptions(filter: SubscriptionFilter, afterId: string | null, limit: number): Promise<StoredSubscription[]>;
  findSubscription(channel: Channel, target: string): Promise<StoredSubscription | null>;
  updateSubscription(id: string, patch: SubscriptionPatch, now: number): Promise<StoredSubscription | null>;
  /** Deletes it, its link tokens, and its deliveries not yet sent. */
  deleteSubscription(id: string): Promise<boolean>;

  /** Claims up to `limit` due pending deliveries for `holder` until `now + leaseMs`, oldest due first. */
  claimDueDeliveries(holder: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records attempts and their outcomes in one step, each only while `holder` still holds its
   * claim (false for that one otherwise: another deliverer took it over, and its result wins).
   */
  recordAttempts(holder: string, attempts: readonly AttemptToRecord[]): Promise<boolean[]>;
  /** Holders with live claims: a deliverer checks whether they are still running. */
  claimHolders(): Promise<string[]>;
  /** Frees the claims of a holder known to be dead, so their deliveries go out now. */
  releaseClaims(holder: string): Promise<number>;
  /** When the next pending delivery of an active subscription is due (what a claim could take), if any. */
  nextDueAt(): Promise<number | null>;
  /** Newest first, before the delivery with id `beforeId`. */
  listDeliveries(filter: DeliveryFilter, beforeId: number | null, limit: number): Promise<Delivery[]>;
  getDelivery(id: number): Promise<{ delivery: Delivery; attempts: DeliveryAttemptRecord[] } | null>;
  /** Sends a delivery again, whatever its state (same webhook-id); false when there is no such delivery. */
  replayDelivery(id: number, now: number): Promise<boolean>;
  /** Replays every delivery created at or after `sinceMs` (optionally of one subscription, or one state); returns the count. */
  replayDeliveriesSince(sinceMs: number, filter: Omit<DeliveryFilter, 'sinceMs'>, now: number): Promise<number>;
  deliveryCounts(now: number): Promise<DeliveryCounts>;

  saveToken(record: TokenRecord & { subscriptionId: string }): Promise<void>;
  findToken(hash: string): Promise<(StoredToken & { subscriptionId: string }) | null>;
  markTokenUsed(hash: string, now: number): Promise<void>;
  /**
   * Applies one hit to a limiter log atomically (across processes); the decision says whether it
   * was allowed. With `peek`, only says whether a hit would be, recording nothing.
   */
  hitRateLimit(key: string, rule: LimitRule, now: number, options?: { peek?: boolean }): Promise<LimitDecision>;
}
