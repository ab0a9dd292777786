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
  /** Sent with every answer, 200 and 304. Default `no-cache`: clients revalidate before each use. */
  cacheControl?: string;
  /**
   * How long one read of the generation is trusted; default 0, every request reads it. Hot paths
   * take a second: an archive change shows a second later, and a thousand requests a second cost
   * one read of the database instead of a thousand.
   */
  generationTtlMs?: number;
};

/** `headers`: those the route set on the built response (ETag and Cache-Control included), sent again on every hit. */
type Entry = { generation: number; storedAt: number; body: string; etag: string; contentType: string; headers: Record<string, string> };

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
  const cacheControl = options.cacheControl ?? 'no-cache';
  const generationTtlMs = options.generationTtlMs ?? 0;
  let lastRead = { generation: 0, atMs: Number.NEGATIVE_INFINITY };
  const readGeneration = async (now: number) => {
    lastRead = { generation: await options.generation(), atMs: now };
    return lastRead.generation;
  };

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
    // HEAD runs the GET handler (Hono drops the body): the same entry serves both.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const key = c.req.url;
    const now = options.clock.now();
    // Trusted without awaiting anything (a clock that went back counts as expired).
    const trusted = now - lastRead.atMs < generationTtlMs && now >= lastRead.atMs;
    const generation = trusted ? lastRead.generation : await readGeneration(now);
    const cached = entries.get(key);
    if (cached && cached.generation === generation && now - cached.storedAt <= options.maxAgeMs) {
      entries.delete(key); // and set again below: now the most recently used
      entries.set(key, cached);
      // A Response of our own with a plain header object: on Node the server writes it without
      // building a Headers per request (c.body would, costing hot paths a fifth of their rate).
      // As for any handler returning its own Response, headers outer middleware prepared with
      // c.header() before next() are not merged; those set on c.res are.
      const status = etagMatches(c.req.header('if-none-match'), cached.etag) ? 304 : 200;
      return new Response(status === 304 ? null : cached.body, { status, headers: cached.headers });
    }
    forget(key);

    // Headers outer middleware set before this one (a request id, say) are theirs to set on every
    // request: a hit must not replay this request's values.
    const preset = new Set(c.res.headers.keys());
    await next();
    // A response that sets a cookie belongs to one client: never replayed to others.
    if (c.res.status !== 200 || c.res.headers.has('set-cookie')) return;
    const body = await c.res.clone().text();
    const contentType = c.res.headers.get('content-type') ?? 'application/json';
    // A rebuild that gives the same bytes (the generation moved for other answers, or maxAge ran
    // out) keeps its tag, so clients holding it keep getting 304s.
    const same = cached !== undefined && cached.body === body && cached.contentType === contentType;
    const etag = same ? cached.etag : `"${nonce}-${generation}-${++builds}"`;
    c.header('etag', etag);
    c.header('cache-control', cacheControl);
    const headers: Record<string, string> = {};
    c.res.headers.forEach((value, name) => {
      if (name !== 'content-length' && !preset.has(name)) headers[name] = value;
    });
    const entry: Entry = { generation, storedAt: now, body, etag, contentType, headers };
    if (same && etagMatches(c.req.header('if-none-match'), etag)) c.res = new Response(null, { status: 304, headers });
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
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
