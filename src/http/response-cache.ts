/**
 * Caches GET responses of the read API until the archive changes: the archive only changes when
 * a poll writes, so between two writes every request for the same URL gets the same body, built
 * once, with a strong ETag, and a 304 when the client already has it. Clients choose the URLs,
 * so it is bounded in entries and in bytes with the keys counted, and old entries leave on their own.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bytesEqual, toHex } from '../core/bytes.ts';
import type { Clock } from '../core/ports.ts';
import type { ReadBudget } from './read-budget.ts';
import { createRecencyMap } from './recency-map.ts';

export type ResponseCacheOptions = {
  /** Changes whenever the archive is written (store.archiveGeneration). */
  generation: () => Promise<number>;
  clock: Clock;
  /**
   * Some answers move with the clock alone (v1's "updated within the last hour", the mirror's
   * history window): no entry is served older than this.
   */
  maxAgeMs: number;
  /**
   * Memory bound, in bytes: each entry's key and headers at two bytes a character (V8's most), its
   * body at its UTF-8 bytes (all an entry keeps of it), plus ENTRY_OVERHEAD_BYTES. Keys count
   * because a client chooses them: unique 14 KB URLs with 300-byte bodies once took the process to
   * 4 GB under a budget that counted bodies alone.
   */
  maxBytes: number;
  /** At most this many entries, however small: each costs its Map slot and objects whatever its size. */
  maxEntries: number;
  /** Sent with every answer, 200 and 304. Default `no-cache`: clients revalidate before each use. */
  cacheControl?: string;
  /**
   * How long one read of the generation is trusted; default 0, every request reads it. Hot paths
   * take a second: an archive change shows a second later, and a thousand requests a second cost
   * one read of the database instead of a thousand.
   */
  generationTtlMs?: number;
  /** The entry a request is answered from; default its whole URL. See read-params.ts's readCacheKey. */
  key?: (c: Context) => string;
  /** Pays for every answer built (a miss) from its client's budget, and refuses a client in debt (429). */
  budget?: ReadBudget;
};

/**
 * `body`: the answer's UTF-8 bytes, encoded once when it is built and sent as they are on every
 * hit; the text they were encoded from is not kept beside them. Keeping the text (and encoding a
 * copy to send) left a string in the old generation for every entry and an encoded copy as garbage
 * for every miss: under a flood of 60,000 unique URLs the server's peak RSS rose 82-95 MB above
 * its baseline that way, 55 MB with the bytes kept alone. `headers`: those the route set on the
 * built response (ETag and Cache-Control included), sent again on every hit. `bytes`: what the
 * entry counts against maxBytes.
 */
type Entry = {
  generation: number;
  storedAt: number;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
  headers: Record<string, string>;
  bytes: number;
};

/** Sent as `nosniff` with every answer, hits and 304s included. */
export const CONTENT_TYPE_OPTIONS = 'x-content-type-options';

/** A build admitted: `pay` once it is built (the budget counts its time), `end` once its answer is kept or not. */
type Build = { pay: () => void; end: () => void };

/** What a cache holds by its own count: for tests. */
export type ResponseCacheStats = { entries: number; bytes: number };

export type ResponseCache = MiddlewareHandler & { stats(): ResponseCacheStats };

const utf8 = new TextEncoder();

/** Bodies their routes handed over as strings (answerJsonText), by the request they answer. */
const handedTexts = new WeakMap<Context, string>();

/**
 * Answers JSON its route already serialised. The response cache keeps this string as the body
 * instead of reading it back from the response: a page of 1,000 incidents spent 1.5 ms encoding
 * its megabyte into the response and decoding it back.
 */
export function answerJsonText(c: Context, text: string): Response {
  handedTexts.set(c, text);
  return c.body(text, 200, { 'content-type': 'application/json' });
}

/** An entry larger than this share of the budget is served but not cached. */
const MAX_ENTRY_SHARE = 0.25;
/**
 * A URL longer than this is answered but never cached: no client needs one, and an attacker's
 * padded URLs would otherwise be most of what the cache holds.
 */
export const MAX_KEY_CHARS = 2048;
/**
 * What an entry costs beyond its characters: its objects, Map slot, string headers. An entry with a
 * short key, a small body and seven headers measured ~470 bytes of heap in all (20,000 entries).
 */
const ENTRY_OVERHEAD_BYTES = 512;
/**
 * Entries stay this many maxAge after they were built: served during the first, kept during the
 * second so a client revalidating just after maxAge still gets a 304 when the rebuild gives the
 * same bytes. Older ones are dropped by the sweep below, with or without byte pressure.
 */
