/** The interfaces the core and the use cases need from the outside world; adapters implement them. */
import type { ArchivedIncident, PollPlan } from './diff.ts';
import type { EventType, StatusEvent } from './events.ts';
import type { Note } from './incident.ts';
import type { FeedSource } from './observe.ts';
import type { VendorIncidentJson } from './vendor-format.ts';

export interface Clock {
  now(): number;
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
  error?: string;
};

/** A payload that was not a feed at all, kept raw for a human to inspect. */
export type RejectedPayload = { source: FeedSource; url: string; body: string; error: string };

export type ApplyPollInput = {
  run: PollRun;
  plan: PollPlan;
  /** Every incident id the poll saw: their last_seen_at is refreshed if older than `seenBefore`. */
  seenIds: readonly string[];
  seenBefore: number;
  rejected: readonly RejectedPayload[];
  /** Mark the archive seeded: later events are news, not backfill. */
  markSeeded: boolean;
};

/** The write side of the archive. `applyPoll` is one atomic step (a transaction, or a D1 batch). */
export interface PollStore {
  loadIncidents(ids: readonly string[]): Promise<Map<string, ArchivedIncident>>;
  /** Just the current revision of each id that is archived: a cheap check of a cached copy. */
  loadRevisions(ids: readonly string[]): Promise<Map<string, number>>;
  isSeeded(): Promise<boolean>;
  /**
   * Throws RevisionConflictError when an incident moved past the plan's base revision. Returns
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
  feedHealth(): Promise<FeedHealth>;
  listPollRuns(beforeStartedAt: number | null, limit: number): Promise<PollRun[]>;
  /** One poll run and the payloads it kept because they were not a feed. */
  getPollRun(id: string): Promise<{ run: PollRun; rejected: (RejectedPayload & { receivedAt: number })[] } | null>;
  /** A random secret that lives with the archive (e.g. the cursor signing key), made on first use. */
  secret(name: string, generate: () => string): Promise<string>;
}

export type Store = PollStore & ArchiveQueries;


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
