/** `/metrics` in the Prometheus text format. Open like /healthz: counts and ages only, no targets or addresses. */
import { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';
import type { MetricsStore } from '../../app/service-metrics.ts';

export type MetricsRouteDeps = Pick<AppDeps, 'metrics' | 'clock'> & { store: MetricsStore };

export function metricsRoutes({ metrics, store, clock }: MetricsRouteDeps) {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    return c.body(await metrics.scrape(store, clock), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
    });
  });
  return app;
}