const KEEP_MAX_AGES = 2;
/** Each request looks at this many entries at the least recently used end: enough to outpace one new entry per request. */
const SWEEP_PER_REQUEST = 4;

export function responseCache(options: ResponseCacheOptions): ResponseCache {
  const entries = createRecencyMap<Entry>();
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

  const maxEntryBytes = options.maxBytes * MAX_ENTRY_SHARE;
  const keepMs = options.maxAgeMs * KEEP_MAX_AGES;

  const forget = (key: string) => {
    const entry = entries.delete(key);
    if (entry) bytes -= entry.bytes;
  };

  // No timers (Workers have none between requests): each request drops a few entries past their
  // keep time from the least recently used end. It may stop at the first one still kept: every
  // entry behind it was used more recently, so within the keep time too.
  const sweep = (now: number) => {
    for (let looked = 0; looked < SWEEP_PER_REQUEST; looked++) {
      const oldest = entries.oldest();
      const age = oldest ? now - oldest.value.storedAt : 0;
      if (!oldest || (age >= 0 && age <= keepMs)) return;
      forget(oldest.key);
    }
  };

  // The answers being built, by key: a request for one waits for that build and is answered from
  // what it stored, instead of building the same answer again. When an entry is missing or stale
  // (maxAge ran out, or a poll moved the generation), the requests that come during its rebuild
  // (eight from one client in flight, or an office behind one address) were each a build, paid
  // from the client's budget: past four under way they were refused. One entry per build under
  // way, so bounded by the requests in flight.
  const building = new Map<string, Promise<void>>();

  /**
   * Admits a build, decided at once: a refusal (a promise that rejects once held, up to a second)
   * comes back before anyone waits on this build, so a client in debt never holds back the others
   * asking for the same answer. `lead`: registered as the build others wait on.
   */
  const startBuild = (c: Context, key: string, lead: boolean): Build | Promise<never> => {
    const admitted = options.budget?.admitNow(c);
    if (admitted instanceof Promise) return admitted;
    let paid = false;
    const pay = () => {
      if (!paid) admitted?.();
      paid = true;
    };
    if (!lead) return { pay, end: pay };
    let built = () => {};
    building.set(key, new Promise<void>((resolve) => (built = resolve)));
    return {
      pay,
      end: () => {
        pay();
        building.delete(key);
        built();
      },
    };
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    // A request's `Cache-Control: no-cache` asks for revalidation with the origin: this cache is
    // the origin's own and never older than the archive, so it answers those too (fetch adds the
    // header to every request that carries If-None-Match).
    // HEAD runs the GET handler (Hono drops the body): the same entry serves both.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    return answer(c, next, options.key ? options.key(c) : c.req.url, true);
  };

  /**
   * A hit, a 304, or the answer built and kept. `mayLead`: this request may build the answer for
   * the others that ask meanwhile; false once it has waited on such a build (one that stored
   * nothing, an error or a cookie, lets each waiter build its own).
   */
  const answer = async (c: Context, next: Next, key: string, mayLead: boolean): Promise<Response | void> => {
    const underWay = mayLead ? building.get(key) : undefined;
    if (underWay) return underWay.then(() => answer(c, next, key, false));
    // A key the cache does not hold is a build whatever the archive's generation: a client out of
    // budget is refused before anything is read for it, so refusals cost no database read.
    let build: Build | undefined;
    if (entries.get(key) === undefined) {
      const started = startBuild(c, key, mayLead);
      if (started instanceof Promise) return started;
      build = started;
    }
    try {
      const now = options.clock.now();
      // Trusted without awaiting anything (a clock that went back counts as expired).
      const trusted = now - lastRead.atMs < generationTtlMs && now >= lastRead.atMs;
      const generation = trusted ? lastRead.generation : await readGeneration(now);
      const cached = entries.get(key);
      sweep(now);
      // A servable entry is never one the sweep drops (keepMs is past maxAge). A clock that went
      // back counts as expired.
      if (cached && cached.generation === generation && now >= cached.storedAt && now - cached.storedAt <= options.maxAgeMs) {
        entries.touch(key);
        // A Response of our own with a plain header object: on Node the server writes it without
        // building a Headers per request (c.body would, costing hot paths a fifth of their rate).
        // As for any handler returning its own Response, headers outer middleware prepared with
        // c.header() before next() are not merged (nosniff is stored with the entry); those set on
        // c.res after next() are.
        const status = etagMatches(c.req.header('if-none-match'), cached.etag) ? 304 : 200;
        return new Response(status === 304 ? null : cached.body, { status, headers: cached.headers });
      }
      if (!build) {
        // Held but stale (maxAge ran out, or a poll moved the generation): the first request to
        // find it so rebuilds it, and those that find it so meanwhile wait for that rebuild.
        const rebuilding = mayLead ? building.get(key) : undefined;
        if (rebuilding) return rebuilding.then(() => answer(c, next, key, false));
        const started = startBuild(c, key, mayLead);
        if (started instanceof Promise) return started;
        build = started;
      }
      return await buildAndKeep(c, next, key, { now, generation, cached, pay: build.pay });
    } finally {
      build?.end();
    }
  };

  /** Builds the answer (next()), paying for it once built, and keeps it when it may serve others. */
  const buildAndKeep = async (
    c: Context,
    next: Next,
    key: string,
    { now, generation, cached, pay }: { now: number; generation: number; cached: Entry | undefined; pay: () => void },
  ): Promise<Response | void> => {
    forget(key);

    // Headers outer middleware set before this one (a request id, say) are theirs to set on every
    // request: a hit must not replay this request's values. Read from a response made aside, not
    // from c.res: reading c.res makes it, and Hono then copies the route's response over it, which
    // encoded a 1 MB body into a stream that the string handed over below makes needless.
    const preset = new Set(c.newResponse(null).headers.keys());
    try {
      await next();
    } finally {
      pay();
    }
    // A response that sets a cookie belongs to one client: never replayed to others.
    if (c.res.status !== 200 || c.res.headers.has('set-cookie')) return;
    // Read, then answered anew from the string, rather than c.res.clone(): a clone tees the body,
    // and undici keeps each tee'd stream reachable until a finalizer runs after a collection. Under
    // a flood of misses they piled up between collections: 51 MB of heap for a full 16 MB page
    // cache with no turn of the event loop (12.6 MB without the clone), and twice the RSS left
    // behind by the flood in the memory benchmark.
    const built = c.res;
    const text = handedTexts.get(c) ?? (await built.text());
    // Sent as its UTF-8 bytes, encoded once: a string is measured for Content-Length, then encoded
    // again as it is written, on every hit.
    const body = utf8.encode(text) as Uint8Array<ArrayBuffer>; // always a new ArrayBuffer of its own
    const contentType = built.headers.get('content-type') ?? 'application/json';
    // A rebuild that gives the same bytes (the generation moved for other answers, or maxAge ran
    // out) keeps its tag, so clients holding it keep getting 304s.
    const same = cached !== undefined && cached.contentType === contentType && bytesEqual(cached.body, body);
    const etag = same ? cached.etag : `"${nonce}-${generation}-${++builds}"`;
    const sent = new Headers(built.headers);
    sent.set('etag', etag);
    sent.set('cache-control', cacheControl);
    // Answered from the string, its headers complete, the built response dropped first: Hono copies
    // a response set over another, or given a header after, into one with a body stream (and
    // `new Response(body, built)` re-encodes the body into one), so Node streamed a 1 MB page in
    // chunks instead of writing the string at once: a tenth of the time of 1,000 incidents.
    c.res = undefined;
    // Status alone, a 200 here: reading statusText off the built response would make Node's
    // server encode its body into a stream first.
    c.res = new Response(body, { status: built.status, headers: sent });
    // nosniff whatever set it: the app's own middleware sets it before this one runs, so it is among
    // the preset headers, and a hit would go without it.
    const headers: Record<string, string> = { [CONTENT_TYPE_OPTIONS]: 'nosniff' };
    let headerChars = etag.length + contentType.length;
    c.res.headers.forEach((value, name) => {
      if (name === 'content-length' || preset.has(name)) return;
      headers[name] = value;
      headerChars += name.length + value.length;
    });
    if (same && etagMatches(c.req.header('if-none-match'), etag)) c.res = new Response(null, { status: 304, headers });
    const entryBytes = 2 * (key.length + headerChars) + body.byteLength + ENTRY_OVERHEAD_BYTES;
    if (key.length > MAX_KEY_CHARS || entryBytes > maxEntryBytes) return;
    forget(key); // a concurrent request for the same URL may have stored it meanwhile
    entries.set(key, { generation, storedAt: now, body, etag, contentType, headers, bytes: entryBytes });
    bytes += entryBytes;
    while (bytes > options.maxBytes || entries.size() > options.maxEntries) forget(entries.oldest()!.key);
  };

  return Object.assign(middleware, { stats: (): ResponseCacheStats => ({ entries: entries.size(), bytes }) });
}

/** `If-None-Match` may list several tags, or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
