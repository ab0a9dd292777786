/**
 * Reads a status page's endpoints over HTTP with fetch (Node and Workers alike): conditional on
 * the validators the caller kept (a Worker keeps none in memory), a timeout over the whole
 * exchange, a cap on the body, redirects followed.
 */
import { FeedFetchError } from '../core/errors.ts';
import type { Clock, PageReader } from '../core/ports.ts';
import { fetchFailure, readCappedText } from './fetch-feed-client.ts';

export type FetchPageReaderOptions = {
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  clock: Clock;
  /** The guarded fetch of outbound targets (guarded-fetch.ts) where there is one. */
  fetch?: typeof fetch;
};

export function createFetchPageReader(options: FetchPageReaderOptions): PageReader {
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    async read(baseUrl, path, validators) {
      const url = baseUrl.replace(/\/+$/, '') + path;
      const started = options.clock.now();
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
      if (validators?.etag) headers['if-none-match'] = validators.etag;
      if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
      let response: Response;
      try {
        response = await doFetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'follow' });
      } catch (error) {
        throw fetchFailure(url, error, options.timeoutMs);
      }
      const answeredUrl = response.url || url;
      // A 304 only stands for a body the caller holds: without validators it is a broken answer.
      if (response.status === 304 && validators) {
        await response.body?.cancel();
        return { notModified: true, url: answeredUrl, durationMs: options.clock.now() - started };
      }
      if (!response.ok) {
        await response.body?.cancel();
        const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
        throw new FeedFetchError(`GET ${url}: HTTP ${response.status}`, 'http', retryable, response.status);
      }
      let body: { text: string; bytes: number };
      try {
        body = await readCappedText(response, options.maxBytes);
      } catch (error) {
        if (error instanceof FeedFetchError) throw error;
        throw fetchFailure(url, error, options.timeoutMs);
      }
      return {
        notModified: false,
        url: answeredUrl,
        // The bytes as they came, counted by the read: not the text encoded again.
        body: body.text,
        bytes: body.bytes,
        durationMs: options.clock.now() - started,
        validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
      };
    },
  };
}
