/**
 * The OAuth callback of the workspace app, at the redirect URL the manifest lists. It
 * installs only for the browser that started the install from an admin session, with a state
 * usable once within ten minutes; every failure is a page that says what happened, never a stack.
 */
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { InstallError } from '../../app/workspace-app/installs.ts';
import { APP_PATHS } from '../../core/workspace-app/manifest.ts';
import { installBindingCookie, presentedBinding } from '../app-install-binding.ts';
import type { AppDeps } from '../deps.ts';
import { ErrorMessage } from '../pages/error-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { installFailureStatus } from '../../app/workspace-app/install-refusals.ts';

/** The vendor's parameters are short; anything longer is not theirs and is cut before use. */
const PARAM_MAX_CHARS = 500;

export function appOAuthRoutes(deps: Pick<AppDeps, 'assets' | 'publicUrl' | 'appInstalls'>) {
  const app = new Hono();
  const page = pageResponder(deps.assets, ' · admin');
  const binding = installBindingCookie(deps.publicUrl);
  const failed = (c: Parameters<typeof page>[0], status: Parameters<typeof page>[3], title: string, message: string) =>
    page(
      c,
      title,
      <ErrorMessage title={title} message={message}>
        <p>
          <a href="/admin/app">Back to the workspace app</a>
        </p>
      </ErrorMessage>,
      status,
    );

  app.use(APP_PATHS.oauthRedirect, pageSecurity({ forms: false, noStore: true }));
  app.get(APP_PATHS.oauthRedirect, async (c) => {
    if (!deps.appInstalls) return failed(c, 503, 'App not configured', 'Set APP_CLIENT_ID and APP_CLIENT_SECRET to install the app.');
    const param = (name: string) => c.req.query(name)?.slice(0, PARAM_MAX_CHARS) ?? null;
    // The cookie stays: another install tab of this browser may still come back with its state.
    const shown = await presentedBinding(getCookie(c, binding.name));
    try {
      await deps.appInstalls.finishInstall({ state: param('state'), code: param('code'), error: param('error'), binding: shown });
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      const title = error.failure === 'denied' ? 'Install cancelled' : 'Not installed';
      return failed(c, installFailureStatus(error), title, error.message);
    }
    return c.redirect('/admin/app?done=installed', 303);
  });
  return app;
}
