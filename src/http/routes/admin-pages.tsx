/**
 * The admin pages under `/admin`: sign-in with ADMIN_TOKEN (a session cookie) and the overview;
 * each resource's pages (subscriptions, deliveries, poll runs, the app, the directory) in its own
 * module, registered here behind the session. The same powers as the admin JSON API, for a browser.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { subscriptionTitles } from '../../app/subscription-titles.ts';
import { randomSecret } from '../../core/cursor.ts';
import { ApiError } from '../../core/errors.ts';
import { feedState } from '../../core/feed-state.ts';
import { ADMIN_DEVICE_MS, ADMIN_SESSION_MS, adminCookies, createAdminSessions, type AdminSession, type AdminSessions } from '../admin-session.ts';
import { createAdminTokenCheck } from '../admin-token-check.ts';
import type { AppDeps } from '../deps.ts';
import type { AdminAccessStore, ArchiveQueries, OutboxStore, SubscriptionStore } from '../../core/ports.ts';
import type { AdminGuardDeps } from './admin.ts';
import { formValue, readForm } from '../form-body.ts';
import { sameOriginForms } from '../form-origin.ts';
import type { AdminEnv, AdminPageTools } from '../admin-page-tools.ts';
import { type AdminAppPageDeps, registerAdminAppPages } from './admin-app-pages.tsx';
import { type AdminDeliveryPageDeps, registerAdminDeliveryPages } from './admin-delivery-pages.tsx';
import { type AdminPollPageDeps, registerAdminPollPages } from './admin-poll-pages.tsx';
import { type AdminSourcePageDeps, registerAdminSourcePages } from './admin-source-pages.tsx';
import { type AdminSubscriptionPageDeps, registerAdminSubscriptionPages } from './admin-subscription-pages.tsx';
import { type AdminDirectoryPageDeps, registerAdminDirectoryPages } from './admin-directory-pages.tsx';
import { AdminFrame, SignInPage } from '../pages/admin-frame.tsx';
import { type FailingSubscription, type Known, OverviewPage } from '../pages/admin-overview-page.tsx';
import { ErrorMessage } from '../pages/error-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';

/** The overview's lists are short by design: each links to the whole, paginated list. */
const OVERVIEW_POLLS = 5;
const OVERVIEW_FAILING = 10;
/** Where the overview looks for a failing subscription's last error: its newest deliveries. */
const RECENT_DELIVERIES_FOR_ERROR = 5;
const FORM_MAX_BYTES = 16 * 1024;

/** The sign-in and the overview's own reads, and what each resource's pages declare. */
export type AdminPageDeps = AdminGuardDeps &
  Pick<AppDeps, 'publicUrl' | 'assets'> & {
    store: AdminAccessStore &
      Pick<ArchiveQueries, 'secret' | 'feedHealth' | 'listPollRuns'> &
      Pick<OutboxStore, 'deliveryCounts' | 'listDeliveries'> &
      Pick<SubscriptionStore, 'listSubscriptions'>;
  } & AdminSubscriptionPageDeps &
  AdminDeliveryPageDeps &
  AdminPollPageDeps &
  AdminAppPageDeps &
  AdminDirectoryPageDeps &
  AdminSourcePageDeps;

