/** The Hono application: statuswatch's HTTP API, runtime-free (Node and Workers serve the same app). */
import { Hono } from 'hono';
import type { AppDeps } from './deps.ts';
import { createErrorHandler, notFound } from './errors.ts';
import { responseCache } from './response-cache.ts';
import { adminRoutes } from './routes/admin.ts';
import { eventRoutes } from './routes/events.ts';
import { feedRoutes } from './routes/feeds.ts';
import { healthRoutes } from './routes/health.ts';
import { incidentRoutes } from './routes/incidents.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { staticAssetRoutes } from './routes/static-assets.ts';

/** Answers that move with the clock alone (v1's last hour, the history window) are at most this old. */
const RESPONSE_CACHE_MAX_AGE_MS = 60_000;
const RESPONSE_CACHE_MAX_BYTES = 32 * 1024 * 1024;

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.logger));
  app.notFound(notFound);
  const cache = responseCache({
    generation: () => deps.store.archiveGeneration(),
    clock: deps.clock,
    maxAgeMs: RESPONSE_CACHE_MAX_AGE_MS,
    maxBytes: RESPONSE_CACHE_MAX_BYTES,
  });
  // Poll runs (admin) change with every poll, not only when the archive does.
  app.use('/api/*', (c, next) => (c.req.path.startsWith('/api/admin/') ? next() : cache(c, next)));
  // The feeds are read from the same archive: the same ETag and 304, one build per change.
  app.use('/feed.*', cache);
  app.route('/', healthRoutes(deps));
  app.route('/', mirrorRoutes(deps));
  app.route('/', incidentRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', feedRoutes(deps));
  app.route('/', adminRoutes(deps));
  app.route('/', staticAssetRoutes(deps));
  return app;
}
