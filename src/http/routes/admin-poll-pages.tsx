/** The admin pages of poll runs (registered by admin-pages.tsx): the newest first, and each run with what it rejected. */
import type { Hono } from 'hono';
import { ADMIN_PAGE_SIZE as PAGE_SIZE, type AdminEnv, type AdminPageTools } from '../admin-page-tools.ts';
import type { ArchiveQueries, PollRun } from '../../core/ports.ts';
import { ApiError } from '../../core/errors.ts';
import { pollRunPage, type PollRunDeps } from '../../app/poll-runs.ts';
import { epochMsParam } from '../query-params.ts';
import { PollPage, PollsPage } from '../pages/admin-polls-page.tsx';

export type AdminPollPageDeps = PollRunDeps & { store: Pick<ArchiveQueries, 'getPollRun'> };

export function registerAdminPollPages(app: Hono<AdminEnv>, deps: AdminPollPageDeps, { adminPage, problem }: AdminPageTools): void {
  const { store } = deps;
  app.get('/admin/polls', async (c) => {
    const cursor = c.req.query('cursor');
    const before = c.req.query('before');
    let runs: PollRun[];
    let next: string;
    try {
      ({ page: runs, next } = await pollRunPage(deps, { list: 'admin-polls', cursor, limit: PAGE_SIZE, beforeStartedAt: epochMsParam(before) }));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_cursor') throw error;
      return problem(c, 400, 'Page link not valid', 'The link to this page of poll runs is not valid; start from the first page.', '/admin/polls');
    }
    const olderHref = next === '' ? null : `/admin/polls?cursor=${encodeURIComponent(next)}`;
    return adminPage(c, 'Poll runs', <PollsPage runs={runs} olderHref={olderHref} onFirstPage={!cursor && before === undefined} />);
  });

  app.get('/admin/polls/:id', async (c) => {
    const found = await store.getPollRun(c.req.param('id'));
    if (!found) return problem(c, 404, 'Not found', 'No poll run with that id.', '/admin/polls');
    return adminPage(c, 'Poll run', <PollPage run={found.run} rejected={found.rejected} />);
  });
}
