/**
 * Reads the vendor's feed over HTTP with fetch (Node and Workers alike): conditional requests,
 * a timeout over the whole exchange, a cap on the body, redirects followed.
 */
import { FeedFetchError } from '../core/errors.ts';
import type { Clock, FeedClient, FeedResponse } from '../core/ports.ts';
import { readBodyWithin } from './capped-body.ts';

export type FetchFeedClientOptions = {
  /** The status host, e.g. https://slack-status.com (a path prefix is kept). */
  baseUrl: string;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  clock: Clock;
  fetch?: typeof fetch;
};

type Cached = { etag: string | null; lastModified: string | null; body: string };

export function createFetchFeedClient(options: FetchFeedClientOptions): FeedClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  // Validators and the body they stand for, per path. In memory only: after a restart the first
  // read is unconditional, which costs one full body and no database writes.
  const cache = new Map<string, Cached>();

  return {
    async get(path) {
      const url = base + path;
      const started = options.clock.now();
      const cached = cache.get(path);
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
      if (cached?.etag) headers['if-none-match'] = cached.etag;
      if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;

      // One timer for the whole exchange, cleared once it is over: AbortSignal.timeout cost about
      // 15 µs a request on Node (a weak timer and its finalizer), a tenth of a changed poll's margin.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${options.timeoutMs} ms`, 'TimeoutError')), options.timeoutMs);
      try {
        return await exchange(url, path, started, cached, headers, controller.signal);
      } finally {
        clearTimeout(timer);
      }
    },
  };

  async function exchange(
    url: string,
    path: string,
    started: number,
    cached: Cached | undefined,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<FeedResponse> {
    let response: Response;
    try {
      response = await doFetch(url, { headers, signal, redirect: 'follow' });
    } catch (error) {
      throw fetchFailure(url, error, options.timeoutMs);
    }
    // `bytes`: as many as came over the wire, counted while read: encoding the text again to
    // count them cost a copy of the body per read.
    const done = (body: string, bytes: number, notModified: boolean, raw?: Uint8Array<ArrayBuffer>): FeedResponse => ({
      url: response.url || url,
      status: response.status,
      body,
      bytes,
      ...(raw ? { raw } : {}),
      durationMs: options.clock.now() - started,
      notModified,
    });

    if (response.status === 304 && cached) {
      await response.body?.cancel();
      return done(cached.body, 0, true);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new FeedFetchError(
        `GET ${url}: HTTP ${response.status}`,
        'http',
        response.status >= 500 || response.status === 429 || response.status === 408,
        response.status,
      );
    }
    let read: { text: string; bytes: number; raw: Uint8Array<ArrayBuffer> };
    try {
      read = await readCappedText(response, options.maxBytes);
    } catch (error) {
      if (error instanceof FeedFetchError) throw error;
      throw fetchFailure(url, error, options.timeoutMs);
    }
    const etag = response.headers.get('etag');
    const lastModified = response.headers.get('last-modified');
    if (etag || lastModified) cache.set(path, { etag, lastModified, body: read.text });
    else cache.delete(path);
    return done(read.text, read.bytes, false, read.raw);
  }
}

const utf8 = new TextDecoder('utf-8');

/** The body as text with the bytes it came in, refused with a FeedFetchError past `maxBytes` (declared or read). */
export async function readCappedText(response: Response, maxBytes: number): Promise<{ text: string; bytes: number; raw: Uint8Array<ArrayBuffer> }> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FeedFetchError(`body of ${declared} bytes exceeds the ${maxBytes}-byte limit`, 'too_large', false);
  }
  if (!response.body) return { text: '', bytes: 0, raw: new Uint8Array(0) };
  const bytes = await readBodyWithin(response.body, maxBytes, declared);
  if (!bytes) throw new FeedFetchError(`body exceeds the ${maxBytes}-byte limit`, 'too_large', false);
  // One decoder for every body: decode() without `stream` leaves no state behind.
  return { text: utf8.decode(bytes), bytes: bytes.byteLength, raw: bytes };
}

/** A failed fetch as a FeedFetchError: out of time, or the network's own failure. */
export function fetchFailure(url: string, error: unknown, timeoutMs: number): FeedFetchError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new FeedFetchError(`GET ${url}: no complete answer within ${timeoutMs} ms`, 'timeout', true, undefined, { cause: error });
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const message = error instanceof Error ? error.message : String(error);
  return new FeedFetchError(`GET ${url}: ${message}${cause}`, 'network', true, undefined, { cause: error });
}
