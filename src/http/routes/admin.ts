/** Admin endpoints, behind `Authorization: Bearer $ADMIN_TOKEN`; off (403) when no token is set. */
import { Hono, type MiddlewareHandler } from 'hono';
import { timingSafeEqual } from 'hono/utils/buffer';
import { ApiError } from '../../core/errors.ts';
import { iso, toApiEvent, toApiPollRun } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import { pageLimit } from '../query-params.ts';

export function requireAdmin(adminToken: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (!adminToken) throw new ApiError(403, 'admin_disabled', 'set ADMIN_TOKEN to enable the admin API');
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !(await timingSafeEqual(match[1]!.trim(), adminToken))) {
      c.header('WWW-Authenticate', 'Bearer realm="statuswatch admin"');
      throw new ApiError(401, 'unauthorized', 'expected Authorization: Bearer <ADMIN_TOKEN>');
    }
    await next();
  };
}

export function adminRoutes(deps: AppDeps) {
  const app = new Hono();
  app.use('/api/admin/*', requireAdmin(deps.adminToken));

  app.post('/api/admin/poll', async (c) => {
    const result = await deps.poller.pollOnce();
    if (result.status === 'skipped') throw new ApiError(409, 'poll_in_progress', 'another poll is running; try again shortly');
    return c.json({ ok: true, outcome: result.status, unchanged: result.unchanged, run: toApiPollRun(result.run), events: result.events.map(toApiEvent) });
  });

  app.get('/api/admin/polls', async (c) => {
    const before = Number(c.req.query('before'));
    const runs = await deps.store.listPollRuns(Number.isFinite(before) && before > 0 ? before : null, pageLimit(c.req.query('limit')));
    return c.json({ ok: true, polls: runs.map(toApiPollRun) });
  });

  app.get('/api/admin/polls/:id', async (c) => {
    const found = await deps.store.getPollRun(c.req.param('id'));
    if (!found) throw new ApiError(404, 'poll_not_found', 'no poll run with that id');
    return c.json({
      ok: true,
      poll: toApiPollRun(found.run),
      // Kept raw: what the vendor sent when it was not a feed at all (an HTML error page, truncated
      // JSON), one copy per distinct body however many polls got it; `body` is null once pruned.
      rejected_payloads: found.rejected.map((r) => ({
        source: r.source,
        url: r.url,
        error: r.error,
        received_at: iso(r.receivedAt),
        sha256: r.sha256,
        body: r.body?.text ?? null,
        seen_count: r.body?.seenCount ?? null,
        first_seen_at: r.body ? iso(r.body.firstSeenAt) : null,
        last_seen_at: r.body ? iso(r.body.lastSeenAt) : null,
      })),
    });
  });

  return app;
}
