/**
 * The sources watched beside the main feed: status pages in the Statuspage format, added and
 * removed by an admin, each with its own poll state and its components' states.
 */
import type { ComponentState } from '../statuspage/mapping.ts';

export type SourceKind = 'statuspage';

/** Per endpoint path ("/api/v2/summary.json"): the validators of its last full answer. */
export type SourceValidators = Record<string, EndpointValidators>;

export type SourceRecord = {
  /** `src_` and letters and digits: never a colon, so `sourceId:vendorId` incident ids split once. */
  id: string;
  kind: SourceKind;
  name: string;
  /** The page's address: https, no trailing slash, no query or fragment. */
  url: string;
  createdAt: number;
};

/** What polling a source has come to so far; all empty until its first poll. */
export type SourcePollState = {
  validators: SourceValidators;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  /** The blindness episode: when it began, and when the admin was told (once per episode). */
  blindSince: number | null;
  blindToldAt: number | null;
};

export type StoredSource = SourceRecord & { poll: SourcePollState };

/**
 * A past stretch the source went unread: from its last good read (or its adding) to the good read
 * that ended it, [since, until) in epoch ms.
 */
export type BlindSpell = { since: number; until: number };

export type StoredComponentState = ComponentState & { updatedAt: number };

/**
 * What adding a source came to: saved, or refused because the cap or the address was reached
 * first, or because a source at that address is still having its archive deleted.
 */
export type AddSourceOutcome = { added: true } | { added: false; reason: 'full' | 'duplicate_url' | 'purging' };

/** What one batch of a source's purge removed, and whether its archive is all gone (the source row with it). */
export type SourcePurgeStep = { removedRows: number; done: boolean };

/** What is left of a purging source's archive, each count at most the cap it was asked with. */
export type SourceArchiveLeft = { incidents: number; events: number };

/** One endpoint's validators, as its last full answer gave them. */
/**
 * `readAt`: when the body these stand for was last read in full (absent: not known). A page that
 * answers 304 is never diffed, so the poller reads it in full again once that is long ago.
 */
export type EndpointValidators = { etag: string | null; lastModified: string | null; readAt?: number };

/** One endpoint's answer to a conditional GET: nothing new since the validators, or a new body with its own. */
export type PageRead =
  | { notModified: true; url: string; durationMs: number }
  | { notModified: false; url: string; body: string; bytes: number; durationMs: number; validators: EndpointValidators };

/** Reads a page's endpoints over HTTP, each read bounded in bytes and time. */
export interface PageReader {
  /** GETs `path` below the page's address, conditional on `validators` when given. Throws FeedFetchError (core/errors.ts). */
  read(baseUrl: string, path: string, validators: EndpointValidators | null): Promise<PageRead>;
}

/** A source's poll lease: held by `holder` until `now + ttlMs` (the lease is named for the source). */
export type SourceLeaseClaim = { holder: string; now: number; ttlMs: number };

/** What a source's poll reads with its lease in one step (`openSourcePoll`): the source's row, null when it is not watched. */
export type SourcePollOpening = { acquired: boolean; source: StoredSource | null };

