/**
 * Serves the files of `public/` (styles, scripts, the widget) at their own paths, with a strong
 * ETag and a long cache for fingerprinted URLs. Each runtime hands over the files: Node reads the
 * folder once at start (adapters/public-folder.ts); a Worker would use its assets binding.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';

export type StaticAsset = { path: string; body: Uint8Array; contentType: string; etag: string };

/** Files by URL path, e.g. `/style.css`. */
export type StaticAssets = ReadonlyMap<string, StaticAsset>;

/** `?v=<etag>` URLs never change: the pages link to assets through `assetUrl`. */
const FINGERPRINTED_CACHE = 'public, max-age=31536000, immutable';
const PLAIN_CACHE = 'public, max-age=300';

/** The URL pages should use for an asset: fingerprinted, so a new deploy is never served stale. */
export function assetUrl(assets: StaticAssets, path: string): string {
  const asset = assets.get(path);
  return asset ? `${path}?v=${asset.etag.slice(1, 13)}` : path;
}

/** A day: a browser that asked once (a page opened without our layout, e.g. /embed) asks no more. */
const FAVICON_ICO_CACHE = 'public, max-age=86400';

export function staticAssetRoutes({ assets }: Pick<AppDeps, 'assets'>) {
  const app = new Hono();
  // Browsers ask for /favicon.ico where a page links no icon; "no content" ends that without a 404
  // in the console or the logs. The pages link /favicon.svg.
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'cache-control': FAVICON_ICO_CACHE, 'x-content-type-options': 'nosniff' }));
  app.get('*', async (c, next) => {
    const asset = assets.get(c.req.path);
    if (!asset) return next();
    const headers: Record<string, string> = {
      'content-type': asset.contentType,
      etag: asset.etag,
      'cache-control': c.req.query('v') ? FINGERPRINTED_CACHE : PLAIN_CACHE,
      'x-content-type-options': 'nosniff',
    };
    if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, headers);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, headers);
  });
  return app;
}
