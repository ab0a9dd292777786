/**
 * What other sites embed: `/widget.json` (the widget's data), `/badge.svg`, `/embed` (the widget as
 * a page for an iframe) and `/widget.js` (the element). Hot paths: built once per archive change
 * and query, strong ETags and 304s, cacheable by anyone, readable from any origin, no cookies.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { badgeFor, renderBadge } from '../../core/badge-svg.ts';
import { WIDGET_SERVICES_MAX, type WidgetJson } from '../../core/widget-state.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveReads, SourceStore } from '../../core/ports.ts';
import { embedPage } from '../embed-page.ts';
import { pageGeneration } from '../page-cache.ts';
import { currentStatus } from '../../app/current-status.ts';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { listParam, sourceParam } from '../query-params.ts';
import type { ReadBudget } from '../read-budget.ts';
import { readCacheKey } from '../read-params.ts';
import { etagMatches, responseCache } from '../response-cache.ts';

/**
 * Pages refetch within half a minute; a CDN or browser may serve a minute longer while it
 * revalidates, and a day when statuswatch cannot answer at all: an old state beats a broken embed.
 */
export const HOT_PATH_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400';

/**
 * Builds live at most this long: `stale` moves with the clock and feed health, neither of which
 * changes the archive generation. An identical rebuild keeps its ETag (see responseCache).
 */
const CACHE_MAX_AGE_MS = 30_000;
/** An archive change reaches the hot paths within this (see ResponseCacheOptions.generationTtlMs). */
const GENERATION_TTL_MS = 1_000;
/**
 * Bodies are ~1 KB, an entry ~4 KB with its key and headers counted; a client varying the query
 * can only push out the least used ones.
 */
const CACHE_MAX_BYTES = 4 * 1024 * 1024;
const CACHE_MAX_ENTRIES = 2_000;
/**
 * The watched pages' answers (`?source=`) in a cache of their own, rebuilt when any page is polled
 * (its components' states move without the archive): the vendor's answers above are not rebuilt
 * then. Only a source that exists is answered (and cached), so SOURCES_MAX bounds the ids.
 */
export const SOURCE_CACHE_MAX_BYTES = 1024 * 1024;
export const SOURCE_CACHE_MAX_ENTRIES = 500;

/**
 * Any origin may read these (they are public); cross-origin-resource-policy lets pages that
 * require it (COEP) load the script and the badge too.
 */
const SHARED_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
};

/** A preflight only comes from a client adding headers of its own; every read is a plain GET. */
const PREFLIGHT_HEADERS = {
  ...SHARED_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '86400',
};

/**
 * The embed page loads only its own script and data. Anyone may frame it; the inline style is the
 * page's own sheet (embed-page.ts) and the element's shadow styles (no vendor text reaches either).
 */
const EMBED_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *";

/** What the badge draws: it carries no markup, so nothing in it may load or run. */
const BADGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const THEMES = new Set(['light', 'dark', 'auto']);

export type WidgetRouteDeps = Pick<AppDeps, 'clock' | 'assets' | 'publicUrl'> & {
  store: ArchiveReads & Pick<SourceStore, 'getSource' | 'componentStates' | 'listSources'>;
};

/** `budget`: the app's budget of uncached reads, which a widget built for a new query pays from too. */
export function widgetRoutes({ store, clock, assets, publicUrl }: WidgetRouteDeps, budget?: ReadBudget) {
  const app = new Hono();
  const cache = responseCache({
    // Each poll run moves it, not only archive changes: a failed read changes `reads_failing` at once.
    generation: pageGeneration(store),
    clock,
    maxAgeMs: CACHE_MAX_AGE_MS,
    maxBytes: CACHE_MAX_BYTES,
    maxEntries: CACHE_MAX_ENTRIES,
    cacheControl: HOT_PATH_CACHE_CONTROL,
    generationTtlMs: GENERATION_TTL_MS,
    key: readCacheKey,
    budget,
  });

  const sourceCache = responseCache({
    generation: pageGeneration(store, { withSources: true }),
    clock,
    maxAgeMs: CACHE_MAX_AGE_MS,
    maxBytes: SOURCE_CACHE_MAX_BYTES,
    maxEntries: SOURCE_CACHE_MAX_ENTRIES,
    cacheControl: HOT_PATH_CACHE_CONTROL,
    generationTtlMs: GENERATION_TTL_MS,
    key: readCacheKey,
    budget,
  });
  /** The vendor's answers from their cache; a watched page's from its own. */
  const cached: MiddlewareHandler = (c, next) => {
    // The vendor's hot path has no `source=` in its URL: not a parse of the query per request.
    if (!c.req.url.includes('source=')) return cache(c, next);
    const source = c.req.query('source');
    return source && source !== MAIN_FEED_SOURCE ? sourceCache(c, next) : cache(c, next);
  };

  /** `?service=Files,Messaging` or repeated, exact names, as everywhere in the API. */
  const servicesAsked = (c: Context) => listParam(c, 'service')?.slice(0, WIDGET_SERVICES_MAX);

  const state = (c: Context, services: string[] | undefined): Promise<WidgetJson> =>
    currentStatus({ store, clock }, { services, baseUrl: publicUrl ?? new URL(c.req.url).origin, nowMs: clock.now(), source: sourceParam(c) });

  for (const path of ['/widget.json', '/badge.svg', '/embed', '/widget.js']) {
    app.options(path, (c) => c.body(null, 204, PREFLIGHT_HEADERS));
  }

  app.get('/widget.json', cached, async (c) =>
    c.body(JSON.stringify(await state(c, servicesAsked(c))), 200, { ...SHARED_HEADERS, 'content-type': 'application/json; charset=utf-8' }),
  );

  app.get('/badge.svg', cached, async (c) => {
    const services = servicesAsked(c);
    const widget = await state(c, services);
    // A watched page's badge names it: its name, then the services asked for.
    const label = [widget.source?.name, services?.join(', ') ?? (widget.source ? undefined : 'status')].filter(Boolean).join(': ');
    const svg = renderBadge(badgeFor(label, widget.state, widget.stale, widget.reads_failing));
    return c.body(svg, 200, { ...SHARED_HEADERS, 'content-type': 'image/svg+xml; charset=utf-8', 'content-security-policy': BADGE_CSP });
  });

  app.get('/embed', cached, async (c) => {
    const services = servicesAsked(c);
    const theme = THEMES.has(c.req.query('theme') ?? '') ? (c.req.query('theme') as string) : 'auto';
    // The state now, written into the page: readers without scripts see it as it was at this answer.
    const page = embedPage({ widget: await state(c, services), services: services?.join(','), theme, source: sourceParam(c) });
    return c.html(page, 200, { ...SHARED_HEADERS, 'content-security-policy': EMBED_CSP });
  });

  // A file of public/, with the hot-path headers instead of the static ones: embedding pages use
  // this URL as it is, so it cannot be fingerprinted.
  const script = assets.get('/widget.js');
  const scriptHeaders = script && {
    ...SHARED_HEADERS,
    'content-type': script.contentType,
    etag: script.etag,
    'cache-control': HOT_PATH_CACHE_CONTROL,
  };
  app.get('/widget.js', (c, next) => {
    if (!script || !scriptHeaders) return next();
    // Its own Response with plain headers, as responseCache answers: the server's fast path.
    if (etagMatches(c.req.header('if-none-match'), script.etag)) return new Response(null, { status: 304, headers: scriptHeaders });
    return new Response(script.body as Uint8Array<ArrayBuffer>, { status: 200, headers: scriptHeaders });
  });

  return app;
}
