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

export type StoredComponentState = ComponentState & { updatedAt: number };

/** What adding a source came to: saved, or refused because the cap or the address was reached first. */
export type AddSourceOutcome = { added: true } | { added: false; reason: 'full' | 'duplicate_url' };

/** One endpoint's validators, as its last full answer gave them. */
export type EndpointValidators = { etag: string | null; lastModified: string | null };

/** One endpoint's answer to a conditional GET: nothing new since the validators, or a new body with its own. */
export type PageRead =
  | { notModified: true; url: string; durationMs: number }
  | { notModified: false; url: string; body: string; bytes: number; durationMs: number; validators: EndpointValidators };

/** Reads a page's endpoints over HTTP, each read bounded in bytes and time. */
export interface PageReader {
  /** GETs `path` below the page's address, conditional on `validators` when given. Throws FeedFetchError (core/errors.ts). */
  read(baseUrl: string, path: string, validators: EndpointValidators | null): Promise<PageRead>;
}

export interface SourceStore {
  /** Saves a new source unless `maxSources` exist already or one has the same url; decided by the database. */
  addSource(record: SourceRecord, maxSources: number): Promise<AddSourceOutcome>;
  /** Oldest first. */
  listSources(): Promise<StoredSource[]>;
  getSource(id: string): Promise<StoredSource | null>;
  /**
   * Deletes the source and its component states, in one step: it is no longer polled. Its
   * incidents and events stay in the archive. False when there was none.
   */
  removeSource(id: string): Promise<boolean>;
  /** Writes what a poll came to; nothing when the source is gone. */
  savePollState(id: string, state: SourcePollState): Promise<void>;
  /** Ordered by position then name; empty for an unknown source. */
  componentStates(sourceId: string): Promise<StoredComponentState[]>;
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
