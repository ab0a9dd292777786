/**
 * The admin page of sources, under the admin session and its CSRF checks (registered by
 * admin-pages.tsx): the same use cases as POST /api/admin/sources and DELETE
 * /api/admin/sources/:id (with `?purge=true`), so a page is checked and refused in the same words.
 */
import type { Context, Hono } from 'hono';
import { ApiError } from '../../core/errors.ts';
import type { AdminEnv, AdminPageTools } from '../admin-page-tools.ts';
import type { AppDeps } from '../deps.ts';
import { formValue, readForm } from '../form-body.ts';
import { AdminSourcesPage } from '../pages/admin-sources-page.tsx';

const NOTICES: Record<string, string> = {
  added: 'Added: it is watched from the next poll on.',
  removed: 'Removed: it is no longer watched; what it archived is kept.',
  purged: 'Removed, and everything it archived deleted.',
  purging: 'Removed: it is no longer watched, and its archive is being deleted; what is left goes within minutes.',
};

export type AdminSourcePageDeps = Pick<AppDeps, 'sources'>;

export function registerAdminSourcePages(app: Hono<AdminEnv>, deps: AdminSourcePageDeps, tools: AdminPageTools): void {
  const show = async (c: Context<AdminEnv>, form: { url: string; name: string }, error: string | null, status: 200 | 400 | 409 = 200) =>
    tools.adminPage(
      c,
      'Sources',
      <AdminSourcesPage data={{ sources: await deps.sources.list(), csrf: c.get('csrf'), form, error }} />,
      error ? null : (NOTICES[c.req.query('done') ?? ''] ?? null),
      status,
    );

  app.get('/admin/sources', (c) => show(c, { url: '', name: '' }, null));

  app.post('/admin/sources', async (c) => {
    const body = await readForm(c);
    const form = { url: formValue(body.url), name: formValue(body.name) };
    try {
      await deps.sources.add({ kind: 'statuspage', url: form.url, ...(form.name.trim() ? { name: form.name } : {}) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Refused: the form comes back as typed, with the reason.
      return show(c, form, error.detail ?? error.code, error.status === 409 ? 409 : 400);
    }
    return c.redirect('/admin/sources?done=added', 303);
  });

  app.post('/admin/sources/:id/remove', async (c) => {
    try {
      if (!(await deps.sources.remove(c.req.param('id')))) return tools.problem(c, 404, 'Not found', 'No source with that id.', '/admin/sources');
    } catch (error) {
      return tools.refused(c, error, '/admin/sources');
    }
    return c.redirect('/admin/sources?done=removed', 303);
  });

  app.post('/admin/sources/:id/purge', async (c) => {
    let outcome: Awaited<ReturnType<typeof deps.sources.purge>>;
    try {
      outcome = await deps.sources.purge(c.req.param('id'));
    } catch (error) {
      return tools.refused(c, error, '/admin/sources');
    }
    if (!outcome) return tools.problem(c, 404, 'Not found', 'No source with that id.', '/admin/sources');
    return c.redirect(`/admin/sources?done=${outcome.archive === 'deleted' ? 'purged' : 'purging'}`, 303);
  });
}
