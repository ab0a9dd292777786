/** The vendor's status feed as the poller reads it. */

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
