/** The admin pages of poll runs (registered by admin-pages.tsx): the newest first, and each run with what it rejected. */
import type { Hono } from 'hono';
import { ADMIN_PAGE_SIZE as PAGE_SIZE, type AdminEnv, type AdminPageTools } from '../admin-page-tools.ts';
import type { ArchiveQueries } from '../../core/ports.ts';
import { PollPage, PollsPage } from '../pages/admin-polls-page.tsx';

export type AdminPollPageDeps = { store: Pick<ArchiveQueries, 'listPollRuns' | 'getPollRun'> };

export function registerAdminPollPages(app: Hono<AdminEnv>, { store }: AdminPollPageDeps, { adminPage, problem }: AdminPageTools): void {
  app.get('/admin/polls', async (c) => {
    const before = Number(c.req.query('before'));
    const runs = await store.listPollRuns(Number.isFinite(before) && before > 0 ? before : null, PAGE_SIZE);
    const last = runs.at(-1);
    const olderHref = runs.length === PAGE_SIZE && last ? `/admin/polls?before=${last.startedAt}` : null;
    return adminPage(c, 'Poll runs', <PollsPage runs={runs} olderHref={olderHref} onFirstPage={c.req.query('before') === undefined} />);
  });

  app.get('/admin/polls/:id', async (c) => {
    const found = await store.getPollRun(c.req.param('id'));
    if (!found) return problem(c, 404, 'Not found', 'No poll run with that id.', '/admin/polls');
    return adminPage(c, 'Poll run', <PollPage run={found.run} rejected={found.rejected} />);
  });
}