export interface SourceStore {
  /** Saves a new source unless `maxSources` exist already or one has the same url; decided by the database. */
  addSource(record: SourceRecord, maxSources: number): Promise<AddSourceOutcome>;
  /** Oldest first. */
  listSources(): Promise<StoredSource[]>;
  getSource(id: string): Promise<StoredSource | null>;
  /**
   * A source's poll's first step, one round trip: takes the source's poll lease as
   * Leases.tryAcquireLease does, but only while the source is watched (none is taken, nor its row
   * left, for a source removed or purging), and reads the source's row in the same atomic step,
   * after the lease: what a poll that ended just before left is what this one goes on from. The
   * row is answered whether or not the lease was taken; a poller without it must not act on it.
   */
  openSourcePoll(id: string, claim: SourceLeaseClaim): Promise<SourcePollOpening>;
  /**
   * Deletes the source, its component states and its blind spells, in one step: it is no longer polled. Its
   * incidents and events stay in the archive. False when there was none (or it is purging: its
   * row stays until the purge ends).
   */
  removeSource(id: string): Promise<boolean>;
  /**
   * Marks the source purging as of `now`, in one step with deleting its component states and
   * blind spells (a bounded delete: BLIND_SPELLS_PER_SOURCE at most): from then on it is neither
   * listed nor found, no poll writes to it, and its id and address stay taken until `purgeSourceStep` reports it done. True also when it was purging already; false
   * when there is no such source.
   */
  beginSourcePurge(id: string, now: number): Promise<boolean>;
  /**
   * One bounded step of a purge (one transaction or D1 batch): deletes at most `limit` rows of each
   * kind of the source's archive (incidents with their services and search rows, notes, versions,
   * events, the outbox rows of its events not yet sent with their attempts), and once nothing of
   * it is left, the source row itself. Sent and given-up deliveries stay: the record of what went
   * out. A pending delivery under a claim still live at `now` stays too: its send may be under way,
   * and its record lands when it ends (a later step deletes it if it is still pending then). Moves
   * the archive generation, never the main feed's. Done (and nothing removed) for a source that is
   * not purging.
   */
  purgeSourceStep(id: string, limit: number, now: number): Promise<SourcePurgeStep>;
  /** The sources marked purging, oldest mark first: what retention goes on deleting. */
  purgingSources(): Promise<string[]>;
  /** What is left of a source's archive, each count capped at `cap` (a bounded read). */
  sourceArchiveLeft(id: string, cap: number): Promise<SourceArchiveLeft>;
  /**
   * Writes what a poll came to, and the blind spell its good read ended if any, in one step.
   * Throws SourceGoneError, writing nothing, when the source is gone (or purging): the poll then
   * says so rather than what it read. Keeps at most BLIND_SPELLS_PER_SOURCE spells of the source,
   * merging its two oldest. `releaseLeaseOf`: the poll's last write, so the source's poll lease
   * held by that holder is given back in the same step, the source gone or not.
   */
  savePollState(id: string, state: SourcePollState, endedSpell?: BlindSpell, releaseLeaseOf?: string): Promise<void>;
  /** The source's blind spells that ended at or after `endedSinceMs`, oldest first (at most BLIND_SPELLS_PER_SOURCE). */
  blindSpells(sourceId: string, endedSinceMs: number): Promise<BlindSpell[]>;
  /** Ordered by position then name; empty for an unknown source. */
  componentStates(sourceId: string): Promise<StoredComponentState[]>;
  /**
   * Every watched source's component states in one read, by source id, each ordered as
   * `componentStates` orders them; a source with none (never read yet) is absent. Bounded by
   * SOURCES_MAX sources and each page's components as its bounded summary gave them.
   */
  allComponentStates(): Promise<Map<string, StoredComponentState[]>>;
  /**
   * Makes `states` the source's components as of `now` (a source's poll writes them with its last
   * applyPoll step instead): a component whose status (the page's own word) is unchanged keeps
   * its `updatedAt`, one absent from `states` is dropped. Nothing when the source is gone.
   */
  saveComponentStates(sourceId: string, states: readonly ComponentState[], now: number): Promise<void>;
}

/**
 * A request on the sources queue (Workers): poll this source, unless a poll of it has begun since
 * `askedAt` (a request delivered twice, or late, is done once).
 */
export type SourcePollRequest = { kind: 'poll_source'; sourceId: string; askedAt: number };

/** Carries poll requests to the invocations that poll (a Workers Queue producer binding has this shape). */
export interface SourcePollQueue {
  /** At most SOURCE_REQUESTS_PER_SEND messages a call. */
  sendBatch(messages: readonly { body: SourcePollRequest }[]): Promise<unknown>;
}