export function adminPageRoutes(deps: AdminPageDeps) {
  const { store, clock } = deps;
  const app = new Hono<AdminEnv>();
  let sessionsReady: Promise<AdminSessions> | null = null;
  // Its own key, made on first use and kept with the archive: sessions survive a restart (but not
  // a new ADMIN_TOKEN). Only called once the middleware below has checked that a token is set.
  // A failed first use (the database locked or full while the key is written) is forgotten, so
  // the next request tries again instead of every sign-in failing until a restart.
  const sessions = () => {
    if (sessionsReady) return sessionsReady;
    const ready = store.secret('admin-session', () => randomSecret()).then((secret) => createAdminSessions(secret, deps.adminToken!, store));
    sessionsReady = ready;
    ready.catch(() => {
      if (sessionsReady === ready) sessionsReady = null;
    });
    return ready;
  };
  const checkToken = deps.adminToken ? createAdminTokenCheck({ ...deps, adminToken: deps.adminToken }) : null;
  const cookie = adminCookies(deps.publicUrl);
  // Path=/admin keeps the cookies off every other request.
  const cookieOptions = { httpOnly: true, sameSite: 'Strict' as const, secure: cookie.secure, path: '/admin' };

  const page = pageResponder(deps.assets, ' · admin');
  const adminPage = (c: Context<AdminEnv>, title: string, body: Child, notice: string | null = null, status: ContentfulStatusCode = 200) =>
    page(
      c,
      title,
      <AdminFrame path={c.req.path} csrf={c.get('csrf')} title={title} notice={notice}>
        {body}
      </AdminFrame>,
      status,
    );
  const problem = (c: Context, status: ContentfulStatusCode, title: string, message: string, back = '/admin') =>
    page(
      c,
      title,
      <ErrorMessage title={title} message={message}>
        <p>
          <a href={back}>Go back</a>
        </p>
      </ErrorMessage>,
      status,
    );
  /** The service's refusals (404 no such subscription, 409 not confirmed) as a page. */
  const refused = (c: Context, error: unknown, back: string) => {
    if (!(error instanceof ApiError)) throw error;
    return problem(c, error.status as ContentfulStatusCode, error.status === 404 ? 'Not found' : 'Not done', error.detail ?? error.code, back);
  };

  // no-store: admin pages show addresses and delivery logs that no cache should keep.
  app.use('/admin/*', pageSecurity({ forms: true, noStore: true }));
  app.use('/admin/*', async (c, next) => {
    if (!deps.adminToken) return problem(c, 403, 'Admin area disabled', 'Set ADMIN_TOKEN to enable the admin pages.', '/');
    await next();
  });
  app.use('/admin/*', bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => problem(c, 413, 'Form too large', 'That was more than an admin form holds.') }));
  app.use(
    '/admin/*',
    sameOriginForms(deps.publicUrl, (c) => problem(c, 403, 'Form refused', 'This form was sent from another site, so it was not accepted.')),
  );
  app.use('/admin/*', requireSession());

  app.get('/admin/sign-in', async (c) => {
    if (await currentSession(c)) return c.redirect('/admin', 303);
    return page(c, 'Sign in', <SignInPage next={safeNext(c.req.query('next'))} />);
  });

  app.post('/admin/sign-in', async (c) => {
    const form = await readForm(c);
    const next = safeNext(formValue(form.next));
    const token = formValue(form.token);
    // Never a lockout: the throttle asks for a wait of seconds, then the right token gets in.
    const all = await sessions();
    const deviceId = await all.readDevice(getCookie(c, cookie.device));
    const result = await checkToken!(c, token, deviceId);
    if (result.outcome === 'throttled') {
      c.header('retry-after', String(result.retryAfterSeconds));
      const error = `Too many wrong tokens. Wait ${result.retryAfterSeconds} second${result.retryAfterSeconds === 1 ? '' : 's'} and try again.`;
      return page(c, 'Sign in', <SignInPage next={next} error={error} />, 429);
    }
    if (result.outcome === 'wrong') {
      return page(c, 'Sign in', <SignInPage next={next} error="That is not the admin token. Check it and try again." />, 401);
    }
    const issued = await all.issue(clock.now());
    setCookie(c, cookie.session, issued.cookie, { ...cookieOptions, maxAge: ADMIN_SESSION_MS / 1000 });
    if (!deviceId) setCookie(c, cookie.device, await all.issueDevice(), { ...cookieOptions, maxAge: ADMIN_DEVICE_MS / 1000 });
    return c.redirect(next, 303);
  });

  // Ends the session on the server too: the old cookie opens nothing afterwards.
  app.post('/admin/sign-out', async (c) => {
    await (await sessions()).end(getCookie(c, cookie.session));
    deleteCookie(c, cookie.session, cookieOptions);
    return c.redirect('/admin/sign-in', 303);
  });

  app.get('/admin', async (c) => {
    const now = clock.now();
    // Each part on its own: one that cannot be read says "unknown" while the others still show.
    const [feed, polls, outbox, failing] = await Promise.all([
      known(store.feedHealth().then((health) => feedState(health, now))),
      known(store.listPollRuns(null, OVERVIEW_POLLS)),
      known(store.deliveryCounts(now)),
      known(failingSubscriptions()),
    ]);
    return adminPage(c, 'Admin', <OverviewPage data={{ now, feed, polls, outbox, failing }} />);
  });

  /** The first failing subscriptions, each with the error of its latest failed delivery. */
  async function failingSubscriptions(): Promise<{ list: FailingSubscription[]; more: boolean }> {
    const rows = await store.listSubscriptions({ failing: true }, null, OVERVIEW_FAILING + 1);
    const shown = rows.slice(0, OVERVIEW_FAILING);
    const titles = await subscriptionTitles(deps, shown);
    const list = await Promise.all(
      shown.map(async (subscription) => {
        const recent = await store.listDeliveries({ subscriptionId: subscription.id }, null, RECENT_DELIVERIES_FOR_ERROR);
        const title = titles.get(subscription.id) ?? { title: subscription.target, detail: null };
        return { subscription, title, lastError: recent.find((d) => d.lastError !== null)?.lastError ?? null };
      }),
    );
    return { list, more: rows.length > OVERVIEW_FAILING };
  }

  const tools: AdminPageTools = { adminPage, problem, refused };
  registerAdminSubscriptionPages(app, deps, tools);
  registerAdminDeliveryPages(app, deps, tools);
  registerAdminPollPages(app, deps, tools);
  registerAdminAppPages(app, deps, tools);
  registerAdminDirectoryPages(app, deps, tools);
  registerAdminSourcePages(app, deps, tools);

  app.all('/admin/*', (c) => problem(c, 404, 'Not found', `There is no admin page at ${c.req.path.slice(0, 100)}.`));

  return app;

  async function currentSession(c: Context): Promise<AdminSession | null> {
    return (await sessions()).read(getCookie(c, cookie.session), clock.now());
  }

  /**
   * Every page but sign-in needs a session; every post also needs the session's CSRF token (the
   * Origin check above is the first line; the token holds where a browser sends no Origin).
   */
  function requireSession(): MiddlewareHandler<AdminEnv> {
    return async (c, next) => {
      if (c.req.path === '/admin/sign-in') return next();
      const session = await currentSession(c);
      if (!session) {
        if (c.req.method === 'GET' || c.req.method === 'HEAD') {
          const url = new URL(c.req.url);
          return c.redirect(`/admin/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
        }
        return problem(c, 401, 'Signed out', 'Your admin session has ended. Sign in again, then repeat what you were doing.', '/admin/sign-in');
      }
      const all = await sessions();
      c.set('session', session);
      c.set('csrf', await all.csrfToken(session));
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !(await all.checkCsrf(session, formValue((await readForm(c)).csrf)))) {
        return problem(c, 403, 'Form expired', 'This form is from an earlier session or another page. Open the page again and repeat.');
      }
      await next();
    };
  }
}

/** Where to go after signing in: an admin path, never another site (`//evil.example` is one). */
function safeNext(raw: string | undefined): string {
  if (!raw || !/^\/admin(?:[/?]|$)/.test(raw) || raw.startsWith('//') || raw.includes('\\')) return '/admin';
  return raw;
}

/** A part of a page read on its own: its value, or why it is unknown. */
async function known<T>(reading: Promise<T>): Promise<Known<T>> {
  try {
    return { ok: true, value: await reading };
  } catch (error) {
    return { ok: false, error: (error instanceof Error ? error.message : String(error)).slice(0, 200) };
  }
}
