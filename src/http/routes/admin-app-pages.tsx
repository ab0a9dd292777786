/**
 * The admin pages of the workspace app, under the admin session and its CSRF checks
 * (registered by admin-pages.tsx): the installations, "Add to workspace" (the vendor's OAuth flow),
 * installing from a pasted token, and uninstalling.
 */
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { InstallError } from '../../app/workspace-app/installs.ts';
import { type InstallationListDeps, listInstallations } from '../../app/workspace-app/installation-lists.ts';
import { installFailureStatus } from '../../app/workspace-app/install-refusals.ts';
import type { AdminEnv, AdminPageTools } from '../admin-page-tools.ts';
import { browserInstallBinding, INSTALL_START_PATH, installBindingCookie } from '../app-install-binding.ts';
import type { AppDeps } from '../deps.ts';
import { formValue, readForm } from '../form-body.ts';
import { AdminAppPage } from '../pages/admin-app-page.tsx';

/** What a redirect after an action says on the next page; a fixed list, so no text comes from the URL. */
const NOTICES: Record<string, string> = {
  installed: 'Installed: the app can post to the workspace’s channels it is invited to.',
  uninstalled: 'Uninstalled: the vendor revoked its tokens and statuswatch removed its own copy.',
};

export type AdminAppPageDeps = Pick<AppDeps, 'publicUrl' | 'appInstalls'> & InstallationListDeps;

export function registerAdminAppPages(app: Hono<AdminEnv>, deps: AdminAppPageDeps, tools: AdminPageTools): void {
  const binding = installBindingCookie(deps.publicUrl);

  const listPage = async (c: Context<AdminEnv>, notice: string | null, tokenError: string | null = null, status: ContentfulStatusCode = 200) => {
    const installations = await listInstallations(deps);
    const data = { installations, csrf: c.get('csrf'), configured: deps.appInstalls !== undefined, tokenError };
    return tools.adminPage(c, 'Workspace app', <AdminAppPage data={data} />, notice, status);
  };

  app.get('/admin/app', (c) => listPage(c, NOTICES[c.req.query('done') ?? ''] ?? null));

  // A link, not a form: the page's CSP (form-action 'self') would stop a form's redirect to the
  // vendor. A GET from another site carries no admin session (SameSite=Strict), so it only ever
  // reaches the sign-in page; what it makes is one bounded, expiring state.
  app.get(INSTALL_START_PATH, async (c) => {
    if (!deps.appInstalls) return tools.problem(c, 503, 'App not configured', 'Set APP_CLIENT_ID and APP_CLIENT_SECRET to install the app.', '/admin/app');
    const team = (c.req.query('team') ?? '').trim();
    const { cookieValue, binding: hashed } = await browserInstallBinding(getCookie(c, binding.name));
    const { authorizeUrl } = await deps.appInstalls.startInstall(hashed, /^[A-Z0-9]{1,40}$/.test(team) ? { teamId: team } : {});
    setCookie(c, binding.name, cookieValue, binding.callback);
    setCookie(c, binding.name, cookieValue, binding.start);
    return c.redirect(authorizeUrl, 303);
  });

  app.post('/admin/app/installations', async (c) => {
    if (!deps.appInstalls) return tools.problem(c, 503, 'App not configured', 'Set APP_CLIENT_ID and APP_CLIENT_SECRET to install the app.', '/admin/app');
    const token = formValue((await readForm(c)).token).trim();
    if (token === '') return listPage(c, null, 'Paste the bot token to install with it.', 400);
    try {
      await deps.appInstalls.installFromToken(token);
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      return listPage(c, null, error.message, installFailureStatus(error));
    }
    return c.redirect('/admin/app?done=installed', 303);
  });

  app.post('/admin/app/installations/:id/uninstall', async (c) => {
    if (!deps.appInstalls) return tools.problem(c, 503, 'App not configured', 'Set APP_CLIENT_ID and APP_CLIENT_SECRET to uninstall.', '/admin/app');
    try {
      await deps.appInstalls.uninstall(c.req.param('id'));
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      return tools.problem(c, installFailureStatus(error), 'Not uninstalled', error.message, '/admin/app');
    }
    return c.redirect('/admin/app?done=uninstalled', 303);
  });
}
