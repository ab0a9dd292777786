/** The Hono application: statuswatch's HTTP API, runtime-free (Node and Workers serve the same app). */
import { Hono } from 'hono';
import type { AppDeps } from './deps.ts';
import { createErrorHandler, notFound } from './errors.ts';
import { adminRoutes } from './routes/admin.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { incidentRoutes } from './routes/incidents.ts';
import { mirrorRoutes } from './routes/mirror.ts';

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.logger));
  app.notFound(notFound);
  app.route('/', healthRoutes(deps));
  app.route('/', mirrorRoutes(deps));
  app.route('/', incidentRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', adminRoutes(deps));
  return app;
}
