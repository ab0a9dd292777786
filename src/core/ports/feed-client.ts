/** The vendor's status feed as the poller reads it. */

/** A body read from the vendor (a 304 comes back as the cached body with notModified set). */
export type FeedResponse = {
  url: string;
  status: number;
  body: string;
  bytes: number;
  /**
   * The body's bytes as they came, for a body read now (not a 304's cached one): its digest is
   * taken of these, not of the text encoded again (a copy and a pass as long as the hash itself).
   */
  raw?: Uint8Array<ArrayBuffer>;
  durationMs: number;
  notModified: boolean;
};

export interface FeedClient {
  /** GETs `path` below the status host. Throws FeedFetchError (core/errors.ts) on any failure. */
  get(path: string): Promise<FeedResponse>;
}
