/**
 * Caches GET responses of the read API until the archive changes: the archive only changes when
 * a poll writes, so between two writes every request for the same URL gets the same body, built
 * once, with a strong ETag, and a 304 when the client already has it.
 */
import type { MiddlewareHandler } from 'hono';
import { toHex } from '../core/bytes.ts';
import type { Clock } from '../core/ports.ts';

export type ResponseCacheOptions = {
  /** Changes whenever the archive is written (store.archiveGeneration). */
  generation: () => Promise<number>;
  clock: Clock;
  /**
   * Some answers move with the clock alone (v1's "updated within the last hour", the mirror's
   * history window): no entry is served older than this.
   */
  maxAgeMs: number;
  /** Memory bound, in bytes of cached bodies. */
  maxBytes: number;
};

type Entry = { generation: number; storedAt: number; body: string; etag: string; contentType: string };

/** A response body larger than this share of the budget is served but not cached. */
const MAX_ENTRY_SHARE = 0.25;

export function responseCache(options: ResponseCacheOptions): MiddlewareHandler {
  // A Map iterates in insertion order: deleting and re-setting on a hit keeps it least-recent first.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  // A strong ETag names one build of one body: this process (a random nonce, so a restarted
  // process never reuses a tag), the archive generation, and a build counter. Hashing the body
  // would also catch identical rebuilds, but it cost every cold page a SHA-256 of ~100 KB.
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(6)));
  let builds = 0;

  const forget = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.body.length;
    entries.delete(key);
  };

  return async (c, next) => {
    // A request's `Cache-Control: no-cache` asks for revalidation with the origin: this cache is
    // the origin's own and never older than the archive, so it answers those too (fetch adds the
    // header to every request that carries If-None-Match).
    if (c.req.method !== 'GET') return next();
    const key = c.req.url;
    const generation = await options.generation();
    const now = options.clock.now();
    const cached = entries.get(key);
    if (cached && cached.generation === generation && now - cached.storedAt <= options.maxAgeMs) {
      entries.delete(key); // and set again below: now the most recently used
      entries.set(key, cached);
      // no-cache: clients may keep the body, but must ask again (If-None-Match) before using it.
      const headers = { etag: cached.etag, 'cache-control': 'no-cache', 'content-type': cached.contentType };
      return matches(c.req.header('if-none-match'), cached.etag) ? c.body(null, 304, headers) : c.body(cached.body, 200, headers);
    }
    forget(key);

    await next();
    if (c.res.status !== 200) return;
    const body = await c.res.clone().text();
    const etag = `"${nonce}-${generation}-${++builds}"`;
    const entry: Entry = { generation, storedAt: now, body, etag, contentType: c.res.headers.get('content-type') ?? 'application/json' };
    c.header('etag', entry.etag);
    c.header('cache-control', 'no-cache');
    if (body.length > options.maxBytes * MAX_ENTRY_SHARE) return;
    entries.set(key, entry);
    bytes += body.length;
    for (const oldest of entries.keys()) {
      if (bytes <= options.maxBytes) break;
      forget(oldest);
    }
  };
}

/** `If-None-Match` may list several tags, or `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
