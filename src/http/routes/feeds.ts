/**
 * The archive's latest incidents as `/feed.atom`, `/feed.rss` and `/feed.json` (JSON Feed 1.1),
 * filterable by service: the vendor's, or with `?source=` a watched page's.
 */
import { Hono } from 'hono';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { buildFeed, FEED_ITEMS_MAX, renderAtom, renderJsonFeed, renderRss, type SyndicationFeed } from '../../core/feed-items.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveQueries, SourceStore } from '../../core/ports.ts';
import { requireSource } from '../../app/source-status.ts';
import { listParam, sourceParam } from '../query-params.ts';

const FORMATS: { path: string; contentType: string; render: (feed: SyndicationFeed) => string }[] = [
  { path: '/feed.atom', contentType: 'application/atom+xml; charset=utf-8', render: renderAtom },
  { path: '/feed.rss', contentType: 'application/rss+xml; charset=utf-8', render: renderRss },
  { path: '/feed.json', contentType: 'application/feed+json; charset=utf-8', render: renderJsonFeed },
];

export type FeedRouteDeps = Pick<AppDeps, 'publicUrl'> & { store: Pick<ArchiveQueries, 'recentlyUpdated'> & Pick<SourceStore, 'getSource'> };

export function feedRoutes({ store, publicUrl }: FeedRouteDeps) {
  const app = new Hono();

  for (const { path, contentType, render } of FORMATS) {
    app.get(path, async (c) => {
      // As in the API: repeatable or comma-separated, exact names; an unknown one matches nothing.
      const services = listParam(c, 'service');
      // `?source=`: a watched page's feed (404 when there is none); absent or "main", the vendor's.
      const asked = sourceParam(c);
      const source = asked === undefined || asked === MAIN_FEED_SOURCE ? null : await requireSource(store, asked);
      const incidents = await store.recentlyUpdated({ services, source: source?.id ?? MAIN_FEED_SOURCE }, FEED_ITEMS_MAX);
      // Without PUBLIC_URL, links point at the origin the request came to.
      const baseUrl = publicUrl ?? new URL(c.req.url).origin;
      const selfUrl = publicUrl ? publicUrl + c.req.path + new URL(c.req.url).search : c.req.url;
      const feed = await buildFeed({ incidents, services, baseUrl, selfUrl, ...(source ? { source: { id: source.id, name: source.name } } : {}) });
      return c.body(render(feed), 200, { 'content-type': contentType });
    });
  }

  return app;
}
