/**
 * The public dashboard pages, built once per change and per URL: when the vendor is down everyone
 * reloads `/`, and between two polls every one of them would render the same bytes. Each page is
 * served from the response cache with a strong ETag and a 304 to a client that holds it. Only
 * pages that are the same for every visitor belong here: no session, no form token, no cookie.
 */
import type { MiddlewareHandler } from 'hono';
import type { ArchiveReads, Clock, SourceStore } from '../core/ports.ts';
import type { ReadBudget } from './read-budget.ts';
import { readCacheKey } from './read-params.ts';
import { responseCache } from './response-cache.ts';

/**
 * The paths cached; the rest (sign-up, links from emails, admin) render per request. Hono's
 * `/incidents/*` also matches `/incidents`: listing both would run the cache twice there.
 */
export const PUBLIC_PAGE_PATHS = ['/', '/incidents/*', '/sources/*', '/reliability'] as const;

/**
 * What moves with the clock alone (the bars end today, the track record's windows end now) is at
 * most this old, as in the API's cache. Times on the pages are absolute ("last checked 12:39 UTC"),
 * so an older copy is never wrong, only behind by this much at worst.
 */
const PAGE_MAX_AGE_MS = 60_000;
/** A poll's result reaches the pages within this (see ResponseCacheOptions.generationTtlMs). */
const GENERATION_TTL_MS = 1_000;
/**
 * Pages are 5-250 KB; `/incidents` takes any query, so a client varying it can only push out the
 * least used pages, never grow the cache.
 */
export const PAGE_CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** Even small pages (an empty search) are bounded in number, their URL keys counted in the bytes. */
export const PAGE_CACHE_MAX_ENTRIES = 2_000;

export type PageCacheOptions = {
  store: Pick<ArchiveReads, 'archiveGeneration' | 'feedHealth'> & Pick<SourceStore, 'listSources'>;
  clock: Clock;
  maxBytes?: number;
  budget?: ReadBudget;
};

export function publicPageCache(options: PageCacheOptions): MiddlewareHandler {
  return responseCache({
    generation: pageGeneration(options.store, { withSources: true }),
    clock: options.clock,
    maxAgeMs: PAGE_MAX_AGE_MS,
    maxBytes: options.maxBytes ?? PAGE_CACHE_MAX_BYTES,
    maxEntries: PAGE_CACHE_MAX_ENTRIES,
    cacheControl: 'no-cache',
    generationTtlMs: GENERATION_TTL_MS,
    key: readCacheKey,
    budget: options.budget,
  });
}

/**
 * A number that changes with the archive and with each poll run: a failed poll writes nothing to
 * the archive, yet `/` must show its warning (and every poll its "last checked") at once. An
 * unchanged page keeps its ETag across such a change (the cache compares the rebuilt bytes).
 *
 * `withSources`: with each poll of every source too (its good or failed read, which is when its
 * components' states can have moved), for the faces that show sources. Without it, the main
 * feed's hot paths are not rebuilt when another page is polled.
 */
export function pageGeneration(
  store: Pick<ArchiveReads, 'archiveGeneration' | 'feedHealth'> & Partial<Pick<SourceStore, 'listSources'>>,
  options: { withSources?: boolean } = {},
): () => Promise<number> {
  let seen = '';
  let generation = 0;
  const sources = options.withSources && store.listSources ? store.listSources.bind(store) : null;
  return async () => {
    const [archive, health, listed] = await Promise.all([store.archiveGeneration(), store.feedHealth(), sources ? sources() : []]);
    const polls = listed.map((s) => `${s.id}:${s.name}:${s.poll.lastSuccessAt ?? ''}:${s.poll.lastFailureAt ?? ''}`).join(',');
    const state = `${archive}/${health.lastRun?.id ?? ''}/${polls}`;
    if (state !== seen) {
      seen = state;
      generation++;
    }
    return generation;
  };
}
