/** The read side of the archive: what the HTTP API, the pages and the vendor mirror ask. */
import type { DataCoverage } from '../coverage.ts';
import type { ArchivedIncident } from '../diff.ts';
import type { EventType, StatusEvent } from '../events.ts';
import type { Note } from '../incident.ts';
import type { VendorIncidentJson } from '../vendor-format.ts';
import type { PollRun, RecordedRejection } from './archive-writes.ts';

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
  /** Only the incidents of this source: a source's id, or "main" for the main feed. */
  source?: string;
};

/** Position after which the next page starts: the archive's sort key (newest first by date_created). */
export type IncidentPosition = { sortKey: number };

/** A note as lists show it: with its plain text, stored when the note was written. */
export type ListedNote = Note & { text: string };

/** An incident in a list: everything but the notes, of which only the count and the latest. */
export type ListedIncident = Omit<StoredIncident, 'notes'> & { sortKey: number; noteCount: number; latestNote: ListedNote | null };

/**
 * An incident as `GET /api/incidents` lists it, as JSON text: the fields of the API's single
 * incident, in its order, with `note_count` and `latest_note` (or null) in place of `notes`.
 */
export type ListedIncidentJson = { sortKey: number; json: string };

/**
 * An incident as `GET /api/incidents/:id` shows it, as JSON text: the listed incident's fields, in
 * its order, with `notes` (every note, oldest first) in place of `latest_note`.
 */
export type IncidentJson = { json: string };

export type IncidentVersion = { revision: number; recordedAt: number; pollRunId: string | null; incident: VendorIncidentJson };

export type EventFilter = {
  types?: EventType[];
  incidentId?: string;
  includeBackfill?: boolean;
  /** Only events statuswatch detected at or after this instant, epoch ms. */
  detectedSinceMs?: number;
  /** Only the events of this source's incidents: a source's id, or "main" for the main feed. */
  source?: string;
};

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
   * stamped with date_created itself (in all of the vendor's 2026 data), so it is the announcement, not an
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

/**
 * How many incidents a filter matches, counted up to a bound: `exact` false means at least `count`
 * (the count stopped at its bound, or a search's words matched more incidents than one request
 * examines, SEARCH_LIMITS.maxMatchesExamined).
 */
export type IncidentCount = { count: number; exact: boolean };

/** The read side of the archive, for the HTTP API and the vendor mirror. */
export interface ArchiveQueries {
  listIncidents(filter: IncidentFilter, after: IncidentPosition | null, limit: number): Promise<ListedIncident[]>;
  /**
   * The same page with each incident as the API lists it, as JSON text built by the store: a page
   * of 1,000 needs no objects made and serialised.
   */
  listIncidentsJson(filter: IncidentFilter, after: IncidentPosition | null, limit: number): Promise<ListedIncidentJson[]>;
  /** Every incident `filter` matches, on every page, counting at most `max` of them. */
  countIncidents(filter: IncidentFilter, max: number): Promise<IncidentCount>;
  /** Newest date_updated first (then newest created): what a feed of the latest changes shows. */
  recentlyUpdated(filter: Pick<IncidentFilter, 'services' | 'source'>, limit: number): Promise<ListedIncident[]>;
  getIncident(id: string): Promise<StoredIncident | null>;
  /** The same incident as the API shows it on its own, as JSON text built by the store. */
  getIncidentJson(id: string): Promise<IncidentJson | null>;
  /** Every stored version of an incident, oldest first: the whole incident as the feed showed it. */
  listVersions(incidentId: string, limit: number): Promise<IncidentVersion[]>;
  listEvents(filter: EventFilter, afterSeq: number, limit: number): Promise<StoredEvent[]>;
  /** Incidents still going on (any status that is not finished); of one source alone when named ("main": the main feed). */
  ongoingIncidents(source?: string): Promise<StoredIncident[]>;
  /** The main feed's incidents updated at or after `sinceMs`, newest update first (the vendor mirror's: no other source's). */
  incidentsUpdatedSince(sinceMs: number, limit: number): Promise<StoredIncident[]>;
  /** The main feed's newest incident by date_created (the vendor mirror's: no other source's). */
  latestCreatedIncident(): Promise<StoredIncident | null>;
  /**
   * Every service name an archived incident names, in code-unit order, at most `limit` of them;
   * of one source's incidents alone when named ("main": the main feed's, the vendor's own names).
   */
  knownServices(limit: number, source?: string): Promise<string[]>;
  /** One source's incidents (`main`: the vendor's own) going on at any time since `sinceMs`: not resolved before it (ongoing included). */
  incidentSpans(sinceMs: number, source: string): Promise<IncidentSpan[]>;
  /** When the archive began and the blind episodes that ended at or after `sinceMs` or go on (coverage.ts). */
  dataCoverage(sinceMs: number): Promise<DataCoverage>;
  feedHealth(): Promise<FeedHealth>;
  listPollRuns(beforeStartedAt: number | null, limit: number): Promise<PollRun[]>;
  /** One poll run and the payloads it kept because they were not a feed. */
  getPollRun(id: string): Promise<{ run: PollRun; rejected: RecordedRejection[] } | null>;
  /**
   * A value that lives with the archive, made on first use and the same for every process after:
   * random secrets (the cursor signing key), and on Workers the time polling began.
   */
  secret(name: string, generate: () => string): Promise<string>;
}
