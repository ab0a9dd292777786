/** /healthz: 503 once the feed has not been read successfully for five minutes. */
import { Hono } from 'hono';
import { iso, toApiPollRun } from '../api-json.ts';
import { STALE_AFTER_MS } from '../../core/knowledge.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveQueries } from '../../core/ports.ts';

/** The limit every face shares (core/knowledge.ts), re-exported under the name it always had here. */

export type HealthRouteDeps = Pick<AppDeps, 'clock' | 'startedAt'> & { store: Pick<ArchiveQueries, 'feedHealth'> };

export function healthRoutes({ store, clock, startedAt }: HealthRouteDeps) {
  const app = new Hono();
  app.get('/healthz', async (c) => {
    const now = clock.now();
    const health = await store.feedHealth();
    // A fresh process gets the same five minutes to make its first successful read.
    const reference = health.lastSuccessAt ?? startedAt;
    const healthy = now - reference < STALE_AFTER_MS;
    const status = health.lastSuccessAt === null ? (healthy ? 'starting' : 'stale') : healthy ? 'ok' : 'stale';
    return c.json(
      {
        ok: healthy,
        status,
        last_success_at: iso(health.lastSuccessAt),
        consecutive_failures: health.consecutiveFailures,
        last_poll: health.lastRun ? toApiPollRun(health.lastRun) : null,
      },
      healthy ? 200 : 503,
    );
  });
  return app;
}
