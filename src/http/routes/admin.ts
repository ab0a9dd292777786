/** Admin endpoints, behind `Authorization: Bearer $ADMIN_TOKEN`; off (403) when no token is set. */
import { Hono, type MiddlewareHandler } from 'hono';
import { ApiError } from '../../core/errors.ts';
import { iso, toApiPollResult, toApiPollRun, toApiSourcePollResult } from '../api-json.ts';
import { MAIN_FEED_SOURCE } from '../../core/statuspage/mapping.ts';
import { createAdminTokenCheck } from '../admin-token-check.ts';
import type { AppDeps } from '../deps.ts';
import type { AdminTokenCheckDeps } from '../admin-token-check.ts';
import type { ArchiveQueries } from '../../core/ports.ts';
import { epochMsParam, pageRequest } from '../query-params.ts';
import { pollRunPage } from '../../app/poll-runs.ts';

/**
 * Bearer ADMIN_TOKEN on every request, under the same guess throttle as the sign-in form: a wrong
 * token is 401, and too many from an address (or from everywhere) are 429 with Retry-After.
 */
export type AdminGuardDeps = Pick<AppDeps, 'adminToken'> & Omit<AdminTokenCheckDeps, 'adminToken'>;

export function requireAdmin(deps: AdminGuardDeps): MiddlewareHandler {
  const check = deps.adminToken ? createAdminTokenCheck({ ...deps, adminToken: deps.adminToken }) : null;
  return async (c, next) => {
    if (!check) throw new ApiError(403, 'admin_disabled', 'set ADMIN_TOKEN to enable the admin API');
    const match = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '');
    const result = await check(c, match?.[1]?.trim() ?? '');
    if (result.outcome === 'throttled') {
      throw new ApiError(429, 'too_many_guesses', `too many wrong admin tokens; try again in ${result.retryAfterSeconds} s`, {
        'retry-after': String(result.retryAfterSeconds),
      });
    }
    if (result.outcome === 'wrong') {
      c.header('WWW-Authenticate', 'Bearer realm="statuswatch admin"');
      throw new ApiError(401, 'unauthorized', 'expected Authorization: Bearer <ADMIN_TOKEN>');
    }
    await next();
  };
}

export type AdminRouteDeps = AdminGuardDeps &
  Pick<AppDeps, 'poller' | 'sourcePoller' | 'cursors'> & { store: Pick<ArchiveQueries, 'listPollRuns' | 'getPollRun'> };

export function adminRoutes(deps: AdminRouteDeps) {
  const app = new Hono();
  app.use('/api/admin/*', requireAdmin(deps));

  app.post('/api/admin/poll', async (c) => {
    const only = c.req.query('source');
    if (only !== undefined && only !== MAIN_FEED_SOURCE) {
      const one = await deps.sourcePoller.pollSource(only);
      if (one.status === 'skipped' && one.reason === 'no such source') throw new ApiError(404, 'source_not_found', `no source with the id ${only}`);
      if (one.status === 'skipped') throw new ApiError(409, 'poll_in_progress', 'another poll of this source is running; try again shortly');
      return c.json({ ok: true, sources: [toApiSourcePollResult(one)] });
    }
    // Side by side: a slow page never holds back the main feed's poll, nor the main feed a page's.
    const [result, sources] = await Promise.all([deps.poller.pollOnce(), only === undefined ? deps.sourcePoller.pollAll() : []]);
    if (result.status === 'skipped') throw new ApiError(409, 'poll_in_progress', 'another poll is running; try again shortly');
    return c.json({ ...toApiPollResult(result), sources: sources.map(toApiSourcePollResult) });
  });

  app.get('/api/admin/polls', async (c) => {
    const request = { list: 'polls', ...pageRequest(c), beforeStartedAt: epochMsParam(c.req.query('before')) };
    const { page, next } = await pollRunPage(deps, request);
    return c.json({ ok: true, polls: page.map(toApiPollRun), response_metadata: { next_cursor: next } });
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
