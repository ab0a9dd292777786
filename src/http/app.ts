/** The Hono application: statuswatch's HTTP API, runtime-free (Node and Workers serve the same app). */
import { Hono } from 'hono';
import { DEFAULT_READ_BUDGET_MS_PER_SECOND, readBudgetRule } from '../core/cost-budget.ts';
import type { AppDeps } from './deps.ts';
import { createErrorHandler, notFound } from './errors.ts';
import { PUBLIC_PAGE_PATHS, publicPageCache } from './page-cache.ts';
import { createReadBudget } from './read-budget.ts';
import { readCacheKey, refuseUnknownParams } from './read-params.ts';
import { CONTENT_TYPE_OPTIONS, responseCache } from './response-cache.ts';
import { adminPageRoutes } from './routes/admin-pages.tsx';
import { adminRoutes } from './routes/admin.ts';
import { appCommandRoutes } from './routes/app-commands.ts';
import { appInstallationRoutes } from './routes/app-installations.ts';
import { appOAuthRoutes } from './routes/app-oauth.tsx';
import { dashboardRoutes } from './routes/dashboard.tsx';
import { eventRoutes } from './routes/events.ts';
import { feedRoutes } from './routes/feeds.ts';
import { groupSubscriptionRoutes } from './routes/group-subscriptions.tsx';
import { healthRoutes } from './routes/health.ts';
import { incidentRoutes } from './routes/incidents.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { mcpOAuthRoutes } from './routes/mcp-oauth.ts';
import { mcpTokenRoutes } from './routes/mcp-tokens.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { openApiRoutes } from './routes/openapi.tsx';
import { reliabilityRoutes } from './routes/reliability.tsx';
import { staticAssetRoutes } from './routes/static-assets.ts';
import { subscribePageRoutes } from './routes/subscribe-pages.tsx';
import { sourceRoutes } from './routes/sources.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { widgetRoutes } from './routes/widget.ts';

/** Answers that move with the clock alone (v1's last hour, the history window) are at most this old. */
const RESPONSE_CACHE_MAX_AGE_MS = 60_000;
/** Keys, bodies and headers (see ResponseCacheOptions.maxBytes): pages of 100 incidents are ~100 KB. */
const RESPONSE_CACHE_MAX_BYTES = 32 * 1024 * 1024;
const RESPONSE_CACHE_MAX_ENTRIES = 10_000;

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.logger, deps.clock));
  app.notFound(notFound);
  // Every answer is taken as the type it declares: JSON, feeds and /metrics carry vendor text that
  // a browser must never sniff into HTML. Set before the routes run, so errors and 404s have it
  // too; the response cache replays it on hits (see responseCache), which skip what is set here.
  app.use('*', async (c, next) => {
    c.header(CONTENT_TYPE_OPTIONS, 'nosniff');
    await next();
  });
  // One budget for every answer built for an anonymous client, whichever face it came through.
  const budget = createReadBudget({
    clientAddress: deps.clientAddress,
    rule: readBudgetRule(deps.readBudgetMsPerSecond ?? DEFAULT_READ_BUDGET_MS_PER_SECOND),
    pause: deps.pause,
  });
  const cache = responseCache({
    generation: () => deps.store.archiveGeneration(),
    clock: deps.clock,
    maxAgeMs: RESPONSE_CACHE_MAX_AGE_MS,
    maxBytes: RESPONSE_CACHE_MAX_BYTES,
    maxEntries: RESPONSE_CACHE_MAX_ENTRIES,
    key: readCacheKey,
    budget,
  });
  // Only the archive's reads are cached: admin answers (poll runs, subscriptions, deliveries)
  // change without the archive changing, and must never be served from a shared cache. A
  // parameter the read does not take is refused before the cache, so it never costs a build.
  app.use('/api/*', (c, next) => {
    if (isAdminPath(c.req.path)) return next();
    refuseUnknownParams(c);
    // The sources' list changes as admins add them and their polls succeed or fail, none of which
    // moves the archive's generation that keys the cache: it is read fresh.
    if (c.req.path === '/api/sources') return next();
    return cache(c, next);
  });
  // The feeds are read from the same archive: the same ETag and 304, one build per change.
  app.use('/feed.*', cache);
  // The public pages likewise, in front of their security headers, which are the same for all.
  const pages = publicPageCache({ ...deps, budget });
  for (const path of PUBLIC_PAGE_PATHS) app.use(path, pages);
  app.route('/', healthRoutes(deps));
  app.route('/', mirrorRoutes(deps));
  app.route('/', incidentRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', feedRoutes(deps));
  app.route('/', adminRoutes(deps));
  app.route('/', subscriptionRoutes(deps));
  app.route('/', groupSubscriptionRoutes(deps));
  app.route('/', appInstallationRoutes(deps));
  app.route('/', appCommandRoutes(deps));
  app.route('/', appOAuthRoutes(deps));
  app.route('/', metricsRoutes(deps));
  app.route('/', openApiRoutes(deps));
  app.route('/', mcpRoutes(deps));
  app.route('/', mcpTokenRoutes(deps));
  app.route('/', sourceRoutes(deps));
  app.route('/', mcpOAuthRoutes(deps));
  // Before the pages: the embeddables keep their own headers (CORS, framing by anyone, caching).
  app.route('/', widgetRoutes(deps, budget));
  app.route('/', dashboardRoutes(deps));
  app.route('/', reliabilityRoutes(deps));
  app.route('/', subscribePageRoutes(deps));
  app.route('/', adminPageRoutes(deps));
  app.route('/', staticAssetRoutes(deps));
  return app;
}

const ADMIN_PREFIXES = ['/api/admin/', '/api/subscriptions', '/api/deliveries', '/api/delivery-replays', '/api/app/'];

function isAdminPath(path: string): boolean {
  return ADMIN_PREFIXES.some((prefix) => path.startsWith(prefix));
}
